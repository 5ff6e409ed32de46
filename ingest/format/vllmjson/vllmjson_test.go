package vllmjson_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/format/vllmjson"
	"github.com/benchledger/benchledger/ingest/internal/ingesttest"
	"github.com/benchledger/benchledger/internal/testshared"
)

// vjParseAll runs the vLLM parser over data and collects the runs.
func vjParseAll(t testing.TB, name string, data []byte) ([]*benchrun.Run, error) {
	t.Helper()
	// As the batch reads it: a file whose every run is bad is rejected.
	return ingesttest.Settled(vllmjson.New(), name, data)
}

func vjMustParse(t *testing.T, name string, data []byte) []*benchrun.Run {
	t.Helper()
	runs, err := vjParseAll(t, name, data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return runs
}

func vjReadFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func vjSniff(name string, data []byte) bool {
	return vllmjson.New().Sniff(name, data[:min(len(data), format.HeadSize)])
}

func vjStated(t *testing.T, r *benchrun.Run, metric string) float64 {
	t.Helper()
	s, ok := r.StatedValue(metric)
	if !ok {
		t.Fatalf("no stated %s; have %v", metric, r.Stated)
	}
	return s.Value
}

func vjNear(got, want, rel float64) bool {
	if got == want {
		return true
	}
	return math.Abs(got-want) <= rel*math.Max(math.Abs(want), math.Abs(got))
}

func vjCheckNear(t *testing.T, what string, got, want float64) {
	t.Helper()
	if !vjNear(got, want, 1e-9) {
		t.Errorf("%s: recomputed %.17g, file states %.17g", what, got, want)
	}
}

func vjHasNote(r *benchrun.Run, sub string) bool {
	return slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, sub) })
}

func vjMean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// vjPercentile is NumPy's default ("linear") percentile.
func vjPercentile(xs []float64, p float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	pos := p / 100 * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(s)-1)
	return s[lo] + (s[hi]-s[lo])*(pos-float64(lo))
}

// vjSuccessful returns f(r) for the requests that did not fail.
func vjSuccessful(r *benchrun.Run, f func(*benchrun.Request) float64) []float64 {
	var out []float64
	for i := range r.Requests {
		if q := &r.Requests[i]; !q.Failed() {
			out = append(out, f(q))
		}
	}
	return out
}

func vjCountFailed(r *benchrun.Run) int64 {
	var n int64
	for i := range r.Requests {
		if r.Requests[i].Failed() {
			n++
		}
	}
	return n
}

func TestVLLMIdentity(t *testing.T) {
	p := vllmjson.New()
	if p.ID() != "vllm-serve-json" || p.Describe() != "vllm bench serve / benchmark_serving.py JSON result" {
		t.Fatalf("ID %q Describe %q", p.ID(), p.Describe())
	}
}

