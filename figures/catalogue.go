package figures

import (
	"regexp"
	"strconv"
	"strings"
)

// Metric is one entry of the Catalogue: a figure of a run that a spec, a
// comparison and a run's view may name. Every list of metrics (what a spec
// accepts, what show and the site's run pages and diff page show, the
// audit's lists, the units and definitions of a case study's figures) is
// derived from the Catalogue.
type Metric struct {
	// Definition is its name, canonical unit and formula (docs/metrics.md).
	// The name of a Family is the family's: "ttft" of "ttft.p99".
	Definition
	Class     Class     `json:"class"`
	Direction Direction `json:"direction"` // 0: neither way is better
	// Value reads a single figure from a run's figures; Family reads the
	// per-request statistics of a family, which a name picks one of
	// (ParseMetric). Exactly one is set.
	Value  func(*RunFigures) float64 `json:"value"`
	Family func(*RunFigures) Stat    `json:"family"`
}

// Class says what kind of quantity a metric is.
type Class int

// The classes of metrics.
const (
	// ClassSpan is the time the run took.
	ClassSpan Class = iota + 1
	// ClassRate is a count over the window (tok/s, req/s).
	ClassRate
	// ClassLoad is a level held over the window (achieved concurrency).
	ClassLoad
	// ClassCount is a number of requests. A run's view shows the counts
	// with its completion (sent, completed, failed), not among its
	// figures.
	ClassCount
	// ClassLatency is a time per request or per token, or a statistic of
	// one.
	ClassLatency
	// ClassSLO is a share of requests (SLO attainment, %).
	ClassSLO
)

// Catalogue lists the metrics, in the order a run's figures are shown.
var Catalogue = []Metric{
	{Definition: Definition{"duration", "s", "the tool's own timed span; contains the records' window (vLLM starts it before the first send)"},
		Class: ClassSpan, Direction: LowerIsBetter, Value: func(f *RunFigures) float64 { return f.Window }},
	{Definition: Definition{"output_throughput", "tok/s", "Σ output tokens of completed requests / window"},
		Class: ClassRate, Direction: HigherIsBetter, Value: func(f *RunFigures) float64 { return f.OutputThroughput }},
	{Definition: Definition{"total_token_throughput", "tok/s", "Σ (input + output tokens) of completed requests / window"},
		Class: ClassRate, Direction: HigherIsBetter, Value: func(f *RunFigures) float64 { return f.TotalTokenThroughput }},
	{Definition: Definition{"request_throughput", "req/s", "completed requests / window"},
		Class: ClassRate, Direction: HigherIsBetter, Value: func(f *RunFigures) float64 { return f.RequestThroughput }},
	{Definition: Definition{"output_throughput_per_gpu", "tok/s/GPU", "output_throughput / GPUs serving the run (hardware.gpu_count; a node: Σ over its replicas)"},
		Class: ClassRate, Direction: HigherIsBetter, Value: perGPUOf},
	{Definition: Definition{"goodput", "req/s", "completed requests meeting every SLO threshold (value ≤ threshold, vLLM --goodput) / window"},
		Class: ClassRate, Direction: HigherIsBetter, Value: goodputOf},
	{Definition: Definition{"slo_attainment", "%", "completed requests meeting every SLO threshold / completed requests × 100"},
		Class: ClassSLO, Direction: HigherIsBetter, Value: attainmentOf},
	{Definition: Definition{"achieved_concurrency", "requests", "Σ latency of completed requests / window"},
		Class: ClassLoad, Value: func(f *RunFigures) float64 { return f.AchievedConcurrency }},
	{Definition: Definition{"completed", "requests", "number of requests without an error"},
		Class: ClassCount, Direction: HigherIsBetter, Value: func(f *RunFigures) float64 { return float64(f.Completed) }},
	{Definition: Definition{"failed", "requests", "number of requests with an error"},
		Class: ClassCount, Direction: LowerIsBetter, Value: func(f *RunFigures) float64 { return float64(f.Failed) }},
	{Definition: Definition{"ttft", "s", "first streamed content chunk − send, over completed requests"},
		Class: ClassLatency, Direction: LowerIsBetter, Family: func(f *RunFigures) Stat { return f.TTFT }},
	{Definition: Definition{"tpot", "s", "(latency − ttft) / (output tokens − 1), over completed requests with more than one output token"},
		Class: ClassLatency, Direction: LowerIsBetter, Family: func(f *RunFigures) Stat { return f.TPOT }},
	{Definition: Definition{"e2el", "s", "last streamed content chunk − send, over completed requests"},
		Class: ClassLatency, Direction: LowerIsBetter, Family: func(f *RunFigures) Stat { return f.E2EL }},
	{Definition: Definition{"itl.mean", "s", "Σ chunk gaps / number of chunk gaps, pooled over completed requests"},
		Class: ClassLatency, Direction: LowerIsBetter, Value: func(f *RunFigures) float64 { return f.ITLMean }},
}

