package guidellm

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// glRunBuilder collects one benchmark's run; the first problem found makes
// it a rejection.
type glRunBuilder struct {
	run     *benchrun.Run
	env     *glEnvelope
	b       *glBench
	metrics *glNode
	fail    string
	legacy  bool // a 0.2/0.3 benchmark (args, run_stats, top-level request_totals)
}

func (rb *glRunBuilder) failf(n *glNode, msgf string, args ...any) {
	if rb.fail != "" {
		return
	}
	rb.fail = fmt.Sprintf(msgf, args...)
	if n != nil {
		rb.fail += " (at " + n.where() + ")"
	}
}

func (rb *glRunBuilder) note(msgf string, args ...any) {
	rb.run.Notes = append(rb.run.Notes, fmt.Sprintf(msgf, args...))
}

func (rb *glRunBuilder) fact(field string, n *glNode) {
	if s, ok := n.scalarText(); ok {
		rb.run.Facts[field] = s
	}
}

// glBuildRun turns one benchmark into a run, or a rejection naming the
// benchmark and what is wrong with it.
func glBuildRun(file string, env *glEnvelope, b *glBench, ordinal int, format string) *benchrun.Run {
	where := b.node.where()
	loc := fmt.Sprintf("benchmark %d at %s", b.index, where)
	rb := &glRunBuilder{
		env: env, b: b,
		run: &benchrun.Run{
			Ordinal: ordinal, Location: loc, Format: format, SourceTool: "guidellm",
			PercentileMethod: "nearest-rank", Facts: map[string]string{}, Extra: map[string]string{},
			Completed: -1, Failed: -1,
		},
	}
	if b.node.kind != glObj {
		return &benchrun.Run{Ordinal: ordinal, Location: loc,
			Rejection: fmt.Sprintf("benchmark %d is a %s, not a benchmark object", b.index, b.node.kind)}
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
	if t := n.get("type_"); t != nil && t.kind == glStr && t.text != "generative_benchmark" {
		rb.failf(t, "type_ %q is not a generative benchmark (only text generation benchmarks are read)", t.text)
		return
	}
	rb.metrics = n.get("metrics")
	if rb.metrics == nil || rb.metrics.kind != glObj {
		rb.failf(n, "no \"metrics\" object")
		return
	}
	rb.legacy = n.get("run_stats") != nil || n.get("args") != nil && n.get("config") == nil
	rb.run.FormatVariant = rb.env.generation()
	if rb.env.yaml {
		rb.run.FormatVariant += ", YAML"
	}
	rb.run.Facts["measurement.client"] = "guidellm"
	rb.fact("measurement.client_version", rb.env.metadata.get("guidellm_version"))

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
	totals := rb.metrics.get("request_totals")
	key := "metrics.request_totals"
	if totals == nil {
		totals, key = rb.b.node.get("request_totals"), "request_totals"
	}
	if totals == nil || totals.kind != glObj {
		rb.failf(rb.b.node, "no request_totals: the benchmark does not say how many requests completed")
		return
	}
	var c [3]int64
	for i, s := range glStatuses {
		v := totals.get(s)
		if v.absent() {
			rb.failf(totals, "%s.%s is missing", key, s)
			return
		}
		n, ok := rb.count(v, key+"."+s)
		if !ok {
			return
		}
		c[i] = n
	}
	if tot := totals.get("total"); tot.finite() && tot.num != float64(c[0]+c[1]+c[2]) {
		rb.note("%s.total is %s but successful + errored + incomplete = %d", key, tot.text, c[0]+c[1]+c[2])
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
func (rb *glRunBuilder) count(v *glNode, key string) (int64, bool) {
	switch {
	case v.kind != glNum:
		rb.failf(v, "%s: expected a count, found %s", key, v.kind)
	case !v.finite():
		rb.failf(v, "%s is %s, not a count", key, v.text)
	case v.num < 0:
		rb.failf(v, "%s: negative count %s", key, v.text)
	case v.num != math.Trunc(v.num) || v.num > 1<<53:
		rb.failf(v, "%s: %s is not a whole number", key, v.text)
	default:
		return int64(v.num), true
	}
	return 0, false
}

// number reads a stated figure: ok is false for null (nothing stated) and
// for NaN or ±Infinity, which are kept in Extra with a note.
func (rb *glRunBuilder) number(v *glNode, key string, nonNegative bool) (float64, bool) {
	switch {
	case v.absent():
		return 0, false
	case v.kind != glNum:
		rb.failf(v, "%s: expected a number, found %s", key, v.kind)
		return 0, false
	case !v.finite():
		rb.run.Extra[key] = glText(v)
		rb.note("%s is %s in the file; not kept as a stated figure", key, glText(v))
		return 0, false
	case nonNegative && v.num < 0:
		rb.failf(v, "%s: negative value %s", key, v.text)
		return 0, false
	}
	return v.num, true
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
	v := rb.b.node.get("duration")
	d, ok := rb.number(v, "duration", true)
	if !ok {
		return
	}
	if d == 0 {
		rb.note("duration is 0 in the file; not stated")
		return
	}
	rb.state("duration", "s", "duration", "s", d)
	sm := rb.b.node.get("scheduler_metrics")
	if sm == nil {
		return
	}
	end, reqEnd := sm.get("measure_end_time"), sm.get("request_end_time")
	if end.finite() && reqEnd.finite() && end.num > reqEnd.num+1e-3 {
		rb.note("guidellm's measurement window (duration %.6g s) ends %.6g s after the last request completed: its duration and the rates over it include time with no request in flight", d, end.num-reqEnd.num)
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
func (rb *glRunBuilder) successful(name string) *glNode {
	m := rb.metrics.get(name)
	if m.absent() {
		return nil
	}
	if m.kind != glObj {
		rb.failf(m, "metrics.%s: expected a distribution summary object, found %s", name, m.kind)
		return nil
	}
	s := m.get("successful")
	if s.absent() {
		return nil
	}
	if s.kind != glObj {
		rb.failf(s, "metrics.%s.successful: expected a distribution summary object, found %s", name, s.kind)
		return nil
	}
	if c := s.get("count"); c != nil {
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
		if v, ok := rb.number(s.get(st.key), base+st.key, true); ok {
			rb.state(canon+"."+st.stat, "s", base+st.key, sourceUnit, v)
		}
	}
	pct := s.get("percentiles")
	if pct.absent() {
		return true
	}
	if pct.kind != glObj {
		rb.failf(pct, "%spercentiles: expected an object, found %s", base, pct.kind)
		return true
	}
	for _, p := range glPercentiles {
		if v, ok := rb.number(pct.get(p.key), base+"percentiles."+p.key, true); ok {
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
		lo, hi := out.get("min"), out.get("max")
		if out != nil && lo.finite() && hi.finite() && lo.num == hi.num {
			rb.distribution("inter_token_latency_ms", "tpot", "ms")
			rb.note("tpot is guidellm's inter_token_latency_ms, (last token − first token) / (output tokens − 1): guidellm weights it by output tokens − 1, and every successful request produced %s output tokens, so the weights are equal and it is the per-request TPOT", lo.text)
		} else {
			rb.run.Extra["metrics.inter_token_latency_ms"] = glText(rb.metrics.get("inter_token_latency_ms"))
			rb.note("inter_token_latency_ms (vLLM's TPOT per request) is weighted by output tokens − 1 across requests of different output lengths, so its mean and percentiles are not TPOT over requests: kept in Extra, not stated as tpot")
		}
	}
	if m := rb.metrics.get("time_per_output_token_ms"); !m.absent() {
		rb.run.Extra["metrics.time_per_output_token_ms"] = glText(m)
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
		v, ok := rb.number(s.get("total_sum"), key, true)
		if !ok {
			continue
		}
		// From 0.4 total_sum is mean × count, a float a rounding step away
		// from the whole number of tokens it sums.
		if r := math.Round(v); math.Abs(v-r) <= 1e-6*math.Max(1, r) {
			v = r
		} else {
			rb.note("%s is %s, not a whole number of tokens", key, s.get("total_sum").text)
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
		if v, ok := rb.number(s.get("mean"), key, true); ok {
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
	cfg := n.get("config") // 0.4+: the benchmark's own configuration
	spec := env.config.get("spec")
	args := env.args
	legacyArgs := n.get("args") // 0.2/0.3

	first := func(cands ...*glNode) *glNode {
		for _, c := range cands {
			if _, ok := c.scalarText(); ok {
				return c
			}
		}
		return nil
	}
	rb.fact("checkpoint.model_id", first(cfg.at("backend", "model"), spec.at("backend", "model"), args.get("model"), n.at("worker", "backend_model")))
	rb.fact("checkpoint.tokenizer", first(spec.at("tokenizer", "model"), args.get("processor"), n.at("request_loader", "processor")))
	rb.fact("measurement.backend", first(cfg.at("backend", "kind"), spec.at("backend", "kind"), args.get("backend"), n.at("worker", "backend_type")))
	rb.fact("metadata.target", first(cfg.at("backend", "target"), spec.at("backend", "target"), args.get("target"), n.at("worker", "backend_target")))
	rb.fact("workload.seed", first(spec.at("seed", "value"), cfg.at("requests", "random_seed"), args.get("random_seed"), legacyArgs.at("profile", "random_seed")))
	rb.fact("metadata.client_platform", env.metadata.get("platform"))
	rb.fact("metadata.python_version", env.metadata.get("python_version"))
	rb.fact("metadata.guidellm_run_id", first(cfg.get("run_id"), n.get("run_id")))
	rb.fact("metadata.guidellm_benchmark_id", first(cfg.get("id_"), n.get("id_")))
	rb.fact("metadata.guidellm_profile", first(cfg.at("profile", "type_"), cfg.at("profile", "kind"), spec.at("profile", "kind"), legacyArgs.at("profile", "type_"), args.get("profile")))
	if labels := env.config.at("metadata", "labels"); labels != nil && labels.kind == glObj {
		for i, k := range labels.keys {
			rb.fact("metadata."+k, labels.vals[i])
		}
	}

	// The load: guidellm's strategy of this benchmark.
	strategy := first(cfg.at("strategy", "type_"), legacyArgs.at("strategy", "type_"))
	st := cfg.get("strategy")
	if st == nil {
		st = legacyArgs.get("strategy")
	}
	if strategy != nil {
		rb.fact("metadata.guidellm_strategy", strategy)
		switch strategy.text {
		case "synchronous":
			rb.run.Facts["workload.concurrency"] = "1"
		case "concurrent":
			rb.fact("workload.concurrency", st.get("streams"))
		case "throughput":
			rb.run.Facts["workload.request_rate"] = "inf"
			rb.fact("workload.concurrency", st.get("max_concurrency"))
		case "constant", "poisson", "async":
			rb.fact("workload.request_rate", st.get("rate"))
		}
	}

	// The request count is the benchmark's max-requests limit, as vLLM's
	// num_prompts is its request count.
	limit := first(cfg.at("constraints", "max_requests", "max_num"), cfg.at("constraints", "max_requests", "args", "count"),
		cfg.at("constraints", "max_requests", "max_requests"), legacyArgs.get("max_number"), args.get("max_requests"))
	if limit != nil && limit.finite() && limit.num > 0 {
		rb.fact("workload.request_count", limit)
	}

	rb.dataset(first(n.at("request_loader", "data"), cfg.at("requests", "data")), args.get("data"), spec.get("data"))

	if v := n.get("start_time"); v.finite() {
		if v.num >= glEpochMin && v.num < glEpochMax {
			sec, frac := math.Modf(v.num)
			rb.run.Facts["measurement.date"] = time.Unix(int64(sec), int64(frac*1e9)).UTC().Format(time.RFC3339)
		} else {
			rb.note("start_time %s is not a plausible epoch time; no measurement.date recorded", v.text)
		}
	}
}

// dataset records the data source and, for guidellm's synthetic data with
// fixed lengths, the input and output lengths.
func (rb *glRunBuilder) dataset(text, list, spec *glNode) {
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
	if list != nil && list.kind == glArr {
		for _, it := range list.items {
			if s, ok := it.scalarText(); ok {
				add(s)
			}
		}
	}
	if s, ok := text.scalarText(); ok && len(sources) == 0 {
		add(s)
	}
	if spec != nil && spec.kind == glArr && len(sources) == 0 {
		for _, it := range spec.items {
			kv := map[string]string{}
			for i, k := range it.keys {
				if s, ok := it.vals[i].scalarText(); ok {
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
		g := &glJSONReader{d: d}
		t, err := d.Next()
		if err != nil {
			return nil
		}
		n, err := g.value(t, nil)
		if err != nil || n.kind != glObj {
			return nil
		}
		for i, k := range n.keys {
			if v, ok := n.vals[i].scalarText(); ok {
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
	if sm := rb.b.node.get("scheduler_metrics"); sm != nil {
		ms, me := sm.get("measure_start_time"), sm.get("measure_end_time")
		if ms.finite() && me.finite() {
			kept := reqs[:0:0]
			for _, q := range reqs {
				if !benchrun.IsKnown(q.end) || q.end < ms.num {
					continue
				}
				if benchrun.IsKnown(q.start) && q.start > me.num || !benchrun.IsKnown(q.start) && q.end > me.num {
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
	totals := rb.metrics.get("request_totals")
	if totals == nil {
		totals = rb.b.node.get("request_totals")
	}
	for i, s := range glStatuses[1:] {
		if v := totals.get(s); v.finite() {
			want[i+1] = int64(v.num)
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
	if sm := rb.b.node.get("scheduler_metrics"); sm != nil {
		if ms, me := sm.get("measure_start_time"), sm.get("measure_end_time"); ms.finite() && me.finite() {
			tt.WindowStart, tt.WindowEnd = ms.num, me.num
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
	for i, k := range n.keys {
		if !glHandled[k] {
			rb.run.Extra[k] = glText(n.vals[i])
		}
	}
	for i, k := range rb.metrics.keys {
		if !glMetricsHandled[k] {
			rb.run.Extra["metrics."+k] = glText(rb.metrics.vals[i])
		}
	}
	env := rb.env
	for _, part := range []struct {
		key string
		n   *glNode
	}{{"metadata", env.metadata}, {"args", env.args}, {"config", env.config}} {
		if part.n != nil {
			rb.run.Extra["report."+part.key] = glText(part.n)
		}
	}
	for i, k := range env.extraKeys {
		rb.run.Extra["report."+k] = glText(env.extra[i])
	}
}
