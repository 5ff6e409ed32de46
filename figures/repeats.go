package figures

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchmath"
)

// Direction says which way a figure is better; it decides which repeat is
// the conservative one and whether a change is an improvement.
type Direction int

const (
	// HigherIsBetter: throughput-like figures (tok/s, req/s, efficiency).
	HigherIsBetter Direction = iota + 1
	// LowerIsBetter: latency-like figures (TTFT, TPOT, E2E latency, ITL).
	LowerIsBetter
)

func (d Direction) String() string {
	switch d {
	case HigherIsBetter:
		return "higher-is-better"
	case LowerIsBetter:
		return "lower-is-better"
	}
	return "unknown"
}

// DirectionOf is the direction of a metric name: the Catalogue's for its
// metrics; for other figures (node and scaling figures) it is read from the
// name: rates, completions and efficiencies are higher-is-better, times and
// failures are lower-is-better; 0 when it cannot tell.
func DirectionOf(metric string) Direction {
	if n, ok := ParseMetric(metric); ok {
		return n.Metric.Direction
	}
	switch {
	case strings.Contains(metric, "throughput"), strings.Contains(metric, "goodput"),
		strings.Contains(metric, "efficiency"), metric == "completed":
		return HigherIsBetter
	}
	name, _, _ := strings.Cut(metric, ".")
	switch name {
	case "ttft", "tpot", "itl", "e2el", "latency", "duration", "window", "failed":
		return LowerIsBetter
	}
	if strings.HasSuffix(metric, "window") || strings.Contains(metric, "latency") {
		return LowerIsBetter
	}
	return 0
}

// Measurement is one figure of one run.
type Measurement struct {
	RunID string  `json:"run_id"`
	Value float64 `json:"value"`
}

// DefaultConfidence is the confidence level of repeat intervals.
const DefaultConfidence = 0.95

// Interval is a median with its distribution-free confidence interval
// (benchmath AssumeNothing); Lo/Hi are ±Inf when n is too small.
type Interval struct {
	Center     float64 `json:"center"`
	Lo         float64 `json:"lo"`
	Hi         float64 `json:"hi"`
	Confidence float64 `json:"confidence"`
}

// StatWarning is a benchmath warning as data: Code says which condition
// (WarnTooFewForCI, WarnTooFewToCompare, WarnTest), Need the sample count
// that would lift it (0 when unknown), Text benchmath's English message.
type StatWarning struct {
	Code string `json:"code"`
	Need int    `json:"need"`
	Text string `json:"text"`
}

// Warning codes.
const (
	WarnTooFewForCI     = "too_few_samples_for_ci"
	WarnTooFewToCompare = "too_few_samples_to_compare"
	WarnTest            = "test_failed"
)

var needRE = regexp.MustCompile(`need (?:>=|>) (\d+) samples`)

func warningsOf(errs []error, code string) []StatWarning {
	var out []StatWarning
	for _, e := range errs {
		w := StatWarning{Code: code, Text: e.Error()}
		if m := needRE.FindStringSubmatch(w.Text); m != nil {
			w.Need, _ = strconv.Atoi(m[1])
		} else {
			w.Code = WarnTest
		}
		out = append(out, w)
	}
	return out
}

// RepeatStats summarise repeated runs of one configuration.
type RepeatStats struct {
	N         int       `json:"n"`
	Direction Direction `json:"direction"`
	// Values are in the order given; RunIDs beside them.
	Values []float64 `json:"values"`
	RunIDs []string  `json:"run_ids"`
	Min    float64   `json:"min"`
	Median float64   `json:"median"`
	Max    float64   `json:"max"`
	// Conservative is the value a capacity claim uses: Min for
	// HigherIsBetter, Max for LowerIsBetter; ConservativeRun is its run.
	Conservative    float64 `json:"conservative"`
	ConservativeRun string  `json:"conservative_run"`
	// Best is the value a best-of-n report would pick; shown only to say
	// how much it differs from Conservative.
	Best float64 `json:"best"`
	// Summary is benchmath's median and confidence interval; Warnings hold
	// its conditions (too few samples for an interval) as data.
	Summary  Interval      `json:"summary"`
	Warnings []StatWarning `json:"warnings"`
}

// Single reports that the figure rests on one measurement.
func (r RepeatStats) Single() bool { return r.N == 1 }

// Repeats summarises repeated measurements of one configuration. It refuses
// an empty set, a NaN value and an unknown direction.
func Repeats(ms []Measurement, dir Direction) (RepeatStats, error) {
	if len(ms) == 0 {
		return RepeatStats{}, fmt.Errorf("repeats: no measurements")
	}
	if dir != HigherIsBetter && dir != LowerIsBetter {
		return RepeatStats{}, fmt.Errorf("repeats: unknown direction %d", dir)
	}
	r := RepeatStats{N: len(ms), Direction: dir}
	lo, hi := 0, 0
	for i, m := range ms {
		if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
			return RepeatStats{}, fmt.Errorf("repeats: run %s has no value", m.RunID)
		}
		r.Values = append(r.Values, m.Value)
		r.RunIDs = append(r.RunIDs, m.RunID)
		if m.Value < ms[lo].Value {
			lo = i
		}
		if m.Value > ms[hi].Value {
			hi = i
		}
	}
	r.Min, r.Max = ms[lo].Value, ms[hi].Value
	cons, best := lo, hi
	if dir == LowerIsBetter {
		cons, best = hi, lo
	}
	r.Conservative, r.ConservativeRun, r.Best = ms[cons].Value, ms[cons].RunID, ms[best].Value

	s := benchmath.NewSample(slices.Clone(r.Values), &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(s, DefaultConfidence)
	r.Median = sum.Center
	r.Summary = Interval{sum.Center, sum.Lo, sum.Hi, sum.Confidence}
	r.Warnings = warningsOf(sum.Warnings, WarnTooFewForCI)
	return r, nil
}

// Significance is a Mann–Whitney U test between two groups of repeats
// (benchmath AssumeNothing.Compare).
type Significance struct {
	P           float64       `json:"p"`
	N1          int           `json:"n1"`
	N2          int           `json:"n2"`
	Alpha       float64       `json:"alpha"`
	Significant bool          `json:"significant"` // P ≤ Alpha
	Warnings    []StatWarning `json:"warnings"`
}

// CompareRepeats tests whether two groups of repeats differ. With few
// samples no difference can be significant; the warning says how many
// samples would be needed.
func CompareRepeats(base, cand []float64) Significance {
	th := benchmath.DefaultThresholds
	s1 := benchmath.NewSample(slices.Clone(base), &th)
	s2 := benchmath.NewSample(slices.Clone(cand), &th)
	c := benchmath.AssumeNothing.Compare(s1, s2)
	return Significance{P: c.P, N1: c.N1, N2: c.N2, Alpha: c.Alpha, Significant: c.P <= c.Alpha,
		Warnings: warningsOf(c.Warnings, WarnTooFewToCompare)}
}
