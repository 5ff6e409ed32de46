package llmperf_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/ingest"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/format/llmperf"
	"github.com/benchledger/benchledger/ingest/internal/ingesttest"
	"github.com/benchledger/benchledger/ingest/registry"
	"github.com/benchledger/benchledger/internal/testshared"
)

// ---------------------------------------------------------------------------

const (
	lpSampleSummary   = "bedrock_70b_summary.json"
	lpSampleResponses = "bedrock_70b_individual_responses.json"
	lpFixtureStem     = "testdata/Qwen-Qwen3-8B_512_128"
)

func TestLLMPerfIdentity(t *testing.T) {
	for _, c := range []struct {
		p  format.Parser
		id string
	}{{llmperf.NewSummary(), "llmperf-summary"}, {llmperf.NewResponses(), "llmperf-responses"}} {
		if c.p.ID() != c.id || c.p.Describe() == "" {
			t.Errorf("%T: id %q describe %q", c.p, c.p.ID(), c.p.Describe())
		}
		if p, ok := registry.ByID(c.id); !ok || p.ID() != c.id {
			t.Errorf("ParserByID(%q) = %v, %v", c.id, p, ok)
		}
	}
	// Detection order: the summary parser comes before the responses one,
	// and both after the vLLM parsers they must not shadow.
	ids := registry.IDs()
	if i, j, k := slices.Index(ids, "vllm-serve-json"), slices.Index(ids, "llmperf-summary"), slices.Index(ids, "llmperf-responses"); !(i >= 0 && i < j && j < k) {
		t.Errorf("detection order %v", ids)
	}
}

