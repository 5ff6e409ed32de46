package trtllm_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/ingest"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/format/trtllm"
	"github.com/benchledger/benchledger/ingest/internal/ingesttest"
	"github.com/benchledger/benchledger/ingest/registry"
	"github.com/benchledger/benchledger/internal/testshared"
)

const (
	ttSample        = "trtllm-bench_throughput_console_docs.txt"
	ttJSONFixture   = "testdata/report_pytorch_streaming.json"
	ttConsoleFix    = "testdata/console_pytorch_streaming.log"
	ttOldTwoRuns    = "testdata/console_v0.16_two_runs.log"
	ttOldUnclosed   = "testdata/console_v0.17_pytorch_unclosed.txt"
	ttHalf4Decimals = 0.5e-4 // half a unit of the console's 4 printed decimals
)

func TestTRTLLMIdentity(t *testing.T) {
	for _, c := range []struct {
		p  format.Parser
		id string
	}{{trtllm.NewJSON(), "trtllm-bench-json"}, {trtllm.NewConsole(), "trtllm-bench-console"}} {
		if c.p.ID() != c.id || c.p.Describe() == "" {
			t.Errorf("%T: id %q describe %q", c.p, c.p.ID(), c.p.Describe())
		}
		if p, ok := registry.ByID(c.id); !ok || p.ID() != c.id {
			t.Errorf("ParserByID(%q) = %v, %v", c.id, p, ok)
		}
	}
}

// TestTRTLLMConsoleRealSample reads the docs' "Sample output": every figure
// as printed, converted to seconds, and the figures agree with each other
// the way trtllm-bench computes them.
func TestTRTLLMConsoleRealSample(t *testing.T) {
	path := filepath.Join(testshared.Dir(t, "samples"), "trtllm", ttSample)
	data := ingesttest.Read(t, path)
	if got := ingesttest.Detect(path, data); got != "trtllm-bench-console" {
		t.Fatalf("detected as %q", got)
	}
	r := ingesttest.One(t, trtllm.NewConsole(), path, data)
	ingesttest.WantStated(t, r, 1e-15, map[string]float64{
		"request_throughput":     1.4439,
		"output_throughput":      185.8351,
		"total_token_throughput": 780.1607,
		"duration":               6.9254963,
		"e2el.mean":              3.6718441,
		"e2el.median":            3.9363022,
		"e2el.p90":               5.5144701,
		"e2el.p95":               5.5144701,
		"e2el.p99":               5.5144701,
		"e2el.min":               2.3971047,
		"e2el.max":               5.5144701,
	})
	if s, _ := r.StatedValue("duration"); s.SourceKey != "Total Latency (ms)" || s.SourceUnit != "ms" {
		t.Errorf("duration source %s %s", s.SourceKey, s.SourceUnit)
	}
	if len(r.Stated) != 11 {
		t.Errorf("%d stated figures: %+v", len(r.Stated), r.Stated)
	}
	ingesttest.WantFacts(t, r, map[string]string{"workload.request_count": "10", "measurement.client": "trtllm-bench",
		"runtime.engine": "tensorrt-llm", "checkpoint.model_id": "", "runtime.version": ""})
	if r.PercentileMethod != "lower-index" || r.Completed != -1 || r.Failed != -1 || r.HasRequests ||
		r.FormatVariant != "console, REQUEST DETAILS layout with latency breakdown" || r.Location != "line 2" {
		t.Errorf("run %+v", r)
	}
	for k, v := range map[string]string{
		"PERFORMANCE OVERVIEW / Per User Output Throughput (tokens/sec/user)": "38.1959",
		"PERFORMANCE OVERVIEW / [Latency] AVERAGE":                            "3671.8441",
		"REQUEST DETAILS / Number of concurrent requests":                     "5.3019",
		"WORLD + RUNTIME INFORMATION / Issue Rate (req/sec)":                  "1.4117E+17",
		"DATASET DETAILS / Dataset Path":                                      "/workspaces/tensorrt_llm/mm_data.json",
		"DATASET DETAILS / P50":                                               "299.0000           128.0000           427.0000",
	} {
		if r.Extra[k] != v {
			t.Errorf("extra %q = %q, want %q", k, r.Extra[k], v)
		}
	}
	for _, n := range []string{"reports no failed requests", "lower-index", "rounded to 4 decimals"} {
		if !ingesttest.HasNote(r, n) {
			t.Errorf("no note %q", n)
		}
	}

	// The printed figures are consistent with trtllm-bench's definitions:
	// rates are counts over the total latency, and with 10 requests the
	// lower-index p90, p95 and p99 are all sorted[9], the maximum.
	dur, _ := r.StatedValue("duration")
	rt, _ := r.StatedValue("request_throughput")
	ot, _ := r.StatedValue("output_throughput")
	tt, _ := r.StatedValue("total_token_throughput")
	half := ttHalf4Decimals
	durLo, durHi := dur.Value-half/1000, dur.Value+half/1000
	for _, c := range []struct {
		name  string
		value float64
		count float64
	}{{"request_throughput", rt.Value, 10}, {"output_throughput", ot.Value, 10 * 128.7}, {"total_token_throughput", tt.Value, 10 * (411.6 + 128.7)}} {
		if lo, hi := c.count/durHi-half, c.count/durLo+half; c.value < lo || c.value > hi {
			t.Errorf("%s %.4f is not %g / total latency (%.6f..%.6f)", c.name, c.value, c.count, lo, hi)
		}
	}
	sorted := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, p := range []float64{90, 95, 99} {
		if figures.Percentile(sorted, p, figures.MethodLowerIndex) != 10 {
			t.Errorf("lower-index p%g of 10 values is not the maximum", p)
		}
	}
	p90, _ := r.StatedValue("e2el.p90")
	mx, _ := r.StatedValue("e2el.max")
	if p90.Value != mx.Value {
		t.Errorf("p90 %v != max %v with 10 requests", p90.Value, mx.Value)
	}
}

