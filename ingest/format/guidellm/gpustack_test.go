package guidellm_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/format/guidellm"
	"github.com/benchledger/benchledger/ingest/internal/ingesttest"
	"github.com/benchledger/benchledger/ingest/registry"
	"github.com/benchledger/benchledger/internal/testshared"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

// gsSnapshotFacts are the provenance facts the fixtures' snapshot gives.
var gsSnapshotFacts = map[string]string{
	"runtime.engine": "vLLM", "runtime.version": "0.11.0", "runtime.image": "vllm/vllm-openai:v0.11.0",
	"hardware.gpu_model": "NVIDIA H100 80GB HBM3", "hardware.gpu_count": "1", "hardware.node": "gpu-node-07",
	"hardware.driver": "570.133.20", "metadata.gpu_runtime_version": "12.8", "metadata.worker_os": "Ubuntu 22.04",
	"metadata.injected_backend_parameters": "--served-model-name=qwen3-8b", "metadata.gpustack_model_instance": "qwen3-8b-7f9c",
}

// gsRawFigures are the figures of the guidellm point both fixtures embed
// (8 requests of 1024 input and 256 output tokens at 4 req/s).
func gsRawFigures() map[string]float64 {
	return map[string]float64{
		"completed": 8, "failed": 0, "duration": 4.412800073623657, "total_input_tokens": 8192, "total_output_tokens": 2048,
		"ttft.mean": glMs(50.50003528594971), "ttft.p95": glMs(61.00010871887207), "e2el.mean": 2.5630499124526978,
		"itl.mean": glMs(9.849999932681815), "itl.max": glMs(10.200000276752547), "tpot.mean": glMs(9.849999932681815),
		"request_rate_series.mean": 1.8129078740317015,
	}
}

func TestGPUStackRecordJSON(t *testing.T) {
	data := ingesttest.Read(t, "testdata/gpustack/record_single.json")
	if got := glDetected("record_single.json", data); got != guidellm.GPUStackID {
		t.Errorf("detected as %q", got)
	}
	if guidellm.New().Sniff("record_single.json", data[:min(len(data), format.HeadSize)]) {
		t.Error("guidellm-report sniffs the GPUStack record that embeds a guidellm report")
	}
	runs := glMustParse(t, guidellm.NewGPUStack(), "record_single.json", data)
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	r := runs[0]
	if r.Rejection != "" || r.Format != guidellm.GPUStackID || r.PercentileMethod != "nearest-rank" ||
		!strings.HasPrefix(r.FormatVariant, "record JSON") || !strings.Contains(r.FormatVariant, "guidellm 0.7–0.8") ||
		r.SourceTool != "guidellm (GPUStack benchmark-runner)" {
		t.Fatalf("run %+v", r)
	}
	glWant(t, r, gsRawFigures())
	ingesttest.WantFacts(t, r, gsSnapshotFacts)
	ingesttest.WantFacts(t, r, map[string]string{
		// backend_parameters stand in for the absent run_command.
		"runtime.server_args": "--max-model-len=32768 --gpu-memory-utilization=0.9",
		// The record's dataset replaces guidellm's data kind, kept aside.
		"workload.dataset": "Random", "metadata.guidellm_data": "synthetic_text",
		"workload.input_len": "1024", "workload.output_len": "256", "workload.seed": "42",
		"workload.request_count": "8", "workload.request_rate": "4.0", "checkpoint.model_id": "qwen3-8b",
		"measurement.client": "guidellm", "measurement.client_version": "0.7.1", "measurement.date": "2026-01-01T01:00:00Z",
		"metadata.gpustack_state": "completed", "metadata.gpustack_benchmark": "qwen3-8b_throughput_r4_20260101010000",
	})
	if !ingesttest.HasNote(r, "backend_parameters") || !ingesttest.HasNote(r, "time_per_output_token_ms is guidellm's (last token − request start) / output tokens") {
		t.Errorf("notes %q", r.Notes)
	}
	if !strings.Contains(r.Extra["gpustack.snapshot"], "GPU-1c2d3e4f") || !strings.Contains(r.Extra["gpustack.time_per_output_token_mean"], "10.") {
		t.Errorf("record kept in Extra: %.80q / %q", r.Extra["gpustack.snapshot"], r.Extra["gpustack.time_per_output_token_mean"])
	}
	// Every fact is a provenance field or a free metadata key.
	for k := range r.Facts {
		if _, ok := provenance.Lookup(k); !ok && !strings.HasPrefix(k, "metadata.") {
			t.Errorf("fact %s is not a provenance field", k)
		}
	}
}

