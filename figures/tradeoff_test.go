package figures

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

func TestMarkFrontier(t *testing.T) {
	pts := []TradeOffPoint{
		{Label: "a", PerGPU: 100, PerUser: 10}, // frontier: best per user
		{Label: "b", PerGPU: 200, PerUser: 8},  // frontier
		{Label: "c", PerGPU: 150, PerUser: 7},  // dominated by b
		{Label: "d", PerGPU: 300, PerUser: 2},  // frontier: best per GPU
		{Label: "e", PerGPU: 300, PerUser: 2},  // equal to d: neither dominates
		{Label: "f", PerGPU: 100, PerUser: 9},  // dominated by a (equal per GPU)
	}
	if err := MarkFrontier(pts); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"a": true, "b": true, "c": false, "d": true, "e": true, "f": false}
	for _, p := range pts {
		if p.Frontier != want[p.Label] {
			t.Errorf("%s: frontier %v, want %v", p.Label, p.Frontier, want[p.Label])
		}
	}
	if err := MarkFrontier([]TradeOffPoint{{Label: "x", PerGPU: math.NaN(), PerUser: 1}}); err == nil {
		t.Error("a point without per-GPU rate was accepted")
	}
}

func TestRates(t *testing.T) {
	f := &RunFigures{OutputThroughput: 800, TPOT: Stat{N: 3, Mean: 0.025}}
	if got := PerUserRate(f); math.Abs(got-40) > 1e-9 {
		t.Errorf("per user %v, want 40 (1 / 25 ms)", got)
	}
	if got := PerGPU(f.OutputThroughput, 8); got != 100 {
		t.Errorf("per GPU %v, want 100", got)
	}
	if !math.IsNaN(PerGPU(f.OutputThroughput, 0)) || !math.IsNaN(PerUserRate(&RunFigures{})) {
		t.Error("a rate without its GPU count or TPOT is a number")
	}
}

// checkECDF checks what every distribution function holds: increasing X,
// P in (0, 1] increasing and ending at 1, and each P the share of values
// at most X, counted here from the values.
func checkECDF(t *testing.T, values []float64, pts []CDFPoint, maxPts int) {
	t.Helper()
	if len(pts) == 0 || len(pts) > maxPts+1 {
		t.Fatalf("%d points for %d values, want 1 to %d", len(pts), len(values), maxPts+1)
	}
	s := append([]float64(nil), values...)
	sort.Float64s(s)
	for i, p := range pts {
		if i > 0 && (p.X <= pts[i-1].X || p.P <= pts[i-1].P) {
			t.Fatalf("point %d %+v does not rise from %+v", i, p, pts[i-1])
		}
		le := sort.Search(len(s), func(j int) bool { return s[j] > p.X })
		if want := float64(le) / float64(len(s)); p.P != want {
			t.Fatalf("point %d: P %v, but %d of %d values are ≤ %v", i, p.P, le, len(s), p.X)
		}
	}
	if last := pts[len(pts)-1]; last.P != 1 || last.X != s[len(s)-1] {
		t.Errorf("last point %+v, want (max %v, 1)", last, s[len(s)-1])
	}
	if pts[0].X != s[0] {
		t.Errorf("first point %+v, want the smallest value %v", pts[0], s[0])
	}
}

func TestECDF(t *testing.T) {
	small := []float64{3, 1, 2, 2, 5}
	pts := ECDF(small, 0)
	checkECDF(t, small, pts, MaxCDFPoints)
	if len(pts) != 4 { // the two 2s are one step
		t.Errorf("%d points for 4 distinct values: %+v", len(pts), pts)
	}
	r := rand.New(rand.NewPCG(1, 2))
	big := make([]float64, 10007)
	for i := range big {
		big[i] = math.Round(r.ExpFloat64()*100) / 10 // many ties
	}
	pts = ECDF(big, 200)
	checkECDF(t, big, pts, 200)
	if len(pts) < 50 {
		t.Errorf("only %d points kept of 10,007 values", len(pts))
	}
	if ECDF(nil, 0) != nil {
		t.Error("points without values")
	}
}