func TestVLLMSamples(t *testing.T) {
	checks := map[string]func(t *testing.T, data []byte){
		"benchmark_serving_2025-04_detailed_qps04.json": func(t *testing.T, data []byte) {
			runs := vjMustParse(t, "detailed.json", data)
			if len(runs) != 1 {
				t.Fatalf("%d runs", len(runs))
			}
			r := runs[0]
			if !r.HasRequests || len(r.Requests) != 200 {
				t.Fatalf("HasRequests %v, %d requests", r.HasRequests, len(r.Requests))
			}
			if r.Failed != 0 || r.Completed != 200 || vjCountFailed(r) != 0 {
				t.Errorf("completed %d failed %d (from errors: %d)", r.Completed, r.Failed, vjCountFailed(r))
			}
			// Per-request seconds against the summary's milliseconds
			// proves the unit conversion.
			vjCheckNear(t, "mean TTFT", vjMean(vjSuccessful(r, func(q *benchrun.Request) float64 { return q.TTFT })), vjStated(t, r, "ttft.mean"))
			vjCheckNear(t, "p99 TTFT", vjPercentile(vjSuccessful(r, func(q *benchrun.Request) float64 { return q.TTFT }), 99), vjStated(t, r, "ttft.p99"))
			var gapSum float64
			var gapCount int64
			var tpots []float64
			for _, q := range r.Requests {
				gapSum += q.Gaps.Sum
				gapCount += int64(q.Gaps.Count)
				if q.OutputTokens > 1 {
					tpots = append(tpots, (q.Latency-q.TTFT)/float64(q.OutputTokens-1))
				}
			}
			vjCheckNear(t, "mean ITL", gapSum/float64(gapCount), vjStated(t, r, "itl.mean"))
			// Latency is derived (no latencies list), so TPOT checks the derivation.
			if !vjNear(vjPercentile(tpots, 50), vjStated(t, r, "tpot.median"), 1e-6) {
				t.Errorf("median TPOT %v, stated %v", vjPercentile(tpots, 50), vjStated(t, r, "tpot.median"))
			}
			if !vjHasNote(r, "derived as TTFT + sum of chunk gaps") {
				t.Errorf("no note on derived latency: %q", r.Notes)
			}
			if r.FormatVariant != "benchmark_serving.py (legacy)" || r.Facts["measurement.client"] != "vllm benchmark_serving.py" {
				t.Errorf("variant %q client %q", r.FormatVariant, r.Facts["measurement.client"])
			}
			if r.Facts["measurement.date"] != "2025-04-14T14:16:21" || r.Facts["checkpoint.model_id"] != "meta-llama/Llama-3.3-70B-Instruct" ||
				r.Facts["workload.request_rate"] != "4" || r.Facts["workload.request_count"] != "200" || r.Facts["measurement.backend"] != "vllm" {
				t.Errorf("facts %v", r.Facts)
			}
			if _, ok := r.Facts["workload.concurrency"]; ok {
				t.Errorf("workload.concurrency set from a null max_concurrency")
			}
			if r.Clock != benchrun.ClockNone || benchrun.IsKnown(r.Requests[0].Start) {
				t.Errorf("clock %q start %v without start_times", r.Clock, r.Requests[0].Start)
			}
			if r.Extra["request_goodput:"] != "null" || !strings.HasPrefix(r.Extra["generated_texts"], `"<kept in raw bytes only: `) {
				t.Errorf("extra %q %q", r.Extra["request_goodput:"], r.Extra["generated_texts"])
			}
		},
		"benchmark_serving_2025-05_p95p99_metadata.json": func(t *testing.T, data []byte) {
			runs := vjMustParse(t, "p95p99.json", data)
			if len(runs) != 1 {
				t.Fatalf("%d runs", len(runs))
			}
			r := runs[0]
			if r.HasRequests || r.Requests != nil {
				t.Errorf("summary-only file has requests")
			}
			if r.Facts["metadata.timestamp"] != "2025-05-13_04-37-51,model" || r.Extra["timestamp"] != `"2025-05-13_04-37-51,model"` {
				t.Errorf("metadata fact %q extra %q", r.Facts["metadata.timestamp"], r.Extra["timestamp"])
			}
			s, _ := r.StatedValue("ttft.p95")
			if s.Value != 0.26113618802046403 || s.Unit != "s" || s.SourceUnit != "ms" || s.SourceKey != "p95_ttft_ms" {
				t.Errorf("ttft.p95 %+v", s)
			}
			if v := vjStated(t, r, "tpot.p99"); !vjNear(v, 0.031261335455978653, 1e-15) {
				t.Errorf("tpot.p99 %v", v)
			}
			if r.Completed != 200 || r.Failed != -1 {
				t.Errorf("completed %d failed %d; want failed unknown (-1)", r.Completed, r.Failed)
			}
			if r.Facts["workload.burstiness"] != "100" || r.Facts["workload.request_rate"] != "3.6" {
				t.Errorf("facts %v", r.Facts)
			}
			if r.FormatVariant != "benchmark_serving.py (legacy)" {
				t.Errorf("variant %q", r.FormatVariant)
			}
		},
		"nightly_benchmarks_summary_table.json": func(t *testing.T, data []byte) {
			vjWantInputError(t, data, "", "not a vllm bench serve result")
		},
		"vllm_bench_serve_v0.11_console.txt": func(t *testing.T, data []byte) {
			vjWantInputError(t, data, "byte 0 (line 1)", "malformed JSON")
		},
	}
	sniffWant := map[string]bool{
		"benchmark_serving_2025-04_detailed_qps04.json":  true,
		"benchmark_serving_2025-05_p95p99_metadata.json": true,
		"nightly_benchmarks_summary_table.json":          false,
		"vllm_bench_serve_v0.11_console.txt":             false,
	}
	for _, path := range testshared.Samples(t, "vllm") {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			data := vjReadFile(t, path)
			want, known := sniffWant[name]
			got := vjSniff(name, data)
			if !known {
				// A sample added later: sniffing and parsing must agree.
				_, err := vjParseAll(t, name, data)
				if got != (err == nil) {
					t.Errorf("Sniff %v but Parse error %v", got, err)
				}
				return
			}
			if got != want {
				t.Errorf("Sniff = %v, want %v", got, want)
			}
			checks[name](t, data)
		})
	}
}

func TestVLLMSniffOtherTools(t *testing.T) {
	root := testshared.Dir(t, "samples")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "vllm" {
			continue
		}
		for _, path := range testshared.Samples(t, d.Name()) {
			if vjSniff(filepath.Base(path), vjReadFile(t, path)) {
				t.Errorf("%s/%s sniffed as vLLM", d.Name(), filepath.Base(path))
			}
		}
	}
	// SGLang JSONL must also be refused by Parse.
	for _, path := range testshared.Samples(t, "sglang") {
		_, err := vjParseAll(t, path, vjReadFile(t, path))
		var ie *format.InputError
		if !errors.As(err, &ie) || !strings.Contains(ie.Reason, "not a vllm bench serve result") {
			t.Errorf("%s: Parse gave %v", filepath.Base(path), err)
		}
	}
}

func TestVLLMSniffFixtures(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*.json")
	if len(paths) < 7 {
		t.Fatalf("fixtures missing: %v", paths)
	}
	for _, p := range paths {
		if !vjSniff(filepath.Base(p), vjReadFile(t, p)) {
			t.Errorf("%s not sniffed", p)
		}
	}
	for _, s := range []string{
		``, `{}`, `[]`, `not json`, `{"duration": 1.0, "completed": 3}`,
		`{"date": "20250101-000000", "model_id": "m"}`,
		`{"backend": "sglang", "dataset_name": "random", "request_rate": Infinity, "duration": 10.0, "completed": 5, "mean_e2e_latency_ms": 1.0}`,
		`{"date": "2025-01-01", "duration": 1.0, "completed": 3}`,
		`[{"Test name": "x", "GPU": "H100", "# of req.": 200}]`,
		`{"elapsed_time": 1.0, "num_requests": 10, "total_num_tokens": 100, "requests_per_second": 10.0, "tokens_per_second": 100.0}`,
	} {
		if vjSniff("x.json", []byte(s)) {
			t.Errorf("sniffed %q", s)
		}
	}
	// Keys named like SGLang's (a --metadata pair, a sweep override) do not
	// stop detection, nor does a head cut inside a long array.
	for _, s := range []string{
		`{"date": "20250101-000000", "model_id": "m", "random_input_len": "1024", "duration": 1.0, "completed": 1}`,
		`{"date": "20250101-000000", "duration": 1.0, "completed": 1, "run_number": 0, "random_input_len": 1024}`,
		`{"date": "20250101-000000", "model_id": "m", "duration": 1.0, "completed": 1, "input_lens": [` + strings.Repeat("100, ", 20000),
		"[\n    {\n        \"date\": \"20250101-000000\",\n        \"model_id\": \"m\",\n        \"duration\": 1.0,\n        \"completed\": 1",
	} {
		if !vjSniff("x.json", []byte(s)) {
			t.Errorf("not sniffed: %.120q", s)
		}
	}
}

