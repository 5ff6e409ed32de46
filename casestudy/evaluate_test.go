package casestudy

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/spec"
)

// campaign is a small campaign: a baseline and a tuned run differing in
// their server arguments, two repeats, a three-point concurrency sweep
// and a node of two replicas on an epoch clock.
func campaign(extra ...string) *memory {
	prov := func(kv ...string) map[string]string {
		m := map[string]string{"campaign": "small", "runtime.engine": "vllm", "checkpoint.repository": "m", "hardware.gpu_model": "H100",
			"workload.input_len": "10", "workload.output_len": "100"}
		kv = append(kv, extra...)
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	// Each run: 200 output tokens over the window first send → last
	// completion, so output throughput is 200 / window.
	return newMemory(
		run{id: "aaaa0001", prov: prov("role", "baseline", "runtime.server_args", "--a"),
			reqs: []benchrun.Request{rq(0, 0.1, 2, 100), rq(1, 0.3, 3, 100)}}, // window 4: 50 tok/s
		run{id: "aaaa0002", prov: prov("role", "tuned", "runtime.server_args", "--b"),
			reqs: []benchrun.Request{rq(0, 0.1, 1, 100), rq(1, 0.1, 1, 100)}}, // window 2: 100 tok/s
		run{id: "bbbb0001", prov: prov("group", "repeats"),
			reqs: []benchrun.Request{rq(0, 0.1, 4, 100), rq(0, 0.1, 4, 100)}}, // 50 tok/s
		run{id: "bbbb0002", prov: prov("group", "repeats"),
			reqs: []benchrun.Request{rq(0, 0.1, 2, 100), rq(0, 0.1, 2, 100)}}, // 100 tok/s
		run{id: "cccc0001", prov: prov("group", "sweep", "workload.concurrency", "1"),
			reqs: []benchrun.Request{rq(0, 0.1, 4, 100), rq(0, 0.1, 4, 100)}}, // 50 tok/s at 4 s
		run{id: "cccc0002", prov: prov("group", "sweep", "workload.concurrency", "2"),
			reqs: []benchrun.Request{rq(0, 0.1, 2, 100), rq(0, 0.1, 2, 100)}}, // 100 tok/s at 2 s
		run{id: "cccc0004", prov: prov("group", "sweep", "workload.concurrency", "4"),
			reqs: []benchrun.Request{rq(0, 0.1, 1.99, 100), rq(0, 0.1, 1.99, 100), rq(0, 0.1, 3, 0)}}, // ~100.5 tok/s, median 1.99 s
		run{id: "dddd0001", clock: benchrun.ClockEpoch, prov: prov("group", "node", "replica", "1/2", "measurement.client_host", "h1"),
			reqs: []benchrun.Request{rq(1000, 0.1, 2, 100), rq(1001, 0.1, 2, 100)}},
		run{id: "dddd0002", clock: benchrun.ClockEpoch, prov: prov("group", "node", "replica", "2/2", "measurement.client_host", "h2"),
			reqs: []benchrun.Request{rq(1000, 0.1, 3, 100), rq(1001, 0.1, 3, 100)}},
	)
}

const smallSpec = `id: small
campaign: small
runs:
  baseline: {role: baseline}
  tuned: {role: tuned}
  repeats: {group: repeats}
  sweep: {group: sweep}
  node: {group: node}
figures:
  base_tput: {of: baseline, metric: output_throughput}
  base_ttft_mean: {of: baseline, metric: ttft.mean}
  base_e2el_p99_9: {of: baseline, metric: e2el.p99.9}
  base_completed: {of: baseline, metric: completed}
  rep_tput: {of: repeats, metric: output_throughput}
  rep_median: {of: repeats, metric: e2el.median}
comparisons:
  tuning: {baseline: baseline, candidate: tuned, metric: output_throughput, intended: [runtime.server_args]}
  latency: {baseline: baseline, candidate: tuned, metric: e2el.median}
sweeps:
  load: {of: sweep, parameter: workload.concurrency}
nodes:
  pair: {groups: [node]}
`

func evaluate(t *testing.T, text string) *Result {
	t.Helper()
	s, err := spec.Parse("casestudy.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Evaluate(context.Background(), s, campaign(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestEvaluateFigures(t *testing.T) {
	t.Parallel()
	res := evaluate(t, smallSpec)
	tests := []struct {
		name  string
		value float64
		unit  string
		n     int
		basis string
		def   string // a part of the definition
	}{
		{"base_tput", 50, "tok/s", 1, "single run", "Σ output tokens of completed requests / window"},
		{"base_ttft_mean", 0.2, "s", 1, "single run", "mean of first streamed content chunk"},
		{"base_e2el_p99_9", 2 + 0.999, "s", 1, "single run", "p99.9 of last streamed content chunk"},
		{"base_completed", 2, "requests", 1, "single run", "number of requests without an error"},
		// Repeats: the conservative value, lowest throughput, highest latency.
		{"rep_tput", 50, "tok/s", 2, "conservative of 2 repeats (lowest)", "/ window"},
		{"rep_median", 4, "s", 2, "conservative of 2 repeats (highest)", "median of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, ok := res.Figures[tt.name]
			if !ok {
				t.Fatalf("no figure %s", tt.name)
			}
			if math.Abs(v.Value-tt.value) > 1e-9 || v.Unit != tt.unit || v.N != tt.n || v.Basis != tt.basis || !strings.Contains(v.Definition, tt.def) {
				t.Errorf("%+v, want %v %s n=%d %q with %q", v, tt.value, tt.unit, tt.n, tt.basis, tt.def)
			}
		})
	}
	if got, want := res.Selections["repeats"], []string{"bbbb0001", "bbbb0002"}; !slices.Equal(got, want) {
		t.Errorf("selection repeats = %v, want %v", got, want)
	}
	if w := res.Workload["baseline"]; w["input_len"] != 10 || w["output_len"] != 100 {
		t.Errorf("workload of baseline = %v", w)
	}
	if len(res.Digest) != 64 || len(res.RunIDs) != 9 {
		t.Errorf("digest %q over runs %v", res.Digest, res.RunIDs)
	}
}

func TestEvaluateComparisonSweepNode(t *testing.T) {
	t.Parallel()
	res := evaluate(t, smallSpec)
	c := res.Comparisons["tuning"]
	if c == nil {
		t.Fatal("no comparison tuning")
	}
	if ch := c.Comparison.Change; ch.Baseline != 50 || ch.Candidate != 100 || ch.Pct != 100 || ch.Ratio != 2 || !ch.Improved {
		t.Errorf("tuning change %+v", ch)
	}
	if len(c.Comparison.Confounders) != 0 {
		t.Errorf("tuning: only the intended field differs, confounders %+v", c.Comparison.Confounders)
	}
	// Not declared intended: the server arguments confound it.
	if l := res.Comparisons["latency"]; l == nil || len(l.Comparison.Confounders) != 1 || l.Comparison.Confounders[0].Field != "runtime.server_args" ||
		l.Comparison.Change.Direction != figures.LowerIsBetter || !l.Comparison.Change.Improved {
		t.Errorf("latency comparison %+v", l)
	}

	sw := res.Sweeps["load"]
	if sw == nil || len(sw.Result.Levels) != 3 {
		t.Fatalf("sweep %+v", sw)
	}
	if ps := []float64{sw.Result.Levels[0].Param, sw.Result.Levels[1].Param, sw.Result.Levels[2].Param}; !slices.Equal(ps, []float64{1, 2, 4}) {
		t.Errorf("sweep levels by parameter %v", ps)
	}

	nd := res.Nodes["pair"]
	if nd == nil || len(nd.Runs) != 1 {
		t.Fatalf("node %+v", nd)
	}
	// 400 output tokens over the common window 1000 → 1004.
	if got := nd.Throughput.Value; math.Abs(got-100) > 1e-9 || nd.Throughput.Unit != "tok/s" || !slices.Equal(nd.Throughput.Runs, []string{"dddd0001", "dddd0002"}) {
		t.Errorf("node throughput %+v", nd.Throughput)
	}

	b := Bindings(res)
	for name, want := range map[string]float64{"tuning.pct": 100, "tuning.ratio": 2, "base_tput": 50, "pair": 100, "pair.replicas": 2, "baseline.output_len": 100,
		"pair.runs": 1, "pair.failed_all": b["pair.failed"].Value, "pair.completed_min": b["pair.requests"].Value} {
		if got, ok := b[name]; !ok || math.Abs(got.Value-want) > 1e-9 {
			t.Errorf("binding %s = %+v (%v), want %v", name, got, ok, want)
		}
	}
	if b["tuning.pct"].Kind != KindPercent || b["pair.replicas"].Kind != KindCount || b["base_tput"].Unit != "tok/s" {
		t.Errorf("binding kinds %+v %+v %+v", b["tuning.pct"], b["pair.replicas"], b["base_tput"])
	}
}

func TestEvaluateErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, spec, want string
	}{
		{"a selection without runs", "id: e\ncampaign: small\nruns:\n  none: {group: nobody}\n", `selection "none"`},
		{"a sweep parameter that is not a number", "id: e\ncampaign: small\nruns:\n  b: {role: baseline}\nsweeps:\n  s: {of: b, parameter: runtime.engine}\n", "is not a number"},
		{"a node side of another metric", "id: e\ncampaign: small\nruns:\n  node: {group: node}\n  b: {role: baseline}\nnodes:\n  n: {groups: [node]}\ncomparisons:\n  c: {baseline: b, candidate: 'node:n', metric: e2el.mean}\n", "output_throughput only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := spec.Parse("casestudy.yaml", []byte(tt.spec))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Evaluate(context.Background(), s, campaign(), Options{}); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestRunFiguresAndCompareRuns(t *testing.T) {
	t.Parallel()
	m := campaign()
	rec, f, _, err := RunFigures(context.Background(), m, "aaaa0001")
	if err != nil {
		t.Fatal(err)
	}
	if rec.ID != "aaaa0001" || f.OutputThroughput != 50 || f.Completed != 2 {
		t.Errorf("run figures %s: %v tok/s, %d completed", rec.ID, f.OutputThroughput, f.Completed)
	}
	tests := []struct {
		metric string
		pct    float64
		err    string
	}{
		{"output_throughput", 100, ""},
		{"e2el.p50", -60, ""},
		{"ttft.p99.5", (0.1 - 0.299) / 0.299 * 100, ""}, // p99.5 of 0.1, 0.3 is 0.299
		{"speed", 0, `unknown metric "speed"`},
		{"ttft.p100", 0, "unknown metric"},
	}
	for _, tt := range tests {
		t.Run(tt.metric, func(t *testing.T) {
			t.Parallel()
			cf, err := CompareRuns(context.Background(), m, "aaaa0001", "aaaa0002", tt.metric, []string{"runtime.server_args"}, Options{})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cf.Comparison.Change.Pct; math.Abs(got-tt.pct) > 1e-6 {
				t.Errorf("change %v%%, want %v%%", got, tt.pct)
			}
		})
	}
}
