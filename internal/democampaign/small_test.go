package democampaign

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The small campaign is the demo's files with a sixteenth of the requests:
// each vLLM run keeps its target throughput and a sixteenth of its latency
// target, each trace file a sixteenth of its requests.
func TestGenerateSmall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paths, err := GenerateSmall(dir)
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	total := 0
	for _, p := range paths {
		r, _ := filepath.Rel(dir, p)
		rel = append(rel, filepath.ToSlash(r))
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		total += int(st.Size())
	}
	if !slices.Equal(rel, Files()) {
		t.Fatalf("small campaign files %v, want the demo's %v", rel, Files())
	}
	// The demo is 94 MB.
	if total > 8<<20 {
		t.Errorf("small campaign is %d bytes", total)
	}
	for _, sp := range specs {
		raw, err := os.ReadFile(filepath.Join(dir, sp.File))
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			NumPrompts     int       `json:"num_prompts"`
			MaxConcurrency int       `json:"max_concurrency"`
			OutputLens     []int     `json:"output_lens"`
			Latencies      []float64 `json:"latencies"`
			StartTimes     []float64 `json:"start_times"`
		}
		if err := json.Unmarshal(raw, &f); err != nil {
			t.Fatal(err)
		}
		n := sp.Client.Requests / SmallDivisor
		if f.NumPrompts != n || f.MaxConcurrency != sp.Client.MaxConcurrency/SmallDivisor || len(f.Latencies) != n {
			t.Errorf("%s: num_prompts %d, max_concurrency %d, %d latencies; want %d requests", sp.File, f.NumPrompts, f.MaxConcurrency, len(f.Latencies), n)
			continue
		}
		first, last, tokens := math.Inf(1), math.Inf(-1), 0
		for i, s := range f.StartTimes {
			first, last = math.Min(first, s), math.Max(last, s+f.Latencies[i])
			tokens += f.OutputLens[i]
		}
		relTo(t, sp.File+" output throughput", float64(tokens)/(last-first), sp.Target.OutputThroughput)
		lat := slices.Sorted(slices.Values(f.Latencies))
		relTo(t, sp.File+" median latency", npMedian(lat), sp.Target.MedianE2EL/SmallDivisor)
	}
	for _, g := range traceGroups {
		for _, r := range g.Runs {
			raw, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.File)))
			if err != nil {
				t.Fatal(err)
			}
			if run := parseTrace(t, r.File, raw); len(run.Requests) != g.Client.Requests/SmallDivisor {
				t.Errorf("%s: %d requests, want %d", r.File, len(run.Requests), g.Client.Requests/SmallDivisor)
			}
		}
	}
}

func relTo(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-4*want {
		t.Errorf("%s: %v, want %v", what, got, want)
	}
}

// SmallManifest divides the counts of requests and the sweep values, and
// nothing else: the demo's manifest keeps its reference's value.
func TestSmallManifest(t *testing.T) {
	t.Parallel()
	demo, err := os.ReadFile(filepath.Join("..", "..", "results", "qwen3-batch", "campaign.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	small := SmallManifest(demo)
	count := regexp.MustCompile(`(request_count|concurrency|sweep: \{value): (\d+)`)
	want := count.FindAllSubmatch(demo, -1)
	got := count.FindAllSubmatch(small, -1)
	if len(want) < 20 || len(got) != len(want) {
		t.Fatalf("%d counts in the small manifest, %d in the demo's", len(got), len(want))
	}
	for i := range want {
		var w, g int
		json.Unmarshal(want[i][2], &w)
		json.Unmarshal(got[i][2], &g)
		if g != w/SmallDivisor || g == 0 {
			t.Errorf("%s: %d, want %d / %d", want[i][1], g, w, SmallDivisor)
		}
	}
	dl, sl := strings.Split(string(demo), "\n"), strings.Split(string(small), "\n")
	if len(dl) != len(sl) {
		t.Fatalf("%d lines, want %d", len(sl), len(dl))
	}
	for i := range dl {
		if dl[i] != sl[i] && !count.MatchString(dl[i]) {
			t.Errorf("line %d changed: %q -> %q", i+1, dl[i], sl[i])
		}
	}
	if !bytes.Contains(small, []byte("value: 9938\n")) {
		t.Error("the reference's value changed")
	}
}