func TestVLLMFixtures(t *testing.T) {
	tests := []struct {
		file  string
		check func(t *testing.T, runs []*benchrun.Run)
	}{
		{"nan_infinity.json", func(t *testing.T, runs []*benchrun.Run) {
			r := runs[0]
			if _, ok := r.StatedValue("tpot.mean"); ok {
				t.Errorf("NaN kept as a stated figure")
			}
			if _, ok := r.StatedValue("tpot.p99"); ok {
				t.Errorf("-Infinity kept as a stated figure")
			}
			if r.Extra["mean_tpot_ms"] != "NaN" || r.Extra["p99_tpot_ms"] != "-Infinity" || !vjHasNote(r, "mean_tpot_ms is NaN") {
				t.Errorf("extra %v notes %q", r.Extra, r.Notes)
			}
			if r.Facts["workload.request_rate"] != "inf" {
				t.Errorf("bare Infinity rate: %q", r.Facts["workload.request_rate"])
			}
			if v := vjStated(t, r, "ttft.mean"); v != 0.1205 {
				t.Errorf("ttft.mean %v", v)
			}
			if r.Facts["measurement.label"] != "nan-check" || r.Facts["workload.concurrency"] != "2" {
				t.Errorf("facts %v", r.Facts)
			}
		}},
		{"inf_rate_string.json", func(t *testing.T, runs []*benchrun.Run) {
			r := runs[0]
			if r.Facts["workload.request_rate"] != "inf" || r.Facts["workload.burstiness"] != "0.5" || r.Facts["checkpoint.model_id"] != "/models/llama-3.1-8b" {
				t.Errorf("facts %v", r.Facts)
			}
			if _, ok := r.Facts["checkpoint.tokenizer"]; ok {
				t.Errorf("null tokenizer_id recorded")
			}
			if r.Completed != 9 || r.Failed != 1 || r.RequestCount() != 10 {
				t.Errorf("completed %d failed %d", r.Completed, r.Failed)
			}
			for metric, want := range map[string]float64{
				"request_goodput": 2.1538461538461537, "e2el.p99": 0.7, "client_queue_time.mean": 0,
				"duration": 3.25, "total_output_tokens": 450, "max_concurrent_requests": 9, "failed": 1,
			} {
				if v := vjStated(t, r, metric); v != want {
					t.Errorf("%s = %v, want %v", metric, v, want)
				}
			}
			if r.Extra["spec_decode_acceptance_rate"] != "71.5" || r.Extra["rtfx"] != "0.0" {
				t.Errorf("known unmapped keys not in Extra: %v", r.Extra)
			}
			if _, ok := r.Facts["metadata.spec_decode_acceptance_rate"]; ok {
				t.Errorf("number taken as metadata")
			}
			if r.FormatVariant != "serve.py" || r.Facts["measurement.client"] != "vllm bench serve" {
				t.Errorf("variant %q", r.FormatVariant)
			}
		}},
		{"legacy_goodput_colon.json", func(t *testing.T, runs []*benchrun.Run) {
			r := runs[0]
			s, ok := r.StatedValue("request_goodput")
			if !ok || s.Value != 0.5 || s.SourceKey != "request_goodput:" {
				t.Errorf("goodput %+v", s)
			}
			if v := vjStated(t, r, "itl.p99.9"); !vjNear(v, 0.06997, 1e-12) {
				t.Errorf("itl.p99.9 %v", v)
			}
			if v := vjStated(t, r, "tpot.p95"); v != 0.0595 {
				t.Errorf("tpot.p95 %v", v)
			}
			// No "failed" key: counted from the errors list.
			if r.Failed != 1 || r.Completed != 2 {
				t.Errorf("completed %d failed %d", r.Completed, r.Failed)
			}
			q := r.Requests[2]
			if q.Error != "Bad Request" || benchrun.IsKnown(q.TTFT) || benchrun.IsKnown(q.Latency) || q.Gaps.Count != 0 || benchrun.IsKnown(q.Gaps.Min) {
				t.Errorf("failed request %+v", q)
			}
			q = r.Requests[0]
			if q.TTFT != 0.1 || q.Gaps.Count != 2 || q.Gaps.Min != 0.05 || q.Gaps.Max != 0.07 || !vjNear(q.Latency, 0.22, 1e-12) || q.InputTokens != 10 || q.OutputTokens != 3 {
				t.Errorf("request 0 %+v", q)
			}
			if r.FormatVariant != "benchmark_serving.py (legacy)" {
				t.Errorf("variant %q", r.FormatVariant)
			}
		}},
		{"sweep_run_indent4.json", func(t *testing.T, runs []*benchrun.Run) {
			r := runs[0]
			if r.FormatVariant != "serve.py sweep run" {
				t.Errorf("variant %q", r.FormatVariant)
			}
			if r.Extra["run_number"] != "0" || r.Extra["max_num_seqs"] != "64" || r.Extra["max_concurrency"] != "8" || r.Facts["workload.concurrency"] != "8" {
				t.Errorf("extra %v", r.Extra)
			}
			if !r.HasRequests || len(r.Requests) != 4 || r.Requests[2].QueueTime != 0.001 || benchrun.IsKnown(r.Requests[0].TTFT) || r.Requests[0].InputTokens != -1 {
				t.Errorf("requests %+v", r.Requests)
			}
			lat := vjSuccessful(r, func(q *benchrun.Request) float64 { return q.Latency })
			vjCheckNear(t, "median e2el", vjPercentile(lat, 50), vjStated(t, r, "e2el.median"))
			vjCheckNear(t, "p99 e2el", vjPercentile(lat, 99), vjStated(t, r, "e2el.p99"))
		}},
		{"sweep_summary.json", func(t *testing.T, runs []*benchrun.Run) {
			if len(runs) != 2 {
				t.Fatalf("%d runs", len(runs))
			}
			for i, r := range runs {
				if r.Ordinal != i || r.FormatVariant != "serve.py sweep summary" || r.Extra["run_number"] != fmt.Sprint(i) {
					t.Errorf("run %d: ordinal %d variant %q run_number %q", i, r.Ordinal, r.FormatVariant, r.Extra["run_number"])
				}
			}
			if runs[1].Location != "object 1 at byte 1233 (line 48)" || runs[1].Facts["measurement.date"] != "2025-10-02T10:15:30" {
				t.Errorf("location %q date %q", runs[1].Location, runs[1].Facts["measurement.date"])
			}
		}},
		{"pooling.json", func(t *testing.T, runs []*benchrun.Run) {
			r := runs[0]
			if r.FormatVariant != "serve.py --save-detailed pooling" {
				t.Errorf("variant %q", r.FormatVariant)
			}
			if r.Extra["total_input_sequences"] != "3" || r.Extra["input_sequence_throughput"] != "6.0" {
				t.Errorf("extra %v", r.Extra)
			}
			if len(r.Requests) != 3 || r.Requests[1].Latency != 0.2 || r.Requests[1].OutputTokens != -1 || r.Failed != 0 {
				t.Errorf("requests %+v", r.Requests)
			}
			vjCheckNear(t, "mean e2el", vjMean(vjSuccessful(r, func(q *benchrun.Request) float64 { return q.Latency })), vjStated(t, r, "e2el.mean"))
		}},
		{"append_two.json", func(t *testing.T, runs []*benchrun.Run) {
			if len(runs) != 2 {
				t.Fatalf("%d runs", len(runs))
			}
			if runs[1].Ordinal != 1 || !strings.HasPrefix(runs[1].Location, "object 1 at byte ") || !strings.HasSuffix(runs[1].Location, "(line 2)") {
				t.Errorf("location %q", runs[1].Location)
			}
			// Not detailed: the failure shows only as a 0.0 latency.
			r := runs[1]
			if r.Completed != 0 || r.Failed != 1 || !r.Requests[0].Failed() || benchrun.IsKnown(r.Requests[0].Latency) {
				t.Errorf("all-failed run: %+v", r.Requests)
			}
			if runs[0].Facts["workload.request_rate"] != "1.5" || runs[0].Requests[0].Failed() {
				t.Errorf("run 0 %v %+v", runs[0].Facts, runs[0].Requests)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			runs := vjMustParse(t, tc.file, vjReadFile(t, filepath.Join("testdata", tc.file)))
			for i, r := range runs {
				if r.Format != "vllm-serve-json" || r.SourceTool != "vllm bench serve" || r.PercentileMethod != "linear" || r.Ordinal != i {
					t.Errorf("run %d: %q %q %q %d", i, r.Format, r.SourceTool, r.PercentileMethod, r.Ordinal)
				}
				for _, s := range r.Stated {
					if strings.HasSuffix(s.SourceKey, "_ms") && (s.Unit != "s" || s.SourceUnit != "ms") {
						t.Errorf("%s: unit %q source unit %q", s.SourceKey, s.Unit, s.SourceUnit)
					}
				}
			}
			tc.check(t, runs)
		})
	}
}

const vjOkHead = `{"date": "20250101-000000", "model_id": "m", "duration": 1.0, `

// vjWantInputError parses data and checks the error's Place and Reason.
func vjWantInputError(t *testing.T, data []byte, place, reason string) {
	t.Helper()
	_, err := vjParseAll(t, "bad.json", data)
	var ie *format.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("got %v (%T), want *InputError", err, err)
	}
	if ie.File != "bad.json" {
		t.Errorf("File %q", ie.File)
	}
	if !strings.Contains(ie.Place, place) || !strings.Contains(ie.Reason, reason) {
		t.Errorf("got place %q reason %q\nwant place containing %q, reason containing %q", ie.Place, ie.Reason, place, reason)
	}
}

