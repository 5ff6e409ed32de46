package figures

import (
	"math"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
)

// sloRequests is a hand-computed case: SLO ttft ≤ 0.5 s, tpot ≤ 0.05 s,
// e2el ≤ 10 s, requests on, below and above each threshold.
func sloRequests() []benchrun.Request {
	nan := math.NaN()
	return []benchrun.Request{
		// 0: TTFT exactly on its threshold, TPOT (5.5−0.5)/100 = 0.05 exactly on: good.
		{Index: 0, Start: 0, TTFT: 0.5, Latency: 5.5, OutputTokens: 101},
		// 1: TTFT just above: not good.
		{Index: 1, Start: 1, TTFT: 0.5000001, Latency: 2, OutputTokens: 11},
		// 2: E2E exactly 10 s, TPOT (10−0.1)/1000 = 0.0099: good.
		{Index: 2, Start: 2, TTFT: 0.1, Latency: 10, OutputTokens: 1001},
		// 3: TPOT (10.1−0.1)/1000 = 0.01 fine, but E2E above: not good.
		{Index: 3, Start: 3, TTFT: 0.1, Latency: 10.1, OutputTokens: 1001},
		// 4: one output token: TPOT counts as 0 (vLLM), TTFT and E2E fine: good.
		{Index: 4, Start: 4, TTFT: 0.2, Latency: 9, OutputTokens: 1},
		// 5: TPOT (3.1−0.1)/50 = 0.06 above: not good.
		{Index: 5, Start: 5, TTFT: 0.1, Latency: 3.1, OutputTokens: 51},
		// 6: failed: neither good nor counted.
		{Index: 6, Start: 6, TTFT: nan, Latency: nan, Error: "timeout"},
	}
}

func TestJudgeSLOHandComputed(t *testing.T) {
	t.Parallel()
	slo := SLO{TTFT: 0.5, TPOT: 0.05, E2EL: 10}
	reqs := sloRequests()
	wantGood := []bool{true, false, true, false, true, false}
	for i, want := range wantGood {
		good, judged := slo.Good(&reqs[i])
		if !judged || good != want {
			t.Errorf("request %d: good %v judged %v, want %v", i, good, judged, want)
		}
	}
	// Window: first send 0 to last completion max(start+latency) = 3+10.1 = 13.1 s.
	f := Recompute(reqs, math.NaN(), 0)
	f.ApplySLO(reqs, slo)
	g := f.SLO
	if g == nil || !g.Recomputable() || g.Good != 3 || g.Completed != 6 {
		t.Fatalf("goodput %+v", g)
	}
	if want := 3 / 13.1; math.Abs(g.Goodput-want) > 1e-12 || math.Abs(goodputOf(&f)-want) > 1e-12 {
		t.Errorf("goodput %v, want %v", g.Goodput, want)
	}
	if g.Attainment != 50 {
		t.Errorf("attainment %v, want 50", g.Attainment)
	}
	for _, name := range []string{"goodput", "slo_attainment"} {
		m, ok := ParseMetric(name)
		if !ok || m.Metric.Direction != HigherIsBetter || math.IsNaN(m.Of(&f)) {
			t.Errorf("%s: %v %+v", name, ok, m)
		}
	}
	// Only TTFT declared: requests 0, 2, 3, 4, 5 meet it.
	if g := JudgeSLO(reqs, SLO{TTFT: 0.5}, 13.1); g.Good != 5 {
		t.Errorf("ttft only: good %d, want 5", g.Good)
	}
}

func TestJudgeSLONotRecomputable(t *testing.T) {
	t.Parallel()
	reqs := sloRequests()
	reqs[2].TTFT = math.NaN() // a completed request without TTFT
	g := JudgeSLO(reqs, SLO{TTFT: 1}, 10)
	if g.Recomputable() || !math.IsNaN(g.Goodput) {
		t.Errorf("judged a request without TTFT: %+v", g)
	}
	// E2E alone does not need TTFT: 5.5, 2, 10 (on the threshold), 9 and
	// 3.1 s meet it, 10.1 s does not.
	if g := JudgeSLO(reqs, SLO{E2EL: 10}, 10); !g.Recomputable() || g.Good != 5 {
		t.Errorf("e2el only %+v", g)
	}
	// Stated figures: no records.
	f := FromStated(&benchrun.Run{Format: "vllm-serve-json"})
	f.ApplySLO(nil, SLO{TTFT: 1})
	if f.SLO == nil || f.SLO.Reason != ReasonNoRecords || !math.IsNaN(goodputOf(&f)) {
		t.Errorf("stated %+v", f.SLO)
	}
	// No SLO: no figure.
	f.ApplySLO(reqs, SLO{})
	if f.SLO != nil || !math.IsNaN(attainmentOf(&f)) {
		t.Errorf("no SLO %+v", f.SLO)
	}
}

func TestParseSLO(t *testing.T) {
	t.Parallel()
	s, err := ParseSLO("ttft:2000 tpot:50,e2el:30000")
	if err != nil || s != (SLO{TTFT: 2, TPOT: 0.05, E2EL: 30}) || s.String() != "ttft:2000 tpot:50 e2el:30000" {
		t.Errorf("%+v %v %q", s, err, s.String())
	}
	for _, bad := range []string{"", "ttft", "ttft:-1", "itl:5", "ttft:x", "ttft:0"} {
		if _, err := ParseSLO(bad); err == nil {
			t.Errorf("ParseSLO(%q) accepted", bad)
		}
	}
}