func TestGPUStackExportYAML(t *testing.T) {
	data := ingesttest.Read(t, "testdata/gpustack/export.yaml")
	var sniffed []string
	for _, p := range registry.Parsers() {
		if p.Sniff("export.yaml", data[:min(len(data), format.HeadSize)]) {
			sniffed = append(sniffed, p.ID())
		}
	}
	if len(sniffed) != 1 || sniffed[0] != guidellm.GPUStackID {
		t.Errorf("export sniffed by %v", sniffed)
	}
	runs := glMustParse(t, guidellm.NewGPUStack(), "export.yaml", data)
	if len(runs) != 3 {
		t.Fatalf("%d runs", len(runs))
	}
	for i, r := range runs {
		if r.Ordinal != i || !strings.HasPrefix(r.Location, "record ") {
			t.Errorf("run %d: ordinal %d location %q", i, r.Ordinal, r.Location)
		}
	}
	// Record 0: the record of the JSON fixture, exported (no id, state or
	// timestamps).
	r := runs[0]
	if r.Rejection != "" || !strings.HasPrefix(r.FormatVariant, "export YAML") {
		t.Fatalf("record 0: %q %q", r.Rejection, r.FormatVariant)
	}
	glWant(t, r, gsRawFigures())
	ingesttest.WantFacts(t, r, gsSnapshotFacts)
	if _, ok := r.Facts["metadata.gpustack_state"]; ok {
		t.Error("an export has no state")
	}
	// Record 1: no raw_metrics, GPUStack's flat columns only.
	r = runs[1]
	if r.Rejection != "" || !strings.Contains(r.FormatVariant, "flat summary only") || r.HasRequests {
		t.Fatalf("record 1: %q %q", r.Rejection, r.FormatVariant)
	}
	glWant(t, r, map[string]float64{"completed": 62, "failed": 2, "ttft.mean": glMs(88.1), "ttft.p99": glMs(161.9),
		"e2el.p95": 3.91, "request_rate_series.mean": 5.91, "output_rate_series.mean": 1318.4, "concurrency_series.mean": 15.6})
	for _, m := range []string{"tpot.mean", "itl.mean", "duration", "output_throughput"} {
		if _, ok := r.StatedValue(m); ok {
			t.Errorf("record 1 states %s", m)
		}
	}
	ingesttest.WantFacts(t, r, gsSnapshotFacts)
	ingesttest.WantFacts(t, r, map[string]string{
		"runtime.server_args":  "vllm serve /models/Qwen3-8B --max-model-len 32768 --max-num-seqs 256",
		"workload.concurrency": "16", "workload.request_rate": "", "workload.dataset": "ShareGPT",
		"workload.input_len": "", "workload.request_count": "64",
	})
	if !ingesttest.HasNote(r, "not stated as tpot") {
		t.Errorf("notes %q", r.Notes)
	}
	// Record 2 holds no results: a rejection, the others still ingest.
	if r := runs[2]; !strings.Contains(r.Rejection, "record 2, the record holds no results") {
		t.Errorf("record 2: %q", r.Rejection)
	}
}

// TestGPUStackConsoleSample: the rendered console block in ../shared is
// not a record; detection gives it to gpustack-console
// (ingest/format/gpustackconsole), whose tests read it.
func TestGPUStackConsoleSample(t *testing.T) {
	for _, path := range testshared.Samples(t, "gpustack") {
		name := filepath.Base(path)
		data := ingesttest.Read(t, path)
		if guidellm.NewGPUStack().Sniff(name, data) {
			t.Errorf("%s sniffed as a GPUStack record", name)
		}
		if d := registry.Detect(name, data[:min(len(data), format.HeadSize)]); d.Parser == nil || d.Parser.ID() != "gpustack-console" {
			t.Errorf("%s: detected as %v", name, d.Parser)
		}
	}
}

