package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/store"
)

func openTestArchive(t *testing.T) *store.Archive {
	t.Helper()
	a, err := store.Open(filepath.Join(t.TempDir(), "a.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func ingestPaths(t *testing.T, a *store.Archive, paths ...string) []Outcome {
	t.Helper()
	var outs []Outcome
	if err := Batch(context.Background(), paths, Options{Archive: a, ToolVersion: "test", Actor: "test"}, func(o Outcome) { outs = append(outs, o) }); err != nil {
		t.Fatal(err)
	}
	return outs
}

// writeAIPerfRecords writes an AIPerf profile_export.jsonl of n requests of
// osl output tokens each: the i-th sent at base + 40 s × i/n, the last
// response exactly 47.96 s after the first send, so every such file has the
// companion key aiperf:requests=n,errors=0,output_tokens=n×osl,duration=47.96s
// whatever its latencies (salt varies them).
func writeAIPerfRecords(t *testing.T, path string, baseNS int64, n, osl int, salt int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range n {
		f := math.Mod(float64(i*7919+salt*104729)*0.618033988749895, 1)
		startS := 40.0 * float64(i) / float64(n)
		latS := 7.9 + 0.05*f
		if i == n-1 {
			latS = 47.96 - startS
		}
		start := baseNS + int64(math.Round(startS*1e9))
		end := start + int64(math.Round(latS*1e9))
		ttft := 500 + 100*f
		fmt.Fprintf(&b, `{"metadata":{"session_num":%d,"x_request_id":"r-%d","turn_index":0,"request_start_ns":%d,"request_ack_ns":%d,"request_end_ns":%d,"worker_id":"w","record_processor_id":"p","benchmark_phase":"profiling","was_cancelled":false,"cancellation_time_ns":null},`+
			`"metrics":{"input_sequence_length":{"value":64,"unit":"tokens"},"time_to_first_token":{"value":%.3f,"unit":"ms"},"request_latency":{"value":%.3f,"unit":"ms"},"output_token_count":{"value":%d,"unit":"tokens"},"output_sequence_length":{"value":%d,"unit":"tokens"}},"error":null}`+"\n",
			i, i, start, start+1000, end, ttft, float64(end-start)/1e6, osl, osl)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNodePlusReferenceStayNineRuns is the case of issue 16: eight AIPerf
// replicas of a node run and a single-replica reference of the same shape
// (4,096 requests × 512 output tokens, 47.96 s) share the companion key, yet
// are nine runs; the reference is its own run and the node figure and the
// scaling efficiency are computed with it.
func TestNodePlusReferenceStayNineRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const n, osl = 4096, 512
	node := int64(1767225600_000000000) // 2026-01-01
	var paths []string
	for k := 1; k <= 8; k++ {
		p := filepath.Join(dir, "node", fmt.Sprintf("replica-%d", k), "profile_export.jsonl")
		writeAIPerfRecords(t, p, node+int64(k)*1_000_000, n, osl, k)
		paths = append(paths, p)
	}
	ref := filepath.Join(dir, "reference", "profile_export.jsonl")
	writeAIPerfRecords(t, ref, node-86400_000000000, n, osl, 99) // the day before
	paths = append(paths, ref)

	a := openTestArchive(t)
	outs := ingestPaths(t, a, paths...)
	ids := map[string]string{}
	for _, o := range outs {
		if o.Status != StatusNew {
			t.Fatalf("every file is a run of its own: %+v", o)
		}
		ids[o.File] = o.RunID
	}
	runs, err := a.ListRuns(store.Filter{})
	if err != nil || len(runs) != 9 || len(ids) != 9 {
		t.Fatalf("%d runs archived (%v), want 9", len(runs), err)
	}
	var last Outcome
	for _, o := range outs {
		if o.File == ref {
			last = o
		}
	}
	if !strings.Contains(last.Note, "kept as a run of its own") {
		t.Errorf("the reference shares the replicas' companion key; the outcome should say it was kept apart: %q", last.Note)
	}

	var replicas []figures.ReplicaRun
	for k := 1; k <= 8; k++ {
		rec, err := a.Run(ids[paths[k-1]])
		if err != nil {
			t.Fatal(err)
		}
		replicas = append(replicas, figures.ReplicaRun{RunID: rec.ID, Clock: rec.Run.Clock, Requests: rec.Run.Requests, Replica: k, Of: 8})
	}
	nodeFig, err := figures.Node(replicas, figures.NodeOptions{FixedOutput: osl})
	if err != nil {
		t.Fatal(err)
	}
	wantWindow := 47.96 + 0.007 // replica 1 starts 1 ms after base, replica 8 ends 8 ms after
	if nodeFig.Completed != 8*n || math.Abs(nodeFig.Window-wantWindow) > 1e-6 {
		t.Errorf("node: %d completed over %.6f s, want %d over %.6f s", nodeFig.Completed, nodeFig.Window, 8*n, wantWindow)
	}
	refRec, err := a.Run(ids[ref])
	if err != nil {
		t.Fatal(err)
	}
	single := figures.Recompute(refRec.Run.Requests, benchrun.Unknown, osl)
	if single.Completed != n || math.Abs(single.OutputThroughput-float64(n*osl)/47.96) > 1e-3 {
		t.Fatalf("reference: %d completed, %.3f tok/s", single.Completed, single.OutputThroughput)
	}
	sc, err := nodeFig.ScalingEfficiency("node", figures.Measurement{RunID: refRec.ID, Value: single.OutputThroughput})
	if err != nil {
		t.Fatal(err)
	}
	want := (float64(8*n*osl) / wantWindow) / (8 * float64(n*osl) / 47.96)
	if sc.SingleRun != ids[ref] || math.Abs(sc.Efficiency-want) > 1e-7 {
		t.Errorf("scaling efficiency %v against %s, want %v against the reference %s", sc.Efficiency, sc.SingleRun, want, ids[ref])
	}
}

// permutations calls fn with every order of xs.
func permutations(xs []string, fn func([]string)) {
	var rec func(int)
	rec = func(k int) {
		if k == len(xs) {
			fn(slices.Clone(xs))
			return
		}
		for i := k; i < len(xs); i++ {
			xs[k], xs[i] = xs[i], xs[k]
			rec(k + 1)
			xs[k], xs[i] = xs[i], xs[k]
		}
	}
	rec(0)
}

// TestRunIDsIndependentOfFileOrder ingests every multi-file format's files
// (AIPerf's trio, llmperf's pair, a vllm bench sweep folder) in every
// order, one ingest per file and all in one batch: the runs and their ids
// are the same each time, and every id printed on the way resolves to one
// of them.
func TestRunIDsIndependentOfFileOrder(t *testing.T) {
	t.Parallel()
	type file struct{ name, body string }
	read := func(p string) file {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return file{filepath.Base(p), string(data)}
	}
	sets := map[string]struct {
		files []file
		runs  int
	}{
		"aiperf": {[]file{read("format/aiperf/testdata/aiperf/current_profile_export.jsonl"),
			read("format/aiperf/testdata/aiperf/current_profile_export_aiperf.json"),
			read("format/aiperf/testdata/aiperf/current_profile_export_aiperf.csv")}, 1},
		"llmperf": {[]file{read("format/llmperf/testdata/Qwen-Qwen3-8B_512_128_individual_responses.json"),
			read("format/llmperf/testdata/Qwen-Qwen3-8B_512_128_summary.json")}, 1},
		"vllm sweep": {[]file{{"run=0.json", sweepObject(0, "") + "\n"}, {"run=1.json", sweepObject(1, "") + "\n"},
			{"summary.json", "[\n    " + sweepObject(0, "    ") + ",\n    " + sweepObject(1, "    ") + "\n]\n"}}, 2},
	}
	for name, set := range sets {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var local []string
			for _, f := range set.files {
				p := filepath.Join(dir, f.name)
				if err := os.WriteFile(p, []byte(f.body), 0o644); err != nil {
					t.Fatal(err)
				}
				local = append(local, p)
			}
			want := ""
			permutations(local, func(order []string) {
				for _, oneBatch := range []bool{false, true} {
					a := openTestArchive(t)
					var seen []string
					if oneBatch {
						for _, o := range ingestPaths(t, a, order...) {
							seen = append(seen, o.RunID)
						}
					} else {
						for _, p := range order {
							for _, o := range ingestPaths(t, a, p) {
								seen = append(seen, o.RunID)
							}
						}
					}
					runs, err := a.ListRuns(store.Filter{})
					if err != nil || len(runs) != set.runs {
						t.Fatalf("order %v: %d runs, %v; want %d", order, len(runs), err, set.runs)
					}
					var ids []string
					for _, r := range runs {
						ids = append(ids, r.ID)
					}
					slices.Sort(ids)
					got := strings.Join(ids, ",")
					if want == "" {
						want = got
					}
					if got != want {
						t.Errorf("order %v (one batch %v): run ids %s, want %s", order, oneBatch, got, want)
					}
					for _, id := range seen {
						if r, err := a.ResolveRunID(id); err != nil || !slices.Contains(ids, r) {
							t.Errorf("order %v: id %s printed on the way resolves to %q, %v", order, id, r, err)
						}
					}
				}
			})
		})
	}
}

// TestLLMPerfLeaderboardLayoutIsOneRun: the llmperf leaderboard keeps a
// run's two files as raw_data/summary/<name>.json and
// raw_data/individual/<name>.json; that layout names one invocation too,
// while the same files in unrelated folders stay two runs.
func TestLLMPerfLeaderboardLayoutIsOneRun(t *testing.T) {
	t.Parallel()
	copyTo := func(src, dst string) string {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	const stem = "format/llmperf/testdata/Qwen-Qwen3-8B_512_128"
	dir := t.TempDir()
	a := openTestArchive(t)
	ingestPaths(t, a, copyTo(stem+"_summary.json", filepath.Join(dir, "raw_data", "summary", "qwen3-8b.json")),
		copyTo(stem+"_individual_responses.json", filepath.Join(dir, "raw_data", "individual", "qwen3-8b.json")))
	if runs, _ := a.ListRuns(store.Filter{}); len(runs) != 1 {
		t.Errorf("leaderboard layout: %d runs, want 1", len(runs))
	}
	b := openTestArchive(t)
	outs := ingestPaths(t, b, copyTo(stem+"_summary.json", filepath.Join(dir, "x", "a_summary.json")),
		copyTo(stem+"_individual_responses.json", filepath.Join(dir, "y", "a_individual_responses.json")))
	if runs, _ := b.ListRuns(store.Filter{}); len(runs) != 2 || !strings.Contains(outs[1].Note, "kept as a run of its own") {
		t.Errorf("files of unrelated folders: %d runs, %+v", len(runs), outs)
	}
}

// TestLegacyRunJoinsByFileName: a run archived before schema 6 recorded
// invocations (the column is empty) is matched by the file name it was
// ingested under.
func TestLegacyRunJoinsByFileName(t *testing.T) {
	t.Parallel()
	paths := copyAIPerfFixtures(t, "current_profile_export_aiperf.json", "current_profile_export.jsonl")
	dbPath := filepath.Join(t.TempDir(), "a.db")
	a, err := store.Open(dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	first := ingestPaths(t, a, paths[0])[0].RunID
	a.Close()
	raw, err := sql.Open("sqlite3", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec("UPDATE runs SET invocation = ''"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if a, err = store.Open(dbPath, store.Options{}); err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	o := ingestPaths(t, a, paths[1])
	if len(o) != 1 || o[0].Status != StatusCompleted {
		t.Fatalf("the records must complete the legacy run %s: %+v", first, o)
	}
	if id, err := a.ResolveRunID(first); err != nil || id != o[0].RunID {
		t.Errorf("old id %s resolves to %q, %v", first, id, err)
	}
}
