package figures

import (
	"math"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
)

// statedRun is a small run with varied latencies, the figures a vLLM-like
// tool would state for it (duration 2% longer than the records' window,
// as vLLM's starts before the first send), and its recomputed figures.
func statedRun() ([]benchrun.Request, []benchrun.Stated, RunFigures) {
	var reqs []benchrun.Request
	for i := range 20 {
		lat := 1 + float64(i*i%7)*0.37 + float64(i)*0.0123457
		reqs = append(reqs, req(100+float64(i)*0.1, 0.05+float64(i%5)*0.011+float64(i)*0.0000377, lat, int32(100+i), ""))
	}
	f := Recompute(reqs, 0, 0)
	dur := f.Window * 1.02
	st := []benchrun.Stated{
		{Metric: "completed", Value: 20, Unit: "requests"},
		{Metric: "duration", Value: dur, Unit: "s"},
		{Metric: "total_output_tokens", Value: float64(f.OutputTokens), Unit: "tokens"},
		{Metric: "output_throughput", Value: float64(f.OutputTokens) / dur, Unit: "tok/s"},
		{Metric: "request_throughput", Value: 20 / dur, Unit: "req/s"},
		{Metric: "ttft.mean", Value: f.TTFT.Mean, Unit: "s", SourceUnit: "ms"},
		{Metric: "ttft.std", Value: f.TTFT.Std, Unit: "s", SourceUnit: "ms"},
		{Metric: "e2el.median", Value: f.E2EL.Median, Unit: "s", SourceUnit: "ms"},
		{Metric: "e2el.p99", Value: f.E2EL.P[99], Unit: "s", SourceUnit: "ms"},
		{Metric: "itl.p99", Value: 0.01, Unit: "s", SourceUnit: "ms"},
	}
	return reqs, st, f
}

func findCheck(t *testing.T, a StatedAudit, metric string) StatedCheck {
	t.Helper()
	for _, c := range a.Checks {
		if c.Metric == metric {
			return c
		}
	}
	t.Fatalf("no check for %s; checks %+v, not checked %+v", metric, a.Checks, a.NotChecked)
	return StatedCheck{}
}

func TestCheckStatedAgrees(t *testing.T) {
	_, st, f := statedRun()
	a := CheckStated(st, f, StatedOptions{SourceMethod: "linear"})
	if d := a.Disagreements(); len(d) != 0 {
		t.Fatalf("disagreements: %+v", d)
	}
	if len(a.Checks) != 9 || len(a.NotChecked) != 1 || a.NotChecked[0].Metric != "itl.p99" {
		t.Errorf("%d checks, not checked %+v", len(a.Checks), a.NotChecked)
	}
	// The throughput is compared over the stated duration, the tool's own
	// definition; over the records' window it is 2% higher, which is
	// reported, not called a disagreement.
	c := findCheck(t, a, "output_throughput")
	if c.Basis != "count / stated duration" || !strings.Contains(c.Reason, "differ by definition") {
		t.Errorf("output_throughput: basis %q reason %q", c.Basis, c.Reason)
	}
	if naive := math.Abs(c.Stated - f.OutputThroughput); naive <= c.Tolerance {
		t.Errorf("premise: the records-window rate should differ from the stated one (by %v)", naive)
	}
	if !a.Window.Known || math.Abs(a.Window.Pct-2) > 1e-9 || a.Window.OverRecordsWindow != f.OutputThroughput {
		t.Errorf("window difference %+v", a.Window)
	}
	if d := findCheck(t, a, "duration"); !d.OK || !strings.Contains(d.Reason, "by definition") {
		t.Errorf("duration: %+v", d)
	}
	if d := findCheck(t, a, "e2el.p99"); !strings.Contains(d.Definition, "p = 99 by linear: h = (n − 1)·p/100") || d.Method != MethodLinear || d.ToleranceBasis != "relative 1e-06" {
		t.Errorf("e2el.p99: %+v", d)
	}
}