func TestGPUStackBadInput(t *testing.T) {
	record := string(ingesttest.Read(t, "testdata/gpustack/record_single.json"))
	fileErrors := []struct{ name, data, place, reason string }{
		{"empty", "", "", "the file is empty"},
		{"blank", "\n  \n", "", "the file is empty"},
		{"truncated", record[:3000], "byte 3000", "is the file truncated?"},
		{"malformed", `{"model_instance_name": "m",}`, "byte 28 (line 1)", "malformed JSON"},
		{"not an object", `["model_instance_name"]`, "byte 0 (line 1)", "holds a list, not an object"},
		{"two values", `{"model_instance_name": "m"} {}`, "byte 29 (line 1)", "more than one JSON value"},
		{"no record keys", `{"name": "x"}`, "byte 0 (line 1)", "no model_instance_name or snapshot"},
		{"export not a list", "benchmarks: 3\n", "line 1", `"benchmarks" holds a number, not a list`},
		{"export empty", "benchmarks: []\n", "line 1", "the export's \"benchmarks\" list is empty"},
		{"guidellm report", "benchmarks:\n- type_: generative_benchmark\n", "line 2", "a guidellm report, not a GPUStack record"},
		{"bad YAML", "benchmarks: [\n", "", "neither JSON nor YAML"},
	}
	p := guidellm.NewGPUStack()
	for _, tc := range fileErrors {
		t.Run(tc.name, func(t *testing.T) {
			runs, err := ingesttest.Parse(p, "bad.json", []byte(tc.data))
			var ie *format.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v (%d runs), want an InputError", err, len(runs))
			}
			if ie.File != "bad.json" || !strings.Contains(ie.Place, tc.place) || !strings.Contains(ie.Reason, tc.reason) {
				t.Errorf("got place %q reason %q, want %q / %q", ie.Place, ie.Reason, tc.place, tc.reason)
			}
		})
	}

	// A record that cannot be read is a rejection; the other records of an
	// export still ingest.
	good := "- model_instance_name: m\n  request_successful: 3\n  request_errored: 0\n  request_incomplete: 0\n"
	rejections := []struct{ name, record, reason string }{
		{"snapshot a list", "- model_instance_name: m\n  snapshot: [1]\n", "snapshot holds a list, not an object"},
		{"gpus a list", "- model_instance_name: m\n  snapshot: {gpus: [1]}\n", "snapshot.gpus holds a list"},
		{"raw_metrics a string", "- model_instance_name: m\n  raw_metrics: yes please\n", "raw_metrics holds a string"},
		{"raw_metrics not a report", "- model_instance_name: m\n  raw_metrics: {metadata: {}}\n", `raw_metrics: not a guidellm report: no "benchmarks" list`},
		{"raw benchmark broken", "- model_instance_name: m\n  raw_metrics: {benchmarks: [{type_: generative_benchmark}]}\n", `raw_metrics benchmark 0: no "metrics" object`},
		{"negative count", "- model_instance_name: m\n  request_successful: -2\n", "request_successful: negative count -2"},
		{"count is text", "- model_instance_name: m\n  request_successful: many\n", "request_successful: expected a count, found string"},
		{"NaN latency", "- model_instance_name: m\n  request_successful: 2\n  request_latency_mean: -.inf\n", ""},
		{"no requests", "- model_instance_name: m\n  request_successful: 0\n  request_errored: 0\n  request_incomplete: 0\n", "no requests"},
		{"not a record", "- 42\n", "a number, not a benchmark record"},
		{"no results", "- model_instance_name: m\n  state: error\n  state_message: image pull failed\n", "holds no results (no raw_metrics and no request_successful); its state is error: image pull failed"},
	}
	for _, tc := range rejections {
		t.Run("rejected/"+tc.name, func(t *testing.T) {
			runs := glMustParse(t, p, "export.yaml", []byte("benchmarks:\n"+tc.record+good))
			if len(runs) != 2 {
				t.Fatalf("%d runs", len(runs))
			}
			if tc.reason == "" {
				// -.inf is not a figure: kept in Extra with a note.
				if runs[0].Rejection != "" || runs[0].Extra["request_latency_mean"] != "-Infinity" {
					t.Errorf("run 0: %q %v", runs[0].Rejection, runs[0].Extra)
				}
			} else if !strings.Contains(runs[0].Rejection, tc.reason) || !strings.HasPrefix(runs[0].Location, "record 0") {
				t.Errorf("rejection %q at %q, want %q", runs[0].Rejection, runs[0].Location, tc.reason)
			}
			if runs[1].Rejection != "" || runs[1].Completed != 3 || runs[1].Ordinal != 1 {
				t.Errorf("the good record: %+v", runs[1])
			}
		})
	}
}