func TestVLLMBadInput(t *testing.T) {
	deep := vjOkHead + `"completed": 1, "x": ` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}`
	const eof = "<EOF>"
	tests := []struct {
		name, in string
		// The expected Place is prefix + "byte B (line L)", where B is the
		// offset of the first occurrence of at in the input (the end of
		// input for eof); an empty at expects exactly prefix.
		prefix, at string
		reason     string
	}{
		{"empty", ``, "", "", "the file is empty"},
		{"whitespace", "\n\n  ", "", eof, "only whitespace"},
		{"binary", "\x00\x01\x02\xff", "", "\x00", "malformed JSON: unexpected byte 0x00"},
		{"truncated in array", vjOkHead + `"completed": 2, "ttfts": [0.1, 0.`, `key "ttfts" item 1, `, eof, "unexpected end of input inside number (is the file truncated?)"},
		{"truncated object", vjOkHead + `"completed": 2`, "", eof, "unexpected end of input inside object"},
		{"truncated gaps", vjOkHead + `"completed": 1, "itls": [[0.1, `, `key "itls" item 0 gap 1, `, eof, "inside array (is the file truncated?)"},
		{"truncated string", vjOkHead + `"completed": 1, "errors": ["Tracebac`, `key "errors" item 0, `, eof, "inside string"},
		{"missing colon", `{"duration" 1.0}`, `key "duration", `, "1.0", "malformed JSON: expected ':'"},
		{"invalid utf-8", vjOkHead + `"completed": 1, "note": "a` + "\xff" + `"}`, `key "note", `, "\xff", "invalid UTF-8"},
		{"control char", vjOkHead + `"completed": 1, "errors": ["a` + "\n" + `b"]}`, `key "errors" item 0, `, "\n", "control character 0x0a"},
		{"truncated escape", vjOkHead + `"completed": 1, "errors": ["a\u12"]}`, `key "errors" item 0, `, `"]}`, "invalid \\u escape"},
		{"deep nesting", deep, `key "x", `, "[", "nesting deeper than 512"},
		{"other tool object", `{"elapsed_time": 1.0, "num_requests": 10}`, "object 0 at ", "{", `not a vllm bench serve result: no "completed" or "duration" key`},
		{"other tool list", `[{"Test name": "x", "GPU": "H100"}]`, "object 0 at ", "{", "not a vllm bench serve result"},
		{"sglang", `{"backend": "sglang", "dataset_name": "random", "request_rate": Infinity, "duration": 10.0, "completed": 5, "mean_e2e_latency_ms": 1.0}`, "object 0 at ", "{", "SGLang"},
		{"top-level number", `42`, "", "42", "not a vllm bench serve result: the file holds a number"},
		{"list of numbers", `[1, 2]`, "list item 0, ", "1", "not a run object"},
		{"empty list", `[]`, "", "[", "empty list"},
		{"no requests", vjOkHead + `"completed": 0, "failed": 0}`, "object 0 at ", "{", "run has no requests"},
		{"no requests legacy", vjOkHead + `"completed": 0}`, "object 0 at ", "{", "run has no requests"},
		{"empty arrays", vjOkHead + `"completed": 0, "failed": 0, "input_lens": [], "ttfts": []}`, "object 0 at ", "{", "run has no requests: its per-request lists are empty"},
		{"length mismatch", vjOkHead + `"completed": 3, "input_lens": [1, 2, 3], "ttfts": [0.1, 0.2]}`, `key "ttfts", `, "[0.1", `"ttfts" has 2 items but "input_lens" has 3`},
		{"length mismatch longer", vjOkHead + `"completed": 1, "input_lens": [1], "ttfts": [0.1, 0.2, 0.3]}`, `key "ttfts", `, "[0.1", `"ttfts" has 3 items but "input_lens" has 1`},
		{"negative ttft", vjOkHead + `"completed": 2, "ttfts": [0.1, -0.2]}`, `key "ttfts" item 1, `, "-0.2", "negative time -0.2"},
		{"NaN latency", vjOkHead + `"completed": 1, "latencies": [NaN]}`, `key "latencies" item 0, `, "NaN", "NaN is not a valid time"},
		{"Infinity start", vjOkHead + `"completed": 1, "start_times": [Infinity]}`, `key "start_times" item 0, `, "Infinity", "Infinity is not a valid time"},
		{"negative gap", vjOkHead + `"completed": 1, "itls": [[0.1, -1e-3]]}`, `key "itls" item 0 gap 1, `, "-1e-3", "-1e-3 is not a valid gap"},
		{"negative tokens", vjOkHead + `"completed": 2, "output_lens": [5, -1]}`, `key "output_lens" item 1, `, "-1", "negative token count -1"},
		{"fractional tokens", vjOkHead + `"completed": 1, "input_lens": [2.5]}`, `key "input_lens" item 0, `, "2.5", "expected a token count, found 2.5"},
		{"array wrong type", vjOkHead + `"completed": 1, "ttfts": "0.1"}`, `key "ttfts", `, `"0.1"`, "expected a list, found string"},
		{"item wrong type", vjOkHead + `"completed": 1, "errors": [0]}`, `key "errors" item 0, `, "0]", "expected a string, found number"},
		{"gaps wrong type", vjOkHead + `"completed": 1, "itls": [0.1]}`, `key "itls" item 0, `, "0.1", "expected a list of gaps, found number"},
		{"summary wrong type", vjOkHead + `"completed": "2"}`, `key "completed", `, `"2"`, "expected a number, found string"},
		{"model wrong type", `{"model_id": 7, "duration": 1.0, "completed": 1}`, `key "model_id", `, "7", "expected a string, found number"},
		{"negative count", vjOkHead + `"completed": -3}`, `key "completed", `, "-3", "negative count -3"},
		{"duplicate key", vjOkHead + `"completed": 1, "duration": 2.0}`, "", `"duration": 2.0`, `key "duration" appears twice`},
		{"second object broken", vjOkHead + `"completed": 1}` + "\n" + `{"duration": 1.0,, "completed": 1}`, "object 1, ", ", \"completed\": 1}", "malformed JSON: expected a string key after ','"},
	}
	// A whole object that is not a run, beside a good one, is that run's
	// rejection at its place; the good run goes on.
	runs, err := vjParseAll(t, "bad.json", []byte(vjOkHead+`"completed": 1}`+"\n"+`{"a": 1}`))
	if err != nil || len(runs) != 2 || runs[0].Rejection != "" || !strings.HasPrefix(runs[1].Location, "object 1 at ") ||
		!strings.Contains(runs[1].Rejection, "not a vllm bench serve result") {
		t.Errorf("second object of another tool: %v, %+v", err, runs)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			place := tc.prefix
			if tc.at != "" {
				off := strings.Index(tc.in, tc.at)
				if tc.at == eof {
					off = len(tc.in)
				}
				switch tc.name {
				case "second object broken":
					off = strings.LastIndex(tc.in, ",") // the second of two commas
				case "deep nesting":
					off += 511 // the object is level 1, so the 512th '[' is level 513
				}
				if off < 0 {
					t.Fatalf("marker %q not in input", tc.at)
				}
				place += fmt.Sprintf("byte %d (line %d)", off, strings.Count(tc.in[:off], "\n")+1)
			}
			runs, err := vjParseAll(t, "bad.json", []byte(tc.in))
			if tc.name == "second object broken" {
				// The first run is read; the rest of the file is one
				// rejection at the place its syntax breaks.
				rej := ingesttest.Rejections(runs)
				if err != nil || len(runs) != 2 || len(rej) != 1 || !strings.HasPrefix(rej[0], place+": "+tc.reason) {
					t.Errorf("got %v, rejections %q; want the first run and a rejection at %q", err, rej, place)
				}
				return
			}
			var ie *format.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v (%T), want *InputError", err, err)
			}
			if ie.File != "bad.json" || ie.Place != place || !strings.Contains(ie.Reason, tc.reason) {
				t.Errorf("got file %q place %q reason %q\nwant place %q, reason containing %q", ie.File, ie.Place, ie.Reason, place, tc.reason)
			}
		})
	}
}

