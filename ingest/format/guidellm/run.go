package guidellm

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// glRunBuilder collects one benchmark's run; the first problem found makes
// it a rejection.
type glRunBuilder struct {
	run     *benchrun.Run
	env     *glEnvelope
	b       *glBench
	metrics *jsonread.Node
	fail    string
	legacy  bool // a 0.2/0.3 benchmark (args, run_stats, top-level request_totals)
}

func (rb *glRunBuilder) failf(n *jsonread.Node, msgf string, args ...any) {
	if rb.fail != "" {
		return
	}
	rb.fail = fmt.Sprintf(msgf, args...)
	if n != nil {
		rb.fail += " (at " + n.Place() + ")"
	}
}

func (rb *glRunBuilder) note(msgf string, args ...any) {
	rb.run.Notes = append(rb.run.Notes, fmt.Sprintf(msgf, args...))
}

func (rb *glRunBuilder) fact(field string, n *jsonread.Node) {
	if s, ok := n.Scalar(); ok {
		rb.run.Facts[field] = s
	}
}

// glBuildRun turns one benchmark into a run, or a rejection naming the
// benchmark and what is wrong with it.
func glBuildRun(file string, env *glEnvelope, b *glBench, ordinal int, format string) *benchrun.Run {
	where := b.node.Place()
	loc := fmt.Sprintf("benchmark %d at %s", b.index, where)
	rb := &glRunBuilder{
		env: env, b: b,
		run: &benchrun.Run{
			Ordinal: ordinal, Location: loc, Format: format, SourceTool: "guidellm",
			PercentileMethod: "nearest-rank", Facts: map[string]string{}, Extra: map[string]string{},
			Completed: -1, Failed: -1,
		},
	}
	if b.node.Kind != pyjson.ObjectStart {
		return &benchrun.Run{Ordinal: ordinal, Location: loc,
			Rejection: fmt.Sprintf("benchmark %d is a %s, not a benchmark object", b.index, b.node.Noun())}
	}
	rb.build()
	if rb.fail == "" && b.bad != "" {
		rb.fail = b.bad
	}
	if rb.fail != "" {
		return &benchrun.Run{Ordinal: ordinal, Location: loc, Rejection: fmt.Sprintf("benchmark %d: %s", b.index, rb.fail)}
	}
	return rb.run
}

func (rb *glRunBuilder) build() {
	n := rb.b.node
	if t := n.Get("type_"); t != nil && t.Kind == pyjson.String && t.Text != "generative_benchmark" {
		rb.failf(t, "type_ %q is not a generative benchmark (only text generation benchmarks are read)", t.Text)
		return
	}
	rb.metrics = n.Get("metrics")
	if rb.metrics == nil || rb.metrics.Kind != pyjson.ObjectStart {
		rb.failf(n, "no \"metrics\" object")
		return
	}
	rb.legacy = n.Get("run_stats") != nil || n.Get("args") != nil && n.Get("config") == nil
	rb.run.FormatVariant = rb.env.generation()
	if rb.env.yaml {
		rb.run.FormatVariant += ", YAML"
	}
	rb.run.Facts["measurement.client"] = "guidellm"
	rb.fact("measurement.client_version", rb.env.metadata.Get("guidellm_version"))

	rb.counts()
	rb.duration()
	rb.latencies()
	rb.rates()
	rb.facts()
	rb.records()
	rb.extras()
}