// TestTRTLLMJSONFixture reads our report JSON, written by the source's
// get_statistics_dict rules (testdata/README.md).
func TestTRTLLMJSONFixture(t *testing.T) {
	data := ingesttest.Read(t, ttJSONFixture)
	if got := ingesttest.Detect(ttJSONFixture, data); got != "trtllm-bench-json" {
		t.Fatalf("detected as %q", got)
	}
	r := ingesttest.One(t, trtllm.NewJSON(), ttJSONFixture, data)
	ingesttest.WantStated(t, r, 1e-15, map[string]float64{
		"duration":               1.5447877019999999,
		"e2el.mean":              1.35282392575,
		"request_throughput":     5.1787051318719,
		"output_throughput":      621.444615824628,
		"total_token_throughput": 1273.3141242990034,
		"e2el.median":            1.466035013,
		"e2el.p90":               1.5447805019999998,
		"e2el.p99":               1.5447805019999998,
		"e2el.min":               0.744660132,
		"e2el.max":               1.5447805019999998,
		"ttft.mean":              0.0598593875,
		"ttft.median":            0.06995906699999999,
		"ttft.min":               0.036084796,
		"ttft.max":               0.088098981,
		"tpot.mean":              0.010883003150324958,
		"tpot.median":            0.011147107730158728,
		"tpot.p95":               0.011581862236220472,
		"tpot.min":               0.009062923700787401,
	})
	if s, _ := r.StatedValue("tpot.mean"); s.SourceKey != "streaming_metrics.avg_tpot_ms" || s.SourceUnit != "ms" {
		t.Errorf("tpot.mean from %s %s", s.SourceKey, s.SourceUnit)
	}
	ingesttest.WantFacts(t, r, map[string]string{
		"checkpoint.model_id": "Qwen/Qwen3-8B", "runtime.version": "1.0.0rc4", "measurement.client_version": "1.0.0rc4",
		"runtime.engine": "tensorrt-llm", "hardware.gpu_count": "1", "workload.request_count": "8",
		"measurement.client": "trtllm-bench", "checkpoint.precision": "",
	})
	if r.FormatVariant != "report JSON, PyTorch backend, streaming" || r.PercentileMethod != "lower-index" || r.Completed != -1 || r.Failed != -1 {
		t.Errorf("run %+v", r)
	}
	for k, v := range map[string]string{
		"engine.quantization": `"FP8"`, "engine.kv_cache_dtype": `"FP8"`, "world_info.issue_rate": "952380.9523809524",
		"performance.output_throughput_per_user_tok_s": "88.94339141620333", "request_info.avg_output_length": "120.0",
		"streaming_metrics.gen_tps_percentiles.p50": "", "streaming_metrics.token_output_speed_tok_s": "92.36730660843885",
	} {
		if got := r.Extra[k]; got != v {
			t.Errorf("extra %q = %q, want %q", k, got, v)
		}
	}
	if !strings.HasPrefix(r.Extra["dataset"], `{"isl_stats":{"p50":128,`) || !strings.Contains(r.Extra["streaming_metrics.gen_tps_percentiles"], `"p50":89.84688114114707`) {
		t.Errorf("dataset %q gen_tps %q", r.Extra["dataset"], r.Extra["streaming_metrics.gen_tps_percentiles"])
	}
	// The report's rates are its counts over its total latency.
	dur, _ := r.StatedValue("duration")
	rt, _ := r.StatedValue("request_throughput")
	ot, _ := r.StatedValue("output_throughput")
	if math.Abs(rt.Value*dur.Value-8) > 1e-12 || math.Abs(ot.Value*dur.Value-960) > 1e-9 {
		t.Errorf("rates do not follow from the counts: %v req, %v tokens", rt.Value*dur.Value, ot.Value*dur.Value)
	}
}

