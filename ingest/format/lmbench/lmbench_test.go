package lmbench_test

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/format/lmbench"
	"github.com/benchledger/benchledger/ingest/internal/ingesttest"
)

const summary = "testdata/summary.csv"

func TestSummaryCSV(t *testing.T) {
	t.Parallel()
	data := ingesttest.Read(t, summary)
	if got := ingesttest.Detect(summary, data); got != lmbench.ID {
		t.Fatalf("detected as %q", got)
	}
	r := ingesttest.One(t, lmbench.New(), summary, data)
	if !r.HasRequests || len(r.Requests) != 4 || r.Clock != benchrun.ClockEpoch || r.Completed != 4 || r.Failed != -1 {
		t.Fatalf("requests %d clock %q completed %d failed %d", len(r.Requests), r.Clock, r.Completed, r.Failed)
	}
	// Dispatch order, not the file's session order.
	starts := []float64{1733100000.10, 1733100001.00, 1733100004.10, 1733100005.00}
	for i, q := range r.Requests {
		if q.Index != i || q.Start != starts[i] {
			t.Errorf("request %d: index %d start %v", i, q.Index, q.Start)
		}
	}
	q := r.Requests[0]
	if q.InputTokens != 1532 || q.OutputTokens != 100 || q.TTFT != 0.21 || math.Abs(q.Latency-1.63) > 1e-12 {
		t.Errorf("request 0 %+v", q)
	}
	if last := r.Requests[3]; benchrun.IsKnown(last.TTFT) || math.Abs(last.Latency-0.042) > 1e-6 {
		t.Errorf("a request without a first chunk: %+v", last)
	}
	if !ingesttest.HasNote(r, "1 requests have ttft and generation_time 0") {
		t.Errorf("notes %q", r.Notes)
	}
}

func TestBadCSV(t *testing.T) {
	t.Parallel()
	good := string(ingesttest.Read(t, summary))
	tests := []struct{ name, from, to, place, reason string }{
		{"negative ttft", "0.21,1.42", "-0.21,1.42", "line 2", `ttft: "-0.21" is negative`},
		{"text", "1710,100", "1710,many", "line 3", `generation_tokens: "many" is not a finite number`},
		{"finish before launch", "1733100005.8610", "1733100003.0", "line 3", "finish_time 1733100003 is before launch_time"},
		{"too long", "0.25,1.51", "0.25,9.51", "line 3", "longer than finish_time − launch_time"},
		{"missing column", "ttft,", "first_token,", "line 1", `no "ttft" column`},
		{"short row", "1533,100,0.19,1.40,2,1,1733100001.00,1733100002.5904", "1533,100", "line 4", "wrong number of fields"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ingesttest.Parse(lmbench.New(), "s.csv", []byte(strings.Replace(good, tc.from, tc.to, 1)))
			ingesttest.WantInputError(t, err, tc.place, tc.reason)
		})
	}
}

func FuzzLMBench(f *testing.F) {
	f.Add(ingesttest.Read(f, summary))
	f.Add([]byte("prompt_tokens,generation_tokens,ttft,generation_time,launch_time,finish_time\n1,1,0,0,1,1\n"))
	p := lmbench.New()
	f.Fuzz(func(t *testing.T, data []byte) {
		p.Sniff("fuzz.csv", data[:min(len(data), format.HeadSize)])
		err := p.Parse(context.Background(), "fuzz.csv", bytes.NewReader(data), func(r *benchrun.Run) error {
			for i, q := range r.Requests {
				if q.Index != i || q.Latency < 0 || q.InputTokens < 0 {
					t.Fatalf("request %d %+v", i, q)
				}
			}
			return nil
		})
		ingesttest.FuzzError(t, err, "fuzz.csv")
	})
}