// counts states completed and failed from request_totals (top-level in
// 0.2/0.3, inside metrics from 0.4). guidellm splits the requests that did
// not complete into errored and incomplete (cancelled when the benchmark's
// limit ended): both count as failed here, and a note says how many of each.
func (rb *glRunBuilder) counts() {
	totals := rb.metrics.Get("request_totals")
	key := "metrics.request_totals"
	if totals == nil {
		totals, key = rb.b.node.Get("request_totals"), "request_totals"
	}
	if totals == nil || totals.Kind != pyjson.ObjectStart {
		rb.failf(rb.b.node, "no request_totals: the benchmark does not say how many requests completed")
		return
	}
	var c [3]int64
	for i, s := range glStatuses {
		v := totals.Get(s)
		if v.Absent() {
			rb.failf(totals, "%s.%s is missing", key, s)
			return
		}
		n, ok := rb.count(v, key+"."+s)
		if !ok {
			return
		}
		c[i] = n
	}
	if tot, ok := totals.Get("total").Finite(); ok && tot != float64(c[0]+c[1]+c[2]) {
		rb.note("%s.total is %s but successful + errored + incomplete = %d", key, totals.Get("total").Literal(), c[0]+c[1]+c[2])
	}
	if c[0]+c[1]+c[2] == 0 {
		rb.failf(totals, "no requests: %s counts 0 successful, 0 errored and 0 incomplete", key)
		return
	}
	rb.run.Completed, rb.run.Failed = c[0], c[1]+c[2]
	rb.run.Stated = append(rb.run.Stated,
		benchrun.Stated{Metric: "completed", Value: float64(c[0]), Unit: "requests", SourceKey: key + ".successful", SourceUnit: "requests"},
		benchrun.Stated{Metric: "failed", Value: float64(c[1] + c[2]), Unit: "requests", SourceKey: key + ".errored + incomplete", SourceUnit: "requests"})
	if c[2] > 0 {
		rb.note("failed counts %d errored and %d incomplete requests (guidellm's \"incomplete\" were cancelled when the benchmark's time or request limit ended)", c[1], c[2])
	}
}

// count reads a non-negative whole number.
func (rb *glRunBuilder) count(v *jsonread.Node, key string) (int64, bool) {
	x, finite := v.Finite()
	switch {
	case v.Kind != pyjson.Number:
		rb.failf(v, "%s: expected a count, found %s", key, v.Noun())
	case !finite:
		rb.failf(v, "%s is %s, not a count", key, v.Literal())
	case x < 0:
		rb.failf(v, "%s: negative count %s", key, v.Literal())
	case x != math.Trunc(x) || x > 1<<53:
		rb.failf(v, "%s: %s is not a whole number", key, v.Literal())
	default:
		return int64(x), true
	}
	return 0, false
}

// number reads a stated figure: ok is false for null (nothing stated) and
// for NaN or ±Infinity, which are kept in Extra with a note.
func (rb *glRunBuilder) number(v *jsonread.Node, key string, nonNegative bool) (float64, bool) {
	x, finite := v.Finite()
	switch {
	case v.Absent():
		return 0, false
	case v.Kind != pyjson.Number:
		rb.failf(v, "%s: expected a number, found %s", key, v.Noun())
		return 0, false
	case !finite:
		rb.run.Extra[key] = v.ExtraBounded()
		rb.note("%s is %s in the file; not kept as a stated figure", key, v.ExtraBounded())
		return 0, false
	case nonNegative && x < 0:
		rb.failf(v, "%s: negative value %s", key, v.Literal())
		return 0, false
	}
	return x, true
}

func (rb *glRunBuilder) state(metric, unit, key, sourceUnit string, v float64) {
	cv, cu := format.ToCanonicalUnit(v, sourceUnit)
	if sourceUnit != "ms" {
		cu = unit
	}
	rb.run.Stated = append(rb.run.Stated, benchrun.Stated{Metric: metric, Value: cv, Unit: cu, SourceKey: key, SourceUnit: sourceUnit})
}

// duration states the benchmark's duration: from the first request's start
// to the last request's end in 0.2/0.3, the measurement window
// (measure_start_time to measure_end_time) from 0.4.
func (rb *glRunBuilder) duration() {
	v := rb.b.node.Get("duration")
	d, ok := rb.number(v, "duration", true)
	if !ok {
		return
	}
	if d == 0 {
		rb.note("duration is 0 in the file; not stated")
		return
	}
	rb.state("duration", "s", "duration", "s", d)
	sm := rb.b.node.Get("scheduler_metrics")
	if sm == nil {
		return
	}
	end, ok := sm.Get("measure_end_time").Finite()
	reqEnd, rok := sm.Get("request_end_time").Finite()
	if ok && rok && end > reqEnd+1e-3 {
		rb.note("guidellm's measurement window (duration %.6g s) ends %.6g s after the last request completed: its duration and the rates over it include time with no request in flight", d, end-reqEnd)
	}
}

