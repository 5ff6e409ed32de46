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