// TestTRTLLMConsoleMatchesJSON: the console report of the same run states
// the same figures as the JSON, to the 4 printed decimals.
func TestTRTLLMConsoleMatchesJSON(t *testing.T) {
	js := ingesttest.One(t, trtllm.NewJSON(), ttJSONFixture, ingesttest.Read(t, ttJSONFixture))
	data := ingesttest.Read(t, ttConsoleFix)
	if got := ingesttest.Detect(ttConsoleFix, data); got != "trtllm-bench-console" {
		t.Fatalf("detected as %q", got)
	}
	con := ingesttest.One(t, trtllm.NewConsole(), ttConsoleFix, data)
	if len(con.Stated) != len(js.Stated) {
		t.Errorf("console states %d figures, JSON %d", len(con.Stated), len(js.Stated))
	}
	for _, s := range con.Stated {
		j, ok := js.StatedValue(s.Metric)
		if !ok {
			t.Errorf("console states %s, the JSON does not", s.Metric)
			continue
		}
		tol := ttHalf4Decimals
		if s.SourceUnit == "ms" {
			tol /= 1000
		}
		if math.Abs(s.Value-j.Value) > tol*(1+1e-9) || s.Unit != j.Unit {
			t.Errorf("%s: console %v %s, JSON %v %s", s.Metric, s.Value, s.Unit, j.Value, j.Unit)
		}
	}
	ingesttest.WantFacts(t, con, map[string]string{"checkpoint.model_id": "Qwen/Qwen3-8B", "runtime.version": "1.0.0rc4", "workload.request_count": "8"})
	if con.FormatVariant != "console, REQUEST DETAILS layout with latency breakdown, PyTorch backend, streaming" {
		t.Errorf("variant %q", con.FormatVariant)
	}
	if con.Extra["PERFORMANCE OVERVIEW / [GTPS] P50"] != "89.8469" || con.Extra["PYTORCH BACKEND / Quantization"] != "FP8" {
		t.Errorf("extra %v", con.Extra)
	}
}

