package vllmconsole_test

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
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/format/vllmconsole"
	"github.com/benchledger/benchledger/ingest/internal/ingesttest"
	"github.com/benchledger/benchledger/internal/testshared"
)

func consoleFixture(name string) string { return filepath.Join("testdata", name) }

func parseConsole(t testing.TB, path string) ([]*benchrun.Run, error) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return parseConsoleBytes(path, data)
}

func parseConsoleBytes(name string, data []byte) ([]*benchrun.Run, error) {
	var runs []*benchrun.Run
	err := vllmconsole.New().Parse(context.Background(), name, bytes.NewReader(data), func(r *benchrun.Run) error {
		runs = append(runs, r)
		return nil
	})
	return runs, err
}

func mustConsole(t *testing.T, path string) []*benchrun.Run {
	t.Helper()
	runs, err := parseConsole(t, path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return runs
}

// want checks stated figures: metric → value in the canonical unit.
func checkStated(t *testing.T, r *benchrun.Run, want map[string]float64) {
	t.Helper()
	for m, v := range want {
		s, ok := r.StatedValue(m)
		if !ok {
			t.Errorf("%s not stated", m)
			continue
		}
		if math.Abs(s.Value-v) > 1e-9*math.Max(1, math.Abs(v)) {
			t.Errorf("%s = %v, want %v", m, s.Value, v)
		}
	}
}

func checkCommon(t *testing.T, r *benchrun.Run) {
	t.Helper()
	if r.Format != "vllm-serve-console" || r.SourceTool != "vllm bench serve" || r.PercentileMethod != "linear" {
		t.Errorf("format %q tool %q method %q", r.Format, r.SourceTool, r.PercentileMethod)
	}
	if r.HasRequests || r.Requests != nil || r.Clock != benchrun.ClockNone {
		t.Errorf("a console block has no request records")
	}
	if r.Facts["measurement.client"] != "vllm bench serve" {
		t.Errorf("measurement.client = %q", r.Facts["measurement.client"])
	}
	for _, s := range r.Stated {
		if s.SourceKey == "" || s.Unit == "" || s.SourceUnit == "" {
			t.Errorf("incomplete stated figure %+v", s)
		}
		if strings.HasPrefix(s.Metric, "ttft.") || strings.HasPrefix(s.Metric, "tpot.") || strings.HasPrefix(s.Metric, "itl.") || strings.HasPrefix(s.Metric, "e2el.") {
			if s.Unit != "s" || s.SourceUnit != "ms" {
				t.Errorf("%s: unit %q from %q, want s from ms", s.Metric, s.Unit, s.SourceUnit)
			}
		}
	}
}

func TestConsoleSharedSample(t *testing.T) {
	path := filepath.Join(testshared.Dir(t, "samples"), "vllm", "vllm_bench_serve_v0.11_console.txt")
	runs := mustConsole(t, path)
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	r := runs[0]
	checkCommon(t, r)
	if r.Completed != 100 || r.Failed != -1 || r.RequestCount() != 100 {
		t.Errorf("completed %d failed %d", r.Completed, r.Failed)
	}
	checkStated(t, r, map[string]float64{
		"completed": 100, "duration": 44.40, "total_input_tokens": 23260, "total_output_tokens": 22061,
		"request_throughput": 2.25, "output_throughput": 496.88, "max_output_tokens_per_s": 540,
		"max_concurrent_requests": 13, "total_token_throughput": 1020.76,
		"ttft.mean": 0.064, "ttft.median": 0.06026, "ttft.p99": 0.09859,
		"tpot.p99": 0.00796, "itl.p99": 0.04098,
	})
	if r.Facts["workload.concurrency"] != "4" {
		t.Errorf("concurrency fact %q", r.Facts["workload.concurrency"])
	}
	if s, _ := r.StatedValue("total_token_throughput"); s.SourceKey != "Total Token throughput (tok/s)" {
		t.Errorf("SourceKey %q", s.SourceKey)
	}
	if r.Location != "line 1" || r.Ordinal != 0 || !strings.Contains(r.FormatVariant, "v0.11") {
		t.Errorf("location %q ordinal %d variant %q", r.Location, r.Ordinal, r.FormatVariant)
	}
	if !vllmconsole.New().Sniff(filepath.Base(path), ingesttest.Read(t, path)) {
		t.Error("Sniff rejects the sample")
	}
}

func TestConsoleGPUStackSample(t *testing.T) {
	path := filepath.Join(testshared.Dir(t, "samples"), "gpustack", "gpustack_guidellm_rendered_console.txt")
	runs := mustConsole(t, path)
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	r := runs[0]
	if r.Format != "gpustack-console" || r.SourceTool != "gpustack/guidellm" || r.HasRequests || r.Failed != -1 || r.Completed != 1000 {
		t.Errorf("format %q tool %q completed %d failed %d", r.Format, r.SourceTool, r.Completed, r.Failed)
	}
	// Latency(s) stays seconds; TTFT ms become seconds; N/A is unknown.
	checkStated(t, r, map[string]float64{"e2el.mean": 24.11, "e2el.p99": 51.16, "ttft.mean": 1.60423, "ttft.p99": 5.73727,
		"duration": 54.74, "request_rate_series.mean": 18.27, "max_output_tokens_per_s": 20132659.20})
	for _, m := range []string{"ttft.p95", "tpot.mean", "itl.mean", "request_throughput", "output_throughput", "failed"} {
		if s, ok := r.StatedValue(m); ok {
			t.Errorf("%s stated as %v", m, s.Value)
		}
	}
	if r.Extra["Mean TPOT (ms)"] != "15.12" || !hasNote(r, "P95 TTFT (ms) is N/A") {
		t.Errorf("extra %v notes %q", r.Extra, r.Notes)
	}
}

func TestConsoleCurrentLayout(t *testing.T) {
	runs := mustConsole(t, consoleFixture("current_failed_rate.txt"))
	if len(runs) != 1 {
		t.Fatalf("%d runs", len(runs))
	}
	r := runs[0]
	checkCommon(t, r)
	if r.Completed != 998 || r.Failed != 2 || r.RequestCount() != 1000 {
		t.Errorf("completed %d failed %d", r.Completed, r.Failed)
	}
	if r.Location != "line 9" || !strings.Contains(r.FormatVariant, "failed count") {
		t.Errorf("location %q variant %q", r.Location, r.FormatVariant)
	}
	if r.Facts["workload.concurrency"] != "64" || r.Facts["workload.request_rate"] != "8.00" {
		t.Errorf("facts %v", r.Facts)
	}
	checkStated(t, r, map[string]float64{
		"failed": 2, "duration": 125.31, "request_goodput": 7.51, "total_token_throughput": 15924.35,
		"max_concurrent_requests": 64, "max_output_tokens_per_s": 9344,
		"ttft.p50": 0.1505, "ttft.p95": 0.41075, "tpot.mean": 0.00712,
		"e2el.mean": 7.2904, "e2el.median": 7.20133, "e2el.p95": 8.1209, "e2el.p99": 8.89012,
	})
	// The "$ vllm bench serve" line above the block (continued over two
	// lines) is the run's client command.
	if len(r.Extra) != 1 || !strings.HasSuffix(r.Extra["client command (line 1)"], "--num-prompts 1000 --percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,95,99 --goodput ttft:2000") {
		t.Errorf("unexpected Extra %v", r.Extra)
	}
	if r.Facts["checkpoint.model_id"] != "nvidia/Qwen3-30B-A3B-FP4" || r.Facts["workload.request_count"] != "1000" {
		t.Errorf("facts of the client command: %v", r.Facts)
	}
	for _, n := range r.Notes {
		if strings.Contains(n, "Failed requests") {
			t.Errorf("note about a missing failed count although the block has one: %q", n)
		}
	}
}

func TestConsoleSpecDecode(t *testing.T) {
	r := mustConsole(t, consoleFixture("spec_decode.txt"))[0]
	checkCommon(t, r)
	want := map[string]string{
		"Speculative Decoding / Acceptance rate (%)":                      "71.25",
		"Speculative Decoding / Acceptance length":                        "2.85",
		"Speculative Decoding / Drafts":                                   "4491",
		"Speculative Decoding / Draft tokens":                             "13473",
		"Speculative Decoding / Accepted tokens":                          "8309",
		"Speculative Decoding / Per-position acceptance (%) / Position 0": "84.10",
		"Speculative Decoding / Per-position acceptance (%) / Position 2": "59.35",
	}
	for k, v := range want {
		if r.Extra[k] != v {
			t.Errorf("Extra[%q] = %q, want %q", k, r.Extra[k], v)
		}
	}
	if len(r.Extra) != 8 {
		t.Errorf("Extra has %d entries: %v", len(r.Extra), r.Extra)
	}
	checkStated(t, r, map[string]float64{"itl.p99": 0.0141, "completed": 100, "failed": 0})
}

func TestConsoleOldLayout(t *testing.T) {
	r := mustConsole(t, consoleFixture("old_v08.txt"))[0]
	checkCommon(t, r)
	if r.Completed != 1000 || r.Failed != -1 {
		t.Errorf("completed %d failed %d", r.Completed, r.Failed)
	}
	if !strings.Contains(r.FormatVariant, "v0.8") {
		t.Errorf("variant %q", r.FormatVariant)
	}
	for _, m := range []string{"max_concurrent_requests", "max_output_tokens_per_s", "failed"} {
		if _, ok := r.StatedValue(m); ok {
			t.Errorf("%s stated by a block that has no such line", m)
		}
	}
	// The lines before the block (Traffic request rate: inf, Maximum request
	// concurrency: None) are not part of it.
	if _, ok := r.Facts["workload.concurrency"]; ok {
		t.Errorf("concurrency taken from outside the block: %v", r.Facts)
	}
	checkStated(t, r, map[string]float64{"total_token_throughput": 7283.53, "ttft.p99": 24.50177})
	if !hasNote(r, "Failed requests") {
		t.Errorf("no note on the unknown failed count: %q", r.Notes)
	}
}

func hasNote(r *benchrun.Run, sub string) bool {
	for _, n := range r.Notes {
		if strings.Contains(n, sub) {
			return true
		}
	}
	return false
}

func TestConsoleMarkdownIndented(t *testing.T) {
	path := consoleFixture("markdown_indented.txt")
	if !vllmconsole.New().Sniff(path, ingesttest.Read(t, path)) {
		t.Error("Sniff rejects an indented block")
	}
	r := mustConsole(t, path)[0]
	checkCommon(t, r)
	if r.Location != "line 7" {
		t.Errorf("location %q", r.Location)
	}
	checkStated(t, r, map[string]float64{
		"completed": 100, "duration": 44.40, "max_concurrent_requests": 13,
		"total_token_throughput": 1020.76, "ttft.p99": 0.09859,
	})
	if r.Facts["workload.concurrency"] != "4" {
		t.Errorf("facts %v", r.Facts)
	}
	if len(r.Extra) != 0 {
		t.Errorf("Extra %v", r.Extra)
	}
}

func TestConsoleTwoBlocks(t *testing.T) {
	runs := mustConsole(t, consoleFixture("two_blocks.txt"))
	if len(runs) != 2 {
		t.Fatalf("%d runs", len(runs))
	}
	for i, want := range []struct {
		loc       string
		completed int64
		conc      string
	}{{"line 3", 50, "1"}, {"line 24", 400, "8"}} {
		r := runs[i]
		checkCommon(t, r)
		if r.Ordinal != i || r.Location != want.loc || r.Completed != want.completed || r.Facts["workload.concurrency"] != want.conc {
			t.Errorf("run %d: ordinal %d location %q completed %d facts %v", i, r.Ordinal, r.Location, r.Completed, r.Facts)
		}
	}
	if runs[0].Facts["workload.concurrency"] == runs[1].Facts["workload.concurrency"] || &runs[0].Facts == &runs[1].Facts {
		t.Error("runs share state")
	}
}

func TestConsoleUnknownLabelsKept(t *testing.T) {
	r := mustConsole(t, consoleFixture("unknown_label.txt"))[0]
	checkCommon(t, r)
	want := map[string]string{
		"Warm-up requests":                          "2",
		"Probe Requests / Probe requests completed": "5",
		"Probe Requests / Median probe E2EL (ms)":   "410.00",
		"Cache Report / Prefix cache hit rate (%)":  "41.50",
	}
	for k, v := range want {
		if r.Extra[k] != v {
			t.Errorf("Extra[%q] = %q, want %q (Extra %v)", k, r.Extra[k], v, r.Extra)
		}
	}
	for _, sub := range []string{`"Warm-up requests"`, `"Cache Report / Prefix cache hit rate (%)"`, "P95 TTFT (ms) is N/A"} {
		if !hasNote(r, sub) {
			t.Errorf("no note mentioning %s: %q", sub, r.Notes)
		}
	}
	if _, ok := r.StatedValue("ttft.p95"); ok {
		t.Error("N/A stated as a number")
	}
	checkStated(t, r, map[string]float64{
		"ttft.p99": 0.055, "client_queue_time.mean": 0.00012, "client_queue_time.p99": 0.0009,
	})
	if _, ok := r.StatedValue("e2el.median"); ok {
		t.Error("the probe's E2EL was taken for the run's")
	}
}

func TestConsoleAllFailed(t *testing.T) {
	r := mustConsole(t, consoleFixture("all_failed.txt"))[0]
	if r.Completed != 0 || r.Failed != 10 || r.RequestCount() != 10 {
		t.Errorf("completed %d failed %d", r.Completed, r.Failed)
	}
}

// TestConsoleBadInput: a bad block is its own rejection, at the place of
// the problem with the block's ordinal; a file whose every block is bad is
// rejected (format.Settle) with its first problem; the good blocks of a
// file are read.
func TestConsoleBadInput(t *testing.T) {
	tests := []struct {
		file   string
		good   int    // good runs the file still gives
		place  string // of the first rejected block
		reason string
	}{
		{"bad_no_successful.txt", 0, "ordinal 0: line 2", `no "Successful requests" line`},
		{"bad_not_number.txt", 0, "ordinal 0: line 3", `Benchmark duration (s): "12,5" is not a number (in the block at line 1)`},
		{"bad_truncated_eof.txt", 0, "ordinal 0: line 3", "truncated block: the file ends before its closing ===== line"},
		{"bad_truncated_next.txt", 1, "ordinal 0: line 1", "truncated block: no closing ===== line before the next block at line 4"},
		{"bad_truncated_fence.txt", 0, "ordinal 0: line 2", "truncated block: the code fence at line 5"},
		{"bad_zero_requests.txt", 0, "ordinal 0: line 1", "run has no requests"},
		{"bad_zero_requests_failed0.txt", 0, "ordinal 0: line 1", "run has no requests"},
		{"bad_count_fraction.txt", 0, "ordinal 0: line 3", `Peak concurrent requests: "3.50" is not a whole number`},
		{"bad_duplicate.txt", 0, "ordinal 0: line 4", `"Benchmark duration (s)" stated twice in one block (first at line 3)`},
		{"bad_ttft_text.txt", 0, "ordinal 0: line 4", `Mean TTFT (ms): "fast" is not a number`},
		{"bad_successful_na.txt", 0, "ordinal 0: line 2", "Successful requests is N/A"},
		{"bad_no_block.txt", 0, "", `no "Serving Benchmark Result" block found`},
		{"bad_second_block.txt", 1, "ordinal 1: line 8", `Benchmark duration (s): "-" is not a number (in the block at line 6)`},
		{"bad_preamble_contradiction.txt", 0, "ordinal 0: line 1", `Maximum request concurrency is "8" here but the block at line 2 states workload.concurrency "16"`},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := consoleFixture(tc.file)
			runs, err := ingesttest.Settled(vllmconsole.New(), path, ingesttest.Read(t, path))
			if tc.good == 0 {
				var ie *format.InputError
				if !errors.As(err, &ie) {
					t.Fatalf("err = %v (%T), want an *InputError", err, err)
				}
				if ie.File != path || ie.Place != tc.place || !strings.Contains(ie.Reason, tc.reason) {
					t.Errorf("got file %q place %q reason %q\nwant place %q reason containing %q", ie.File, ie.Place, ie.Reason, tc.place, tc.reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("a file with a good block: %v", err)
			}
			rej := ingesttest.Rejections(runs)
			if len(runs)-len(rej) != tc.good || len(rej) != 1 || !strings.HasPrefix(rej[0], tc.place+": "+tc.reason) {
				t.Errorf("%d runs, rejections %q; want %d good and one rejection %q", len(runs), rej, tc.good, tc.place+": "+tc.reason)
			}
			for i, r := range runs {
				if r.Ordinal != i {
					t.Errorf("run %d has ordinal %d", i, r.Ordinal)
				}
			}
		})
	}
}

func TestConsoleSniff(t *testing.T) {
	p := vllmconsole.New()
	if p.ID() != "vllm-serve-console" || p.Describe() != "vllm bench serve console result block" {
		t.Errorf("id %q describe %q", p.ID(), p.Describe())
	}
	yes := []string{
		"============ Serving Benchmark Result ============\n",
		"log\n    ===Serving Benchmark Result===   \r\nSuccessful requests: 1\n",
		"= Serving Benchmark Result =",
	}
	no := []string{
		`{"date": "20250513-043751", "backend": "vllm"}`,
		"The Serving Benchmark Result block below...\n",
		"------------ Serving Benchmark Result ------------\n",
		"==== Serving Benchmark Results ====\n",
		"",
	}
	for _, s := range yes {
		if !p.Sniff("x.txt", []byte(s)) {
			t.Errorf("Sniff(%q) = false", s)
		}
	}
	for _, s := range no {
		if p.Sniff("x.txt", []byte(s)) {
			t.Errorf("Sniff(%q) = true", s)
		}
	}
}

func TestConsoleEdges(t *testing.T) {
	block := "============ Serving Benchmark Result ============\n" +
		"Successful requests:                     5\n" +
		"Benchmark duration (s):                  1.00\n" +
		"=================================================="

	t.Run("no final newline", func(t *testing.T) {
		runs, err := parseConsoleBytes("x", []byte(block))
		if err != nil || len(runs) != 1 || runs[0].Completed != 5 {
			t.Fatalf("runs %v err %v", runs, err)
		}
	})
	t.Run("huge line before the block", func(t *testing.T) {
		data := append(bytes.Repeat([]byte("\r 45%|████▌     | 450/1000"), 100000), '\n')
		data = append(data, block...)
		runs, err := parseConsoleBytes("x", data)
		if err != nil || len(runs) != 1 || runs[0].Location != "line 2" {
			t.Fatalf("runs %v err %v", runs, err)
		}
	})
	t.Run("byte order mark", func(t *testing.T) {
		runs, err := parseConsoleBytes("x", append([]byte("\ufeff"), block...))
		if err != nil || len(runs) != 1 {
			t.Fatalf("runs %v err %v", runs, err)
		}
	})
	t.Run("pooling and audio lines", func(t *testing.T) {
		b := strings.Replace(block, "Benchmark duration (s):                  1.00\n",
			"Benchmark duration (s):                  1.00\n"+
				"Input throughput (inputs/s):             3.00      \n"+
				"RTFx (Inverse Real-Time Factor):         12.50     \n", 1)
		runs, err := parseConsoleBytes("x", []byte(b))
		if err != nil {
			t.Fatal(err)
		}
		r := runs[0]
		if s, ok := r.StatedValue("input_sequence_throughput"); !ok || s.Value != 3 || s.Unit != "inputs/s" {
			t.Errorf("input throughput %+v %v", s, ok)
		}
		if r.Extra["RTFx (Inverse Real-Time Factor)"] != "12.50" || hasNote(r, "RTFx") {
			t.Errorf("RTFx: Extra %v notes %q", r.Extra, r.Notes)
		}
	})
	t.Run("emit error is returned unchanged", func(t *testing.T) {
		stop := errors.New("stop")
		err := vllmconsole.New().Parse(context.Background(), "x", strings.NewReader(block), func(*benchrun.Run) error { return stop })
		if err != stop {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		big := strings.Repeat("log line\n", 10000) + block
		err := vllmconsole.New().Parse(ctx, "x", strings.NewReader(big), func(*benchrun.Run) error { return nil })
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	})
}

func FuzzVLLMConsole(f *testing.F) {
	seeds, _ := filepath.Glob(consoleFixture("*.txt"))
	if root := testshared.Root(); root != "" {
		seeds = append(seeds,
			filepath.Join(root, "samples", "vllm", "vllm_bench_serve_v0.11_console.txt"),
			filepath.Join(root, "samples", "gpustack", "gpustack_guidellm_rendered_console.txt"))
	}
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := vllmconsole.New()
		p.Sniff("f.txt", data)
		n := 0
		err := p.Parse(context.Background(), "f.txt", bytes.NewReader(data), func(r *benchrun.Run) error {
			if r.Ordinal != n {
				t.Fatalf("ordinal %d, want %d", r.Ordinal, n)
			}
			n++
			if r.Rejection != "" {
				if r.Location == "" {
					t.Fatalf("rejection %q without a place", r.Rejection)
				}
				return nil
			}
			if r.Completed < 0 || r.RequestCount() <= 0 {
				t.Fatalf("run with completed %d, %d requests", r.Completed, r.RequestCount())
			}
			for _, s := range r.Stated {
				if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) || s.Value < 0 {
					t.Fatalf("%s = %v", s.Metric, s.Value)
				}
			}
			return nil
		})
		var ie *format.InputError
		if err != nil && !errors.As(err, &ie) {
			t.Fatalf("error %v is not an *InputError", err)
		}
		if err != nil && n != 0 {
			t.Fatalf("%d runs emitted before an error (a bad block is a rejection, not an error)", n)
		}
	})
}
