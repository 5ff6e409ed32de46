package aiperf

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// NewJSON returns the parser for AIPerf's summary file,
// profile_export_aiperf.json, in its three generations: the early
// {"records": {tag: {...}}} layout (AIPerf 0.1), the flat
// GenAI-Perf-compatible layout, and the versioned layout with
// "schema_version" (docs/formats.md).
func NewJSON() format.Parser { return aiperfJSON{} }

type aiperfJSON struct{}

const (
	aiperfJSONID = "aiperf-json"
	aiperfClient = "aiperf"
	// aiperfSummaryMax bounds a summary file (JSON or CSV): AIPerf writes a
	// few kilobytes, tens with GPU telemetry. Anything far larger is not a
	// summary, and a tree of it would cost memory out of proportion.
	aiperfSummaryMax = 16 << 20
	// aiperfMaxNodes bounds the values of one summary tree for the same reason.
	aiperfMaxNodes = 1 << 20
	aiperfMaxDepth = 64
	// Epoch nanoseconds must fall in [2000-01-01, 2100-01-01): outside they
	// are not wall-clock nanoseconds (a monotonic clock, another unit).
	aiperfEpochMinNs = 946684800e9
	aiperfEpochMaxNs = 4102444800e9
)

func (aiperfJSON) ID() string       { return aiperfJSONID }
func (aiperfJSON) Describe() string { return "AIPerf profile_export_aiperf.json summary" }

// aiperfJSONMarkers are top-level keys only AIPerf's summary has: GenAI-Perf's
// JSON, which AIPerf's imitates, has none of them.
var aiperfJSONMarkers = map[string]bool{
	"schema_version": true, "aiperf_version": true, "benchmark_id": true, "was_cancelled": true,
	"error_summary": true, "benchmark_duration": true, "min_request_timestamp": true,
	"max_response_timestamp": true, "inter_chunk_latency": true, "total_osl": true, "total_isl": true,
	"error_request_count": true,
}

// Sniff reads the top-level keys in head. The early layout is recognised by
// its "records" object of metric blocks that carry a "tag" and a "header".
func (aiperfJSON) Sniff(name string, head []byte) bool {
	d, ok := jsonread.HeadObject(head)
	if !ok {
		return false
	}
	found := false
	jsonread.SniffObject(d, func(key string, v pyjson.Token) bool {
		switch {
		case aiperfJSONMarkers[key]:
			found = true
		case key == "records" && v.Kind == pyjson.ObjectStart:
			found = aiperfSniffRecords(d)
		default:
			return true
		}
		return false
	})
	return found
}

// aiperfSniffRecords looks at the first metric block of an early "records"
// object (its '{' was just read).
func aiperfSniffRecords(d *pyjson.Decoder) bool {
	if k, err := d.Next(); err != nil || k.Kind != pyjson.Key {
		return false
	}
	if v, err := d.Next(); err != nil || v.Kind != pyjson.ObjectStart {
		return false
	}
	var tag, header bool
	jsonread.SniffObject(d, func(key string, _ pyjson.Token) bool {
		tag = tag || key == "tag"
		header = header || key == "header"
		return true
	})
	return tag && header
}

// Parse reads the summary and emits its one run.
func (aiperfJSON) Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	root, err := aiperfReadTree(name, r)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	run, err := aiperfSummaryRun(name, root)
	if err != nil {
		return err
	}
	return emit(run)
}

// aiperfLatency maps the per-request distributions AIPerf and GenAI-Perf
// state to canonical metric names. inter_token_latency is (request_latency −
// TTFT) / (output_sequence_length − 1) per request in both tools: vLLM's TPOT,
// not its ITL. inter_chunk_latency (AIPerf) is the gap between streamed
// chunks pooled over requests: vLLM's ITL.
var aiperfLatency = map[string]string{
	"ttft": "ttft", "time_to_first_token": "ttft", "request_latency": "e2el",
	"inter_token_latency": "tpot", "inter_chunk_latency": "itl",
}

// aiperfScalar maps single-value figures (stated as "avg") to canonical
// names and the kind of unit each must carry.
var aiperfScalar = map[string]struct{ metric, kind string }{
	"request_throughput":      {"request_throughput", "req/s"},
	"output_token_throughput": {"output_throughput", "tok/s"},
	"total_token_throughput":  {"total_token_throughput", "tok/s"},
	"goodput":                 {"request_goodput", "req/s"},
	"request_goodput":         {"request_goodput", "req/s"},
	"benchmark_duration":      {"duration", "s"},
	"request_count":           {"completed", "requests"},
	"error_request_count":     {"failed", "requests"},
	"total_isl":               {"total_input_tokens", "tokens"},
	"total_osl":               {"total_output_tokens", "tokens"},
}