func TestTRTLLMConsoleOldLayouts(t *testing.T) {
	runs, err := ingesttest.Parse(trtllm.NewConsole(), ttOldTwoRuns, ingesttest.Read(t, ttOldTwoRuns))
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	for i, c := range []struct {
		n                   string
		out, req, dur       float64
		location, issueRate string
	}{{"3000", 27022.5921, 211.1140, 14.2103318, "line 6", "3.1742E+14"}, {"1000", 20913.1440, 163.3839, 6.1205527, "line 45", "2.9120E+14"}} {
		r := runs[i]
		if r.Ordinal != i || r.Rejection != "" || r.Location != c.location {
			t.Errorf("run %d: ordinal %d location %q rejection %q", i, r.Ordinal, r.Location, r.Rejection)
		}
		ingesttest.WantStated(t, r, 1e-15, map[string]float64{"output_throughput": c.out, "request_throughput": c.req, "duration": c.dur})
		ingesttest.WantFacts(t, r, map[string]string{"workload.request_count": c.n, "checkpoint.model_id": "meta-llama/Llama-3.1-8B",
			"runtime.version": "0.16.0", "measurement.client_version": "0.16.0"})
		if r.FormatVariant != "console, ≤ 0.17 layout (ENGINE DETAILS, Token Throughput), TRT engine" ||
			r.Extra["WORLD + RUNTIME INFORMATION / Issue Rate (req/sec)"] != c.issueRate || r.Extra["ENGINE DETAILS / Engine Directory"] != "/engines/llama-3.1-8b/tp_1_pp_1" {
			t.Errorf("run %d: variant %q extra %v", i, r.FormatVariant, r.Extra)
		}
	}

	r := ingesttest.One(t, trtllm.NewConsole(), ttOldUnclosed, ingesttest.Read(t, ttOldUnclosed))
	ingesttest.WantStated(t, r, 1e-15, map[string]float64{"output_throughput": 28565.6134, "request_throughput": 111.5844, "duration": 4.480912})
	if r.FormatVariant != "console, ≤ 0.17 layout (ENGINE DETAILS, Token Throughput), PyTorch backend" ||
		!ingesttest.HasNote(r, `"PERFORMANCE OVERVIEW" section ends at the code fence at line 37 without its closing ===== line`) {
		t.Errorf("variant %q notes %q", r.FormatVariant, r.Notes)
	}
	if r.Extra["PyTorch backend / KV Cache Dtype"] != "None" {
		t.Errorf("extra %v", r.Extra)
	}
}

