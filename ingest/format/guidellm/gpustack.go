package guidellm

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// NewGPUStack returns the parser for GPUStack's benchmark records
// (gpustack/gpustack, FORMATS.md §8): the full record as the API returns it
// (GET /v2/benchmarks/{id}, saved as JSON by hack/perf/run_model_benchmark.py)
// and the UI's export (POST /v2/benchmarks/export, YAML {benchmarks: [...]}).
// A record embeds the guidellm report its benchmark-runner wrote
// (raw_metrics), read as guidellm-report does, one run per benchmark in it,
// and adds what no client file says: the serving engine and its version,
// image and arguments, the GPUs and the worker, from the record's snapshot.
//
// GPUStack's documentation also renders records as a vLLM-looking console
// block; ingest/format/gpustackconsole reads that rendering.
func NewGPUStack() format.Parser { return gpustackBenchmark{} }

type gpustackBenchmark struct{}

const (
	gpustackID = "gpustack-benchmark"
	// gsMaxFile bounds a record file, which is read whole (records hold
	// summaries, not request samples).
	gsMaxFile = 256 << 20
)

func (gpustackBenchmark) ID() string { return gpustackID }
func (gpustackBenchmark) Describe() string {
	return "GPUStack benchmark record (API JSON or exported YAML) with its guidellm results and environment snapshot"
}

// Sniff accepts a JSON object with GPUStack's model_instance_name (a record)
// or a "benchmarks" list of such objects, and the exported YAML.
func (gpustackBenchmark) Sniff(name string, head []byte) bool {
	d, yamlIs := glHead(head, "gpustack")
	if d == nil {
		return yamlIs
	}
	found := false
	jsonread.SniffWhole(d, func(key string, v pyjson.Token) bool {
		switch key {
		case "model_instance_name":
			found = true
			return false
		case "benchmarks":
			// The first benchmark decides.
			if v.Kind == pyjson.ArrayStart {
				if e, err := d.Next(); err == nil && e.Kind == pyjson.ObjectStart {
					jsonread.SniffObject(d, func(key string, _ pyjson.Token) bool {
						found = key == "model_instance_name"
						return !found
					})
				}
			}
			return false
		}
		return true
	})
	return found
}

// Parse reads a record or an export and emits the runs of every record in
// order; a record that cannot be read is a rejection and the others ingest.
func (gpustackBenchmark) Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	data, err := io.ReadAll(io.LimitReader(r, gsMaxFile+1))
	if err != nil {
		return fmt.Errorf("reading %s: %w", name, err)
	}
	if len(data) > gsMaxFile {
		return format.Errorf(name, "", "a GPUStack record file larger than %d MiB is not read", gsMaxFile>>20)
	}
	t := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(t) == 0 {
		return format.Errorf(name, "", "the file is empty")
	}
	var root *jsonread.Node
	variant := "record JSON (GET /v2/benchmarks/{id})"
	if t[0] == '{' || t[0] == '[' {
		d := pyjson.NewDecoder(bytes.NewReader(data))
		g := glTree(name, d, glRequestOmit)
		tok, err := d.Next()
		if err != nil {
			return glSyntax(name, err)
		}
		if root, err = g.Value(tok); err != nil {
			return glSyntax(name, err)
		}
		if end, err := d.Next(); err != nil {
			return glSyntax(name, err)
		} else if end.Kind != pyjson.EOF {
			return format.Errorf(name, jsonread.Place("", end), "more than one JSON value: a GPUStack record is one object")
		}
	} else {
		var err error
		if root, err = glTree(name, nil, glRequestOmit).YAML(data); err != nil {
			return format.Errorf(name, "", "not a GPUStack benchmark record (neither JSON nor YAML): %v", err)
		}
		variant = "export YAML (POST /v2/benchmarks/export)"
	}
	if root.Kind != pyjson.ObjectStart {
		return format.Errorf(name, root.Place(), "not a GPUStack benchmark record: the file holds a %s, not an object", root.Noun())
	}

	var records []*jsonread.Node
	switch list := root.Get("benchmarks"); {
	case list != nil && root.Get("model_instance_name") == nil:
		if list.Kind != pyjson.ArrayStart {
			return format.Errorf(name, list.Place(), "not a GPUStack export: \"benchmarks\" holds a %s, not a list", list.Noun())
		}
		if len(list.Vals) == 0 {
			return format.Errorf(name, list.Place(), "the export's \"benchmarks\" list is empty: no records")
		}
		if first := list.Vals[0]; first.Get("type_") != nil && first.Get("model_instance_name") == nil {
			return format.Errorf(name, first.Place(), "a guidellm report, not a GPUStack record: read it as guidellm-report")
		}
		if t[0] == '{' {
			variant = "export as JSON"
		}
		records = list.Vals
	case root.Get("model_instance_name") != nil || root.Get("snapshot") != nil:
		records = []*jsonread.Node{root}
	default:
		return format.Errorf(name, root.Place(), "not a GPUStack benchmark record: no model_instance_name or snapshot")
	}

	ordinal := 0
	for k, rec := range records {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, run := range gsRecordRuns(name, rec, k, len(records) > 1, &ordinal, variant) {
			if err := emit(run); err != nil {
				return err
			}
		}
	}
	return nil
}

