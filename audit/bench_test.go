package audit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/ingest"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

// BenchmarkAudit1000Runs audits an archive of 1,000 runs of 200 requests
// each (integrity: every blob re-hashed and re-parsed, records compared;
// recomputation and plausibility), the target being well under a minute.
// make bench also times `benchledger audit` on the 1,000 files of
// ../shared/bench.
func BenchmarkAudit1000Runs(b *testing.B) {
	dir := b.TempDir()
	t := &testing.T{}
	for i := 0; i < 1000; i++ {
		vllmFile{n: 200, start: float64(i), outLen: 64}.write(t, filepath.Join(dir, fmt.Sprintf("run-%04d.json", i)))
	}
	if err := os.WriteFile(filepath.Join(dir, "campaign.yaml"), []byte(strings.Replace(manifest, "request_count: 40", "request_count: 200", 1)), 0o644); err != nil {
		b.Fatal(err)
	}
	a := ingestForBench(b, dir, 1000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fs, err := Run(context.Background(), a, nil)
		if err != nil {
			b.Fatal(err)
		}
		if Failed(fs) {
			b.Fatalf("a clean archive failed its audit: %+v", fs[0])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N), "s/audit")
}

// BenchmarkAuditLargeRun audits one run of 200,000 requests (its raw file
// parsed again and compared, every check over its stored records) and
// reports the peak of the live heap, sampled every few milliseconds: the
// stored records are streamed through the checks (requestPass), so it stays
// near what the re-parse holds (96 bytes a record) instead of twice that.
// make bench measures `benchledger audit` of 1,000,000 requests the same way
// (peak RSS).
func BenchmarkAuditLargeRun(b *testing.B) {
	const n = 200_000
	dir := b.TempDir()
	vllmFile{n: n, failEach: 50, outLen: 4}.write(&testing.T{}, filepath.Join(dir, "large.json"))
	a := ingestForBench(b, dir, 1)
	b.ReportAllocs()
	var peak uint64
	for b.Loop() {
		runtime.GC()
		stop := sampleHeap(&peak)
		fs, err := Run(context.Background(), a, nil)
		stop()
		if err != nil {
			b.Fatal(err)
		}
		if Failed(fs) {
			b.Fatalf("a clean run failed its audit: %+v", fs[0])
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(peak)/n, "peak-heap-B/request")
}

// sampleHeap records the largest live heap (runtime/metrics' heap objects)
// seen every 2 ms in *peak until stop is called.
func sampleHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	go func() {
		defer close(finished)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			*peak = max(*peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}

// ingestForBench ingests the files of dir into a new archive, closed when
// the benchmark ends, and checks that they gave runs runs.
func ingestForBench(b *testing.B, dir string, runs int) *store.Archive {
	a, err := store.Open(filepath.Join(b.TempDir(), "a.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { a.Close() })
	got := 0
	err = ingest.Batch(context.Background(), []string{dir}, ingest.Options{Archive: a, ToolVersion: "bench", Actor: "bench"}, func(o ingest.Outcome) {
		if o.RunID != "" {
			got++
		} else if o.Status == ingest.StatusRejected {
			b.Errorf("rejected %s: %s %s", o.File, o.Place, o.Reason)
		}
	})
	if err != nil || got != runs {
		b.Fatalf("ingest: %v (%d runs, want %d)", err, got, runs)
	}
	return a
}

// BenchmarkStored audits one stored run of 100 records from its derived
// figures, as the site does for each of its runs (a declared concurrency,
// so the records' peak in flight is measured too).
func BenchmarkStored(b *testing.B) {
	dir := b.TempDir()
	vllmFile{n: 100, outLen: 5}.write(&testing.T{}, filepath.Join(dir, "run.json"))
	if err := os.WriteFile(filepath.Join(dir, "campaign.yaml"), []byte(strings.Replace(manifest, "request_count: 40", "request_count: 100", 1)), 0o644); err != nil {
		b.Fatal(err)
	}
	a := ingestForBench(b, dir, 1)
	sums, err := a.ListRuns(store.Filter{})
	if err != nil || len(sums) != 1 {
		b.Fatal(sums, err)
	}
	rec, err := a.Run(sums[0].ID)
	if err != nil {
		b.Fatal(err)
	}
	d := figures.Derive(rec.Run, rec.Run.Requests, provenance.Record(rec.Provenance).Effective())
	b.ReportAllocs()
	for b.Loop() {
		if fs := Stored(rec, d); Failed(fs) {
			b.Fatalf("a clean run failed its audit: %+v", fs)
		}
	}
}