func TestTRTLLMBadInput(t *testing.T) {
	js := string(ingesttest.Read(t, ttJSONFixture))
	con := string(ingesttest.Read(t, ttConsoleFix))
	old := string(ingesttest.Read(t, ttOldTwoRuns))
	perf := `{"engine": {"model": "m"}, "performance": {"total_latency_ms": 100.0, "system_output_throughput_tok_s": 10.0, `
	cut := func(s, at string, keep int) string { i := strings.Index(s, at); return s[:i+keep] }
	for _, c := range []struct {
		name          string
		p             format.Parser
		in            string
		place, reason string
	}{
		{"json empty", trtllm.NewJSON(), "", "", "the file is empty"},
		{"json truncated", trtllm.NewJSON(), js[:len(js)*2/3], "byte", "truncated"},
		{"json a list", trtllm.NewJSON(), "[]", "byte 0 (line 1)", "not a trtllm-bench report"},
		{"json no performance", trtllm.NewJSON(), `{"engine": {"model": "m"}, "world_info": {}}`, "object at byte 0", `no "performance" dict`},
		{"json performance not a dict", trtllm.NewJSON(), `{"engine": {}, "performance": [1]}`, `key "performance"`, "expected a dict"},
		{"json no throughput", trtllm.NewJSON(), `{"engine": {}, "performance": {"avg_request_latency_ms": 3.0}}`, "object at byte 0", "neither system_output_throughput_tok_s nor total_latency_ms"},
		{"json wrong type", trtllm.NewJSON(), perf + `"avg_request_latency_ms": "fast"}}`, `key "performance.avg_request_latency_ms"`, "expected a number, found string"},
		{"json negative", trtllm.NewJSON(), perf + `"request_throughput_req_s": -1.5}}`, `key "performance.request_throughput_req_s"`, "negative"},
		{"json percentiles not a dict", trtllm.NewJSON(), perf + `"request_latency_percentiles_ms": 3}}`, `key "performance.request_latency_percentiles_ms"`, "expected a dict of percentiles"},
		{"json zero requests", trtllm.NewJSON(), `{"request_info": {"num_requests": 0}, ` + perf[1:] + `"x": 1}}`, `key "request_info.num_requests"`, "no requests"},
		{"json fractional requests", trtllm.NewJSON(), `{"request_info": {"num_requests": 2.5}, ` + perf[1:] + `"x": 1}}`, `key "request_info.num_requests"`, "whole number"},
		{"json model not a string", trtllm.NewJSON(), `{"engine": {"model": 7}, "performance": {"total_latency_ms": 1.0}}`, `key "engine.model"`, "expected a string"},
		{"json duplicate key", trtllm.NewJSON(), perf + `"total_latency_ms": 5.0}}`, "byte", `key "performance.total_latency_ms" appears twice`},
		{"json huge number", trtllm.NewJSON(), perf + `"request_throughput_req_s": 1e999}}`, `key "performance.request_throughput_req_s"`, "out of range"},
		{"json trailing value", trtllm.NewJSON(), perf + `"x": 1}} {}`, "byte", "a second JSON value"},
		{"console empty", trtllm.NewConsole(), "", "", "the file is empty"},
		{"console no report", trtllm.NewConsole(), "[01/18/2025-00:55:14] [TRT-LLM] [I] Found dataset.\n=====================\n= DATASET DETAILS\n=====================\nNumber of Sequences:    3000\n=====================\n", "", "no trtllm-bench report found"},
		{"console cut in the breakdown", trtllm.NewConsole(), cut(con, "[Latency] P90", 0), "line", `truncated report: the "PERFORMANCE OVERVIEW" section ends at the end of the file`},
		{"console cut before the overview", trtllm.NewConsole(), cut(con, "= PERFORMANCE OVERVIEW", 0), "line 7", "cut short"},
		{"console cut in the dataset table", trtllm.NewConsole(), cut(con, "P95:  ", 0), "line", `the "DATASET DETAILS" section ends at the end of the file`},
		{"console not a number", trtllm.NewConsole(), strings.Replace(con, "Total Latency (ms):                               1544.7877", "Total Latency (ms): 1,544.79", 1), "line 41", `Total Latency (ms): "1,544.79" is not a number`},
		{"console negative", trtllm.NewConsole(), strings.Replace(con, "[TTFT] MINIMUM: 36.0848", "[TTFT] MINIMUM: -36.0848", 1), "line", "is negative"},
		{"console zero requests", trtllm.NewConsole(), strings.Replace(con, "Number of requests:             8", "Number of requests:             0", 1), "line 19", "run has no requests"},
		{"console fractional requests", trtllm.NewConsole(), strings.Replace(con, "Number of requests:             8", "Number of requests:             8.5", 1), "line 19", "not a whole number"},
		{"console label twice", trtllm.NewConsole(), strings.Replace(con, "Average request latency (ms):", "Total Latency (ms):", 1), "line 42", "printed twice"},
		{"console no throughput", trtllm.NewConsole(), strings.Replace(con, "Total Output Throughput (tokens/sec):", "Output Thruput:", 1), "line 36", "no output throughput line"},
		{"old layout, the first of two reports bad", trtllm.NewConsole(), strings.Replace(old, "Request Throughput (req/sec):   211.1140", "Request Throughput (req/sec):   abc", 1), "line 35", "is not a number"},
	} {
		t.Run(c.name, func(t *testing.T) {
			runs, err := ingesttest.Parse(c.p, "bad.txt", []byte(c.in))
			if err == nil {
				// Several reports: the first bad one is what a caller sees.
				for _, r := range runs {
					if r.Rejection != "" {
						err = format.Errorf("bad.txt", r.Location, "%s", r.Rejection)
						break
					}
				}
			}
			if err == nil {
				t.Fatalf("no error; runs %+v", runs)
			}
			ingesttest.WantInputError(t, err, c.place, c.reason)
		})
	}
}

