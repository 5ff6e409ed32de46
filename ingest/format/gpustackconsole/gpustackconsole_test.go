package gpustackconsole_test

import (
	"strings"
	"testing"

	"github.com/benchledger/benchledger/ingest/format/gpustackconsole"
	"github.com/benchledger/benchledger/ingest/format/vllmconsole"
	"github.com/benchledger/benchledger/ingest/internal/ingesttest"
	"github.com/benchledger/benchledger/ingest/textread"
)

const page = "testdata/qwen3.5-9b-h100.md"

// TestRealPage: every block of a real GPUStack page is a summary-only
// gpustack/guidellm run; N/A is unknown, Latency(s) stays seconds, TTFT
// ms become seconds, TPOT and ITL (guidellm's own definitions) are kept
// out of the stated figures.
func TestRealPage(t *testing.T) {
	t.Parallel()
	data := ingesttest.Read(t, page)
	if got := ingesttest.Detect(page, data); got != gpustackconsole.ID {
		t.Errorf("detected as %q", got)
	}
	runs, err := ingesttest.Parse(vllmconsole.NewGPUStack(), page, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 24 {
		t.Fatalf("%d runs, want the page's 24 blocks", len(runs))
	}
	for _, r := range runs {
		if r.Format != gpustackconsole.ID || r.SourceTool != "gpustack/guidellm" || r.HasRequests || r.Failed != -1 || r.PercentileMethod != "nearest-rank" {
			t.Errorf("%s: format %q tool %q failed %d", r.Location, r.Format, r.SourceTool, r.Failed)
		}
		for _, s := range r.Stated {
			if strings.HasPrefix(s.Metric, "tpot.") || strings.HasPrefix(s.Metric, "itl.") {
				t.Errorf("%s: %s stated (%s)", r.Location, s.Metric, s.SourceKey)
			}
		}
	}
	r := runs[0]
	if r.Location != "line 117" || r.Facts["workload.concurrency"] != "512" || r.Completed != 1000 {
		t.Errorf("first block: %s facts %v completed %d", r.Location, r.Facts, r.Completed)
	}
	ingesttest.WantStated(t, r, 1e-12, map[string]float64{"duration": 54.74, "e2el.mean": 24.11, "ttft.mean": 1.60423})
	peak, _ := r.StatedValue("max_output_tokens_per_s")
	tot, _ := r.StatedValue("total_output_tokens")
	if peak.Value != 20132659.20 || tot.Value != 281412 || peak.Printed != 2 {
		t.Errorf("peak %+v total %+v", peak, tot)
	}
	if !ingesttest.HasNote(r, "P95 TTFT (ms) is N/A") || r.Extra["Mean TPOT (ms)"] == "" {
		t.Errorf("notes %q extra %v", r.Notes, r.Extra)
	}
}

func TestTell(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lines []string
		want  int
	}{
		{[]string{"Successful requests: 1", "----Latency----"}, 2},
		{[]string{"Successful requests: 1", "Mean Latency (s): 2"}, 2},
		{[]string{"Successful requests: 1", "Mean E2EL (ms): 2"}, 0},
	} {
		var ls []textread.Line
		for i, s := range tc.lines {
			ls = append(ls, textread.Line{N: i + 1, Text: s})
		}
		if got := gpustackconsole.Tell(ls); got != tc.want {
			t.Errorf("Tell(%q) = %d, want %d", tc.lines, got, tc.want)
		}
	}
}
