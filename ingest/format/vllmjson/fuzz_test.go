package vllmjson_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/format/vllmjson"
	"github.com/benchledger/benchledger/ingest/internal/ingesttest"
	"github.com/benchledger/benchledger/internal/testshared"
)

// FuzzVLLMJSON: whatever the bytes, Sniff and Parse must not panic, Parse
// must reject with an *InputError only, every emitted run must be
// internally consistent, and ParseCompact must give the same.
func FuzzVLLMJSON(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.json")
	if root := testshared.Root(); root != "" {
		shared, _ := filepath.Glob(filepath.Join(root, "samples", "vllm", "*"))
		paths = append(paths, shared...)
		sglang, _ := filepath.Glob(filepath.Join(root, "samples", "sglang", "*"))
		paths = append(paths, sglang...)
	}
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		``, `[]`, `42`, "\x00\xff", vjOkHead + `"completed": 2, "ttfts": [0.1, 0.`,
		vjOkHead + `"completed": 3, "input_lens": [1, 2, 3], "ttfts": [0.1, 0.2]}`,
		vjOkHead + `"completed": 1, "itls": [[0.1, -1e-3]]}`,
		vjOkHead + `"completed": 0, "failed": 2, "ttfts": [0.0, 0.0], "itls": [[], []], "errors": ["x", "y"]}`,
		vjOkHead + `"completed": 1, "latencies": [0.5], "queue_times": [0.0]}` + "\n" + vjOkHead + `"completed": 1}`,
	} {
		f.Add([]byte(s))
	}
	p := vllmjson.New()
	f.Fuzz(func(t *testing.T, data []byte) {
		p.Sniff("fuzz.json", data[:min(len(data), format.HeadSize)])
		ordinal := 0
		err := p.Parse(context.Background(), "fuzz.json", bytes.NewReader(data), func(r *benchrun.Run) error {
			if r.Ordinal != ordinal || r.Format != "vllm-serve-json" || r.Facts == nil || r.Extra == nil {
				t.Fatalf("run %d: ordinal %d format %q", ordinal, r.Ordinal, r.Format)
			}
			if r.HasRequests != (len(r.Requests) > 0) {
				t.Fatalf("HasRequests %v with %d requests", r.HasRequests, len(r.Requests))
			}
			for i, q := range r.Requests {
				if q.Index != i || q.InputTokens < -1 || q.OutputTokens < -1 || q.Gaps.Count < 0 || q.TTFT < 0 || q.Latency < 0 {
					t.Fatalf("request %d: %+v", i, q)
				}
			}
			for _, s := range r.Stated {
				if !benchrun.IsKnown(s.Value) || math.IsInf(s.Value, 0) || s.Metric == "" {
					t.Fatalf("stated %+v", s)
				}
			}
			ordinal++
			return nil
		})
		ingesttest.FuzzError(t, err, "fuzz.json")
		if runtime.GOMAXPROCS(0) >= 2 {
			// The lists of gaps read on several cores, in ranges of a few
			// bytes: the same runs, records and errors as one by one.
			vjParallel(t, -1, 0)
			want := vjOutcome(data)
			vjParallel(t, 0, 4+len(data)%61)
			if got := vjOutcome(data); got != want {
				t.Fatalf("the parallel parse differs:\n%s\none by one:\n%s", vjHead(got), vjHead(want))
			}
		}
		// The records kept column by column read back as the rows.
		if got, want := vjCompactOutcome(t, data), vjOutcome(data); got != want {
			t.Fatalf("ParseCompact differs:\n%s\nParse:\n%s", vjHead(got), vjHead(want))
		}
	})
}
