package figures

import (
	"fmt"
	"testing"
)

func TestSweepPublishedSaturation(t *testing.T) {
	// Max concurrency 256 → 512 → 1024. At 512 two isolated runs (45,941 and
	// 46,701 tok/s, medians about 20 s) combine to the conservative 45,941
	// at 20.04 s; one step more buys +0.91% for 20.04 s → 29.85 s.
	pts := []SweepPoint{
		{RunID: "c1024", Param: 1024, Throughput: 45941 * 1.0091, MedianLatency: 29.85},
		{RunID: "c512a", Param: 512, Throughput: 45941, MedianLatency: 19.96},
		{RunID: "c256", Param: 256, Throughput: 41651, MedianLatency: 11.70},
		{RunID: "c512b", Param: 512, Throughput: 46701, MedianLatency: 20.04},
	}
	s, err := Sweep(pts, DefaultSaturationRule)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Levels) != 3 || len(s.Steps) != 2 {
		t.Fatalf("levels %+v", s.Levels)
	}
	l := s.Levels[1]
	if l.Throughput != 45941 || l.MedianLatency != 20.04 || l.N() != 2 || l.ThroughputRun != "c512a" || l.LatencyRun != "c512b" {
		t.Errorf("combined level %+v", l)
	}
	st := s.Steps[1]
	if g, lg := fmt.Sprintf("%+.2f%%", st.ThroughputGainPct), fmt.Sprintf("%+.1f%%", st.LatencyGrowthPct); g != "+0.91%" || lg != "+49.0%" || !st.Saturating {
		t.Errorf("step %s %s saturating %v", g, lg, st.Saturating)
	}
	if s.Steps[0].Saturating || !s.SaturationFound || s.Saturation != 1 || s.Recommended != 1 {
		t.Errorf("saturation %d recommended %d found %v", s.Saturation, s.Recommended, s.SaturationFound)
	}
	// A naive "highest throughput" pick is the 1024 level, 10 s more waiting.
	if s.RecommendedLevel().Param != 512 {
		t.Errorf("recommended %+v", s.RecommendedLevel())
	}
}

func TestSweepRule(t *testing.T) {
	mk := func(tp ...float64) []SweepPoint {
		var pts []SweepPoint
		for i := 0; i+1 < len(tp); i += 2 {
			pts = append(pts, SweepPoint{RunID: fmt.Sprint(i / 2), Param: float64(i/2 + 1), Throughput: tp[i], MedianLatency: tp[i+1]})
		}
		return pts
	}
	for _, c := range []struct {
		name        string
		pts         []SweepPoint
		rule        SaturationRule
		saturation  int
		recommended int
	}{
		{"still scaling", mk(100, 1, 180, 1.2, 250, 1.5), DefaultSaturationRule, -1, 2},
		{"flat throughput but latency barely grows", mk(100, 1, 101, 1.1, 101.5, 1.15), DefaultSaturationRule, -1, 2},
		{"first saturating step wins", mk(100, 1, 150, 1.2, 151, 2, 152, 4), DefaultSaturationRule, 1, 1},
		{"stricter rule", mk(100, 1, 103, 1.5), SaturationRule{MaxGainPct: 5, MinLatencyGrowthPct: 40}, 0, 0},
		{"default rule misses a 3% gain", mk(100, 1, 103, 1.5), DefaultSaturationRule, -1, 1},
		{"one point", mk(100, 1), DefaultSaturationRule, -1, 0},
		{"zero rule is the default", mk(100, 1, 100.5, 1.5), SaturationRule{}, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Sweep(c.pts, c.rule)
			if err != nil {
				t.Fatal(err)
			}
			if s.Saturation != c.saturation || s.Recommended != c.recommended || s.SaturationFound != (c.saturation >= 0) {
				t.Errorf("saturation %d recommended %d found %v", s.Saturation, s.Recommended, s.SaturationFound)
			}
		})
	}
	if _, err := Sweep(nil, DefaultSaturationRule); err == nil {
		t.Error("empty sweep accepted")
	}
	if _, err := Sweep([]SweepPoint{{RunID: "x", Param: 1, Throughput: 0, MedianLatency: 1}}, DefaultSaturationRule); err == nil {
		t.Error("zero throughput accepted")
	}
}