// glPercentiles maps guidellm's percentile keys to canonical suffixes; p50 is
// the median, stated once.
var glPercentiles = []struct{ key, canon string }{
	{"p001", "p0.1"}, {"p01", "p1"}, {"p05", "p5"}, {"p10", "p10"}, {"p25", "p25"},
	{"p75", "p75"}, {"p90", "p90"}, {"p95", "p95"}, {"p99", "p99"}, {"p999", "p99.9"},
}

// successful returns metrics.<name>.successful, failing on a wrong shape;
// nil when the metric is absent or had no successful samples.
func (rb *glRunBuilder) successful(name string) *jsonread.Node {
	m := rb.metrics.Get(name)
	if m.Absent() {
		return nil
	}
	if m.Kind != pyjson.ObjectStart {
		rb.failf(m, "metrics.%s: expected a distribution summary object, found %s", name, m.Noun())
		return nil
	}
	s := m.Get("successful")
	if s.Absent() {
		return nil
	}
	if s.Kind != pyjson.ObjectStart {
		rb.failf(s, "metrics.%s.successful: expected a distribution summary object, found %s", name, s.Noun())
		return nil
	}
	if c := s.Get("count"); c != nil {
		if n, ok := rb.count(c, "metrics."+name+".successful.count"); !ok || n == 0 {
			return nil
		}
	}
	return s
}

// distribution states mean, median, std, min, max and the percentiles of a
// distribution of per-request values as canon.<stat>.
func (rb *glRunBuilder) distribution(name, canon, sourceUnit string) bool {
	s := rb.successful(name)
	if s == nil {
		return false
	}
	base := "metrics." + name + ".successful."
	for _, st := range []struct{ key, stat string }{
		{"mean", "mean"}, {"median", "median"}, {"std_dev", "std"}, {"min", "min"}, {"max", "max"},
	} {
		if v, ok := rb.number(s.Get(st.key), base+st.key, true); ok {
			rb.state(canon+"."+st.stat, "s", base+st.key, sourceUnit, v)
		}
	}
	pct := s.Get("percentiles")
	if pct.Absent() {
		return true
	}
	if pct.Kind != pyjson.ObjectStart {
		rb.failf(pct, "%spercentiles: expected an object, found %s", base, pct.Noun())
		return true
	}
	for _, p := range glPercentiles {
		if v, ok := rb.number(pct.Get(p.key), base+"percentiles."+p.key, true); ok {
			rb.state(canon+"."+p.canon, "s", base+"percentiles."+p.key, sourceUnit, v)
		}
	}
	return true
}

// latencies states TTFT, E2E latency, TPOT and per-chunk ITL where guidellm's
// metric means the canonical one (docs/metrics.md, FORMATS.md §9).
func (rb *glRunBuilder) latencies() {
	rb.distribution("time_to_first_token_ms", "ttft", "ms")
	rb.distribution("request_latency", "e2el", "s")
	// benchmark-runner (GPUStack) adds the pooled gaps between streamed
	// chunks: vLLM's ITL.
	rb.distribution("inter_token_latency_per_chunk_ms", "itl", "ms")

	// inter_token_latency_ms is (last token − first token) / (output tokens − 1)
	// per request: vLLM's TPOT. But guidellm weights each request by its
	// output tokens − 1 (a pooled, token-weighted distribution), so its mean
	// and percentiles are TPOT's only when every request has the same output
	// length and the weights are equal.
	if s := rb.successful("inter_token_latency_ms"); s != nil {
		out := rb.successful("output_token_count")
		lo, lok := out.Get("min").Finite()
		hi, hok := out.Get("max").Finite()
		if out != nil && lok && hok && lo == hi {
			rb.distribution("inter_token_latency_ms", "tpot", "ms")
			rb.note("tpot is guidellm's inter_token_latency_ms, (last token − first token) / (output tokens − 1): guidellm weights it by output tokens − 1, and every successful request produced %s output tokens, so the weights are equal and it is the per-request TPOT", out.Get("min").Literal())
		} else {
			rb.run.Extra["metrics.inter_token_latency_ms"] = rb.metrics.Get("inter_token_latency_ms").ExtraBounded()
			rb.note("inter_token_latency_ms (vLLM's TPOT per request) is weighted by output tokens − 1 across requests of different output lengths, so its mean and percentiles are not TPOT over requests: kept in Extra, not stated as tpot")
		}
	}
	if m := rb.metrics.Get("time_per_output_token_ms"); !m.Absent() {
		rb.run.Extra["metrics.time_per_output_token_ms"] = m.ExtraBounded()
		what := "(last token − request start) / output tokens, so it includes TTFT"
		if rb.legacy {
			what = "(last token − first token) / output tokens, dividing the decode time by every output token"
		}
		rb.note("time_per_output_token_ms is guidellm's %s: it is not TPOT, so it is kept in Extra and not stated as tpot", what)
	}
}

