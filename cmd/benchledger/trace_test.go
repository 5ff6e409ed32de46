package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/store"
)

// TestTraceRoundTrip: an archived vLLM run written as a benchledger trace
// and ingested again gives the same per-request records and the same
// client and workload provenance.
func TestTraceRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "run.json")
	// A detailed vLLM file whose chunk gaps add up to latency − TTFT, as
	// vLLM measures them; request 2 failed.
	writeFile(t, src, `{"date": "20260818-101500", "backend": "vllm", "model_id": "m/x", "tokenizer_id": "m/x", "num_prompts": 4,
		"request_rate": 2.0, "burstiness": 1.0, "max_concurrency": 8, "duration": 3.0, "completed": 3, "failed": 1,
		"total_input_tokens": 300, "total_output_tokens": 12,
		"input_lens": [100, 100, 100, 100], "output_lens": [4, 4, 0, 4],
		"ttfts": [0.1, 0.125, 0.0, 0.2], "itls": [[0.01, 0.02, 0.03], [0.015, 0.015, 0.02], [], [0.05, 0.05, 0.05]],
		"start_times": [1000.0, 1000.5, 1001.0, 1001.5], "latencies": [0.16, 0.175, 0.0, 0.35],
		"errors": ["", "", "timeout", ""]}`)
	db := filepath.Join(dir, "a.db")
	r := bl(t, "ingest", "--db", db, "--set", "workload.temperature=0", "--set", "workload.seed=7", src)
	m := idLine.FindStringSubmatch(r.stdout)
	if r.code != 0 || m == nil {
		t.Fatalf("ingest: %v", r)
	}
	id := m[1]
	tr := filepath.Join(dir, "run.trace.jsonl")
	if r := bl(t, "trace", "--db", db, id, "-o", tr); r.code != 0 || strings.TrimSpace(r.stdout) != tr {
		t.Fatalf("trace: %v", r)
	}
	db2 := filepath.Join(dir, "b.db")
	r = bl(t, "ingest", "--db", db2, tr)
	m2 := idLine.FindStringSubmatch(r.stdout)
	if r.code != 0 || m2 == nil || m2[3] != "benchledger-trace" {
		t.Fatalf("ingest of the trace: %v", r)
	}
	a, err := store.Open(db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := store.Open(db2, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ra, _ := a.Run(id)
	rb, _ := b.Run(m2[1])
	if len(ra.Run.Requests) != 4 || len(rb.Run.Requests) != 4 {
		t.Fatalf("records: %d and %d", len(ra.Run.Requests), len(rb.Run.Requests))
	}
	for i := range ra.Run.Requests {
		x, y := ra.Run.Requests[i], rb.Run.Requests[i]
		// A trace writes absolute times (start, first token, end): TTFT and
		// latency come back as differences, exact to the float64 spacing
		// at the start time.
		tol := 1e-12 * (1 + math.Abs(x.Start))
		same := func(p, q float64) bool { return math.IsNaN(p) && math.IsNaN(q) || math.Abs(p-q) <= tol }
		if x.Start != y.Start || !same(x.TTFT, y.TTFT) || !same(x.Latency, y.Latency) || x.OutputTokens != y.OutputTokens ||
			x.InputTokens != y.InputTokens || x.Failed() != y.Failed() || x.Gaps.Count != y.Gaps.Count {
			t.Fatalf("request %d differs after the round trip:\n%+v\n%+v", i, x, y)
		}
	}
	if ra.Run.Clock != rb.Run.Clock {
		t.Errorf("clock %q became %q", ra.Run.Clock, rb.Run.Clock)
	}
	for _, f := range []string{"checkpoint.model_id", "workload.concurrency", "workload.temperature", "workload.seed", "measurement.client"} {
		if va, vb := ra.Run.Facts[f]+valueOf(ra, f), rb.Run.Facts[f]; vb == "" || !strings.Contains(va, vb) {
			t.Errorf("%s: %q in the archive, %q in the trace", f, va, vb)
		}
	}
	// A run without send times cannot be a trace.
	if r := bl(t, "trace", "--db", db, "ffffffffffff"); r.code == 0 {
		t.Errorf("an unknown run: %v", r)
	}
}

// valueOf is a run's effective provenance value (file, manifest or --set).
func valueOf(rec *store.RunRecord, field string) string {
	v := ""
	for _, e := range rec.Provenance {
		if e.Field == field {
			v = e.Value
		}
	}
	return v
}