// gsRecordRuns turns one record into its runs: one per benchmark of its
// embedded guidellm report, or one from its flat summary when the report
// is absent.
func gsRecordRuns(file string, rec *jsonread.Node, k int, several bool, ordinal *int, variant string) []*benchrun.Run {
	prefix := ""
	if several {
		prefix = fmt.Sprintf("record %d, ", k)
	}
	reject := func(msgf string, args ...any) []*benchrun.Run {
		r := &benchrun.Run{Ordinal: *ordinal, Location: prefix + "record at " + rec.Place(), Rejection: prefix + fmt.Sprintf(msgf, args...)}
		*ordinal++
		return []*benchrun.Run{r}
	}
	if rec.Kind != pyjson.ObjectStart {
		return reject("a %s, not a benchmark record", rec.Noun())
	}
	gs := &gsRecord{rec: rec, facts: map[string]string{}}
	if why := gs.readFacts(); why != "" {
		return reject("%s", why)
	}

	raw := rec.Get("raw_metrics")
	switch {
	case raw.Absent():
		run := gs.flatRun(*ordinal, prefix)
		*ordinal++
		return []*benchrun.Run{run}
	case raw.Kind != pyjson.ObjectStart:
		return reject("raw_metrics holds a %s, not guidellm's report object (at %s)", raw.Noun(), raw.Place())
	}
	env, benches, err := glFromTree(file, raw)
	if err != nil {
		reason := err.Error()
		if ie, ok := err.(*format.InputError); ok {
			reason = ie.Reason
			if ie.Place != "" {
				reason += " (at " + ie.Place + ")"
			}
		}
		return reject("raw_metrics: %s", reason)
	}
	env.yaml = false
	var runs []*benchrun.Run
	for _, b := range benches {
		run := glBuildRun(file, env, b, *ordinal, gpustackID)
		*ordinal++
		run.Location = prefix + "raw_metrics " + run.Location
		if run.Rejection != "" {
			run.Rejection = prefix + "raw_metrics " + run.Rejection
			runs = append(runs, run)
			continue
		}
		run.SourceTool = "guidellm (GPUStack benchmark-runner)"
		run.FormatVariant = variant + "; guidellm " + run.FormatVariant
		gs.apply(run)
		if len(benches) == 1 {
			gs.crossCheck(run)
		}
		runs = append(runs, run)
	}
	return runs
}

// gsRecord is one GPUStack record with the provenance its snapshot gives.
type gsRecord struct {
	rec   *jsonread.Node
	facts map[string]string
	notes []string
	// dataset, input and output length, seed and request count are the
	// record's configuration; the guidellm report may say them too.
	workload map[string]string
}

func (gs *gsRecord) set(field string, n *jsonread.Node) {
	if s, ok := n.Scalar(); ok {
		gs.facts[field] = s
	}
}

