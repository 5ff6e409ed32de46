package figures

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
)

// guidellm's float cumulative sum of 1/26 falls short of 0.5 at the 13th
// value: its median of 26 values is the 14th, where nearest-rank gives the
// 13th.
func TestPercentileCDF(t *testing.T) {
	t.Parallel()
	vals := make([]float64, 26)
	for i := range vals {
		vals[i] = float64(i + 1)
	}
	if got := PercentileNearestRank(vals, 50); got != 13 {
		t.Errorf("nearest-rank median of 1..26 = %v, want 13", got)
	}
	if got := PercentileCDF(vals, 50); got != 14 {
		t.Errorf("guidellm median of 1..26 = %v, want 14 (float cumsum)", got)
	}
	// Away from a step both agree; duplicates are one value.
	for _, tc := range []struct {
		vals []float64
		p    float64
		want float64
	}{
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 95, 10},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.1, 1},
		{[]float64{1, 1, 1, 2}, 50, 1},
		{[]float64{5}, 99.9, 5},
	} {
		if got := PercentileCDF(tc.vals, tc.p); got != tc.want {
			t.Errorf("PercentileCDF(%v, %v) = %v, want %v", tc.vals, tc.p, got, tc.want)
		}
	}
}

func summaryRun() *benchrun.Run {
	return &benchrun.Run{Format: "vllm-serve-json", SourceTool: "vllm bench serve", PercentileMethod: "linear", Completed: 200, Failed: 0,
		Stated: []benchrun.Stated{
			{Metric: "duration", Value: 100, Unit: "s", SourceKey: "duration", SourceUnit: "s"},
			{Metric: "output_throughput", Value: 1000, Unit: "tok/s", SourceKey: "output_throughput"},
			{Metric: "total_token_throughput", Value: 3000, Unit: "tok/s", SourceKey: "total_token_throughput"},
			{Metric: "total_output_tokens", Value: 100000, Unit: "tokens", SourceKey: "total_output_tokens"},
			{Metric: "ttft.mean", Value: 0.2, Unit: "s", SourceKey: "mean_ttft_ms", SourceUnit: "ms", Printed: 2},
			{Metric: "ttft.median", Value: 0.19, Unit: "s", SourceKey: "median_ttft_ms", SourceUnit: "ms"},
			{Metric: "ttft.p99", Value: 0.4, Unit: "s", SourceKey: "p99_ttft_ms", SourceUnit: "ms"},
		}}
}

// A summary-only run's figures are its tool's, each with its origin; what
// the tool did not state is unknown, never derived.
func TestFromStated(t *testing.T) {
	t.Parallel()
	f := FromStated(summaryRun())
	for _, tc := range []struct {
		metric string
		want   float64
		key    string
	}{
		{"output_throughput", 1000, "output_throughput"},
		{"duration", 100, "duration"},
		{"ttft.p99", 0.4, "p99_ttft_ms"},
		{"ttft.median", 0.19, "median_ttft_ms"},
		{"ttft.mean", 0.2, "mean_ttft_ms"},
	} {
		m, _ := ParseMetric(tc.metric)
		if got := m.Of(&f); got != tc.want {
			t.Errorf("%s = %v, want the stated %v", tc.metric, got, tc.want)
		}
		o := f.OriginOf("r1", m)
		if !o.Stated() || o.Key != tc.key || o.Tool != "vllm bench serve" {
			t.Errorf("%s: origin %+v", tc.metric, o)
		}
	}
	m, _ := ParseMetric("ttft.p90")
	if v := m.Of(&f); !math.IsNaN(v) {
		t.Errorf("an unstated percentile is unknown, got %v", v)
	}
	m, _ = ParseMetric("request_throughput")
	if v := m.Of(&f); !math.IsNaN(v) {
		t.Errorf("an unstated rate is not derived, got %v", v)
	}
	m, _ = ParseMetric("ttft.mean")
	if o := f.OriginOf("r1", m); !strings.Contains(o.String(), "2 decimals in ms") {
		t.Errorf("a printed figure says its precision: %s", o)
	}
	if f.Sent != 200 || f.Completed != 200 || f.Failed != 0 {
		t.Errorf("counts %d/%d/%d", f.Sent, f.Completed, f.Failed)
	}
}