// glRateSeries are guidellm's time-weighted rate and concurrency series.
// Their means are the tool's headline throughput, but they are not count /
// duration (the rates are weighted by the interval around each event, and
// token rates span the token events rather than the benchmark's window): they
// are stated under their own names, never as output_throughput.
var glRateSeries = []struct{ key, metric, unit string }{
	{"requests_per_second", "request_rate_series.mean", "req/s"},
	{"output_tokens_per_second", "output_rate_series.mean", "tok/s"},
	{"tokens_per_second", "total_token_rate_series.mean", "tok/s"},
	{"prompt_tokens_per_second", "input_rate_series.mean", "tok/s"},
	{"request_concurrency", "concurrency_series.mean", "requests"},
}

// rates states token totals and the rate-series means.
func (rb *glRunBuilder) rates() {
	for _, tk := range []struct{ key, metric string }{
		{"prompt_token_count", "total_input_tokens"}, {"output_token_count", "total_output_tokens"},
	} {
		s := rb.successful(tk.key)
		if s == nil {
			continue
		}
		key := "metrics." + tk.key + ".successful.total_sum"
		v, ok := rb.number(s.Get("total_sum"), key, true)
		if !ok {
			continue
		}
		// From 0.4 total_sum is mean × count, a float a rounding step away
		// from the whole number of tokens it sums.
		if r := math.Round(v); math.Abs(v-r) <= 1e-6*math.Max(1, r) {
			v = r
		} else {
			rb.note("%s is %s, not a whole number of tokens", key, s.Get("total_sum").Literal())
		}
		rb.state(tk.metric, "tokens", key, "tokens", v)
	}
	stated := false
	for _, rs := range glRateSeries {
		s := rb.successful(rs.key)
		if s == nil {
			continue
		}
		key := "metrics." + rs.key + ".successful.mean"
		if v, ok := rb.number(s.Get("mean"), key, true); ok {
			rb.state(rs.metric, rs.unit, key, rs.unit, v)
			stated = true
		}
	}
	if stated {
		rb.note("the *_rate_series.mean figures are guidellm's time-weighted rate means (its headline throughput), not count / duration: output and total token throughput are the counts over the window, computed from the records or the stated totals and duration")
	}
}

