package figures

import (
	"math"
	"testing"
)

func ms(vals ...float64) []Measurement {
	out := make([]Measurement, len(vals))
	for i, v := range vals {
		out[i] = Measurement{RunID: "r" + string(rune('a'+i)), Value: v}
	}
	return out
}

func TestRepeatsConservative(t *testing.T) {
	for _, c := range []struct {
		name          string
		vals          []float64
		dir           Direction
		cons, best    float64
		consRun       string
		median        float64
		single        bool
		ciWarningNeed int
	}{
		// The published node runs: the lower is the capacity figure; a
		// best-of-n report would have said 362,812.
		{"published node runs", []float64{362812, 361679}, HigherIsBetter, 361679, 362812, "rb", 362245.5, false, 6},
		{"throughput: min, not best-of-n", []float64{110, 100, 120}, HigherIsBetter, 100, 120, "rb", 110, false, 6},
		{"latency: max, not best-of-n", []float64{11.7, 12.4, 11.2}, LowerIsBetter, 12.4, 11.2, "rb", 11.7, false, 6},
		{"single measurement", []float64{41651}, HigherIsBetter, 41651, 41651, "ra", 41651, true, 6},
		{"enough for an interval", []float64{10, 11, 12, 13, 14, 15, 16, 17, 18, 19}, HigherIsBetter, 10, 19, "ra", 14.5, false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Repeats(ms(c.vals...), c.dir)
			if err != nil {
				t.Fatal(err)
			}
			if r.Conservative != c.cons || r.Best != c.best || r.ConservativeRun != c.consRun {
				t.Errorf("conservative %v (%s), best %v; want %v (%s), %v", r.Conservative, r.ConservativeRun, r.Best, c.cons, c.consRun, c.best)
			}
			if r.Median != c.median || r.N != len(c.vals) || r.Single() != c.single {
				t.Errorf("median %v n %d single %v", r.Median, r.N, r.Single())
			}
			if c.ciWarningNeed > 0 {
				if len(r.Warnings) != 1 || r.Warnings[0].Code != WarnTooFewForCI || r.Warnings[0].Need != c.ciWarningNeed {
					t.Errorf("warnings %+v, want too few for a CI, need %d", r.Warnings, c.ciWarningNeed)
				}
				if !math.IsInf(r.Summary.Lo, -1) {
					t.Errorf("interval %+v should be unbounded", r.Summary)
				}
			} else if len(r.Warnings) != 0 || math.IsInf(r.Summary.Lo, 0) || r.Summary.Lo > r.Median || r.Summary.Hi < r.Median {
				t.Errorf("warnings %+v interval %+v", r.Warnings, r.Summary)
			}
		})
	}
	if _, err := Repeats(nil, HigherIsBetter); err == nil {
		t.Error("empty repeats accepted")
	}
	if _, err := Repeats(ms(1, math.NaN()), HigherIsBetter); err == nil {
		t.Error("NaN accepted")
	}
	if _, err := Repeats(ms(1), 0); err == nil {
		t.Error("unknown direction accepted")
	}
}

func TestCompareRepeats(t *testing.T) {
	base := []float64{100, 101, 99, 100.5, 99.5, 100.2, 99.8, 100.1, 99.9, 100.3}
	var cand []float64
	for _, v := range base {
		cand = append(cand, v*1.17)
	}
	s := CompareRepeats(base, cand)
	if !s.Significant || s.P > 0.001 || s.N1 != 10 || len(s.Warnings) != 0 {
		t.Errorf("10 vs 10, +17%%: %+v", s)
	}
	s = CompareRepeats(base[:3], cand[:3])
	if s.Significant || len(s.Warnings) != 1 || s.Warnings[0].Code != WarnTooFewToCompare || s.Warnings[0].Need != 4 {
		t.Errorf("3 vs 3: %+v", s)
	}
}

func TestDirectionOf(t *testing.T) {
	for m, want := range map[string]Direction{"output_throughput": HigherIsBetter, "node.output_throughput": HigherIsBetter,
		"scaling_efficiency": HigherIsBetter, "ttft.p99": LowerIsBetter, "e2el.median": LowerIsBetter, "failed": LowerIsBetter,
		"node.window": LowerIsBetter, "achieved_concurrency": 0} {
		if got := DirectionOf(m); got != want {
			t.Errorf("%s: %v, want %v", m, got, want)
		}
	}
}