// aiperfUnitDivisor converts a value in the unit a file states to the
// canonical unit of its kind ("s", "req/s", "tok/s", "requests", "tokens"):
// canonical = value / divisor. Dividing (27.76 / 1000) keeps the decimal
// value a file printed closer than multiplying by 1e-3 would.
func aiperfUnitDivisor(kind, unit string) (float64, bool) {
	u := strings.ToLower(strings.TrimSpace(unit))
	switch kind {
	case "s":
		switch u {
		case "s", "sec", "secs", "second", "seconds":
			return 1, true
		case "ms":
			return 1e3, true
		case "us", "µs", "μs":
			return 1e6, true
		case "ns":
			return 1e9, true
		}
	case "req/s":
		switch u {
		case "requests/sec", "requests/s", "req/s", "per sec", "requests per second":
			return 1, true
		}
	case "tok/s":
		switch u {
		case "tokens/sec", "tokens/s", "tok/s", "per sec", "tokens per second":
			return 1, true
		}
	case "requests":
		switch u {
		case "requests", "count", "":
			return 1, true
		}
	case "tokens":
		switch u {
		case "tokens", "":
			return 1, true
		}
	}
	return 0, false
}

// aiperfStatName turns a statistic key of a metric block into the suffix of
// a canonical name: avg → mean, p50 → median, p99 → p99. ok is false for
// keys that are not statistics of the distribution (count, sum, adj_p99).
func aiperfStatName(stat string) (string, bool) {
	switch stat {
	case "avg":
		return "mean", true
	case "min", "max", "std":
		return stat, true
	case "p50":
		return "median", true
	}
	if format.IsPercentileWord(stat) {
		return stat, true
	}
	return "", false
}

// aiperfFigures collects the stated figures of a summary (JSON or CSV).
type aiperfFigures struct {
	file string
	run  *benchrun.Run
	// stateStd: the generation's std is the population deviation (checked
	// against the records of the 2025-10 sample); newer documentation says
	// sample deviation, so such a std is kept out of the stated figures.
	stateStd              bool
	stdSkipped            bool    // a std was left out for that reason
	requests, errors, osl int64   // -1 when not stated
	duration              float64 // s; NaN when not stated
}

func newAIPerfFigures(file string, run *benchrun.Run) *aiperfFigures {
	return &aiperfFigures{file: file, run: run, requests: -1, errors: -1, osl: -1, duration: math.NaN()}
}

// add states one value of a metric: tag is the tool's metric name, stat
// its statistic key ("avg", "p99"), unit as the file says, value as read.
// sourceKey is how the file names it, for Stated.SourceKey.
func (f *aiperfFigures) add(place, tag, stat, unit string, v float64, sourceKey string) (bool, error) {
	if base, ok := aiperfLatency[tag]; ok {
		suffix, ok := aiperfStatName(stat)
		if !ok {
			return false, nil
		}
		if suffix == "std" && !f.stateStd {
			f.stdSkipped = true
			return false, nil
		}
		div, ok := aiperfUnitDivisor("s", unit)
		if !ok {
			return false, format.Errorf(f.file, place, "%s is stated in %q, which is not a unit of time", tag, unit)
		}
		if v < 0 {
			return false, format.Errorf(f.file, place, "%s %s is negative (%g)", tag, stat, v)
		}
		f.run.Stated = append(f.run.Stated, benchrun.Stated{Metric: base + "." + suffix, Value: v / div, Unit: "s", SourceKey: sourceKey, SourceUnit: unit})
		return true, nil
	}
	sc, ok := aiperfScalar[tag]
	if !ok || stat != "avg" {
		return false, nil
	}
	div, ok := aiperfUnitDivisor(sc.kind, unit)
	if !ok {
		return false, format.Errorf(f.file, place, "%s is stated in %q, expected a unit of %s", tag, unit, sc.kind)
	}
	if v < 0 {
		return false, format.Errorf(f.file, place, "%s is negative (%g)", tag, v)
	}
	v /= div
	if unit == "" {
		unit = sc.kind // a count printed without its unit
	}
	switch sc.kind {
	case "requests", "tokens":
		if v != math.Trunc(v) || v > 1<<53 {
			return false, format.Errorf(f.file, place, "%s is %g, not a whole number of %s", tag, v, sc.kind)
		}
		switch tag {
		case "request_count":
			f.requests = int64(v)
			f.run.Completed = int64(v)
		case "error_request_count":
			f.errors = int64(v)
			f.run.Failed = int64(v)
		case "total_osl":
			f.osl = int64(v)
		}
	case "s":
		f.duration = v
	}
	f.run.Stated = append(f.run.Stated, benchrun.Stated{Metric: sc.metric, Value: v, Unit: sc.kind, SourceKey: sourceKey, SourceUnit: unit})
	return true, nil
}

