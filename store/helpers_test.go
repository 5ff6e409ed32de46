package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/internal/pgtest"
	"github.com/benchledger/benchledger/provenance"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(killDirectEnv); path != "" {
		killDirect(path) // exits
	}
	pgtest.Main(m)
}

func tempArchivePath(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "archive.db")
}

// engine is one database an archive can live on; the store's tests that
// hold for both run once per engine (forEachEngine).
type engine struct {
	name string
	// path names a new, empty archive: a file that does not exist yet, or
	// an empty PostgreSQL database.
	path func(testing.TB) string
	// raw opens the archive with no help from the store, as another
	// program would (on PostgreSQL with ? placeholders rewritten, so that
	// one statement serves both).
	raw func(testing.TB, string) *sql.DB
}

var engines = []engine{
	{name: "sqlite", path: tempArchivePath, raw: rawDB},
	{name: "postgres", path: pgtest.NewDatabase, raw: rawPostgres},
}

func forEachEngine(t *testing.T, test func(t *testing.T, e engine)) {
	t.Helper()
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) { test(t, e) })
	}
}

func rawPostgres(t testing.TB, url string) *sql.DB {
	t.Helper()
	db, err := openPostgresDB(url, false, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func openArchive(t testing.TB, path string, opt Options) *Archive {
	t.Helper()
	a, err := Open(path, opt)
	if err != nil {
		t.Fatalf("Open(%s, %+v): %v", path, opt, err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func newArchive(t testing.TB) *Archive {
	t.Helper()
	return openArchive(t, tempArchivePath(t), Options{})
}

// createAtVersion makes a new archive whose schema stops at version, the
// way an older benchledger would have left it.
func createAtVersion(t testing.TB, path string, version int) {
	t.Helper()
	if err := create(path, version); err != nil {
		t.Fatalf("create(%s, %d): %v", path, version, err)
	}
}

// rawDB opens the file with no help from the store, as another tool would.
func rawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func countRows(t testing.TB, db *sql.DB, table string) int {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func begin(t testing.TB, a *Archive) *Tx {
	t.Helper()
	tx, err := a.Begin(context.Background(), nil)
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	t.Cleanup(func() { tx.Rollback() })
	return tx
}

func writeBlob(t testing.TB, tx *Tx, data []byte, name string) string {
	t.Helper()
	sha := sha256Hex(data)
	streamBlob(t, tx, sha, data, name)
	return sha
}

// learnBlob stores data as a large file's ingest does: its hash learnt
// from its bytes (NewBlob with no hash), and its chunks renamed to it at
// Close. It returns the hash learnt, which must be data's.
func learnBlob(t testing.TB, tx *Tx, data []byte, name string) string {
	t.Helper()
	sha := streamBlob(t, tx, "", data, name).SHA256()
	if want := sha256Hex(data); sha != want {
		t.Fatalf("BlobWriter.SHA256(%s): learnt %q, want %s", name, sha, want)
	}
	return sha
}

// streamBlob writes data through a BlobWriter announced with sha (empty:
// learnt) and closes it.
func streamBlob(t testing.TB, tx *Tx, sha string, data []byte, name string) *BlobWriter {
	t.Helper()
	bw, err := tx.NewBlob(sha, int64(len(data)), name)
	if err != nil {
		t.Fatalf("NewBlob(%s): %v", name, err)
	}
	if _, err := bw.Write(data); err != nil {
		t.Fatalf("BlobWriter.Write(%s): %v", name, err)
	}
	if err := bw.Close(); err != nil {
		t.Fatalf("BlobWriter.Close(%s): %v", name, err)
	}
	return bw
}

// sampleRun is a run using every field, with unknown values in several
// requests so NULL handling is exercised.
func sampleRun(ordinal int) *benchrun.Run {
	nan := benchrun.Unknown
	return &benchrun.Run{
		Ordinal:          ordinal,
		Location:         fmt.Sprintf("object %d at byte %d", ordinal, 100*ordinal),
		Format:           "vllm-serve-json",
		FormatVariant:    "vllm bench serve (0.10+)",
		SourceTool:       "vllm bench serve",
		PercentileMethod: "linear",
		Clock:            benchrun.ClockMonotonic,
		Facts: map[string]string{
			"checkpoint.model_id": "Qwen/Qwen3-30B-A3B",
			"measurement.date":    "2025-10-09",
			"metadata.note":       "ünïcode ✓ 中文",
		},
		Stated: []benchrun.Stated{
			{Metric: "output_throughput", Value: 17961.25, Unit: "tok/s", SourceKey: "output_throughput", SourceUnit: "tok/s"},
			{Metric: "ttft.median", Value: 0.0123, Unit: "s", SourceKey: "median_ttft_ms", SourceUnit: "ms"},
			{Metric: "tpot.p99", Value: nan, Unit: "s", SourceKey: "p99_tpot_ms", SourceUnit: "ms"},
		},
		Requests: []benchrun.Request{
			{Index: 0, Start: 1.5, QueueTime: 0, TTFT: 0.25, Latency: 3.5, InputTokens: 1000, OutputTokens: 256,
				Gaps: benchrun.GapStats{Count: 255, Sum: 3.25, Min: 0.001, Max: 0.2}},
			{Index: 1, Start: nan, QueueTime: nan, TTFT: nan, Latency: nan, InputTokens: -1, OutputTokens: -1,
				Error: "HTTP 500: Internal Server Error", Gaps: benchrun.GapStats{Count: 0, Sum: 0, Min: nan, Max: nan}},
			{Index: 2, Start: 1.75, QueueTime: 0.5, TTFT: 0.3, Latency: nan, InputTokens: 0, OutputTokens: 12,
				Gaps: benchrun.GapStats{Count: 11, Sum: 1.0, Min: 0.05, Max: 0.15}},
		},
		HasRequests: true,
		Completed:   2,
		Failed:      1,
		Extra: map[string]string{
			"tokenizer_id": `"Qwen/Qwen3-30B-A3B"`,
			"goodput":      `null`,
			"custom":       `{"a": [1, 2.50, "x"]}`,
		},
		Notes: []string{"E2E latency of request 2 unknown: the stream ended early.", "second note"},
	}
}

// runRecord wraps a run with provenance from the manifest and --set.
func runRecord(sha string, run *benchrun.Run, prov ...provenance.Entry) *RunRecord {
	// The store takes the id the batch gives; these tests put one sample
	// run in many files, so they name runs by file and ordinal.
	id := ""
	if run != nil {
		id = benchrun.LegacyID(strings.ToLower(sha), run.Ordinal)
	}
	return &RunRecord{
		ID:          id,
		BlobSHA256:  sha,
		FileName:    "results/qwen3-batch/baseline.json",
		Run:         run,
		Provenance:  prov,
		Publishable: false,
		Missing:     []string{"checkpoint.revision", "runtime.version"},
		IngestedAt:  time.Date(2025, 10, 10, 8, 53, 0, 123456789, time.FixedZone("CEST", 2*3600)),
	}
}

func manifest(field, value string) provenance.Entry {
	return provenance.Entry{Field: field, Value: value, Source: provenance.FromManifest}
}

func cli(field, value string) provenance.Entry {
	return provenance.Entry{Field: field, Value: value, Source: provenance.FromCLI}
}

// oneRunArchive is a new archive holding one run with one manifest value.
func oneRunArchive(t testing.TB) (*Archive, *RunRecord) {
	t.Helper()
	a := newArchive(t)
	return a, putOneRun(t, a)
}

// putOneRun archives oneRunArchive's run in a, in a transaction of its own.
func putOneRun(t testing.TB, a *Archive) *RunRecord {
	t.Helper()
	tx := begin(t, a)
	sha := writeBlob(t, tx, []byte("raw"), "baseline.json")
	rec := runRecord(sha, sampleRun(0), manifest("hardware.gpu_model", "NVIDIA H100 80GB HBM3"))
	if err := tx.PutRun(rec); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return rec
}