func TestCheckStatedFindings(t *testing.T) {
	set := func(st []benchrun.Stated, metric string, v float64) {
		for i := range st {
			if st[i].Metric == metric {
				st[i].Value = v
			}
		}
	}
	round := func(v float64, scale float64) float64 { return math.Round(v*scale) / scale }
	for _, c := range []struct {
		name   string
		edit   func(reqs []benchrun.Request, st []benchrun.Stated, f *RunFigures, o *StatedOptions)
		metric string
		ok     bool
		reason string
	}{
		{"unit mix-up: ms value stated as seconds", func(_ []benchrun.Request, st []benchrun.Stated, f *RunFigures, _ *StatedOptions) {
			set(st, "e2el.p99", f.E2EL.P[99]*1000)
		}, "e2el.p99", false, "ms/s unit mix-up"},
		{"unit label in ms", func(_ []benchrun.Request, st []benchrun.Stated, f *RunFigures, _ *StatedOptions) {
			for i := range st {
				if st[i].Metric == "ttft.mean" {
					st[i].Value, st[i].Unit = f.TTFT.Mean*1000, "ms"
				}
			}
		}, "ttft.mean", false, "definition's unit"},
		{"one token count changed in the records", func(reqs []benchrun.Request, _ []benchrun.Stated, f *RunFigures, _ *StatedOptions) {
			reqs[3].OutputTokens--
			*f = Recompute(reqs, 0, 0)
		}, "total_output_tokens", false, "beyond the tolerance"},
		{"one timestamp moved past the stated duration", func(reqs []benchrun.Request, _ []benchrun.Stated, f *RunFigures, _ *StatedOptions) {
			reqs[0].Start -= 1
			*f = Recompute(reqs, 0, 0)
		}, "duration", false, "cannot contain"},
		{"duration as the window (AIPerf) must equal it", func(_ []benchrun.Request, _ []benchrun.Stated, _ *RunFigures, o *StatedOptions) {
			o.DurationIsWindow = true
		}, "duration", false, "beyond the tolerance"},
		{"console rounding to 2 decimals of ms, not declared", func(_ []benchrun.Request, st []benchrun.Stated, f *RunFigures, _ *StatedOptions) {
			set(st, "ttft.mean", round(f.TTFT.Mean*1000, 100)/1000)
		}, "ttft.mean", false, "beyond the tolerance"},
		{"console rounding to 2 decimals of ms, declared", func(_ []benchrun.Request, st []benchrun.Stated, f *RunFigures, o *StatedOptions) {
			set(st, "ttft.mean", round(f.TTFT.Mean*1000, 100)/1000)
			o.Rounded, o.Decimals = true, 2
		}, "ttft.mean", true, ""},
		{"more than half a unit off is still caught", func(_ []benchrun.Request, st []benchrun.Stated, f *RunFigures, o *StatedOptions) {
			set(st, "e2el.median", f.E2EL.Median+0.006e-3)
			o.Rounded, o.Decimals = true, 2
		}, "e2el.median", false, "beyond the tolerance 5e-06 s"},
		{"rounded duration carries into the rate", func(_ []benchrun.Request, st []benchrun.Stated, f *RunFigures, o *StatedOptions) {
			for i := range st {
				if st[i].Metric == "duration" {
					st[i].Value = round(st[i].Value, 100)
				}
			}
			// the tool divided by its unrounded duration and printed 2 decimals
			set(st, "output_throughput", round(float64(f.OutputTokens)/(f.Window*1.02), 100))
			o.Rounded, o.Decimals = true, 2
		}, "output_throughput", true, ""},
		{"source percentile method differs: compared with it", func(_ []benchrun.Request, st []benchrun.Stated, f *RunFigures, o *StatedOptions) {
			set(st, "e2el.p99", f.E2EL.Percentile(99, MethodNearestRank))
			o.SourceMethod = "nearest-rank"
		}, "e2el.p99", true, "source's nearest-rank percentile (ours: linear)"},
		{"source percentile method ignored: naive linear compare fails", func(_ []benchrun.Request, st []benchrun.Stated, f *RunFigures, o *StatedOptions) {
			set(st, "e2el.p99", f.E2EL.Percentile(99, MethodNearestRank))
		}, "e2el.p99", false, "beyond the tolerance"},
		{"completed count off by one", func(_ []benchrun.Request, st []benchrun.Stated, _ *RunFigures, _ *StatedOptions) {
			set(st, "completed", 19)
		}, "completed", false, "beyond the tolerance"},
	} {
		t.Run(c.name, func(t *testing.T) {
			reqs, st, f := statedRun()
			o := StatedOptions{SourceMethod: "linear"}
			c.edit(reqs, st, &f, &o)
			got := findCheck(t, CheckStated(st, f, o), c.metric)
			if got.OK != c.ok || !strings.Contains(got.Reason, c.reason) {
				t.Errorf("OK %v reason %q; want OK %v with %q (stated %v recomputed %v tol %v)", got.OK, got.Reason, c.ok, c.reason, got.Stated, got.Recomputed, got.Tolerance)
			}
			if !got.OK && (got.Definition == "" || got.Unit == "") {
				t.Errorf("a finding without its definition: %+v", got)
			}
		})
	}
}