func TestVLLMAllFailedIsNotBadInput(t *testing.T) {
	in := vjOkHead + `"completed": 0, "failed": 2, "mean_ttft_ms": 0.0, "ttfts": [0.0, 0.0], "itls": [[], []], "errors": ["Internal Server Error", "Bad Request"]}`
	runs := vjMustParse(t, "f.json", []byte(in))
	r := runs[0]
	if r.Completed != 0 || r.Failed != 2 || vjCountFailed(r) != 2 || benchrun.IsKnown(r.Requests[0].TTFT) {
		t.Fatalf("%+v", r)
	}
	// A summary-only all-failed run is a run too.
	runs = vjMustParse(t, "f.json", []byte(vjOkHead+`"completed": 0, "failed": 5}`))
	if runs[0].RequestCount() != 5 {
		t.Fatalf("request count %d", runs[0].RequestCount())
	}
}

func TestVLLMMetadataShadowing(t *testing.T) {
	in := `{"date": "20250101-000000", "model_id": "m", "num_prompts": "100", "gpu": "H100", "tp": "8", "duration": 1.0, "completed": 1, "nested": {"a": [1, 2]}, "flag": true}`
	r := vjMustParse(t, "m.json", []byte(in))[0]
	want := map[string]string{"metadata.num_prompts": "100", "metadata.gpu": "H100", "metadata.tp": "8"}
	for k, v := range want {
		if r.Facts[k] != v {
			t.Errorf("%s = %q, want %q", k, r.Facts[k], v)
		}
	}
	if _, ok := r.Facts["workload.request_count"]; ok {
		t.Errorf("string num_prompts taken as the request count")
	}
	if r.Extra["nested"] != `{"a": [1, 2]}` || r.Extra["flag"] != "true" || r.Extra["gpu"] != `"H100"` {
		t.Errorf("extra %v", r.Extra)
	}
	if _, ok := r.Facts["metadata.flag"]; ok {
		t.Errorf("non-string unknown key taken as metadata")
	}
}

