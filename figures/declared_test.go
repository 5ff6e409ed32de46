package figures

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
)

// peakByEdges is PeakInFlight as first written: every send (+1) and
// completion (−1) sorted by time, a completion first at the same instant.
func peakByEdges(reqs []benchrun.Request) int {
	type edge struct {
		t     float64
		delta int
	}
	var es []edge
	for _, r := range reqs {
		if benchrun.IsKnown(r.Start) && benchrun.IsKnown(r.Latency) {
			es = append(es, edge{r.Start, 1}, edge{r.Start + r.Latency, -1})
		}
	}
	sort.Slice(es, func(i, j int) bool {
		if es[i].t != es[j].t {
			return es[i].t < es[j].t
		}
		return es[i].delta < es[j].delta
	})
	peak, cur := 0, 0
	for _, e := range es {
		cur += e.delta
		peak = max(peak, cur)
	}
	return peak
}

func TestPeakInFlight(t *testing.T) {
	req := func(start, latency float64) benchrun.Request {
		return benchrun.Request{Start: start, Latency: latency, TTFT: math.NaN()}
	}
	nan := math.NaN()
	cases := []struct {
		name string
		reqs []benchrun.Request
		want int
	}{
		{"none", nil, 0},
		{"one", []benchrun.Request{req(0, 1)}, 1},
		// One ends exactly when the next starts: not in flight together.
		{"back to back", []benchrun.Request{req(0, 1), req(1, 1), req(2, 1)}, 1},
		{"overlapping", []benchrun.Request{req(0, 2), req(1, 2), req(1.5, 0.1)}, 3},
		{"nested, out of order", []benchrun.Request{req(5, 1), req(0, 10), req(2, 1), req(2.5, 3)}, 3},
		{"unknown send or latency left out", []benchrun.Request{req(0, 5), req(nan, 5), req(1, nan), req(1, 1)}, 2},
		{"same start", []benchrun.Request{req(1, 1), req(1, 2), req(1, 3)}, 3},
	}
	for _, c := range cases {
		if got := PeakInFlight(c.reqs); got != c.want {
			t.Errorf("%s: PeakInFlight = %d, want %d", c.name, got, c.want)
		}
		if got := peakByEdges(c.reqs); got != c.want {
			t.Fatalf("%s: the reference gives %d, want %d", c.name, got, c.want)
		}
	}
	// Random runs with many equal times (a coarse clock), against the
	// reference.
	rng := rand.New(rand.NewPCG(21, 1))
	for n := range 300 {
		reqs := make([]benchrun.Request, n)
		for i := range reqs {
			reqs[i] = req(float64(rng.IntN(20)), float64(rng.IntN(6)))
		}
		if got, want := PeakInFlight(reqs), peakByEdges(reqs); got != want {
			t.Fatalf("%d requests: PeakInFlight = %d, the edge sort %d", n, got, want)
		}
	}
}

func TestDeclaredMismatches(t *testing.T) {
	reqs := []benchrun.Request{
		{Start: 0, Latency: 4, InputTokens: 100, OutputTokens: 70},
		{Start: 1, Latency: 4, InputTokens: 110, OutputTokens: 70},
		{Start: 2, Latency: 4, InputTokens: 120, OutputTokens: 80},
		// A failed request counts as a record and in flight, not in the means.
		{Start: 3, Latency: 0.5, InputTokens: 1000, OutputTokens: 1000, Error: "timeout"},
		{Start: 3, Latency: 0.5, InputTokens: -1, OutputTokens: -1},
	}
	eff := map[string]string{"workload.input_len": "64", "workload.output_len": "64",
		"workload.request_count": "4", "workload.concurrency": "3"}
	got := DeclaredMismatches(eff, reqs)
	want := []DeclaredMismatch{
		{Field: "workload.input_len", Declared: "64", Measured: "110.00", Reason: "the 3 completed requests average 110.00 input tokens"},
		{Field: "workload.output_len", Declared: "64", Measured: "73.33", Reason: "the 3 completed requests average 73.33 output tokens, more than declared"},
		{Field: "workload.request_count", Declared: "4", Measured: "5", Reason: "the file holds 5 request records"},
		{Field: "workload.concurrency", Declared: "3", Measured: "5", Reason: "up to 5 requests were in flight at once, more than the declared limit"},
	}
	if len(got) != len(want) {
		t.Fatalf("DeclaredMismatches = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("mismatch %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	// Within the declaration (and its tolerance), nothing.
	eff = map[string]string{"workload.input_len": "100-120", "workload.output_len": "73", "workload.request_count": "5", "workload.concurrency": "5"}
	if got := DeclaredMismatches(eff, reqs); len(got) != 0 {
		t.Errorf("DeclaredMismatches within the declaration = %+v, want none", got)
	}
	if got := DeclaredMismatches(eff, nil); got != nil {
		t.Errorf("DeclaredMismatches without records = %+v, want nil", got)
	}
}