// aiperfCompanion names the run across the three files AIPerf writes for it
// (summary JSON, summary CSV, per-request JSONL). They share no identifier:
// the JSONL has no benchmark id, the CSV no model, and the versioned JSON no
// request timestamps. What every file states, or can compute, is the count of
// completed and failed requests, the output tokens (output_sequence_length
// summed over completed requests) and the duration (last response − first
// request of the completed requests), which the CSV prints to 10 ms. ok is
// false when a figure is missing.
func aiperfCompanion(requests, errs, osl int64, duration float64) (string, bool) {
	if requests < 0 || osl < 0 || !benchrun.IsKnown(duration) || math.IsInf(duration, 0) {
		return "", false
	}
	return fmt.Sprintf("aiperf:requests=%d,errors=%d,output_tokens=%d,duration=%ss",
		requests, max(errs, 0), osl, strconv.FormatFloat(duration, 'f', 2, 64)), true
}

// aiperfCompanionNote says how the companion key was made, or why there is none.
func aiperfCompanionNote(run *benchrun.Run, requests, errs, osl int64, duration float64) {
	if key, ok := aiperfCompanion(requests, errs, osl, duration); ok {
		run.Companion = key
		run.Notes = append(run.Notes, "companion key from the completed and failed request counts, total output tokens and the duration to 10 ms, which AIPerf's JSON, CSV and per-request JSONL all carry; "+
			"files are joined only when one invocation wrote them (one folder, one file-name stem), so two runs of one fixed workload that agree on all four stay two")
		return
	}
	run.Notes = append(run.Notes, "no companion key: the file lacks the request count, total output sequence length or benchmark duration that match it with AIPerf's other files of the run")
}

// aiperfEpochDate formats the first request's send time (epoch ns, as the
// float64 AIPerf's summaries round it to) as an RFC 3339 UTC second: every
// AIPerf file of a run that knows it gives the same text.
func aiperfEpochDate(ns float64) (string, bool) {
	if !(ns >= aiperfEpochMinNs && ns < aiperfEpochMaxNs) {
		return "", false
	}
	return time.Unix(int64(math.Floor(ns/1e9)), 0).UTC().Format("2006-01-02T15:04:05Z"), true
}

// aiperfNumberFact formats a number for a fact: 100 for 100.0.
func aiperfNumberFact(n *jsonread.Node) (string, bool) {
	v, ok := n.Finite()
	if !ok {
		return "", false
	}
	return strconv.FormatFloat(v, 'g', -1, 64), true
}

// aiperfTopKeys are top-level keys of the summary that are not metric blocks.
var aiperfTopKeys = map[string]bool{
	"input_config": true, "was_cancelled": true, "error_summary": true, "start_time": true, "end_time": true,
	"schema_version": true, "aiperf_version": true, "benchmark_id": true, "run_info": true,
	"telemetry_data": true, "warmup_metrics": true, "runtime_submission_invalid_reasons": true,
	"branch_stats": true, "records": true,
}