// facts records what the report says about the run's provenance.
func (rb *glRunBuilder) facts() {
	n, env := rb.b.node, rb.env
	cfg := n.Get("config") // 0.4+: the benchmark's own configuration
	spec := env.config.Get("spec")
	args := env.args
	legacyArgs := n.Get("args") // 0.2/0.3

	first := func(cands ...*jsonread.Node) *jsonread.Node {
		for _, c := range cands {
			if _, ok := c.Scalar(); ok {
				return c
			}
		}
		return nil
	}
	rb.fact("checkpoint.model_id", first(cfg.Path("backend", "model"), spec.Path("backend", "model"), args.Get("model"), n.Path("worker", "backend_model")))
	rb.fact("checkpoint.tokenizer", first(spec.Path("tokenizer", "model"), args.Get("processor"), n.Path("request_loader", "processor")))
	rb.fact("measurement.backend", first(cfg.Path("backend", "kind"), spec.Path("backend", "kind"), args.Get("backend"), n.Path("worker", "backend_type")))
	rb.fact("metadata.target", first(cfg.Path("backend", "target"), spec.Path("backend", "target"), args.Get("target"), n.Path("worker", "backend_target")))
	rb.fact("workload.seed", first(spec.Path("seed", "value"), cfg.Path("requests", "random_seed"), args.Get("random_seed"), legacyArgs.Path("profile", "random_seed")))
	rb.fact("metadata.client_platform", env.metadata.Get("platform"))
	rb.fact("metadata.python_version", env.metadata.Get("python_version"))
	rb.fact("metadata.guidellm_run_id", first(cfg.Get("run_id"), n.Get("run_id")))
	rb.fact("metadata.guidellm_benchmark_id", first(cfg.Get("id_"), n.Get("id_")))
	rb.fact("metadata.guidellm_profile", first(cfg.Path("profile", "type_"), cfg.Path("profile", "kind"), spec.Path("profile", "kind"), legacyArgs.Path("profile", "type_"), args.Get("profile")))
	if labels := env.config.Path("metadata", "labels"); labels != nil && labels.Kind == pyjson.ObjectStart {
		for i, k := range labels.Keys {
			rb.fact("metadata."+k, labels.Vals[i])
		}
	}

	// The load: guidellm's strategy of this benchmark.
	strategy := first(cfg.Path("strategy", "type_"), legacyArgs.Path("strategy", "type_"))
	st := cfg.Get("strategy")
	if st == nil {
		st = legacyArgs.Get("strategy")
	}
	if strategy != nil {
		rb.fact("metadata.guidellm_strategy", strategy)
		switch strategy.Text {
		case "synchronous":
			rb.run.Facts["workload.concurrency"] = "1"
		case "concurrent":
			rb.fact("workload.concurrency", st.Get("streams"))
		case "throughput":
			rb.run.Facts["workload.request_rate"] = "inf"
			rb.fact("workload.concurrency", st.Get("max_concurrency"))
		case "constant", "poisson", "async":
			rb.fact("workload.request_rate", st.Get("rate"))
		}
	}

	// The request count is the benchmark's max-requests limit, as vLLM's
	// num_prompts is its request count.
	limit := first(cfg.Path("constraints", "max_requests", "max_num"), cfg.Path("constraints", "max_requests", "args", "count"),
		cfg.Path("constraints", "max_requests", "max_requests"), legacyArgs.Get("max_number"), args.Get("max_requests"))
	if v, ok := limit.Finite(); ok && v > 0 {
		rb.fact("workload.request_count", limit)
	}

	rb.dataset(first(n.Path("request_loader", "data"), cfg.Path("requests", "data")), args.Get("data"), spec.Get("data"))

	if v, ok := n.Get("start_time").Finite(); ok {
		if v >= glEpochMin && v < glEpochMax {
			sec, frac := math.Modf(v)
			rb.run.Facts["measurement.date"] = time.Unix(int64(sec), int64(frac*1e9)).UTC().Format(time.RFC3339)
		} else {
			rb.note("start_time %s is not a plausible epoch time; no measurement.date recorded", n.Get("start_time").Literal())
		}
	}
}

// dataset records the data source and, for guidellm's synthetic data with
// fixed lengths, the input and output lengths.
func (rb *glRunBuilder) dataset(text, list, spec *jsonread.Node) {
	var sources []string
	var synth []map[string]string
	add := func(s string) {
		if s == "" {
			return
		}
		sources = append(sources, s)
		if kv := glSyntheticSpec(s); kv != nil {
			synth = append(synth, kv)
		}
	}
	// The report's own argument list first: the benchmark's copy
	// (config.requests.data) is its Python repr, "['/path']".
	if list != nil && list.Kind == pyjson.ArrayStart {
		for _, it := range list.Vals {
			if s, ok := it.Scalar(); ok {
				add(s)
			}
		}
	}
	if s, ok := text.Scalar(); ok && len(sources) == 0 {
		add(s)
	}
	if spec != nil && spec.Kind == pyjson.ArrayStart && len(sources) == 0 {
		for _, it := range spec.Vals {
			kv := map[string]string{}
			for i, k := range it.Keys {
				if s, ok := it.Vals[i].Scalar(); ok {
					kv[k] = s
				}
			}
			name := kv["kind"]
			if p := kv["path"]; p != "" {
				name = p
			}
			if name != "" {
				sources = append(sources, name)
			}
			if kv["prompt_tokens"] != "" || kv["output_tokens"] != "" {
				synth = append(synth, kv)
			}
		}
	}
	if len(sources) > 0 {
		rb.run.Facts["workload.dataset"] = strings.Join(sources, ", ")
	}
	if len(synth) != 1 {
		return
	}
	fixed := func(prefix string) string {
		v := synth[0][prefix]
		if v == "" {
			return ""
		}
		for _, s := range []string{"_stdev", "_min", "_max"} {
			if x := synth[0][prefix+s]; x != "" && x != "0" && x != v {
				return ""
			}
		}
		return v
	}
	if v := fixed("prompt_tokens"); v != "" {
		rb.run.Facts["workload.input_len"] = v
	}
	if v := fixed("output_tokens"); v != "" {
		rb.run.Facts["workload.output_len"] = v
	}
}

