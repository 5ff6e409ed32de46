package figures

import (
	"math"
	"slices"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
)

func TestParseMetric(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		ok     bool
		metric string // the catalogue entry
		stat   string
		p      float64
	}{
		{"output_throughput", true, "output_throughput", "", 0},
		{"duration", true, "duration", "", 0},
		{"completed", true, "completed", "", 0},
		{"failed", true, "failed", "", 0},
		{"itl.mean", true, "itl.mean", "", 0},
		{"ttft.mean", true, "ttft", "mean", 0},
		{"tpot.median", true, "tpot", "median", 50},
		{"e2el.p99", true, "e2el", "p99", 99},
		{"e2el.p99.9", true, "e2el", "p99.9", 99.9},
		{"ttft.p50", true, "ttft", "p50", 50},
		{"ttft.p0.5", true, "ttft", "p0.5", 0.5},
		{"ttft.p1", true, "ttft", "p1", 1},
		// Not a percentile 0 < P < 100 written as a plain decimal.
		{"ttft.p0", false, "", "", 0},
		{"ttft.p100", false, "", "", 0},
		{"ttft.p150", false, "", "", 0},
		{"ttft.p-5", false, "", "", 0},
		{"ttft.p09", false, "", "", 0},
		{"ttft.p1e1", false, "", "", 0},
		{"ttft.pinf", false, "", "", 0},
		{"ttft.p", false, "", "", 0},
		{"ttft.p99.", false, "", "", 0},
		// Statistics the catalogue does not name, and no statistic.
		{"ttft.std", false, "", "", 0},
		{"ttft", false, "", "", 0},
		{"itl.median", false, "", "", 0},
		{"itl.p99", false, "", "", 0},
		{"output_throughput.mean", false, "", "", 0},
		{"window", false, "", "", 0},
		{"speed", false, "", "", 0},
		{"", false, "", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, ok := ParseMetric(tt.name)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if n.Metric.Name != tt.metric || n.Stat != tt.stat || n.P != tt.p || n.String() != tt.name {
				t.Errorf("= %s %q %v (%s), want %s %q %v", n.Metric.Name, n.Stat, n.P, n, tt.metric, tt.stat, tt.p)
			}
		})
	}
}

// TestCatalogueLists: the lists derived from the catalogue are the ones
// the spec, the run view and the diff page always had, with the per-GPU
// and SLO figures of issue 20.
func TestCatalogueLists(t *testing.T) {
	t.Parallel()
	summary := []string{"duration", "output_throughput", "total_token_throughput", "request_throughput",
		"output_throughput_per_gpu", "goodput", "slo_attainment", "achieved_concurrency",
		"ttft.mean", "ttft.median", "ttft.p90", "ttft.p95", "ttft.p99", "tpot.mean", "tpot.median", "tpot.p90", "tpot.p95", "tpot.p99",
		"e2el.mean", "e2el.median", "e2el.p90", "e2el.p95", "e2el.p99", "itl.mean"}
	if got := SummaryNames(); !slices.Equal(got, summary) {
		t.Errorf("SummaryNames = %v\nwant %v", got, summary)
	}
	named := slices.Concat(summary, []string{"completed", "failed"})
	if got := MetricNames(); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(named))) {
		t.Errorf("MetricNames = %v, want the summary with the counts", got)
	}
	for _, name := range MetricNames() {
		n, ok := ParseMetric(name)
		if !ok {
			t.Errorf("%s is listed but not read", name)
			continue
		}
		if d, ok := Definitions[n.Metric.Name]; !ok || d != n.Metric.Definition {
			t.Errorf("%s: definition %+v not in Definitions", name, n.Metric.Definition)
		}
		if n.Unit() == "" || n.Formula() == "" {
			t.Errorf("%s: no unit or formula", name)
		}
	}
	for _, c := range []Class{ClassSpan, ClassRate, ClassLoad, ClassCount, ClassLatency} {
		if len(MetricsOf(c)) == 0 {
			t.Errorf("class %d has no metric", c)
		}
	}
	for i, m := range Catalogue {
		if (m.Value == nil) == (m.Family == nil) {
			t.Errorf("catalogue entry %d (%s): exactly one of Value and Family must be set", i, m.Name)
		}
	}
}

// TestMetricOf reads each kind of name from recomputed figures: a single
// figure, a family's mean and median, a listed and an unlisted percentile.
func TestMetricOf(t *testing.T) {
	t.Parallel()
	var reqs []benchrun.Request
	for i := range 10 {
		reqs = append(reqs, req(float64(i), 0.1*float64(i+1), float64(i+1), 11, ""))
	}
	reqs = append(reqs, req(3, 0, 0, 0, "boom"))
	f := Recompute(reqs, 0, 0)
	tests := []struct {
		name string
		want float64
	}{
		{"completed", 10},
		{"failed", 1},
		{"duration", f.Window},
		{"output_throughput", f.OutputThroughput},
		{"itl.mean", f.ITLMean},
		{"e2el.mean", 5.5},
		{"e2el.median", 5.5},
		{"e2el.p90", f.E2EL.P[90]},
		{"e2el.p99.9", PercentileLinear([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 99.9)},
		{"ttft.p10", PercentileLinear([]float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}, 10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n, ok := ParseMetric(tt.name)
			if !ok {
				t.Fatal("not read")
			}
			if got := n.Of(&f); math.Abs(got-tt.want) > 1e-12 || math.IsNaN(got) != math.IsNaN(tt.want) {
				t.Errorf("= %v, want %v", got, tt.want)
			}
		})
	}
}

func TestDirectionOfCatalogue(t *testing.T) {
	t.Parallel()
	for _, name := range MetricNames() {
		n, _ := ParseMetric(name)
		if DirectionOf(name) != n.Metric.Direction {
			t.Errorf("%s: DirectionOf %v, catalogue %v", name, DirectionOf(name), n.Metric.Direction)
		}
	}
	if DirectionOf("ttft.p99.9") != LowerIsBetter || DirectionOf("completed") != HigherIsBetter {
		t.Error("direction of an unlisted percentile or a count")
	}
}