// TestGPUStackIngest archives the fixtures with the batch and reads the
// runs back with their file facts as provenance.
func TestGPUStackIngest(t *testing.T) {
	dir := t.TempDir()
	a, err := store.Open(filepath.Join(dir, "a.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var outs []ingest.Outcome
	ingestFiles := func(opt ingest.Options, paths ...string) {
		opt.Archive, opt.ToolVersion, opt.Actor = a, "test", "test"
		if err := ingest.Batch(context.Background(), paths, opt, func(o ingest.Outcome) { outs = append(outs, o) }); err != nil {
			t.Fatal(err)
		}
	}
	ingestFiles(ingest.Options{}, "testdata/gpustack/record_single.json")
	// A .yaml file is taken for a manifest when detected: the export is
	// ingested with --format.
	ingestFiles(ingest.Options{Format: guidellm.GPUStackID}, "testdata/gpustack/export.yaml")
	if len(outs) != 4 {
		t.Fatalf("outcomes %+v", outs)
	}
	for i, want := range []ingest.Status{ingest.StatusNew, ingest.StatusNew, ingest.StatusNew, ingest.StatusRejected} {
		if outs[i].Status != want {
			t.Errorf("outcome %d: %s (%s), want %s", i, outs[i].Status, outs[i].Reason, want)
		}
	}
	if !strings.Contains(outs[3].Reason, "holds no results") {
		t.Errorf("rejection %q", outs[3].Reason)
	}
	rec, err := a.Run(outs[0].RunID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Run.Format != guidellm.GPUStackID {
		t.Errorf("format %q", rec.Run.Format)
	}
	if s, ok := rec.Run.StatedValue("itl.mean"); !ok || s.Value != glMs(9.849999932681815) || s.SourceKey != "metrics.inter_token_latency_per_chunk_ms.successful.mean" {
		t.Errorf("itl.mean %+v", s)
	}
	eff := provenance.Record(rec.Provenance).Effective()
	for _, k := range []string{"runtime.engine", "runtime.version", "runtime.image", "runtime.server_args", "hardware.gpu_model", "hardware.gpu_count", "hardware.node"} {
		if eff[k] == "" {
			t.Errorf("provenance %s missing", k)
		}
	}
	if eff["runtime.engine"] != "vLLM" || eff["hardware.gpu_model"] != "NVIDIA H100 80GB HBM3" {
		t.Errorf("provenance %v", eff)
	}
	for _, e := range rec.Provenance {
		if e.Field == "runtime.version" && e.Source != provenance.FromFile {
			t.Errorf("runtime.version source %q", e.Source)
		}
	}
}

// FuzzGPUStack: whatever the bytes, Sniff and Parse must not panic, Parse
// must reject with an *InputError only, and every run must be well formed.
func FuzzGPUStack(f *testing.F) {
	paths, _ := filepath.Glob("testdata/gpustack/*")
	if root := testshared.Root(); root != "" {
		shared, _ := filepath.Glob(filepath.Join(root, "samples", "gpustack", "*"))
		paths = append(paths, shared...)
	}
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil && !strings.HasSuffix(p, ".md") {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"", "{}", "benchmarks: []\n", `{"model_instance_name": "m", "request_successful": 1}`,
		"benchmarks:\n- model_instance_name: m\n  snapshot: {instances: {m: {backend: vLLM}}, gpus: {g: {name: X}}}\n  request_successful: 2\n",
		"benchmarks:\n- model_instance_name: m\n  raw_metrics: {benchmarks: [{type_: generative_benchmark, metrics: {request_totals: {successful: 1, errored: 0, incomplete: 0}}}]}\n",
	} {
		f.Add([]byte(s))
	}
	p := guidellm.NewGPUStack()
	f.Fuzz(func(t *testing.T, data []byte) {
		p.Sniff("fuzz.json", data[:min(len(data), format.HeadSize)])
		ordinal := 0
		err := p.Parse(context.Background(), "fuzz.json", bytes.NewReader(data), func(r *benchrun.Run) error {
			if r.Ordinal != ordinal {
				t.Fatalf("ordinal %d, want %d", r.Ordinal, ordinal)
			}
			ordinal++
			if r.Rejection != "" {
				return nil
			}
			if r.Format != guidellm.GPUStackID || r.Facts == nil || r.Extra == nil || r.HasRequests != (len(r.Requests) > 0) {
				t.Fatalf("run %+v", r)
			}
			for _, s := range r.Stated {
				if !benchrun.IsKnown(s.Value) || math.IsInf(s.Value, 0) || s.Metric == "" {
					t.Fatalf("stated %+v", s)
				}
			}
			return nil
		})
		ingesttest.FuzzError(t, err, "fuzz.json")
	})
}
