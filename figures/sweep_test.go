package figures

import (
	"fmt"
	"math"
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

// TestSweepSLOPoint: the SLO operating point is the highest level that,
// with every lower level, meets the attainment target; repeats count with
// their lowest attainment.
func TestSweepSLOPoint(t *testing.T) {
	t.Parallel()
	g := func(att float64) *Goodput { return &Goodput{Good: 1, Completed: 1, Goodput: att / 10, Attainment: att} }
	pts := []SweepPoint{
		{RunID: "c64", Param: 64, Throughput: 100, MedianLatency: 1, GPUs: 2, SLO: g(100)},
		{RunID: "c128", Param: 128, Throughput: 190, MedianLatency: 1.1, GPUs: 2, SLO: g(99)},
		{RunID: "c256a", Param: 256, Throughput: 300, MedianLatency: 1.5, GPUs: 2, SLO: g(95)},
		{RunID: "c256b", Param: 256, Throughput: 310, MedianLatency: 1.4, GPUs: 2, SLO: g(89.9)},
		{RunID: "c512", Param: 512, Throughput: 400, MedianLatency: 3, GPUs: 2, SLO: g(92)}, // above the target again, after a level below it
	}
	s, err := Sweep(pts, SaturationRule{SLOAttainmentPct: 90})
	if err != nil {
		t.Fatal(err)
	}
	if s.Rule.MaxGainPct != DefaultSaturationRule.MaxGainPct || s.Rule.MinLatencyGrowthPct != DefaultSaturationRule.MinLatencyGrowthPct {
		t.Errorf("rule %+v: the saturation thresholds default with an SLO target given", s.Rule)
	}
	if !s.SLOPointFound || s.SLOPoint != 1 || s.Levels[1].Param != 128 {
		t.Errorf("SLO point %d (found %v), want level 1 (128)", s.SLOPoint, s.SLOPointFound)
	}
	if l := s.Levels[2]; *l.SLOAttainment != 89.9 || math.Abs(*l.Goodput-8.99) > 1e-12 || *l.ThroughputPerGPU != 150 {
		t.Errorf("level 256 %+v: the lowest attainment of its repeats, throughput 300 / 2 GPUs", l)
	}
	// Target 89: 256 meets it, 512 too: the last level.
	if s, _ := Sweep(pts, SaturationRule{SLOAttainmentPct: 89}); s.SLOPoint != 3 {
		t.Errorf("target 89: SLO point %d, want 3", s.SLOPoint)
	}
	// The lowest level misses it: none.
	if s, _ := Sweep(pts, SaturationRule{SLOAttainmentPct: 100.0}); s.SLOPoint != 0 {
		t.Errorf("target 100: SLO point %d, want 0", s.SLOPoint)
	}
	pts[0].SLO = g(50)
	if s, _ := Sweep(pts, SaturationRule{SLOAttainmentPct: 90}); s.SLOPointFound || s.SLOPoint != -1 {
		t.Errorf("first level misses: SLO point %d found %v", s.SLOPoint, s.SLOPointFound)
	}
	// No target, or no SLO: no point.
	if s, _ := Sweep(pts, DefaultSaturationRule); s.SLOPointFound {
		t.Error("SLO point without a target")
	}
	for i := range pts {
		pts[i].SLO = nil
	}
	if s, _ := Sweep(pts, SaturationRule{SLOAttainmentPct: 90}); s.SLOPointFound || s.Levels[0].SLOAttainment != nil {
		t.Error("SLO point without an SLO")
	}
}