// TestLLMPerfRealSamples reads the official leaderboard's raw files: the
// figures are those the file prints, the two files pair up, and the
// summary's statistics follow from the records.
func TestLLMPerfRealSamples(t *testing.T) {
	dir := testshared.Dir(t, filepath.Join("samples", "llmperf"))
	sumPath, respPath := filepath.Join(dir, lpSampleSummary), filepath.Join(dir, lpSampleResponses)
	sumData, respData := ingesttest.Read(t, sumPath), ingesttest.Read(t, respPath)
	if got := ingesttest.Detect(sumPath, sumData); got != "llmperf-summary" {
		t.Errorf("summary detected as %q", got)
	}
	if got := ingesttest.Detect(respPath, respData); got != "llmperf-responses" {
		t.Errorf("responses detected as %q", got)
	}

	sum := ingesttest.One(t, llmperf.NewSummary(), sumPath, sumData)
	ingesttest.WantStated(t, sum, 1e-15, map[string]float64{
		"completed":          101,
		"failed":             49,
		"output_throughput":  62.867056292903534,
		"request_throughput": 25.18838751305755 / 60,
		"ttft.p25":           0.37448621399926196,
		"ttft.median":        0.38771994699891366,
		"ttft.p99":           0.686971139999514,
		"ttft.mean":          0.40837363779203295,
		"ttft.min":           0.2856813910002529,
		"ttft.max":           0.717337595000572,
		"e2el.median":        6.989185308999367,
		"e2el.p90":           7.6169411320006475,
		"e2el.p99":           8.09341601000051,
		"e2el.mean":          7.058203132000026,
		"e2el.min":           5.567597400999148,
		"e2el.max":           8.167375638999147,
	})
	if s, _ := sum.StatedValue("request_throughput"); s.SourceKey != "results_num_completed_requests_per_min" || s.SourceUnit != "req/min" {
		t.Errorf("request_throughput source %s %s", s.SourceKey, s.SourceUnit)
	}
	// llmperf's "inter_token_latency_s" includes TTFT and its stddev is the
	// sample deviation: neither may pass for a canonical figure.
	for _, s := range sum.Stated {
		if strings.HasPrefix(s.Metric, "tpot") || strings.HasPrefix(s.Metric, "itl") || strings.HasSuffix(s.Metric, ".std") {
			t.Errorf("stated %s from %s", s.Metric, s.SourceKey)
		}
	}
	if sum.Extra["results_inter_token_latency_s_mean"] != "0.04707488939073093" || sum.Extra["results_ttft_s_stddev"] != "0.07499181263613727" ||
		sum.Extra["results_number_input_tokens_min"] != `"550"` || sum.Extra["results_error_code_frequency"] != `"{-100.0: 49}"` {
		t.Errorf("extra %v", sum.Extra)
	}
	ingesttest.WantFacts(t, sum, map[string]string{
		"checkpoint.model_id": "meta.llama2-70b-chat-v1", "workload.concurrency": "5", "workload.request_count": "150",
		"workload.input_len": "550", "workload.output_len": "150", "measurement.date": "2023-12-27T00:52:09Z",
		"measurement.client": "llmperf", "metadata.framework": "bedrock", "metadata.model_size": "70b",
	})
	if sum.Completed != 101 || sum.Failed != 49 || sum.HasRequests || sum.PercentileMethod != "linear" ||
		sum.FormatVariant != "summary, results version 2023-08-31" {
		t.Errorf("summary run %+v", sum)
	}
	for _, n := range []string{"inter_token_latency_s is the end-to-end time including TTFT", "error codes: -100 ×49", "4 values were written as strings"} {
		if !ingesttest.HasNote(sum, n) {
			t.Errorf("no note %q in %q", n, sum.Notes)
		}
	}

	resp := ingesttest.One(t, llmperf.NewResponses(), respPath, respData)
	if !resp.HasRequests || len(resp.Requests) != 150 || resp.Completed != 101 || resp.Failed != 49 {
		t.Fatalf("responses: %d records, completed %d failed %d", len(resp.Requests), resp.Completed, resp.Failed)
	}
	r0, r1 := resp.Requests[0], resp.Requests[1]
	if r0.Error != "error_code -100: Output too few tokens 102" || r0.TTFT != 0.6138388380004471 || r0.Latency != 5.0492379130009795 ||
		r0.InputTokens != 550 || r0.OutputTokens != 102 || benchrun.IsKnown(r0.Start) {
		t.Errorf("record 0 %+v", r0)
	}
	if r1.Error != "" || r1.TTFT != 0.6257479270007025 || r1.Latency != 6.241240903000289 || r1.OutputTokens != 128 {
		t.Errorf("record 1 %+v", r1)
	}
	if resp.Clock != benchrun.ClockNone || resp.FormatVariant != "individual responses with GEN_TEXT" || resp.Facts["workload.request_count"] != "150" {
		t.Errorf("responses run %+v", resp)
	}

	// The two files name one run.
	if sum.Companion == "" || sum.Companion != resp.Companion {
		t.Errorf("companion keys %q and %q", sum.Companion, resp.Companion)
	}

	// Every statistic the summary states follows from the records by
	// llmperf's own definitions (pandas linear quantiles over the
	// successful requests).
	a := ingesttest.CheckStated(sum.Stated, resp.Requests, sum.PercentileMethod, figures.StatedOptions{})
	if d := a.Disagreements(); len(d) > 0 {
		t.Errorf("stated figures disagree with the records: %+v", d)
	}
	checked := map[string]bool{}
	for _, c := range a.Checks {
		checked[c.Metric] = true
	}
	for _, m := range []string{"completed", "failed", "ttft.p25", "ttft.median", "ttft.p75", "ttft.p99", "ttft.mean", "ttft.min", "ttft.max", "e2el.p95", "e2el.mean", "e2el.max"} {
		if !checked[m] {
			t.Errorf("%s not checked; not checked: %+v", m, a.NotChecked)
		}
	}
	// Throughput cannot be recomputed: llmperf saves no send times.
	for _, nc := range []string{"output_throughput", "request_throughput"} {
		if !slices.ContainsFunc(a.NotChecked, func(n figures.NotChecked) bool { return n.Metric == nc }) {
			t.Errorf("%s should be unchecked (no window); not checked: %+v", nc, a.NotChecked)
		}
	}
}

