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

func TestID(t *testing.T) {
	t.Parallel()
	// The demo baseline's id (make demo prints it): ids are derived from
	// content, so they are the same on every machine and every ingest.
	const sum = "69726b24280ab45da393f729e05d73292acdb2f37c3f6839c10e06ddb417d01b"
	if got := ID(sum, 0); got != "d3767d0439a8" {
		t.Errorf("ID(%s, 0) = %s, want d3767d0439a8", sum, got)
	}
	if a, b := ID(sum, 0), ID(sum, 1); a == b || len(b) != 12 {
		t.Errorf("two runs of one file must have two 12-digit ids: %s %s", a, b)
	}
}