// readFacts reads the record's configuration and its environment snapshot
// (gpustack/schemas/benchmark.py: BenchmarkSnapshot, ModelInstanceSnapshot,
// WorkerSnapshot, GPUSnapshot). why is set for a snapshot of the wrong shape.
func (gs *gsRecord) readFacts() string {
	rec := gs.rec
	gs.workload = map[string]string{}
	for _, kv := range []struct{ field, key string }{
		{"metadata.gpustack_benchmark", "name"}, {"metadata.gpustack_profile", "profile"},
		{"metadata.gpustack_load_type", "load_type"}, {"metadata.gpustack_target_mode", "target_mode"},
		{"metadata.gpustack_model_name", "model_name"}, {"metadata.gpustack_model_instance", "model_instance_name"},
		{"metadata.gpustack_state", "state"}, {"metadata.gpu_summary", "gpu_summary"},
	} {
		gs.set(kv.field, rec.Get(kv.key))
	}
	if s, ok := rec.Get("dataset_name").Scalar(); ok {
		gs.workload["workload.dataset"] = s
	}
	if s, ok := rec.Get("dataset_seed").Scalar(); ok {
		gs.workload["workload.seed"] = s
	}
	if s, ok := rec.Get("total_requests").Scalar(); ok {
		gs.workload["workload.request_count"] = s
	}
	// Random data has a fixed length unless a spread was asked for.
	for _, side := range []struct{ field, key string }{{"workload.input_len", "dataset_input"}, {"workload.output_len", "dataset_output"}} {
		v, ok := rec.Get(side.key + "_tokens").Scalar()
		if !ok {
			continue
		}
		if sd, ok := rec.Get(side.key + "_stdev").Scalar(); ok && sd != "0" {
			continue
		}
		gs.workload[side.field] = v
	}

	snap := rec.Get("snapshot")
	if snap.Absent() {
		gs.notes = append(gs.notes, "the record has no environment snapshot: engine, GPUs and worker are unknown")
		return ""
	}
	if snap.Kind != pyjson.ObjectStart {
		return fmt.Sprintf("snapshot holds a %s, not an object (at %s)", snap.Noun(), snap.Place())
	}
	instances := snap.Get("instances")
	var inst *jsonread.Node
	switch {
	case instances.Absent():
	case instances.Kind != pyjson.ObjectStart:
		return fmt.Sprintf("snapshot.instances holds a %s, not an object (at %s)", instances.Noun(), instances.Place())
	default:
		want, _ := rec.Get("model_instance_name").Scalar()
		inst = instances.Get(want)
		if inst == nil && len(instances.Vals) > 0 {
			inst = instances.Vals[0]
		}
	}
	if inst != nil && inst.Kind != pyjson.ObjectStart {
		return fmt.Sprintf("snapshot instance holds a %s, not an object (at %s)", inst.Noun(), inst.Place())
	}
	if inst != nil {
		gs.set("runtime.engine", inst.Get("backend"))
		version, ok := inst.Get("backend_version").Scalar()
		detected, dok := inst.Get("api_detected_backend_version").Scalar()
		switch {
		case ok:
			gs.facts["runtime.version"] = version
			if dok && detected != version {
				gs.facts["metadata.api_detected_backend_version"] = detected
				gs.notes = append(gs.notes, fmt.Sprintf("the engine reported version %s through its API, while the deployment asked for %s", detected, version))
			}
		case dok:
			gs.facts["runtime.version"] = detected
			gs.notes = append(gs.notes, "runtime.version is the version the engine reported through its API (api_detected_backend_version): the deployment named none")
		}
		gs.set("runtime.image", inst.Get("image_name"))
		if cmd, ok := inst.Get("run_command").Scalar(); ok {
			gs.facts["runtime.server_args"] = cmd
		} else if params := gsStrings(inst.Get("backend_parameters")); len(params) > 0 {
			gs.facts["runtime.server_args"] = strings.Join(params, " ")
			gs.notes = append(gs.notes, "runtime.server_args are GPUStack's backend_parameters for the engine (the record has no run_command); GPUStack adds the model path and port itself")
		}
		if inj := gsStrings(inst.Get("injected_backend_parameters")); len(inj) > 0 {
			gs.facts["metadata.injected_backend_parameters"] = strings.Join(inj, " ")
		}
		gs.set("metadata.resolved_path", inst.Get("resolved_path"))
		nodes := gsStrings(inst.Get("worker_name"))
		gpuIndexes := 0
		if ix := inst.Get("gpu_indexes"); ix != nil && ix.Kind == pyjson.ArrayStart {
			gpuIndexes = len(ix.Vals)
		}
		if subs := inst.Get("subordinate_workers"); subs != nil && subs.Kind == pyjson.ArrayStart {
			for _, s := range subs.Vals {
				nodes = append(nodes, gsStrings(s.Get("worker_name"))...)
				if ix := s.Get("gpu_indexes"); ix != nil && ix.Kind == pyjson.ArrayStart {
					gpuIndexes += len(ix.Vals)
				}
			}
		}
		if len(nodes) > 0 {
			gs.facts["hardware.node"] = strings.Join(nodes, ",")
		}
		if gpuIndexes > 0 {
			gs.facts["hardware.gpu_count"] = fmt.Sprint(gpuIndexes)
		}
	}

	gpus := snap.Get("gpus")
	if !gpus.Absent() && gpus.Kind != pyjson.ObjectStart {
		return fmt.Sprintf("snapshot.gpus holds a %s, not an object (at %s)", gpus.Noun(), gpus.Place())
	}
	if gpus != nil && len(gpus.Vals) > 0 {
		var names, drivers, runtimes []string
		for _, g := range gpus.Vals {
			if g.Kind != pyjson.ObjectStart {
				return fmt.Sprintf("a snapshot GPU holds a %s, not an object (at %s)", g.Noun(), g.Place())
			}
			for _, f := range []struct {
				dst *[]string
				key string
			}{{&names, "name"}, {&drivers, "driver_version"}, {&runtimes, "runtime_version"}} {
				if s, ok := g.Get(f.key).Scalar(); ok && !slices.Contains(*f.dst, s) {
					*f.dst = append(*f.dst, s)
				}
			}
		}
		if len(names) > 0 {
			gs.facts["hardware.gpu_model"] = strings.Join(names, ", ")
			if len(names) > 1 {
				gs.notes = append(gs.notes, fmt.Sprintf("the snapshot lists %d different GPU models", len(names)))
			}
		}
		if n := gs.facts["hardware.gpu_count"]; n != "" && n != fmt.Sprint(len(gpus.Vals)) {
			gs.notes = append(gs.notes, fmt.Sprintf("the instance was placed on %s GPUs but the snapshot describes %d", n, len(gpus.Vals)))
		}
		gs.facts["hardware.gpu_count"] = fmt.Sprint(len(gpus.Vals))
		if len(drivers) > 0 {
			gs.facts["hardware.driver"] = strings.Join(drivers, ", ")
		}
		if len(runtimes) > 0 {
			gs.facts["metadata.gpu_runtime_version"] = strings.Join(runtimes, ", ")
		}
	}
	if workers := snap.Get("workers"); workers != nil && workers.Kind == pyjson.ObjectStart {
		var oses []string
		for _, w := range workers.Vals {
			name, _ := w.Path("os", "name").Scalar()
			ver, _ := w.Path("os", "version").Scalar()
			if s := strings.TrimSpace(name + " " + ver); s != "" && !slices.Contains(oses, s) {
				oses = append(oses, s)
			}
		}
		if len(oses) > 0 {
			gs.facts["metadata.worker_os"] = strings.Join(oses, ", ")
		}
	}
	return ""
}