// One row per impossible stated value; the consistent run has none.
func TestImpossibleStated(t *testing.T) {
	t.Parallel()
	if imp := ImpossibleStated(summaryRun()); len(imp) != 0 {
		t.Fatalf("a consistent summary: %+v", imp)
	}
	set := func(metric string, v float64) func(*benchrun.Run) {
		return func(r *benchrun.Run) {
			for i := range r.Stated {
				if r.Stated[i].Metric == metric {
					r.Stated[i].Value = v
					return
				}
			}
			r.Stated = append(r.Stated, benchrun.Stated{Metric: metric, Value: v, Unit: "s", SourceKey: metric})
		}
	}
	for _, tc := range []struct {
		name   string
		change func(*benchrun.Run)
		metric string
	}{
		{"zero duration", set("duration", 0), "duration"},
		{"negative duration", set("duration", -5), "duration"},
		{"non-finite duration", func(r *benchrun.Run) {
			r.Stated = slices.DeleteFunc(r.Stated, func(s benchrun.Stated) bool { return s.Metric == "duration" })
			r.Extra = map[string]string{"duration": "NaN"}
		}, "duration"},
		{"negative latency", set("ttft.mean", -0.1), "ttft.mean"},
		{"p99 below the median", set("ttft.p99", 0.1), "ttft.p99"},
		{"mean above the max", func(r *benchrun.Run) { set("ttft.max", 0.3)(r); set("ttft.mean", 0.35)(r) }, "ttft.mean"},
		{"negative rate", set("output_throughput", -1), "output_throughput"},
		{"negative count", set("total_output_tokens", -1), "total_output_tokens"},
		{"total below output", set("total_token_throughput", 10), "total_token_throughput"},
		{"throughput over no tokens", set("total_output_tokens", 0), "output_throughput"},
		{"negative offered rate", func(r *benchrun.Run) { r.Facts = map[string]string{"workload.request_rate": "-2"} }, "request_rate"},
	} {
		r := summaryRun()
		tc.change(r)
		imp := ImpossibleStated(r)
		found := false
		for _, i := range imp {
			found = found || i.Metric == tc.metric
		}
		if !found {
			t.Errorf("%s: no impossible %s in %+v", tc.name, tc.metric, imp)
		}
		if Publishable(r, map[string]string{}) {
			t.Errorf("%s: publishable", tc.name)
		}
		if b := Blockers(r, nil); !strings.Contains(strings.Join(b, ";"), "possible stated figures") {
			t.Errorf("%s: blockers %v", tc.name, b)
		}
	}
}

// guidellm's E2E ends after the last token: without its end times a stated
// value a little above ours is a bounded difference of definition (not
// OK), one far above still fails, and with them it is recomputed.
func TestByDefinitionE2E(t *testing.T) {
	t.Parallel()
	reqs := make([]benchrun.Request, 10)
	tool := make([]float64, 10)
	for i := range reqs {
		reqs[i] = benchrun.Request{Index: i, Start: float64(i), TTFT: 0.1, Latency: 2 + float64(i)*0.01, InputTokens: 10, OutputTokens: 20}
		tool[i] = reqs[i].Latency + 0.003
	}
	f := Recompute(reqs, math.NaN(), 0, Options{Method: MethodLinear})
	var sum float64
	for _, v := range tool {
		sum += v
	}
	mean := sum / 10
	opt := StatedOptions{SourceMethod: "nearest-rank", Tool: DefinitionsOf("guidellm-report"), DurationIsWindow: true}
	check := func(v float64, o StatedOptions) StatedCheck {
		a := CheckStated([]benchrun.Stated{{Metric: "e2el.mean", Value: v, Unit: "s", SourceKey: "request_latency.mean"}}, f, o)
		return a.Checks[0]
	}
	if c := check(mean, opt); c.OK || c.Definitional == nil || c.Definitional.Recomputed {
		t.Errorf("bounded: %+v", c)
	}
	if c := check(mean*1.2, opt); c.OK || c.Definitional != nil {
		t.Errorf("beyond the definition: %+v", c)
	}
	with := opt
	with.ToolE2E = tool
	if c := check(mean, with); !c.OK || c.Definitional == nil || !c.Definitional.Recomputed {
		t.Errorf("recomputed under guidellm's definition: %+v", c)
	}
	if c := check(mean+0.001, with); c.OK {
		t.Errorf("a planted difference with the end times at hand fails: %+v", c)
	}
}

// TestSGLangE2EByBackend: SGLang's OpenAI request functions end E2E at the
// last chunk received (bounded as a definition when the stated mean is up
// to 1% above ours); its trt backend ends at the last content chunk, as the
// records do, so the same difference fails there.
func TestSGLangE2EByBackend(t *testing.T) {
	t.Parallel()
	reqs := make([]benchrun.Request, 10)
	for i := range reqs {
		reqs[i] = benchrun.Request{Index: i, Start: float64(i), TTFT: 0.1, Latency: 2 + float64(i)*0.01, InputTokens: 10, OutputTokens: 20}
	}
	f := Recompute(reqs, math.NaN(), 0, Options{Method: MethodLinear})
	later := f.E2EL.Mean * 1.004 // a [DONE] chunk 0.4% after the last content
	for _, tc := range []struct {
		backend      string
		definitional bool
	}{{"sglang-oai", true}, {"vllm", true}, {"trt", false}} {
		r := &benchrun.Run{Format: "sglang-bench-serving", PercentileMethod: "linear", Facts: map[string]string{"measurement.backend": tc.backend},
			Stated: []benchrun.Stated{{Metric: "e2el.mean", Value: later, Unit: "s", SourceKey: "mean_e2e_latency_ms", SourceUnit: "ms"}}}
		c := CheckStated(r.Stated, f, StatedOptionsOf(r)).Checks[0]
		if c.OK || (c.Definitional != nil) != tc.definitional {
			t.Errorf("backend %s: ok %v, definitional %+v; want a difference of definition %v", tc.backend, c.OK, c.Definitional, tc.definitional)
		}
	}
}
