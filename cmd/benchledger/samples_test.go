package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/internal/testshared"
)

// TestRealVLLMSamples ingests every real vLLM sample: results are archived,
// the derived CI table is refused as not a result when named, and skipped
// with a note when met in a folder.
func TestRealVLLMSamples(t *testing.T) {
	t.Parallel()
	files := testshared.Samples(t, "vllm")
	db := filepath.Join(t.TempDir(), "a.db")
	r := bl(t, append([]string{"ingest", "--db", db}, files...)...)
	got := map[string]string{}
	for _, m := range idLine.FindAllStringSubmatch(r.stdout, -1) {
		got[filepath.Base(m[4])] = m[3]
	}
	want := map[string]string{
		"benchmark_serving_2025-04_detailed_qps04.json":  "vllm-serve-json",
		"benchmark_serving_2025-05_p95p99_metadata.json": "vllm-serve-json",
		"vllm_bench_serve_v0.11_console.txt":             "vllm-serve-console",
	}
	for name, format := range want {
		if got[name] != format {
			t.Errorf("%s: want ingested as %s, got %q\n%v", name, format, got[name], r)
		}
	}
	table := "nightly_benchmarks_summary_table.json"
	if r.code != 3 || !strings.Contains(r.stderr, table) || !strings.Contains(r.stderr, "not a benchmark result") {
		t.Errorf("the derived table named on the command line must be refused as not a result: %v", r)
	}
	// Walking the folder: the table is skipped, the rest are duplicates.
	r = bl(t, "ingest", "--db", db, filepath.Dir(files[0]))
	if r.code != 0 || strings.Count(r.stdout, "duplicate") != 3 || !strings.Contains(r.stderr, "skipped: ") {
		t.Errorf("walking the samples folder: %v", r)
	}
	// The old detailed file: records present, failures known (errors array).
	for _, m := range idLine.FindAllStringSubmatch(r.stdout, -1) {
		if strings.HasSuffix(m[4], "detailed_qps04.json") {
			s := bl(t, "show", "--db", db, m[1])
			if !strings.Contains(s.stdout, "sent 200, completed 200, failed 0") {
				t.Errorf("detailed sample completion: %v", s)
			}
		}
		if strings.HasSuffix(m[4], "p95p99_metadata.json") {
			s := bl(t, "show", "--db", db, m[1])
			if !strings.Contains(s.stdout, "metadata.timestamp") || !strings.Contains(s.stdout, "stated figures only") {
				t.Errorf("summary-only sample should show its metadata and say it has no records: %v", s)
			}
		}
	}
}

