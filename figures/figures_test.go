package figures

import (
	"math"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
)

func TestPercentileLinear(t *testing.T) {
	// numpy.percentile([1,2,3,4], p) for these p.
	sorted := []float64{1, 2, 3, 4}
	for _, c := range []struct{ p, want float64 }{{0, 1}, {50, 2.5}, {90, 3.7}, {99, 3.97}, {100, 4}} {
		if got := PercentileLinear(sorted, c.p); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	// Nearest-rank would give 4 for p90 of 1..4; linear must not.
	if PercentileLinear(sorted, 90) == 4 {
		t.Error("p90 computed as nearest rank")
	}
}

func req(start, ttft, lat float64, out int32, errText string) benchrun.Request {
	return benchrun.Request{Start: start, TTFT: ttft, Latency: lat, InputTokens: 10, OutputTokens: out, Error: errText}
}

func TestRecomputeWindowAndThroughput(t *testing.T) {
	reqs := []benchrun.Request{
		req(100, 0.1, 2, 100, ""),
		req(101, 0.2, 3, 100, ""),   // ends at 104: the last completion
		req(100.5, 0, 0, 0, "boom"), // failed: counts in the window start only
	}
	f := Recompute(reqs, 999, 100)
	if f.Window != 4 || f.WindowBasis != "per-request records" {
		t.Fatalf("window = %v (%s), want 4 from records", f.Window, f.WindowBasis)
	}
	if f.OutputThroughput != 50 {
		t.Errorf("output throughput = %v, want 200/4", f.OutputThroughput)
	}
	if f.Completed != 2 || f.Failed != 1 || f.Short != 0 {
		t.Errorf("completion = %d/%d short %d", f.Completed, f.Failed, f.Short)
	}
	// A token count change moves the figure.
	reqs[0].OutputTokens = 60
	if g := Recompute(reqs, 0, 100); g.OutputThroughput != 40 || g.Short != 1 {
		t.Errorf("after changing a token count: %v tok/s, short %d", g.OutputThroughput, g.Short)
	}
	// A timestamp change moves the window.
	reqs[1].Start = 102
	if g := Recompute(reqs, 0, 0); g.Window != 5 {
		t.Errorf("after moving a start: window %v, want 5", g.Window)
	}
}

func TestRecomputeFallsBackToStatedDuration(t *testing.T) {
	reqs := []benchrun.Request{req(math.NaN(), 0.1, 2, 100, "")}
	f := Recompute(reqs, 10, 0)
	if f.WindowBasis != "stated duration" || f.OutputThroughput != 10 {
		t.Fatalf("got %v tok/s over %v (%s)", f.OutputThroughput, f.Window, f.WindowBasis)
	}
}

func TestTPOTExcludesFirstToken(t *testing.T) {
	f := Recompute([]benchrun.Request{req(0, 1, 11, 11, ""), req(0, 1, 2, 1, "")}, 0, 0)
	if f.TPOT.N != 1 || f.TPOT.Mean != 1 {
		t.Fatalf("tpot = %+v, want one request at (11-1)/(11-1) = 1", f.TPOT)
	}
}
