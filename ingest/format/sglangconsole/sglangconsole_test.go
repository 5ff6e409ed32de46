package sglangconsole_test

import (
	"strings"
	"testing"

	"github.com/benchledger/benchledger/ingest/format/sglangconsole"
	"github.com/benchledger/benchledger/ingest/format/vllmconsole"
	"github.com/benchledger/benchledger/ingest/internal/ingesttest"
	"github.com/benchledger/benchledger/ingest/textread"
)

func lines(ss ...string) []textread.Line {
	var ls []textread.Line
	for i, s := range ss {
		ls = append(ls, textread.Line{N: i + 2, Text: s})
	}
	return ls
}

// TestInterpret: the labels of bench_serving's printed summary, in the
// versions read, map to the metrics the JSON parser gives the same figures.
func TestInterpret(t *testing.T) {
	t.Parallel()
	r, err := sglangconsole.Interpret("s.txt", 1, lines(
		"Backend:                                 sglang",
		"Traffic request rate:                    16.0      ",
		"Max request concurrency:                 not set   ",
		"Successful requests:                     960       ",
		"Benchmark duration (s):                  64.67     ",
		"Total throughput (tok/s):                100.50    ",
		"Concurrency:                             12.34     ",
		"Accept length:                           2.10      ",
		"----------------End-to-End Latency----------------",
		"Median E2E Latency (ms):                 1500.00   ",
		"P90 E2E Latency (ms):                    N/A       ",
		"Max ITL (ms):                            250.00    ",
		"Something new (x):                       1         ",
	))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"completed": 960, "duration": 64.67, "total_token_throughput": 100.5, "achieved_concurrency": 12.34, "e2el.median": 1.5, "itl.max": 0.25}
	for m, v := range want {
		if s, ok := r.StatedValue(m); !ok || s.Value != v {
			t.Errorf("%s = %+v, want %v", m, s, v)
		}
	}
	if _, ok := r.StatedValue("e2el.p90"); ok {
		t.Error("N/A stated")
	}
	if r.Facts["workload.request_rate"] != "16" || r.Facts["measurement.backend"] != "sglang" || r.Facts["workload.concurrency"] != "" {
		t.Errorf("facts %v", r.Facts)
	}
	if r.Extra["Accept length"] != "2.10" || r.Extra["End-to-End Latency / Something new (x)"] != "1" || r.Failed != -1 {
		t.Errorf("extra %v failed %d", r.Extra, r.Failed)
	}
}

func TestInterpretBad(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		lines []textread.Line
		want  string
	}{
		{"no count", lines("Backend: sglang", "Benchmark duration (s): 1.00"), `no "Successful requests" line`},
		{"zero", lines("Backend: sglang", "Successful requests: 0"), "run has no requests"},
		{"text", lines("Backend: sglang", "Successful requests: 5", "Mean TTFT (ms): fast"), `Mean TTFT (ms): "fast" is not a number`},
		{"twice", lines("Successful requests: 5", "Successful requests: 6"), "stated twice"},
	} {
		_, err := sglangconsole.Interpret("s.txt", 1, tc.lines)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "s.txt: line ") {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestRealPage: the nine printed summaries of SGLang's cookbook page are
// nine summary-only runs at their header lines.
func TestRealPage(t *testing.T) {
	t.Parallel()
	const page = "testdata/MiniMax-M2.5.md"
	data := ingesttest.Read(t, page)
	if got := ingesttest.Detect(page, data); got != sglangconsole.ID {
		t.Errorf("detected as %q", got)
	}
	runs, err := ingesttest.Parse(vllmconsole.NewSGLang(), page, data)
	if err != nil {
		t.Fatal(err)
	}
	wantCompleted := []int64{10, 80, 500, 10, 80, 320, 10, 80, 500}
	if len(runs) != len(wantCompleted) {
		t.Fatalf("%d runs, want %d", len(runs), len(wantCompleted))
	}
	for i, r := range runs {
		if r.Format != sglangconsole.ID || r.Completed != wantCompleted[i] || r.HasRequests || r.Failed != -1 {
			t.Errorf("run %d at %s: format %q completed %d", i, r.Location, r.Format, r.Completed)
		}
		for _, n := range r.Notes {
			if strings.Contains(n, "unrecognised label") {
				t.Errorf("run %d: %s", i, n)
			}
		}
	}
	r := runs[0]
	if r.Location != "line 422" || r.Facts["workload.concurrency"] != "1" || r.Facts["workload.request_rate"] != "inf" || r.Facts["measurement.backend"] != "sglang" {
		t.Errorf("first block at %s facts %v", r.Location, r.Facts)
	}
	ingesttest.WantStated(t, r, 1e-12, map[string]float64{"duration": 42.99, "e2el.p90": 7.83204, "tpot.p99": 0.00991, "itl.max": 0.01446})
	if s, _ := r.StatedValue("max_concurrent_requests"); s.Value != 2 {
		t.Errorf("peak concurrent requests %+v", s)
	}
}