func TestCheckStatedWithoutSendTimes(t *testing.T) {
	reqs := []benchrun.Request{req(math.NaN(), 0.1, 2, 100, ""), req(math.NaN(), 0.1, 3, 100, "")}
	f := Recompute(reqs, 10, 0)
	a := CheckStated([]benchrun.Stated{{Metric: "duration", Value: 10, Unit: "s"}, {Metric: "output_throughput", Value: 20, Unit: "tok/s"}}, f, StatedOptions{})
	if len(a.Checks) != 1 || !a.Checks[0].OK || a.Window.Known || len(a.NotChecked) != 1 {
		t.Errorf("%+v", a)
	}
	// An unknown source method leaves percentiles unchecked rather than
	// judged with the wrong method.
	a = CheckStated([]benchrun.Stated{{Metric: "e2el.p99", Value: 3, Unit: "s"}}, f, StatedOptions{SourceMethod: "hazen"})
	if len(a.Checks) != 0 || len(a.NotChecked) != 1 {
		t.Errorf("unknown method: %+v", a)
	}
}

// TestCheckStatedGoodput: a stated request_goodput is checked against the
// records judged by the SLO the tool used (measurement.goodput), over the
// stated duration as vLLM divides; without that SLO it is not checked.
func TestCheckStatedGoodput(t *testing.T) {
	t.Parallel()
	reqs, st, _ := statedRun()
	dur := st[1].Value
	eff := map[string]string{ToolSLOField: "e2el:2000"}
	f := RecomputeRun(&benchrun.Run{HasRequests: true}, reqs, eff)
	good := 0
	for _, r := range reqs {
		if r.Latency <= 2 {
			good++
		}
	}
	if good == 0 || good == len(reqs) || f.ToolSLO == nil || f.ToolSLO.Good != good {
		t.Fatalf("hand count %d, judged %+v", good, f.ToolSLO)
	}
	right := append(st[:len(st):len(st)], benchrun.Stated{Metric: "request_goodput", Value: float64(good) / dur, Unit: "req/s"})
	c := findCheck(t, CheckStated(right, f, StatedOptions{}), "request_goodput")
	if !c.OK || c.Basis != "count / stated duration" || c.Definition == "" {
		t.Errorf("agreeing goodput %+v", c)
	}
	wrong := append(st[:len(st):len(st)], benchrun.Stated{Metric: "request_goodput", Value: float64(good+1) / dur, Unit: "req/s"})
	if c := findCheck(t, CheckStated(wrong, f, StatedOptions{}), "request_goodput"); c.OK {
		t.Errorf("one good request too many passed: %+v", c)
	}
	// The SLO not stated, or not readable: listed as not checked, with why.
	for _, e := range []map[string]string{{}, {ToolSLOField: "ttft=2000"}} {
		f := RecomputeRun(&benchrun.Run{HasRequests: true}, reqs, e)
		a := CheckStated(right, f, StatedOptions{})
		found := false
		for _, n := range a.NotChecked {
			if n.Metric == "request_goodput" && strings.Contains(n.Reason, ToolSLOField) {
				found = true
			}
		}
		if !found {
			t.Errorf("%v: not checked %+v", e, a.NotChecked)
		}
	}
}
