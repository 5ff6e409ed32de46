package store

import (
	"bytes"
	"context"
	"math/rand/v2"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/benchledger/benchledger/benchrun"
)

// BenchmarkPutRunRequests stores one run of 300,000 requests per iteration,
// transaction and commit included.
func BenchmarkPutRunRequests(b *testing.B) {
	const n = 300_000
	a := newArchive(b)
	tx := begin(b, a)
	sha := writeBlob(b, tx, []byte("bench"), "bench.json")
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	reqs := make([]benchrun.Request, n)
	for i := range reqs {
		reqs[i] = benchrun.Request{
			Index: i, Start: float64(i) * 0.001, QueueTime: rng.Float64(), TTFT: rng.Float64(), Latency: 10 * rng.Float64(),
			InputTokens: 1000, OutputTokens: int32(rng.IntN(512)),
			Gaps: benchrun.GapStats{Count: 255, Sum: 5 * rng.Float64(), Min: 0.001, Max: rng.Float64()},
		}
		if i%100 == 0 {
			reqs[i].TTFT, reqs[i].Latency, reqs[i].OutputTokens, reqs[i].Error = benchrun.Unknown, benchrun.Unknown, -1, "timeout"
		}
	}
	cpu0 := processCPU()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		run := sampleRun(i)
		run.Requests = reqs
		tx, err := a.Begin(context.Background(), nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := tx.PutRun(runRecord(sha, run)); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "requests/s")
	b.ReportMetric((processCPU()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

var (
	vllmTextOnce sync.Once
	vllmText     []byte
)

// vllmLikeJSON is text shaped like a `vllm bench serve --save-detailed`
// result: a summary, then per-request arrays dominated by the inter-token
// latencies, floats written with Python's shortest round-trip repr.
func vllmLikeJSON(size int) []byte {
	rng := rand.New(rand.NewPCG(7, 8))
	var buf bytes.Buffer
	buf.Grow(size + 1<<16)
	buf.WriteString(`{"date": "20251009-085300", "endpoint_type": "vllm", "backend": "vllm", "label": null, ` +
		`"model_id": "Qwen/Qwen3-30B-A3B", "tokenizer_id": "Qwen/Qwen3-30B-A3B", "num_prompts": 30000, ` +
		`"request_rate": "inf", "burstiness": 1.0, "max_concurrency": 1024, "duration": 417.57213861495256, ` +
		`"completed": 30000, "total_input_tokens": 30000000, "total_output_tokens": 7680000, ` +
		`"output_throughput": 17961.25019275431, "itls": [`)
	var num []byte
	first := true
	for buf.Len() < size-64 {
		if !first {
			buf.WriteString(", ")
		}
		first = false
		buf.WriteByte('[')
		for j := range 255 {
			if j > 0 {
				buf.WriteString(", ")
			}
			num = strconv.AppendFloat(num[:0], 0.005+0.05*rng.Float64(), 'g', -1, 64)
			buf.Write(num)
		}
		buf.WriteByte(']')
	}
	buf.WriteString("]}\n")
	return buf.Bytes()
}

// BenchmarkBlobWrite stores 256 MB of vLLM-like JSON as the ingest does,
// in 64 KiB writes; the time includes the commit and the Close that
// checkpoints the WAL into the archive file.
func BenchmarkBlobWrite(b *testing.B) {
	vllmTextOnce.Do(func() { vllmText = vllmLikeJSON(256 << 20) })
	data := vllmText
	sha := sha256Hex(data)
	b.SetBytes(int64(len(data)))

	var peak uint64
	var stored int64
	var cpu time.Duration
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		path := tempArchivePath(b)
		a, err := Open(path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		base := heapBytes()
		stop := sampleHeap(&peak, base)
		cpu0 := processCPU()
		b.StartTimer()

		tx, err := a.Begin(context.Background(), nil)
		if err != nil {
			b.Fatal(err)
		}
		bw, err := tx.NewBlob(sha, int64(len(data)), "L.json")
		if err != nil {
			b.Fatal(err)
		}
		for rest := data; len(rest) > 0; {
			n := min(len(rest), 64<<10)
			if _, err := bw.Write(rest[:n]); err != nil {
				b.Fatal(err)
			}
			rest = rest[n:]
		}
		if err := bw.Close(); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		a.r.QueryRow("SELECT sum(length(data)) FROM blob_chunks").Scan(&stored)
		if err := a.Close(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += processCPU() - cpu0
		stop()
		b.StartTimer()
	}
	b.ReportMetric(float64(len(data))/float64(stored), "ratio")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	// CPU seconds per GB: what storing costs whatever else runs on the machine.
	b.ReportMetric(cpu.Seconds()/float64(b.N)/(float64(len(data))/1e9), "cpu-s/GB")
}

func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sampleHeap records the largest heap growth over base until stop is called.
func sampleHeap(peak *uint64, base uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if h := heapBytes(); h > base && h-base > *peak {
					*peak = h - base
				}
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// BenchmarkScanRuns is the site's bulk read (ScanRuns) of an archive of
// 2,000 runs of 50 requests each, on each engine: on SQLite from the runs'
// packs, and (sqlite-rows) from their rows, as for runs archived before
// packs; on PostgreSQL from the rows (scanpg.go).
func BenchmarkScanRuns(b *testing.B) {
	const runs, perRun = 2000, 50
	cases := []struct {
		name  string
		e     engine
		packs bool
	}{{"sqlite", engines[0], true}, {"sqlite-rows", engines[0], false}, {"postgres", engines[1], true}}
	for _, c := range cases {
		e := c.e
		b.Run(c.name, func(b *testing.B) {
			path := e.path(b)
			a := openArchive(b, path, Options{})
			tx := begin(b, a)
			for i := range runs {
				sha := writeBlob(b, tx, []byte("scan bench "+strconv.Itoa(i)), "f.json")
				run := sampleRun(i)
				for k := 3; k < perRun; k++ {
					r := run.Requests[k%3]
					r.Index = k
					run.Requests = append(run.Requests, r)
				}
				if err := tx.PutRun(runRecord(sha, run, manifest("campaign", "c"))); err != nil {
					b.Fatal(err)
				}
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
			if !c.packs {
				if _, err := e.raw(b, path).Exec("DELETE FROM request_packs"); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for b.Loop() {
				n := 0
				if err := a.ScanRuns(context.Background(), nil, func(*RunRecord) error { n++; return nil }); err != nil || n != runs {
					b.Fatalf("scanned %d runs: %v", n, err)
				}
			}
			b.ReportMetric(float64(runs)*float64(b.N)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}