// TestLLMPerfFixturePair covers what the leaderboard sample
// cannot: our own pair written by the current llmperf's rules, with NumPy
// 2's error-count repr, a variable input length, sampling parameters and
// rate-limited requests that carry 0 placeholders.
func TestLLMPerfFixturePair(t *testing.T) {
	sumPath, respPath := lpFixtureStem+"_summary.json", lpFixtureStem+"_individual_responses.json"
	sumData, respData := ingesttest.Read(t, sumPath), ingesttest.Read(t, respPath)
	if ingesttest.Detect(sumPath, sumData) != "llmperf-summary" || ingesttest.Detect(respPath, respData) != "llmperf-responses" {
		t.Fatalf("fixtures not detected: %q, %q", ingesttest.Detect(sumPath, sumData), ingesttest.Detect(respPath, respData))
	}
	sum := ingesttest.One(t, llmperf.NewSummary(), sumPath, sumData)
	resp := ingesttest.One(t, llmperf.NewResponses(), respPath, respData)
	ingesttest.WantStated(t, sum, 1e-15, map[string]float64{
		"completed": 6, "failed": 2,
		"output_throughput":  59.0463195784064,
		"request_throughput": 28.842164244540434 / 60,
		"ttft.median":        0.23366425000000002,
		"ttft.min":           0.0919992,
		"ttft.max":           0.288299,
	})
	ingesttest.WantFacts(t, sum, map[string]string{
		"checkpoint.model_id": "Qwen/Qwen3-8B", "workload.concurrency": "2", "workload.request_count": "8",
		"workload.input_len": "", "workload.output_len": "128", "workload.temperature": "0.6",
		"measurement.date": "2025-10-09T08:53:20Z", "metadata.gpu": "H100", "metadata.engine": "vllm",
	})
	for _, n := range []string{"error codes: 429 ×2", "normal distribution (mean 512, stddev 32 tokens)"} {
		if !ingesttest.HasNote(sum, n) {
			t.Errorf("no note %q in %q", n, sum.Notes)
		}
	}
	if len(resp.Requests) != 8 || resp.Completed != 6 || resp.Failed != 2 {
		t.Fatalf("responses %d/%d/%d", len(resp.Requests), resp.Completed, resp.Failed)
	}
	if r := resp.Requests[3]; r.Error != "error_code 429: Too Many Requests" || benchrun.IsKnown(r.TTFT) || benchrun.IsKnown(r.Latency) || r.OutputTokens != 0 {
		t.Errorf("rate-limited record %+v", r)
	}
	if !ingesttest.HasNote(resp, "2 failed requests carry llmperf's 0 placeholders") {
		t.Errorf("notes %q", resp.Notes)
	}
	if sum.Companion == "" || sum.Companion != resp.Companion {
		t.Errorf("companion keys %q and %q", sum.Companion, resp.Companion)
	}
	a := ingesttest.CheckStated(sum.Stated, resp.Requests, "linear", figures.StatedOptions{})
	if d := a.Disagreements(); len(d) > 0 || len(a.Checks) < 10 {
		t.Errorf("%d checks, disagreements %+v", len(a.Checks), d)
	}

	// A summary that does not follow from its records is found out: the
	// check names the figure.
	bad := slices.Clone(sum.Stated)
	for i := range bad {
		if bad[i].Metric == "ttft.p90" {
			bad[i].Value *= 1.01
		}
	}
	d := ingesttest.CheckStated(bad, resp.Requests, "linear", figures.StatedOptions{}).Disagreements()
	if len(d) != 1 || d[0].Metric != "ttft.p90" {
		t.Errorf("want one disagreement on ttft.p90, got %+v", d)
	}
}

// TestLLMPerfCompanionIsContent: the key comes from the content, so renamed
// files still pair, and two different runs do not.
func TestLLMPerfCompanionIsContent(t *testing.T) {
	data := ingesttest.Read(t, lpFixtureStem+"_individual_responses.json")
	a := ingesttest.One(t, llmperf.NewResponses(), "renamed.json", data)
	b := ingesttest.One(t, llmperf.NewResponses(), lpFixtureStem+"_individual_responses.json", data)
	if a.Companion != b.Companion {
		t.Errorf("file name changed the key: %q vs %q", a.Companion, b.Companion)
	}
	other := bytes.Replace(data, []byte(`"ttft_s": 0.288299`), []byte(`"ttft_s": 0.288298`), 1)
	c := ingesttest.One(t, llmperf.NewResponses(), "other.json", other)
	if c.Companion == a.Companion {
		t.Errorf("a different run has the same key %q", c.Companion)
	}
	// Every request failed: nothing both files hold names the run.
	allFailed := `[{"error_code": 500, "error_msg": "boom", "ttft_s": 0, "end_to_end_latency_s": 0, "number_input_tokens": 5, "number_output_tokens": 0}]`
	r := ingesttest.One(t, llmperf.NewResponses(), "f.json", []byte(allFailed))
	if r.Companion != "" || r.Completed != 0 || r.Failed != 1 || !ingesttest.HasNote(r, "no companion key") {
		t.Errorf("all-failed run: %+v", r)
	}
}