func TestVLLMDate(t *testing.T) {
	r := vjMustParse(t, "d.json", []byte(`{"date": "20250414-141621", "duration": 1.0, "completed": 1}`))[0]
	if r.Facts["measurement.date"] != "2025-04-14T14:16:21" || !vjHasNote(r, "local time without a time zone") {
		t.Errorf("date %q notes %q", r.Facts["measurement.date"], r.Notes)
	}
	r = vjMustParse(t, "d.json", []byte(`{"date": "2025-04-14 14:16", "duration": 1.0, "completed": 1}`))[0]
	if _, ok := r.Facts["measurement.date"]; ok || r.Extra["date"] != `"2025-04-14 14:16"` || !vjHasNote(r, "not in vLLM's") {
		t.Errorf("facts %v extra %v notes %q", r.Facts, r.Extra, r.Notes)
	}
}

func TestVLLMLargeExtraValue(t *testing.T) {
	in := vjOkHead + `"completed": 1, "rps_change_events": [` + strings.Repeat(`{"rps": 1, "timestamp": "2025-01-01T00:00:00"}, `, 3000) + `{}]}`
	r := vjMustParse(t, "x.json", []byte(in))[0]
	if got := r.Extra["rps_change_events"]; got != `"<kept in raw bytes only: 144.0 kB>"` {
		t.Fatalf("got %.80q", got)
	}
}