// aiperfSummaryRun builds the run of one profile_export_aiperf.json.
func aiperfSummaryRun(file string, root *jsonread.Node) (*benchrun.Run, error) {
	if root.Kind != pyjson.ObjectStart {
		return nil, format.Errorf(file, root.Place(), "not an AIPerf summary: the file holds a %s, not a JSON object", root.Kind)
	}
	run := &benchrun.Run{
		Location:         "object at " + root.Place(),
		Format:           aiperfJSONID,
		SourceTool:       aiperfClient,
		PercentileMethod: "linear",
		Facts:            map[string]string{"measurement.client": aiperfClient},
		Extra:            map[string]string{},
		Completed:        -1,
		Failed:           -1,
	}
	note := func(msgf string, args ...any) { run.Notes = append(run.Notes, fmt.Sprintf(msgf, args...)) }
	f := newAIPerfFigures(file, run)

	// The metric blocks: inside "records" (early), or top-level keys.
	type block struct {
		tag  string
		node *jsonread.Node
	}
	var blocks []block
	records := root.Get("records")
	schema, hasSchema := root.Get("schema_version").Str()
	switch {
	case records != nil:
		if records.Kind != pyjson.ObjectStart {
			return nil, format.Errorf(file, records.Place(), "\"records\" must be an object of metric blocks, found %s", records.Describe())
		}
		run.FormatVariant = "records layout (AIPerf 0.1)"
		for i, tag := range records.Keys {
			blocks = append(blocks, block{tag, records.Vals[i]})
		}
	case hasSchema:
		run.FormatVariant = "schema " + schema
	default:
		run.FormatVariant = "flat (GenAI-Perf-compatible, no schema_version)"
	}
	// The early and flat generations compute std with np.std (population);
	// the versioned generation's documentation calls it a sample deviation.
	f.stateStd = !hasSchema
	for i, key := range root.Keys {
		v := root.Vals[i]
		if aiperfTopKeys[key] {
			continue
		}
		if v.Kind == pyjson.ObjectStart && v.Get("unit") != nil {
			blocks = append(blocks, block{key, v})
			continue
		}
		run.Extra[key] = v.Extra()
	}
	if len(blocks) == 0 {
		return nil, format.Errorf(file, root.Place(), "not an AIPerf summary: no metric blocks (objects with a \"unit\")")
	}

	var minReq float64 = math.NaN()
	var mappedLatency []string
	for _, b := range blocks {
		if b.node.Kind != pyjson.ObjectStart {
			return nil, format.Errorf(file, b.node.Place(), "metric %q must be an object, found %s", b.tag, b.node.Describe())
		}
		unitNode := b.node.Get("unit")
		unit, ok := unitNode.Str()
		if unitNode != nil && !ok && unitNode.Kind != pyjson.Null {
			return nil, format.Errorf(file, unitNode.Place(), "metric %q: \"unit\" must be a string, found %s", b.tag, unitNode.Describe())
		}
		mapped := false
		for j, stat := range b.node.Keys {
			v := b.node.Vals[j]
			switch stat {
			case "unit", "tag", "header":
				continue
			}
			switch v.Kind {
			case pyjson.Null:
				continue // AIPerf writes null for a statistic it did not compute
			case pyjson.Number:
			default:
				if stat == "count" || stat == "sum" || strings.HasPrefix(stat, "adj_") || aiperfStatKnown(stat) {
					return nil, format.Errorf(file, v.Place(), "metric %q statistic %q must be a number, found %s", b.tag, stat, v.Describe())
				}
				continue // a field of a newer version, kept with the block
			}
			x, ok := v.Finite()
			if !ok {
				return nil, format.Errorf(file, v.Place(), "metric %q statistic %q is %s: AIPerf writes null, never a non-finite number", b.tag, stat, v.Text)
			}
			if b.tag == "min_request_timestamp" && stat == "avg" {
				if div, ok := aiperfUnitDivisor("s", unit); ok {
					minReq = x / div * 1e9
				}
			}
			m, err := f.add(v.Place(), b.tag, stat, unit, x, b.tag+"."+stat)
			if err != nil {
				return nil, err
			}
			mapped = mapped || m
		}
		if _, ok := aiperfLatency[b.tag]; ok && mapped {
			mappedLatency = append(mappedLatency, b.tag)
		}
		if !mapped {
			run.Extra[b.tag] = b.node.Extra()
		}
	}

	_, answerOnly := run.Extra["total_output_tokens"]
	aiperfSummaryNotes(run, f, mappedLatency, hasSchema,
		"std is not stated: AIPerf's versioned export documents it as the sample standard deviation, the archive's std is the population deviation", answerOnly)

	// Failures: error_request_count when stated, otherwise the error
	// summary, which every generation writes (empty when none failed).
	summaryFailed := int64(-1)
	if es := root.Get("error_summary"); es != nil {
		run.Extra["error_summary"] = es.Extra()
		if es.Kind == pyjson.ArrayStart {
			var total int64
			var parts []string
			for _, item := range es.Vals {
				c, ok := item.Get("count").Finite()
				if !ok || c < 0 || c != math.Trunc(c) {
					return nil, format.Errorf(file, item.Place(), "error_summary entry has no valid \"count\"")
				}
				total += int64(c)
				typ, _ := item.Path("error_details", "type").Str()
				code, _ := aiperfNumberFact(item.Path("error_details", "code"))
				parts = append(parts, strings.TrimSpace(code+" "+typ)+fmt.Sprintf(" (%d)", int64(c)))
			}
			summaryFailed = total
			if total > 0 {
				note("failed requests by error: %s", strings.Join(parts, ", "))
			}
		}
	}
	switch {
	case run.Failed < 0 && summaryFailed >= 0:
		run.Failed = summaryFailed
	case run.Failed >= 0 && summaryFailed >= 0 && run.Failed != summaryFailed:
		note("error_request_count states %d failed requests but error_summary counts %d", run.Failed, summaryFailed)
	}
	if run.Completed < 0 {
		return nil, format.Errorf(file, root.Place(), "not an AIPerf result: no request_count")
	}
	if run.Completed == 0 && run.Failed <= 0 {
		return nil, format.Errorf(file, root.Place(), "run has no requests: request_count is 0 and no request failed")
	}

	if v := root.Get("was_cancelled"); v != nil {
		run.Extra["was_cancelled"] = v.Extra()
		if v.Kind == pyjson.True {
			note("the benchmark was cancelled before it finished (was_cancelled)")
		}
	}
	for _, k := range []string{"start_time", "end_time", "benchmark_id", "run_info", "schema_version", "telemetry_data", "warmup_metrics", "runtime_submission_invalid_reasons", "branch_stats"} {
		if v := root.Get(k); v != nil {
			run.Extra[k] = v.Extra()
		}
	}
	if v, ok := root.Get("aiperf_version").Str(); ok && v != "" {
		run.Facts["measurement.client_version"] = v
	}
	if date, ok := aiperfEpochDate(minReq); ok {
		run.Facts["measurement.date"] = date
		note("measurement.date is the first request's send time (min_request_timestamp, epoch ns) in UTC")
	} else if st, ok := root.Get("start_time").Str(); ok {
		note("start_time %q is the client's local time without a zone (Python datetime.fromtimestamp); not recorded as measurement.date, which the per-request profile_export.jsonl states in UTC", st)
	}
	aiperfGPUFact(run, root.Get("telemetry_data"))
	if ic := root.Get("input_config"); ic != nil {
		run.Extra["input_config"] = ic.Extra()
		aiperfConfigFacts(run, ic)
	}
	if v, ok := root.Path("run_info", "random_seed").Finite(); ok {
		run.Facts["workload.seed"] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	aiperfCompanionNote(run, f.requests, f.errors, f.osl, f.duration)
	return run, nil
}

// aiperfStatKnown: statistic keys whose value must be a number or null.
func aiperfStatKnown(stat string) bool {
	_, ok := aiperfStatName(stat)
	return ok
}

// aiperfSummaryNotes records how the tool's metrics were read. stdWhy says
// why a std was left out (when one was); answerOnly that the file states
// AIPerf's answer-only total_output_tokens.
func aiperfSummaryNotes(run *benchrun.Run, f *aiperfFigures, latency []string, hasSchema bool, stdWhy string, answerOnly bool) {
	note := func(s string) { run.Notes = append(run.Notes, s) }
	for _, tag := range latency {
		switch tag {
		case "inter_token_latency":
			note("inter_token_latency is (request_latency − TTFT) / (output tokens − 1) per request (vLLM's TPOT, not its ITL): stated as tpot.*")
		case "inter_chunk_latency":
			s := "inter_chunk_latency is the gap between streamed chunks pooled over requests (vLLM's ITL): stated as itl.*"
			if hasSchema {
				s += "; newer AIPerf computes its percentiles from a t-digest sketch, so they are approximate"
			}
			note(s)
		}
	}
	if f.stdSkipped {
		note(stdWhy)
	}
	if answerOnly {
		note("AIPerf's total_output_tokens counts answer tokens only; total_osl (answer + reasoning tokens, what output throughput counts) is stated as total_output_tokens")
	}
}

// aiperfGPUFact states the GPU model when AIPerf's telemetry saw GPUs of
// one model only.
func aiperfGPUFact(run *benchrun.Run, tel *jsonread.Node) {
	eps := tel.Get("endpoints")
	if eps == nil || eps.Kind != pyjson.ObjectStart {
		return
	}
	model := ""
	for _, ep := range eps.Vals {
		gpus := ep.Get("gpus")
		if gpus == nil || gpus.Kind != pyjson.ObjectStart {
			continue
		}
		for _, g := range gpus.Vals {
			name, ok := g.Get("gpu_name").Str()
			if !ok || name == "" {
				continue
			}
			if model != "" && model != name {
				return
			}
			model = name
		}
	}
	if model != "" {
		run.Facts["hardware.gpu_model"] = model
		run.Notes = append(run.Notes, "hardware.gpu_model from AIPerf's GPU telemetry (gpu_name)")
	}
}

// aiperfConfigFacts reads the workload and checkpoint facts from
// input_config, in the early shape (endpoint.model_names, loadgen.*) and
// the versioned one (models.items[], phases[], datasets[]).
func aiperfConfigFacts(run *benchrun.Run, ic *jsonread.Node) {
	set := func(field string, n *jsonread.Node) {
		if s, ok := n.Str(); ok && strings.TrimSpace(s) != "" {
			run.Facts[field] = strings.TrimSpace(s)
		} else if s, ok := aiperfNumberFact(n); ok {
			run.Facts[field] = s
		}
	}
	var models []string
	if names := ic.Path("endpoint", "model_names"); names != nil && names.Kind == pyjson.ArrayStart {
		for _, m := range names.Vals {
			if s, ok := m.Str(); ok {
				models = append(models, s)
			}
		}
	}
	if items := ic.Path("models", "items"); items != nil && items.Kind == pyjson.ArrayStart {
		for _, m := range items.Vals {
			if s, ok := m.Get("name").Str(); ok {
				models = append(models, s)
			}
		}
	}
	if len(models) > 0 {
		run.Facts["checkpoint.model_id"] = models[0]
		if len(models) > 1 {
			run.Notes = append(run.Notes, fmt.Sprintf("the benchmark named %d models (%s); checkpoint.model_id is the first", len(models), strings.Join(models, ", ")))
		}
	}
	set("measurement.backend", ic.Path("endpoint", "type"))
	set("checkpoint.tokenizer", ic.Path("tokenizer", "name"))
	set("workload.concurrency", ic.Path("loadgen", "concurrency"))
	set("workload.request_rate", ic.Path("loadgen", "request_rate"))
	set("workload.request_count", ic.Path("loadgen", "request_count"))
	set("workload.seed", ic.Path("input", "random_seed"))
	set("workload.seed", ic.Get("random_seed"))
	aiperfLengthFact(run, "workload.input_len", ic.Path("input", "prompt", "input_tokens"))
	aiperfLengthFact(run, "workload.output_len", ic.Path("input", "prompt", "output_tokens"))
	if phases := ic.Get("phases"); phases != nil && phases.Kind == pyjson.ArrayStart {
		for _, ph := range phases.Vals {
			if name, _ := ph.Get("name").Str(); name != "profiling" && len(phases.Vals) > 1 {
				continue
			}
			set("workload.concurrency", ph.Get("concurrency"))
			set("workload.request_rate", ph.Get("rate"))
			set("workload.request_rate", ph.Get("request_rate"))
			set("workload.request_count", ph.Get("requests"))
			set("workload.request_count", ph.Get("request_count"))
		}
	}
	if ds := ic.Get("datasets"); ds != nil && ds.Kind == pyjson.ArrayStart && len(ds.Vals) == 1 {
		d := ds.Vals[0]
		set("workload.seed", d.Get("random_seed"))
		aiperfLengthFact(run, "workload.input_len", d.Path("prompts", "isl"))
		aiperfLengthFact(run, "workload.output_len", d.Path("prompts", "osl"))
	}
}

// aiperfLengthFact states a requested token length: the mean of AIPerf's
// distribution, as a fixed length only when its deviation is zero or unset.
func aiperfLengthFact(run *benchrun.Run, field string, spec *jsonread.Node) {
	mean, ok := aiperfNumberFact(spec.Get("mean"))
	if !ok {
		return
	}
	if sd, ok := spec.Get("stddev").Finite(); ok && sd != 0 {
		run.Facts[field] = fmt.Sprintf("%s±%s", mean, strconv.FormatFloat(sd, 'g', -1, 64))
		return
	}
	run.Facts[field] = mean
}

// Invocation: see aiperfRecords.Invocation.
func (aiperfJSON) Invocation(path string) (string, bool) {
	return format.StemInvocation(path, "_aiperf.json")
}