func TestLLMPerfBadInput(t *testing.T) {
	sum := string(ingesttest.Read(t, lpFixtureStem+"_summary.json"))
	resp := string(ingesttest.Read(t, lpFixtureStem+"_individual_responses.json"))
	rec := `{"error_code": null, "error_msg": "", "ttft_s": 0.1, "end_to_end_latency_s": 1.0, "number_input_tokens": 10, "number_output_tokens": 20}`
	head := `{"version": "2023-08-31", "model": "m", "num_concurrent_requests": 1, `
	for _, c := range []struct {
		name          string
		p             format.Parser
		in            string
		place, reason string
	}{
		{"summary empty", llmperf.NewSummary(), "", "", "the file is empty"},
		{"summary blank", llmperf.NewSummary(), "  \n ", "byte", "only whitespace"},
		{"summary truncated", llmperf.NewSummary(), sum[:len(sum)/2], "byte", "truncated"},
		{"summary a list", llmperf.NewSummary(), "[1]", "byte 0 (line 1)", "not an llmperf summary"},
		{"summary no results", llmperf.NewSummary(), `{"version": "2023-08-31", "model": "m"}`, "object at byte 0", "no results_* keys"},
		{"summary no requests", llmperf.NewSummary(), head + `"results_num_requests_started": 0, "results_num_completed_requests": 0}`, "object at byte 0", "run has no requests"},
		{"summary negative count", llmperf.NewSummary(), head + `"results_num_completed_requests": -3}`, `key "results_num_completed_requests"`, "negative count"},
		{"summary fractional count", llmperf.NewSummary(), head + `"results_number_errors": 2.5}`, `key "results_number_errors"`, "whole number"},
		{"summary wrong type", llmperf.NewSummary(), head + `"results_ttft_s_mean": true}`, `key "results_ttft_s_mean"`, "expected a number, found boolean"},
		{"summary non-numeric string", llmperf.NewSummary(), head + `"results_ttft_s_min": "fast"}`, `key "results_ttft_s_min"`, `found the string "fast"`},
		{"summary negative latency", llmperf.NewSummary(), head + `"results_end_to_end_latency_s_max": -1.0}`, `key "results_end_to_end_latency_s_max"`, "negative end_to_end_latency_s"},
		{"summary model not a string", llmperf.NewSummary(), `{"model": 3, "results_num_completed_requests": 1}`, `key "model"`, "expected a string"},
		{"summary timestamp in ms", llmperf.NewSummary(), head + `"results_num_completed_requests": 1, "timestamp": 1703638329000}`, `key "timestamp"`, "not epoch seconds"},
		{"summary duplicate key", llmperf.NewSummary(), head + `"results_num_completed_requests": 1, "results_num_completed_requests": 1}`, "byte", "appears twice"},
		{"summary two objects", llmperf.NewSummary(), head + `"results_num_completed_requests": 1} {}`, "byte", "a second JSON value"},
		{"summary zero clients", llmperf.NewSummary(), `{"num_concurrent_requests": 0, "results_num_completed_requests": 1}`, `key "num_concurrent_requests"`, "is 0"},
		{"responses empty", llmperf.NewResponses(), "", "", "the file is empty"},
		{"responses empty list", llmperf.NewResponses(), "[]", "list at byte 0", "no requests"},
		{"responses an object", llmperf.NewResponses(), `{"a": 1}`, "byte 0 (line 1)", "not an llmperf individual-responses file"},
		{"responses truncated", llmperf.NewResponses(), resp[:len(resp)-40], "record 7", "truncated"},
		{"responses record not an object", llmperf.NewResponses(), "[" + rec + ", 3]", "record 1, byte", "found number"},
		{"responses NaN latency", llmperf.NewResponses(), `[{"error_code": null, "ttft_s": 0.1, "end_to_end_latency_s": NaN}]`, `record 0 key "end_to_end_latency_s"`, "not a valid value"},
		{"responses Infinity ttft", llmperf.NewResponses(), `[{"error_code": null, "ttft_s": Infinity}]`, `record 0 key "ttft_s"`, "not a valid value"},
		{"responses negative time", llmperf.NewResponses(), "[" + rec + `, {"error_code": null, "ttft_s": -0.2}]`, `record 1 key "ttft_s"`, "negative"},
		{"responses negative tokens", llmperf.NewResponses(), `[{"error_code": null, "number_output_tokens": -5}]`, `record 0 key "number_output_tokens"`, "negative token count"},
		{"responses fractional tokens", llmperf.NewResponses(), `[{"error_code": null, "number_input_tokens": 5.5}]`, `record 0 key "number_input_tokens"`, "expected a token count"},
		{"responses string time", llmperf.NewResponses(), `[{"error_code": null, "ttft_s": "0.1"}]`, `record 0 key "ttft_s"`, "found the string"},
		{"responses error_code a list", llmperf.NewResponses(), `[{"error_code": [1]}]`, `record 0 key "error_code"`, "expected null, a number or a string"},
		{"responses duplicate key", llmperf.NewResponses(), `[{"ttft_s": 1, "ttft_s": 1}]`, "record 0, byte", "appears twice"},
		{"responses trailing value", llmperf.NewResponses(), "[" + rec + "] []", "byte", "a second JSON value"},
	} {
		t.Run(c.name, func(t *testing.T) {
			runs, err := ingesttest.Parse(c.p, "bad.json", []byte(c.in))
			if err == nil {
				t.Fatalf("no error; runs %+v", runs)
			}
			ingesttest.WantInputError(t, err, c.place, c.reason)
		})
	}
}