// TestTRTLLMOneBadReportOfSeveral: in a log of several reports, a bad one
// is a rejection at its place while the others are read.
func TestTRTLLMOneBadReportOfSeveral(t *testing.T) {
	old := string(ingesttest.Read(t, ttOldTwoRuns))
	bad := strings.Replace(old, "Total Latency (ms):             6120.5527", "Total Latency (ms):             6120.5527 ms", 1)
	runs, err := ingesttest.Parse(trtllm.NewConsole(), "two.log", []byte(bad))
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	if runs[0].Rejection != "" || runs[0].Ordinal != 0 {
		t.Errorf("first run %+v", runs[0])
	}
	if runs[1].Rejection == "" || runs[1].Location != "line 75" || !strings.Contains(runs[1].Rejection, `"6120.5527 ms" is not a number`) || runs[1].Ordinal != 1 {
		t.Errorf("second run: rejection %q at %q", runs[1].Rejection, runs[1].Location)
	}
	// The batch archives the good report and reports the bad one.
	dir := t.TempDir()
	p := filepath.Join(dir, "two.log")
	if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, outs := ingesttest.BatchOutcomes(t, p)
	if len(outs) != 2 || outs[0].Status != ingest.StatusNew || outs[1].Status != ingest.StatusRejected || outs[1].Place != "line 75" {
		t.Errorf("outcomes %+v", outs)
	}
}

// TestTRTLLMTolerated: values the tools really write that are not figures.
func TestTRTLLMTolerated(t *testing.T) {
	in := `{"engine": {"model": "m", "version": null, "backend": "TRT"}, "world_info": {"world_size": 8, "kv_cache_percentage": null},
	  "request_info": {"num_requests": 4}, "performance": {"total_latency_ms": 1000.0, "system_output_throughput_tok_s": 512.0,
	  "avg_request_latency_ms": NaN, "request_latency_percentiles_ms": {"p50": 250.0, "p99.9": 260.0, "stdev": 3.0}},
	  "decoding_stats": {"mode": "EAGLE3"}, "energy": {"joules": 12.5}}`
	r := ingesttest.One(t, trtllm.NewJSON(), "r.json", []byte(in))
	ingesttest.WantStated(t, r, 1e-15, map[string]float64{"duration": 1, "output_throughput": 512, "e2el.median": 0.25, "e2el.p99.9": 0.26})
	if _, ok := r.StatedValue("e2el.mean"); ok {
		t.Error("NaN stated")
	}
	if r.Extra["performance.avg_request_latency_ms"] != "NaN" || r.Extra["performance.request_latency_percentiles_ms.stdev"] != "3.0" ||
		r.Extra["energy"] != `{"joules":12.5}` || r.Extra["decoding_stats"] != `{"mode":"EAGLE3"}` {
		t.Errorf("extra %v", r.Extra)
	}
	ingesttest.WantFacts(t, r, map[string]string{"hardware.gpu_count": "8", "runtime.version": "", "workload.request_count": "4"})
	if r.FormatVariant != "report JSON, TRT engine, speculative decoding" {
		t.Errorf("variant %q", r.FormatVariant)
	}
}

func TestTRTLLMSniffsOnlyItsOwn(t *testing.T) {
	jp, cp := trtllm.NewJSON(), trtllm.NewConsole()
	for _, s := range []string{``, `{}`, `{"engine": "x", "performance": {}}`, `{"performance": {}, "world_info": {}}`,
		"= PERFORMANCE OVERVIEW\n", "PERFORMANCE OVERVIEW\n====================\n", "TensorRT-LLM version 0.17.0\n",
		"============ Serving Benchmark Result ============\nSuccessful requests: 3\n=================================================="} {
		if jp.Sniff("x", []byte(s)) || cp.Sniff("x", []byte(s)) {
			t.Errorf("sniffed %q", s)
		}
	}
	if !jp.Sniff("x.json", ingesttest.Read(t, ttJSONFixture)) || jp.Sniff("x", ingesttest.Read(t, ttConsoleFix)) || cp.Sniff("x", ingesttest.Read(t, ttJSONFixture)) {
		t.Error("fixtures sniffed by the wrong parser")
	}
	for _, p := range []string{ttConsoleFix, ttOldTwoRuns, ttOldUnclosed} {
		if got := ingesttest.Detect(p, ingesttest.Read(t, p)); got != "trtllm-bench-console" {
			t.Errorf("%s detected as %q", p, got)
		}
	}
	ingesttest.EachSample(t, func(tool, path string, head []byte) {
		if tool != "trtllm" && (jp.Sniff(path, head) || cp.Sniff(path, head)) {
			t.Errorf("%s/%s sniffed as trtllm-bench", tool, filepath.Base(path))
		}
	})
}