// gsStrings reads a string or a list of strings.
func gsStrings(n *jsonread.Node) []string {
	if n == nil {
		return nil
	}
	if s, ok := n.Scalar(); ok && n.Kind == pyjson.String {
		return []string{s}
	}
	var out []string
	if n.Kind == pyjson.ArrayStart {
		for _, it := range n.Vals {
			if s, ok := it.Scalar(); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// apply adds the record's provenance to a run read from its guidellm
// report. The snapshot's engine and hardware facts are the record's alone;
// of the workload, the record's dataset name replaces guidellm's data path
// (kept as metadata.guidellm_data), and its lengths, seed and count fill
// what guidellm's report left unsaid.
func (gs *gsRecord) apply(run *benchrun.Run) {
	for k, v := range gs.facts {
		run.Facts[k] = v
	}
	for k, v := range gs.workload {
		old, had := run.Facts[k]
		switch {
		case !had:
			run.Facts[k] = v
		case k == "workload.dataset" && old != v:
			run.Facts["metadata.guidellm_data"] = old
			run.Facts[k] = v
		}
	}
	if _, ok := run.Facts["checkpoint.model_id"]; !ok {
		if s, ok := gs.rec.Get("model_name").Scalar(); ok {
			run.Facts["checkpoint.model_id"] = s
		}
	}
	run.Notes = append(run.Notes, gs.notes...)
	for i, k := range gs.rec.Keys {
		if k == "raw_metrics" {
			continue
		}
		run.Extra["gpustack."+k] = gs.rec.Vals[i].ExtraBounded()
	}
}

// gsFlatRatios are the record's flat metric columns
// (gpustack/schemas/benchmark.py, BenchmarkMetricsLite) that state a
// canonical figure: the guidellm statistic GPUStack copied, in its unit.
var gsFlatStated = []struct{ key, metric, unit string }{
	{"time_to_first_token_mean", "ttft.mean", "ms"},
	{"time_to_first_token_p95", "ttft.p95", "ms"},
	{"time_to_first_token_p99", "ttft.p99", "ms"},
	{"request_latency_mean", "e2el.mean", "s"},
	{"request_latency_p95", "e2el.p95", "s"},
	{"request_latency_p99", "e2el.p99", "s"},
	{"itl_per_chunk_mean", "itl.mean", "ms"},
	{"itl_per_chunk_p95", "itl.p95", "ms"},
	{"itl_per_chunk_p99", "itl.p99", "ms"},
	{"itl_per_chunk_max", "itl.max", "ms"},
	{"requests_per_second_mean", "request_rate_series.mean", "req/s"},
	{"output_tokens_per_second_mean", "output_rate_series.mean", "tok/s"},
	{"tokens_per_second_mean", "total_token_rate_series.mean", "tok/s"},
	{"input_tokens_per_second_mean", "input_rate_series.mean", "tok/s"},
	{"request_concurrency_mean", "concurrency_series.mean", "requests"},
}

// flatRun reads a record without its guidellm report (raw_metrics is
// deferred in API lists and may be null): GPUStack's flat summary columns.
func (gs *gsRecord) flatRun(ordinal int, prefix string) *benchrun.Run {
	rec := gs.rec
	loc := prefix + "record at " + rec.Place()
	rb := &glRunBuilder{run: &benchrun.Run{
		Ordinal: ordinal, Location: loc, Format: gpustackID, FormatVariant: "record without raw_metrics (flat summary only)",
		SourceTool: "guidellm (GPUStack benchmark-runner)", PercentileMethod: "nearest-rank",
		Facts: map[string]string{"measurement.client": "guidellm"}, Extra: map[string]string{}, Completed: -1, Failed: -1,
	}}
	var c [3]int64
	var have [3]bool
	for i, key := range []string{"request_successful", "request_errored", "request_incomplete"} {
		v := rec.Get(key)
		if v.Absent() {
			continue
		}
		n, ok := rb.count(v, key)
		if !ok {
			break
		}
		c[i], have[i] = n, true
	}
	if rb.fail == "" && !have[0] {
		state, _ := rec.Get("state").Scalar()
		msg, _ := rec.Get("state_message").Scalar()
		why := "the record holds no results (no raw_metrics and no request_successful)"
		if state != "" {
			why += "; its state is " + state
			if msg != "" {
				why += ": " + msg
			}
		}
		rb.fail = why
	}
	if rb.fail == "" && c[0]+c[1]+c[2] == 0 {
		rb.fail = "no requests: request_successful, request_errored and request_incomplete are 0"
	}
	if rb.fail != "" {
		return &benchrun.Run{Ordinal: ordinal, Location: loc, Rejection: prefix + rb.fail}
	}
	run := rb.run
	run.Completed = c[0]
	run.Stated = append(run.Stated, benchrun.Stated{Metric: "completed", Value: float64(c[0]), Unit: "requests", SourceKey: "request_successful", SourceUnit: "requests"})
	if have[1] && have[2] {
		run.Failed = c[1] + c[2]
		run.Stated = append(run.Stated, benchrun.Stated{Metric: "failed", Value: float64(c[1] + c[2]), Unit: "requests", SourceKey: "request_errored + request_incomplete", SourceUnit: "requests"})
	} else {
		rb.note("the record does not give both request_errored and request_incomplete: the failed count is unknown")
	}
	for _, f := range gsFlatStated {
		unit := f.unit
		if unit == "ms" {
			unit = "s"
		}
		if v, ok := rb.number(rec.Get(f.key), f.key, true); ok {
			rb.state(f.metric, unit, f.key, f.unit, v)
		}
	}
	if rb.fail != "" {
		return &benchrun.Run{Ordinal: ordinal, Location: loc, Rejection: prefix + rb.fail}
	}
	rb.note("summary only: GPUStack's flat columns of the record, without the guidellm report they were copied from; the percentiles are guidellm's nearest-rank")
	if !rec.Get("inter_token_latency_mean").Absent() {
		rb.note("inter_token_latency_* (guidellm's decode time per token, weighted by output tokens − 1) and time_per_output_token_* (TTFT included) are kept in Extra, not stated as tpot: the record does not show whether the output lengths were equal")
	}
	// The load the record asked for: request_rate is streams for a
	// concurrency load and requests per second otherwise.
	if v, ok := rec.Get("request_rate").Scalar(); ok {
		if lt, _ := rec.Get("load_type").Scalar(); lt == "concurrency" {
			run.Facts["workload.concurrency"] = v
		} else {
			run.Facts["workload.request_rate"] = v
		}
	}
	if s, ok := rec.Get("created_at").Scalar(); ok {
		run.Facts["measurement.date"] = s
		rb.note("measurement.date is the record's created_at, when the benchmark was created, not when guidellm started measuring")
	}
	gs.apply(run)
	return run
}

// crossCheck compares a single-benchmark record's flat counts with the
// report they were copied from.
func (gs *gsRecord) crossCheck(run *benchrun.Run) {
	v, ok := gs.rec.Get("request_successful").Finite()
	if !ok || run.Completed < 0 {
		return
	}
	if int64(v) != run.Completed {
		run.Notes = append(run.Notes, fmt.Sprintf("the record's request_successful is %s but its guidellm report counts %d successful requests", gs.rec.Get("request_successful").Literal(), run.Completed))
	}
}
