package figures

import (
	"math"
	"slices"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
)

func TestPercentileMethods(t *testing.T) {
	ten := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	hundred := make([]float64, 100)
	for i := range hundred {
		hundred[i] = float64(i + 1)
	}
	for _, c := range []struct {
		name   string
		sorted []float64
		p      float64
		m      PercentileMethod
		want   float64
	}{
		// numpy.percentile(range(1,11), 99) = 9.91; the nearest rank is the
		// max; a naive "same p99 for every tool" would mix 9.91 and 10.
		{"linear p99 of 10", ten, 99, MethodLinear, 9.91},
		{"nearest-rank p99 of 10", ten, 99, MethodNearestRank, 10},
		{"lower-index p99 of 10", ten, 99, MethodLowerIndex, 10},
		{"linear p50 of 10", ten, 50, MethodLinear, 5.5},
		{"nearest-rank p50 of 10", ten, 50, MethodNearestRank, 5},
		{"lower-index p50 of 10", ten, 50, MethodLowerIndex, 6},
		{"default method is linear", ten, 50, "", 5.5},
		// The CDF reaches exactly 0.99 at the 99th value: the nearest rank
		// must not skip to the 100th through rounding.
		{"nearest-rank p99 of 100", hundred, 99, MethodNearestRank, 99},
		{"nearest-rank p99.9 of 100", hundred, 99.9, MethodNearestRank, 100},
		{"nearest-rank p0", ten, 0, MethodNearestRank, 1},
		{"nearest-rank p100", ten, 100, MethodNearestRank, 10},
		// int(100 * 0.29) is 28 in Python: the tool's own arithmetic picks
		// sorted[28] = 29 where exact arithmetic would pick sorted[29] = 30.
		{"lower-index mirrors the tool's float truncation", hundred, 29, MethodLowerIndex, 29},
		{"lower-index p100 clamps", ten, 100, MethodLowerIndex, 10},
		{"lower-index p0", ten, 0, MethodLowerIndex, 1},
		{"linear p99.9 of 100", hundred, 99.9, MethodLinear, 99.901},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Percentile(c.sorted, c.p, c.m); math.Abs(got-c.want) > 1e-9 {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
	n, p := 100.0, 29.0
	if int(n*(p/100)) != 28 {
		t.Fatal("premise: 100·0.29 truncates to 28 in float64")
	}
	for _, c := range []struct {
		sorted []float64
		p      float64
		m      PercentileMethod
	}{{nil, 50, MethodLinear}, {ten, -1, MethodNearestRank}, {ten, 101, MethodLowerIndex}, {ten, math.NaN(), MethodLinear}, {ten, 50, "median-of-medians"}} {
		if got := Percentile(c.sorted, c.p, c.m); !math.IsNaN(got) {
			t.Errorf("Percentile(%v, %v, %q) = %v, want NaN", c.sorted, c.p, c.m, got)
		}
	}
}

func TestParsePercentileMethod(t *testing.T) {
	for in, want := range map[string]PercentileMethod{"": MethodLinear, "Linear": MethodLinear, "nearest-rank": MethodNearestRank,
		"guidellm": MethodNearestRank, "lower-index": MethodLowerIndex, "sorted[int(n*p)]": MethodLowerIndex} {
		if got, err := ParsePercentileMethod(in); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
	if _, err := ParsePercentileMethod("hazen"); err == nil {
		t.Error("unknown method accepted")
	}
}

func TestRecomputeOptions(t *testing.T) {
	var reqs []benchrun.Request
	for i := range 10 {
		reqs = append(reqs, req(float64(i), 0.1, float64(i+1), 10, ""))
	}
	def := Recompute(reqs, 0, 0)
	if def.PercentileMethod != MethodLinear || !slices.Equal(def.Percentiles, Percentiles) {
		t.Fatalf("default: %q %v", def.PercentileMethod, def.Percentiles)
	}
	if def.E2EL.P[99] != 9.91 && math.Abs(def.E2EL.P[99]-9.91) > 1e-12 {
		t.Errorf("linear p99 = %v", def.E2EL.P[99])
	}
	nr := Recompute(reqs, 0, 0, Options{Percentiles: []float64{50, 99, 99.9}, Method: MethodNearestRank})
	if nr.PercentileMethod != MethodNearestRank || nr.E2EL.Method != MethodNearestRank {
		t.Errorf("method not recorded: %q %q", nr.PercentileMethod, nr.E2EL.Method)
	}
	if nr.E2EL.P[99] != 10 || nr.E2EL.P[99.9] != 10 || nr.E2EL.Median != 5 {
		t.Errorf("nearest-rank: p99 %v p99.9 %v median %v", nr.E2EL.P[99], nr.E2EL.P[99.9], nr.E2EL.Median)
	}
	if _, ok := nr.E2EL.P[90]; ok {
		t.Error("p90 computed though not requested")
	}
	// The kept values let another method be read later.
	if got := nr.E2EL.Percentile(99, MethodLinear); math.Abs(got-9.91) > 1e-12 {
		t.Errorf("linear p99 from a nearest-rank Stat = %v", got)
	}
	// Population standard deviation of 1..10 is √8.25.
	if math.Abs(def.E2EL.Std-math.Sqrt(8.25)) > 1e-12 {
		t.Errorf("std = %v, want population √8.25", def.E2EL.Std)
	}
	if s := Summarise(nil); !math.IsNaN(s.Std) || !math.IsNaN(s.Median) {
		t.Errorf("empty: %+v", s)
	}
}