// glSyntheticSpec reads guidellm's synthetic data argument,
// "prompt_tokens=256,output_tokens=128" or the same as a JSON object; nil
// when s is a path or a dataset name.
func glSyntheticSpec(s string) map[string]string {
	s = strings.TrimSpace(s)
	kv := map[string]string{}
	if strings.HasPrefix(s, "{") {
		d := pyjson.NewDecoder(strings.NewReader(s))
		g := glTree("", d, nil)
		t, err := d.Next()
		if err != nil {
			return nil
		}
		n, err := g.Value(t)
		if err != nil || n.Kind != pyjson.ObjectStart {
			return nil
		}
		for i, k := range n.Keys {
			if v, ok := n.Vals[i].Scalar(); ok {
				kv[k] = v
			}
		}
	} else {
		for part := range strings.SplitSeq(s, ",") {
			k, v, ok := strings.Cut(part, "=")
			if !ok {
				return nil
			}
			kv[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	if kv["prompt_tokens"] == "" && kv["output_tokens"] == "" {
		return nil
	}
	return kv
}

// records turns the request samples into the run's per-request records when
// they are the whole run: every request guidellm counted, in every status.
// guidellm keeps a sample of them (--sample-requests); a sample is not the
// run, so then no records are kept and the figures are guidellm's own.
func (rb *glRunBuilder) records() {
	b := rb.b
	if !b.samples || rb.fail != "" {
		if rb.run.Completed+rb.run.Failed > 0 {
			rb.note("summary only: the report keeps no request samples")
		}
		return
	}
	reqs := b.reqs
	// From 0.4 guidellm computes its figures over the requests that overlap
	// its measurement window (RequestsAccumulator.get_within_range), while
	// the samples also hold the warmup and cooldown requests.
	if sm := rb.b.node.Get("scheduler_metrics"); sm != nil {
		ms, sok := sm.Get("measure_start_time").Finite()
		me, eok := sm.Get("measure_end_time").Finite()
		if sok && eok {
			kept := reqs[:0:0]
			for _, q := range reqs {
				if !benchrun.IsKnown(q.end) || q.end < ms {
					continue
				}
				if benchrun.IsKnown(q.start) && q.start > me || !benchrun.IsKnown(q.start) && q.end > me {
					continue
				}
				kept = append(kept, q)
			}
			if out := len(reqs) - len(kept); out > 0 {
				rb.note("%d of the %d request samples fall outside guidellm's measurement window (warmup or cooldown): they are not the run's records", out, len(reqs))
			}
			reqs = kept
		}
	}
	if len(reqs) == 0 {
		rb.note("summary only: the report keeps no request samples of this benchmark")
		return
	}
	var have [3]int64
	for _, q := range reqs {
		have[q.status]++
	}
	want := [3]int64{rb.run.Completed, -1, -1}
	totals := rb.metrics.Get("request_totals")
	if totals == nil {
		totals = rb.b.node.Get("request_totals")
	}
	for i, s := range glStatuses[1:] {
		if v, ok := totals.Get(s).Finite(); ok {
			want[i+1] = int64(v)
		}
	}
	if have != want {
		rb.note("the report keeps %d successful, %d errored and %d incomplete request samples of the %d, %d and %d it counted: a sample is not the run, so no per-request records are kept",
			have[0], have[1], have[2], want[0], want[1], want[2])
		return
	}
	slices.SortStableFunc(reqs, func(a, c glRequest) int {
		switch {
		case !benchrun.IsKnown(a.start) && !benchrun.IsKnown(c.start):
			return 0
		case !benchrun.IsKnown(a.start):
			return 1
		case !benchrun.IsKnown(c.start):
			return -1
		case a.start < c.start:
			return -1
		case a.start > c.start:
			return 1
		}
		return 0
	})
	epoch := true
	out := make([]benchrun.Request, len(reqs))
	for i, q := range reqs {
		r := format.NewRequest(i)
		r.Start, r.TTFT, r.Latency = q.start, q.ttft, q.latency
		r.InputTokens, r.OutputTokens, r.Error = q.inTokens, q.outTokens, q.err
		out[i] = r
		if !benchrun.IsKnown(q.start) || q.start < glEpochMin || q.start >= glEpochMax {
			epoch = false
		}
	}
	rb.run.Requests, rb.run.HasRequests = out, true
	// guidellm's own E2E latency (request_latency) ends at request_end,
	// after the stream closed; the records end at the last token. The
	// audit recomputes guidellm's figures under its own definition from
	// these (docs/metrics.md, "Definitions of the tools").
	tt := &benchrun.ToolTimes{Latency: make([]float64, len(reqs)), WindowStart: benchrun.Unknown, WindowEnd: benchrun.Unknown}
	for i, q := range reqs {
		tt.Latency[i] = benchrun.Unknown
		if benchrun.IsKnown(q.end) && benchrun.IsKnown(q.start) && q.end >= q.start {
			tt.Latency[i] = q.end - q.start
		}
	}
	if sm := rb.b.node.Get("scheduler_metrics"); sm != nil {
		ms, sok := sm.Get("measure_start_time").Finite()
		if me, eok := sm.Get("measure_end_time").Finite(); sok && eok {
			tt.WindowStart, tt.WindowEnd = ms, me
		}
	}
	rb.run.ToolTimes = tt
	rb.run.FormatVariant += ", request samples"
	var tail float64
	tails := 0
	for _, q := range reqs {
		if q.status == 0 && benchrun.IsKnown(q.last) && benchrun.IsKnown(q.end) && benchrun.IsKnown(q.start) && q.end >= q.last {
			tail += q.end - q.last
			tails++
		}
	}
	if tails > 0 {
		rb.note("the records' latency runs from request start to the last token (the canonical E2E latency); guidellm's request_latency, stated as e2el, runs on to the end of the response, on average %.6g s later", tail/float64(tails))
	}
	if epoch {
		rb.run.Clock = benchrun.ClockEpoch
		rb.run.Facts["measurement.clock"] = string(benchrun.ClockEpoch)
	} else {
		rb.note("some request start times are missing or not epoch seconds: the records carry no clock")
	}
}

// glHandled are benchmark keys read into stated figures or records; every
// other key is kept in Extra as written.
var glHandled = map[string]bool{"metrics": true, "duration": true, "requests": true, "request_totals": true}

// glMetricsHandled are metrics read into stated figures (or kept in Extra by
// latencies with a note).
var glMetricsHandled = map[string]bool{
	"request_totals": true, "time_to_first_token_ms": true, "request_latency": true,
	"inter_token_latency_per_chunk_ms": true, "inter_token_latency_ms": true, "time_per_output_token_ms": true,
	"prompt_token_count": true, "output_token_count": true, "requests_per_second": true,
	"output_tokens_per_second": true, "tokens_per_second": true, "prompt_tokens_per_second": true,
	"request_concurrency": true,
}

// extras keeps what was not interpreted: the benchmark's other keys, the
// other metrics, and the report's envelope.
func (rb *glRunBuilder) extras() {
	n := rb.b.node
	for i, k := range n.Keys {
		if !glHandled[k] {
			rb.run.Extra[k] = n.Vals[i].ExtraBounded()
		}
	}
	for i, k := range rb.metrics.Keys {
		if !glMetricsHandled[k] {
			rb.run.Extra["metrics."+k] = rb.metrics.Vals[i].ExtraBounded()
		}
	}
	env := rb.env
	for _, part := range []struct {
		key string
		n   *jsonread.Node
	}{{"metadata", env.metadata}, {"args", env.args}, {"config", env.config}} {
		if part.n != nil {
			rb.run.Extra["report."+part.key] = part.n.ExtraBounded()
		}
	}
	for i, k := range env.extraKeys {
		rb.run.Extra["report."+k] = env.extra[i].ExtraBounded()
	}
}