func TestVLLMEmitErrorAndCancel(t *testing.T) {
	data := vjReadFile(t, "testdata/append_two.json")
	stop := errors.New("stop")
	calls := 0
	err := vllmjson.New().Parse(context.Background(), "a.json", bytes.NewReader(data), func(*benchrun.Run) error {
		calls++
		return stop
	})
	if err != stop || calls != 1 {
		t.Fatalf("emit error: got %v after %d calls", err, calls)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = vllmjson.New().Parse(ctx, "a.json", bytes.NewReader(data), func(*benchrun.Run) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before start: %v", err)
	}

	// Cancelled while inside a large array: the reader cancels after the
	// first megabyte, and parsing must stop long before the end.
	var big bytes.Buffer
	big.WriteString(vjOkHead + `"completed": 1, "ttfts": [`)
	for big.Len() < 8<<20 {
		big.WriteString("0.125, ")
	}
	big.WriteString("0.1]}")
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	r := &vjCancelAfter{r: bytes.NewReader(big.Bytes()), n: 1 << 20, cancel: cancel}
	err = vllmjson.New().Parse(ctx, "big.json", r, func(*benchrun.Run) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled inside an array: %v", err)
	}
	if r.read > 3<<20 {
		t.Fatalf("read %d bytes after cancellation", r.read)
	}
}

type vjCancelAfter struct {
	r      io.Reader
	n      int
	read   int
	cancel func()
}

func (c *vjCancelAfter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += n
	if c.read >= c.n {
		c.cancel()
	}
	return n, err
}

func TestVLLMReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	r := io.MultiReader(strings.NewReader(vjOkHead), vjErrReader{boom})
	_, err := func() ([]*benchrun.Run, error) {
		var runs []*benchrun.Run
		err := vllmjson.New().Parse(context.Background(), "r.json", r, func(x *benchrun.Run) error { runs = append(runs, x); return nil })
		return runs, err
	}()
	var ie *format.InputError
	if !errors.As(err, &ie) || !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
}

type vjErrReader struct{ err error }

func (e vjErrReader) Read([]byte) (int, error) { return 0, e.err }

// --- files from the shared vjGenerator -------------------------------------

// vjGenerator builds ../shared/bench/gen into a temporary folder of t.
func vjGenerator(t testing.TB) string {
	t.Helper()
	src := testshared.Dir(t, filepath.Join("bench", "gen"))
	gen := filepath.Join(t.TempDir(), "gen")
	cmd := exec.Command("go", "build", "-o", gen, ".")
	cmd.Dir = src
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the generator: %v\n%s", err, out)
	}
	return gen
}

func vjGenerate(t testing.TB, gen string, args ...string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "run.json")
	cmd := exec.Command(gen, append([]string{"-q", "-o", out}, args...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen %v: %v\n%s", args, err, b)
	}
	return vjReadFile(t, out)
}

// vjCheckAgainstStated recomputes figures from the records and compares them
// with what the file states.
func vjCheckAgainstStated(t *testing.T, r *benchrun.Run) {
	t.Helper()
	if r.Failed >= 0 && vjCountFailed(r) != r.Failed {
		t.Errorf("failed requests: %d records, file states %d", vjCountFailed(r), r.Failed)
	}
	if r.Completed+r.Failed != int64(len(r.Requests)) {
		t.Errorf("completed %d + failed %d != %d records", r.Completed, r.Failed, len(r.Requests))
	}
	lat := vjSuccessful(r, func(q *benchrun.Request) float64 { return q.Latency })
	if s, ok := r.StatedValue("e2el.median"); ok && len(lat) > 0 {
		vjCheckNear(t, "median e2el", vjPercentile(lat, 50), s.Value)
	}
	ttft := vjSuccessful(r, func(q *benchrun.Request) float64 { return q.TTFT })
	if s, ok := r.StatedValue("ttft.mean"); ok && len(ttft) > 0 && benchrun.IsKnown(ttft[0]) {
		vjCheckNear(t, "mean ttft", vjMean(ttft), s.Value)
		if s, ok := r.StatedValue("ttft.p99"); ok {
			vjCheckNear(t, "p99 ttft", vjPercentile(ttft, 99), s.Value)
		}
	}
	var out int64
	for _, q := range r.Requests {
		if !q.Failed() && q.OutputTokens >= 0 {
			out += int64(q.OutputTokens)
		}
	}
	if s, ok := r.StatedValue("total_output_tokens"); ok && r.Requests[0].OutputTokens >= 0 && float64(out) != s.Value {
		t.Errorf("total output tokens %d, vjStated %v", out, s.Value)
	}
}