// TestLLMPerfTolerated: values llmperf really writes that are not plain
// numbers are read or kept, not rejected.
func TestLLMPerfTolerated(t *testing.T) {
	in := `{"version": "2023-08-31", "model": "m", "num_concurrent_requests": 1,
	  "results_ttft_s_mean": NaN, "results_ttft_s_min": "nan", "results_end_to_end_latency_s_max": "12.5",
	  "results_num_requests_started": 3, "results_num_completed_requests": 0, "results_number_errors": 3,
	  "results_error_code_frequency": "{500.0: 3}", "results_mean_output_throughput_token_per_s": 0.0}`
	r := ingesttest.One(t, llmperf.NewSummary(), "s.json", []byte(in))
	if _, ok := r.StatedValue("ttft.mean"); ok {
		t.Error("NaN stated as a figure")
	}
	if r.Extra["results_ttft_s_mean"] != "NaN" || r.Extra["results_ttft_s_min"] != `"nan"` {
		t.Errorf("extra %v", r.Extra)
	}
	ingesttest.WantStated(t, r, 0, map[string]float64{"e2el.max": 12.5, "completed": 0, "failed": 3})
	if r.Companion != "" || !ingesttest.HasNote(r, "NaN, infinite or null") {
		t.Errorf("companion %q notes %q", r.Companion, r.Notes)
	}
}

func TestLLMPerfSniffsOnlyItsOwn(t *testing.T) {
	sumP, respP := llmperf.NewSummary(), llmperf.NewResponses()
	for _, s := range []string{``, `{}`, `[]`, `[{}]`, `{"version": "2023-08-31"}`, `{"results_ttft_s_mean": 1}`,
		`[{"error_code": null, "ttft_s": 1}]`, `{"error_code": null, "ttft_s": 1, "end_to_end_latency_s": 2}`,
		`{"date": "20250101-000000", "model_id": "m", "duration": 1.0, "completed": 3}`} {
		if sumP.Sniff("x.json", []byte(s)) || respP.Sniff("x.json", []byte(s)) {
			t.Errorf("sniffed %q", s)
		}
	}
	ingesttest.EachSample(t, func(tool, path string, head []byte) {
		if tool != "llmperf" && (sumP.Sniff(path, head) || respP.Sniff(path, head)) {
			t.Errorf("%s/%s sniffed as llmperf", tool, filepath.Base(path))
		}
	})
}