// MetricName is a metric name read against the Catalogue: its entry and,
// for a family, the statistic it names.
//
// A family's statistics are "mean", "median" and "p<P>" for any
// percentile 0 < P < 100 written as a plain decimal (p90, p99.9); the
// value is read from the run's sorted records by the run's percentile
// method, so no percentile needs to be computed in advance.
type MetricName struct {
	Metric *Metric `json:"metric"`
	// Stat is the statistic of a family as written ("median", "p99.9");
	// "" for a single figure.
	Stat string `json:"stat"`
	// P is the percentile Stat names (50 for "median"); 0 otherwise.
	P float64 `json:"p"`
}

// percentileRE is a percentile statistic: p, then a plain decimal.
var percentileRE = regexp.MustCompile(`^p(0|[1-9][0-9]?)(\.[0-9]+)?$`)

// ParseMetric reads a metric name: a single figure of the Catalogue
// ("output_throughput", "itl.mean") or a statistic of a family
// ("ttft.median", "e2el.p99").
func ParseMetric(name string) (MetricName, bool) {
	for i := range Catalogue {
		m := &Catalogue[i]
		if m.Value != nil {
			if name == m.Name {
				return MetricName{Metric: m}, true
			}
			continue
		}
		stat, ok := strings.CutPrefix(name, m.Name+".")
		if !ok {
			continue
		}
		switch {
		case stat == "mean":
			return MetricName{Metric: m, Stat: stat}, true
		case stat == "median":
			return MetricName{Metric: m, Stat: stat, P: 50}, true
		case percentileRE.MatchString(stat):
			p, err := strconv.ParseFloat(stat[1:], 64)
			if err == nil && p > 0 && p < 100 {
				return MetricName{Metric: m, Stat: stat, P: p}, true
			}
		}
		return MetricName{}, false
	}
	return MetricName{}, false
}

// String is the name as written.
func (n MetricName) String() string {
	if n.Stat == "" {
		return n.Metric.Name
	}
	return n.Metric.Name + "." + n.Stat
}

// Unit is the metric's canonical unit.
func (n MetricName) Unit() string { return n.Metric.Unit }

// Formula states what the metric is: the figure's formula, or for a
// statistic which one of the family's ("median of last streamed content
// chunk − send, ...").
func (n MetricName) Formula() string {
	if n.Stat == "" {
		return n.Metric.Formula
	}
	return n.Stat + " of " + n.Metric.Formula
}

// Of reads the metric from a run's figures.
func (n MetricName) Of(f *RunFigures) float64 {
	if n.Metric.Value != nil {
		return n.Metric.Value(f)
	}
	st := n.Metric.Family(f)
	switch n.Stat {
	case "mean":
		return st.Mean
	case "median":
		return st.Median
	}
	return st.Percentile(n.P, f.PercentileMethod)
}

// namedStats are the statistics a family lists by name: its mean, median
// and the default Percentiles above the median.
func namedStats() []string {
	stats := []string{"mean", "median"}
	for _, p := range Percentiles {
		if p != 50 {
			stats = append(stats, "p"+strconv.FormatFloat(p, 'f', -1, 64))
		}
	}
	return stats
}

// MetricNames lists the metric names by name, in Catalogue order (a
// family with its named statistics; any other percentile is accepted too).
func MetricNames() []string {
	return metricNames(func(*Metric) bool { return true })
}

// SummaryNames are the figures a run's view shows, in order: every metric
// but the counts, which it shows with its completion.
func SummaryNames() []string {
	return metricNames(func(m *Metric) bool { return m.Class != ClassCount })
}

func metricNames(keep func(*Metric) bool) []string {
	var out []string
	for i := range Catalogue {
		m := &Catalogue[i]
		switch {
		case !keep(m):
		case m.Value != nil:
			out = append(out, m.Name)
		default:
			for _, s := range namedStats() {
				out = append(out, m.Name+"."+s)
			}
		}
	}
	return out
}

// MetricsOf lists the metrics of a class, in Catalogue order.
func MetricsOf(c Class) []*Metric {
	var out []*Metric
	for i := range Catalogue {
		if Catalogue[i].Class == c {
			out = append(out, &Catalogue[i])
		}
	}
	return out
}

// withCatalogue adds the Catalogue's definitions to those of the other
// computed figures.
func withCatalogue(defs map[string]Definition) map[string]Definition {
	for _, m := range Catalogue {
		if _, dup := defs[m.Name]; dup {
			panic("figures: " + m.Name + " is defined twice")
		}
		defs[m.Name] = m.Definition
	}
	return defs
}