func TestVLLMGenerated(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, runs []*benchrun.Run)
	}{
		{"serve detailed", []string{"-n", "500", "-fail-rate", "0.05", "-concurrency", "16", "-percentile-metrics", "ttft,tpot,itl,e2el", "-label", "lbl"}, func(t *testing.T, runs []*benchrun.Run) {
			r := runs[0]
			if r.FormatVariant != "serve.py --save-detailed" || r.Clock != benchrun.ClockMonotonic || r.Facts["measurement.clock"] != "monotonic" {
				t.Errorf("variant %q clock %q", r.FormatVariant, r.Clock)
			}
			if len(r.Requests) != 500 || r.Failed == 0 || r.Facts["measurement.label"] != "lbl" || r.Facts["workload.concurrency"] != "16" {
				t.Errorf("%d requests, %d failed, facts %v", len(r.Requests), r.Failed, r.Facts)
			}
			if vjHasNote(r, "derived") {
				t.Errorf("latency derived although the file has latencies")
			}
			var gapSum float64
			var gaps int64
			for _, q := range r.Requests {
				if !benchrun.IsKnown(q.Start) {
					t.Fatalf("request %d has no start", q.Index)
				}
				gapSum += q.Gaps.Sum
				gaps += int64(q.Gaps.Count)
			}
			vjCheckNear(t, "mean itl", gapSum/float64(gaps), vjStated(t, r, "itl.mean"))
		}},
		{"legacy", []string{"-n", "300", "-format", "legacy", "-fail-rate", "0.05"}, func(t *testing.T, runs []*benchrun.Run) {
			r := runs[0]
			if r.FormatVariant != "benchmark_serving.py (legacy)" || r.Facts["measurement.client"] != "vllm benchmark_serving.py" {
				t.Errorf("variant %q", r.FormatVariant)
			}
			if _, ok := r.Extra["request_goodput:"]; !ok {
				t.Errorf("request_goodput: not kept")
			}
			if !vjHasNote(r, "derived as TTFT + sum of chunk gaps") {
				t.Errorf("notes %q", r.Notes)
			}
			if r.Failed <= 0 {
				t.Errorf("failed %d: want the count of non-empty errors", r.Failed)
			}
		}},
		{"not detailed", []string{"-n", "400", "-detailed=false", "-fail-rate", "0.05", "-percentile-metrics", "ttft,e2el"}, func(t *testing.T, runs []*benchrun.Run) {
			r := runs[0]
			if r.FormatVariant != "serve.py" || !r.HasRequests || r.Clock != benchrun.ClockNone {
				t.Errorf("variant %q has requests %v clock %q", r.FormatVariant, r.HasRequests, r.Clock)
			}
			if benchrun.IsKnown(r.Requests[0].TTFT) || r.Requests[0].InputTokens != -1 || !benchrun.IsKnown(r.Requests[0].QueueTime) {
				t.Errorf("request 0 %+v", r.Requests[0])
			}
			if r.Failed == 0 || !vjHasNote(r, "0.0 latency placeholder") {
				t.Errorf("failed %d notes %q", r.Failed, r.Notes)
			}
		}},
		{"append 3", []string{"-n", "100", "-append", "3"}, func(t *testing.T, runs []*benchrun.Run) {
			if len(runs) != 3 {
				t.Fatalf("%d runs", len(runs))
			}
			for i, r := range runs {
				if r.Ordinal != i || !strings.HasPrefix(r.Location, fmt.Sprintf("object %d at byte ", i)) || !strings.HasSuffix(r.Location, fmt.Sprintf("(line %d)", i+1)) {
					t.Errorf("run %d: ordinal %d location %q", i, r.Ordinal, r.Location)
				}
			}
			if runs[0].Facts["measurement.date"] == runs[1].Facts["measurement.date"] {
				t.Errorf("appended runs share a date")
			}
		}},
		{"metadata", []string{"-n", "50", "-metadata", "gpu=H100", "-metadata", "prefill_replicas=0"}, func(t *testing.T, runs []*benchrun.Run) {
			r := runs[0]
			if r.Facts["metadata.gpu"] != "H100" || r.Facts["metadata.prefill_replicas"] != "0" || r.Extra["prefill_replicas"] != `"0"` ||
				r.Facts["measurement.backend"] != "openai" || r.Extra["endpoint_type"] != `"openai"` {
				t.Errorf("facts %v extra %v", r.Facts, r.Extra)
			}
		}},
		{"all failed", []string{"-n", "40", "-fail-rate", "1"}, func(t *testing.T, runs []*benchrun.Run) {
			r := runs[0]
			if r.Completed != 0 || r.Failed != 40 || vjCountFailed(r) != 40 {
				t.Errorf("completed %d failed %d", r.Completed, r.Failed)
			}
			for _, q := range r.Requests {
				if benchrun.IsKnown(q.TTFT) || benchrun.IsKnown(q.Latency) {
					t.Fatalf("failed request with TTFT %v latency %v", q.TTFT, q.Latency)
				}
			}
		}},
		{"percentiles and rate", []string{"-n", "200", "-metric-percentiles", "50,95,99.9", "-rate", "4", "-concurrency", "0"}, func(t *testing.T, runs []*benchrun.Run) {
			r := runs[0]
			for _, m := range []string{"ttft.p50", "tpot.p95", "itl.p99.9"} {
				if _, ok := r.StatedValue(m); !ok {
					t.Errorf("no %s", m)
				}
			}
			if r.Facts["workload.request_rate"] != "4" || r.Extra["max_concurrency"] != "null" {
				t.Errorf("facts %v", r.Facts)
			}
			if _, ok := r.Facts["workload.concurrency"]; ok {
				t.Errorf("concurrency from null")
			}
			ttft := vjSuccessful(r, func(q *benchrun.Request) float64 { return q.TTFT })
			vjCheckNear(t, "p50 ttft", vjPercentile(ttft, 50), vjStated(t, r, "ttft.p50"))
		}},
	}
	gen := vjGenerator(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := vjGenerate(t, gen, tc.args...)
			if !vjSniff("run.json", data) {
				t.Errorf("not sniffed")
			}
			runs := vjMustParse(t, "run.json", data)
			for _, r := range runs {
				vjCheckAgainstStated(t, r)
			}
			tc.check(t, runs)
		})
	}
}

// BenchmarkVLLMJSONParse parses a generated --save-detailed file of about
// 64 MB from memory.
func BenchmarkVLLMJSONParse(b *testing.B) {
	data := vjGenerate(b, vjGenerator(b), "-size", "64MB")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	p := vllmjson.New()
	for b.Loop() {
		n := 0
		err := p.Parse(context.Background(), "m.json", bytes.NewReader(data), func(r *benchrun.Run) error {
			n += len(r.Requests)
			return nil
		})
		if err != nil || n == 0 {
			b.Fatal(err, n)
		}
	}
}