// TestEverySampleIngests walks all of ../shared/samples with the real
// command: every result file is detected as its tool's format (the run
// count per file is what the file holds; the GPUStack page rendering is a
// summary-only gpustack-console run), the vLLM CI table skipped; companion files make one
// run; and the audit of the whole archive finds no integrity problem.
func TestEverySampleIngests(t *testing.T) {
	t.Parallel()
	root := testshared.Root()
	if root == "" {
		t.Skip("../shared is not beside the repository (a user's clone): skipping the sample tests")
	}
	db := filepath.Join(t.TempDir(), "a.db")
	r := bl(t, "ingest", "--db", db, filepath.Join(root, "samples"))
	type fileRuns struct {
		format string
		runs   int
	}
	got := map[string]fileRuns{}
	ids := map[string]string{}
	for _, m := range idLine.FindAllStringSubmatch(r.stdout, -1) {
		name := filepath.Base(m[4])
		g := got[name]
		g.format, g.runs = m[3], g.runs+1
		got[name] = g
		ids[name] = m[1]
	}
	want := map[string]fileRuns{
		"aiperf_2025-10_profile_export.jsonl":            {"aiperf-records", 1},
		"aiperf_2025-10_profile_export_aiperf.csv":       {"aiperf-csv", 1},
		"aiperf_2025-10_profile_export_aiperf.json":      {"aiperf-json", 1},
		"aiperf_v0.8.0_profile_export_aiperf_mock.json":  {"aiperf-json", 1},
		"guidellm_v0.3_benchmarks_stripped.json":         {"guidellm-report", 1},
		"guidellm_v0.5.0dev_xpu_benchmarks.json":         {"guidellm-report", 1},
		"guidellm_v0.8.0dev_report_v2_mock.json":         {"guidellm-report", 2},
		"bedrock_70b_individual_responses.json":          {"llmperf-responses", 1},
		"bedrock_70b_summary.json":                       {"llmperf-summary", 1},
		"bench_serving_2024-12_offline_inf.jsonl":        {"sglang-bench-serving", 7},
		"bench_serving_2024-12_rate_sweep.jsonl":         {"sglang-bench-serving", 7},
		"trtllm-bench_throughput_console_docs.txt":       {"trtllm-bench-console", 1},
		"benchmark_serving_2025-04_detailed_qps04.json":  {"vllm-serve-json", 1},
		"benchmark_serving_2025-05_p95p99_metadata.json": {"vllm-serve-json", 1},
		"vllm_bench_serve_v0.11_console.txt":             {"vllm-serve-console", 1},
		"gpustack_guidellm_rendered_console.txt":         {"gpustack-console", 1},
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: want %d run(s) as %s, got %+v", name, w.runs, w.format, got[name])
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("unexpected file ingested: %s %+v", name, got[name])
		}
	}
	if !strings.Contains(r.stderr, "skipped: ") || !strings.Contains(r.stderr, "nightly_benchmarks_summary_table.json") {
		t.Errorf("the vLLM CI table must be skipped: %v", r.stderr)
	}
	// Companion files: the AIPerf trio and the llmperf pair are one run each.
	if a, b, c := ids["aiperf_2025-10_profile_export.jsonl"], ids["aiperf_2025-10_profile_export_aiperf.csv"], ids["aiperf_2025-10_profile_export_aiperf.json"]; a == "" || a != b || b != c {
		t.Errorf("the AIPerf files of one benchmark must be one run: %s %s %s", a, b, c)
	}
	if a, b := ids["bedrock_70b_individual_responses.json"], ids["bedrock_70b_summary.json"]; a == "" || a != b {
		t.Errorf("the llmperf files of one run must be one run: %s %s", a, b)
	}
	// A comparison across clients says that their own figures meant
	// different things: vLLM's mean_tpot_ms against AIPerf's
	// inter_token_latency; guidellm's nearest-rank percentiles.
	for _, c := range []struct{ a, b, metric, want string }{
		{"benchmark_serving_2025-04_detailed_qps04.json", "aiperf_2025-10_profile_export_aiperf.json", "tpot.mean", "baseline_key=mean_tpot_ms, candidate_key=inter_token_latency"},
		{"guidellm_v0.5.0dev_xpu_benchmarks.json", "aiperf_2025-10_profile_export_aiperf.json", "ttft.median", "baseline_method=nearest-rank, candidate_method=linear"},
	} {
		cr := bl(t, "compare", "--db", db, ids[c.a], ids[c.b], "--metric", c.metric)
		if cr.code != 0 || !strings.Contains(cr.stdout, "source_definitions_differ(") || !strings.Contains(cr.stdout, c.want) {
			t.Errorf("compare %s %s (%s): want source_definitions_differ with %q: %v", c.a, c.b, c.metric, c.want, cr)
		}
	}
	// Two vLLM runs: the same client, no such caveat.
	if cr := bl(t, "compare", "--db", db, ids["benchmark_serving_2025-04_detailed_qps04.json"], ids["benchmark_serving_2025-04_detailed_qps04.json"]); strings.Contains(cr.stdout, "source_definitions_differ") {
		t.Errorf("one client: %v", cr.stdout)
	}
	// The archive re-verifies: no integrity failure (blobs, records
	// re-parsed and companions merged again, SQLite checks).
	d, ar := auditJSON(t, "--db", db)
	for _, f := range d.Findings {
		if strings.HasPrefix(f.Check, "integrity.") {
			t.Errorf("integrity finding on the samples: %+v", f)
		}
	}
	// The guidellm XPU sample's stated E2E latencies run past the records'
	// last token: guidellm ends them at request_end (docs/metrics.md,
	// "Definitions of the tools"). The audit reports the difference of
	// definition, recomputed from the raw file, not a failure.
	found := false
	for _, f := range d.Findings {
		if f.Run == ids["guidellm_v0.5.0dev_xpu_benchmarks.json"] && f.Severity == "fail" {
			t.Errorf("a consistent guidellm report fails: %+v", f)
		}
		found = found || f.Check == "recompute.definition" && f.Severity == "info" && f.Run == ids["guidellm_v0.5.0dev_xpu_benchmarks.json"] && f.Params["metric"] == "e2el.mean"
	}
	if !found {
		t.Errorf("the guidellm XPU sample's E2E difference of definition must be reported: %v", ar.stdout)
	}
}