// TestTRTLLMIngest ingests the reports with the batch pipeline.
func TestTRTLLMIngest(t *testing.T) {
	paths := []string{ttJSONFixture, ttConsoleFix, ttOldTwoRuns}
	if root := testshared.Root(); root != "" {
		paths = append(paths, filepath.Join(root, "samples", "trtllm", ttSample))
	}
	a, outs := ingesttest.Batch(t, paths...)
	want := []string{"trtllm-bench-json", "trtllm-bench-console", "trtllm-bench-console", "trtllm-bench-console", "trtllm-bench-console"}
	if len(outs) != len(paths)+1 {
		t.Fatalf("outcomes %+v", outs)
	}
	for i, o := range outs {
		if o.Status != ingest.StatusNew || o.Format != want[i] {
			t.Errorf("outcome %d: %+v", i, o)
		}
		rec, err := a.Run(o.RunID)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Run.Format != o.Format || rec.Run.PercentileMethod != "lower-index" || rec.Publishable {
			t.Errorf("archived run %+v", rec.Run)
		}
		if _, ok := rec.Run.StatedValue("output_throughput"); !ok {
			t.Errorf("run %s: no output_throughput", o.RunID)
		}
		if !slices.Contains(rec.Missing, "measurement.date") || !slices.Contains(rec.Missing, "hardware.gpu_model") {
			t.Errorf("run %s: missing %v", o.RunID, rec.Missing)
		}
	}
	rec, _ := a.Run(outs[0].RunID)
	if s, _ := rec.Run.StatedValue("tpot.median"); s.Value != 0.011147107730158728 {
		t.Errorf("archived tpot.median %v", s.Value)
	}
}

func ttFuzzSeeds(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*")
	if root := testshared.Root(); root != "" {
		shared, _ := filepath.Glob(filepath.Join(root, "samples", "trtllm", "*"))
		paths = append(paths, shared...)
	}
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{``, `{}`, `{"performance": {"total_latency_ms": NaN}}`,
		"====================\n= PERFORMANCE OVERVIEW\n====================\nToken Throughput (tokens/sec): 1\n",
		"==========\n= REQUEST DETAILS\n==========\n==========\n= PERFORMANCE OVERVIEW\n",
		"==========\n= PERFORMANCE OVERVIEW\n==========\n[Latency] P50: 1e309\nTotal Output Throughput (tokens/sec): 2\n==========\n"} {
		f.Add([]byte(s))
	}
}

// ttFuzz: no panic, InputErrors only, and well-formed runs.
func ttFuzz(t *testing.T, p format.Parser, data []byte) {
	p.Sniff("fuzz.txt", data[:min(len(data), format.HeadSize)])
	ordinal := 0
	err := p.Parse(context.Background(), "fuzz.txt", bytes.NewReader(data), func(r *benchrun.Run) error {
		if r.Ordinal != ordinal {
			t.Fatalf("ordinal %d, want %d", r.Ordinal, ordinal)
		}
		ordinal++
		if r.Rejection != "" {
			if r.Location == "" {
				t.Fatalf("rejection without a place: %+v", r)
			}
			return nil
		}
		if r.Format != p.ID() || r.Facts == nil || r.Extra == nil || r.HasRequests {
			t.Fatalf("run %+v", r)
		}
		ingesttest.FuzzStated(t, r)
		return nil
	})
	ingesttest.FuzzError(t, err, "fuzz.txt")
}

func FuzzTRTLLMJSON(f *testing.F) {
	ttFuzzSeeds(f)
	p := trtllm.NewJSON()
	f.Fuzz(func(t *testing.T, data []byte) { ttFuzz(t, p, data) })
}

func FuzzTRTLLMConsole(f *testing.F) {
	ttFuzzSeeds(f)
	p := trtllm.NewConsole()
	f.Fuzz(func(t *testing.T, data []byte) { ttFuzz(t, p, data) })
}
