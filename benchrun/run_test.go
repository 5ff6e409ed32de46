package benchrun

import (
	"math"
	"testing"
)

func TestGapStatsAdd(t *testing.T) {
	t.Parallel()
	var g GapStats
	for _, v := range []float64{0.02, 0.005, 0.04, 0.01} {
		g.Add(v)
	}
	if g.Count != 4 || g.Min != 0.005 || g.Max != 0.04 || math.Abs(g.Sum-0.075) > 1e-15 {
		t.Errorf("after four gaps: %+v, want count 4, min 0.005, max 0.04, sum 0.075", g)
	}
	var one GapStats
	one.Add(0.3)
	if one.Count != 1 || one.Min != 0.3 || one.Max != 0.3 || one.Sum != 0.3 {
		t.Errorf("one gap is its own min and max: %+v", one)
	}
}

func TestUnknown(t *testing.T) {
	t.Parallel()
	if IsKnown(Unknown) || !IsKnown(0) || !IsKnown(-1) || !IsKnown(math.Inf(1)) {
		t.Error("only NaN (Unknown) is an absent measurement")
	}
}

func TestRequestFailed(t *testing.T) {
	t.Parallel()
	if (&Request{}).Failed() || !(&Request{Error: "timeout"}).Failed() {
		t.Error("a request failed exactly when it has an error text")
	}
}

func TestStatedValue(t *testing.T) {
	t.Parallel()
	r := &Run{Stated: []Stated{{Metric: "output_throughput", Value: 100, Unit: "tok/s"}, {Metric: "ttft.median", Value: 0.05, Unit: "s"}}}
	if s, ok := r.StatedValue("ttft.median"); !ok || s.Value != 0.05 || s.Unit != "s" {
		t.Errorf("ttft.median: %+v %v", s, ok)
	}
	if s, ok := r.StatedValue("tpot.p99"); ok || s != (Stated{}) {
		t.Errorf("a figure the run does not state: %+v %v", s, ok)
	}
}

func TestRequestCount(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		run  Run
		want int64
	}{
		{"records", Run{HasRequests: true, Requests: make([]Request, 7), Completed: 100, Failed: 1}, 7},
		{"zero records", Run{HasRequests: true, Completed: 5, Failed: 0}, 0},
		{"stated counts", Run{Completed: 40, Failed: 2}, 42},
		{"completed only", Run{Completed: 40, Failed: -1}, 40},
		{"unknown", Run{Completed: -1, Failed: 3}, -1},
	} {
		if got := c.run.RequestCount(); got != c.want {
			t.Errorf("%s: RequestCount() = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestLegacyID(t *testing.T) {
	t.Parallel()
	// The demo baseline's id before schema 0006: such ids stay aliases, so
	// the scheme must not drift.
	const sum = "69726b24280ab45da393f729e05d73292acdb2f37c3f6839c10e06ddb417d01b"
	if got := LegacyID(sum, 0); got != "d3767d0439a8" {
		t.Errorf("LegacyID(%s, 0) = %s, want d3767d0439a8", sum, got)
	}
}

func TestContentID(t *testing.T) {
	t.Parallel()
	records := func(ttft float64) *Run {
		return &Run{HasRequests: true, Requests: []Request{{Index: 0, Start: 1, TTFT: ttft, Latency: 2, InputTokens: 64, OutputTokens: 512, Gaps: GapStats{Min: Unknown, Max: Unknown}}}}
	}
	summary := func(ord int, loc, variant, extra string) *Run {
		return &Run{Ordinal: ord, Location: loc, FormatVariant: variant, Format: "vllm-serve-json", Completed: 8, Failed: 0,
			Stated: []Stated{{Metric: "output_throughput", Value: 1234.5, Unit: "tok/s"}},
			Facts:  map[string]string{"checkpoint.model_id": "Qwen/Qwen3-8B"}, Extra: map[string]string{"params": extra}}
	}
	a := summary(0, "object 0", "serve.py sweep run=N.json", "{\n    \"max_num_seqs\": 64\n}")
	b := summary(3, "list item 3", "serve.py sweep summary", "{\n        \"max_num_seqs\": 64\n    }")
	if ContentID(a) != ContentID(b) {
		t.Errorf("one run read from summary.json and run=N.json: ids %s and %s differ", ContentID(a), ContentID(b))
	}
	if c := summary(0, "object 0", "", "{\"max_num_seqs\": 128}"); ContentID(c) == ContentID(a) {
		t.Errorf("different extra keys must give different ids")
	}
	r1, r2 := records(0.25), records(0.26)
	if ContentID(r1) == ContentID(r2) || len(ContentID(r1)) != 12 {
		t.Errorf("different records: %s %s", ContentID(r1), ContentID(r2))
	}
	same := records(0.25)
	same.Facts = map[string]string{"workload.request_rate": "inf"}
	if ContentID(same) == ContentID(r1) {
		t.Errorf("the same records stated with another request rate are not the same run")
	}
	if Rank(r1) != 2 || Rank(a) != 1 || Rank(&Run{Stated: []Stated{{Printed: 2}}}) != 0 {
		t.Errorf("ranks %d %d", Rank(r1), Rank(a))
	}
}