// TestLLMPerfIngest ingests the pair with the batch pipeline: the second
// file completes the run the first created.
func TestLLMPerfIngest(t *testing.T) {
	for _, c := range []struct {
		name  string
		paths func(t *testing.T) []string
		n     int
	}{
		{"fixtures", func(t *testing.T) []string {
			return []string{lpFixtureStem + "_summary.json", lpFixtureStem + "_individual_responses.json"}
		}, 8},
		{"leaderboard sample", func(t *testing.T) []string {
			dir := testshared.Dir(t, filepath.Join("samples", "llmperf"))
			return []string{filepath.Join(dir, lpSampleSummary), filepath.Join(dir, lpSampleResponses)}
		}, 150},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, outs := ingesttest.Batch(t, c.paths(t)...)
			if len(outs) != 2 || outs[0].Status != ingest.StatusNew || outs[1].Status != ingest.StatusCompleted {
				t.Fatalf("outcomes %+v", outs)
			}
			// The responses (records) name the run; the summary's id resolves to it.
			if id, err := a.ResolveRunID(outs[0].RunID); err != nil || id != outs[1].RunID {
				t.Fatalf("summary id %s resolves to %q, %v; want %s", outs[0].RunID, id, err, outs[1].RunID)
			}
			if outs[0].Format != "llmperf-summary" || outs[1].Format != "llmperf-responses" || !slices.Contains(outs[1].Added, "per-request records") {
				t.Errorf("outcomes %+v", outs)
			}
			rec, err := a.Run(outs[0].RunID)
			if err != nil {
				t.Fatal(err)
			}
			r := rec.Run
			if r.Format != "llmperf-summary" || !r.HasRequests || len(r.Requests) != c.n || r.Facts["measurement.client"] != "llmperf" {
				t.Errorf("archived run: format %q, %d requests, facts %v", r.Format, len(r.Requests), r.Facts)
			}
			if _, ok := r.StatedValue("output_throughput"); !ok {
				t.Error("no stated output_throughput in the archive")
			}
			if d := ingesttest.CheckStated(r.Stated, r.Requests, r.PercentileMethod, figures.StatedOptions{}).Disagreements(); len(d) > 0 {
				t.Errorf("archived run disagrees with its records: %+v", d)
			}
		})
	}
}

func lpFuzzSeeds(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.json")
	if root := testshared.Root(); root != "" {
		shared, _ := filepath.Glob(filepath.Join(root, "samples", "llmperf", "*"))
		paths = append(paths, shared...)
	}
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{``, `[]`, `{}`, `[{"error_code": null}]`, `{"results_ttft_s_mean": "1e400"}`,
		`{"results_error_code_frequency": "{np.float64(np.int64(1)): 2}", "results_num_completed_requests": 1}`,
		`[{"error_code": null, "ttft_s": 1e308, "end_to_end_latency_s": 1e308, "number_output_tokens": 2147483648}]`} {
		f.Add([]byte(s))
	}
}

// lpFuzz: whatever the bytes, Sniff and Parse must not panic, errors are
// InputErrors, and emitted runs are well formed.
func lpFuzz(t *testing.T, p format.Parser, data []byte) {
	p.Sniff("fuzz.json", data[:min(len(data), format.HeadSize)])
	err := p.Parse(context.Background(), "fuzz.json", bytes.NewReader(data), func(r *benchrun.Run) error {
		if r.Format != p.ID() || r.Facts == nil || r.Extra == nil || r.HasRequests != (len(r.Requests) > 0) {
			t.Fatalf("run %+v", r)
		}
		for i, q := range r.Requests {
			if q.Index != i || q.InputTokens < -1 || q.OutputTokens < -1 || q.TTFT < 0 || q.Latency < 0 {
				t.Fatalf("request %d: %+v", i, q)
			}
		}
		ingesttest.FuzzStated(t, r)
		return nil
	})
	ingesttest.FuzzError(t, err, "fuzz.json")
}

func FuzzLLMPerfSummary(f *testing.F) {
	lpFuzzSeeds(f)
	p := llmperf.NewSummary()
	f.Fuzz(func(t *testing.T, data []byte) { lpFuzz(t, p, data) })
}

func FuzzLLMPerfResponses(f *testing.F) {
	lpFuzzSeeds(f)
	p := llmperf.NewResponses()
	f.Fuzz(func(t *testing.T, data []byte) { lpFuzz(t, p, data) })
}

// TestLLMPerfUnreadableCounts: an unreadable frequency string is kept, not fatal.
func TestLLMPerfUnreadableCounts(t *testing.T) {
	data := bytes.Replace(ingesttest.Read(t, lpFixtureStem+"_summary.json"), []byte(`"{429.0: np.int64(2)}"`), []byte(`"Counter(429)"`), 1)
	r := ingesttest.One(t, llmperf.NewSummary(), "s.json", data)
	if !ingesttest.HasNote(r, "is not a Python dict of counts") || r.Extra["results_error_code_frequency"] != `"Counter(429)"` {
		t.Errorf("notes %q extra %q", r.Notes, r.Extra["results_error_code_frequency"])
	}
}
