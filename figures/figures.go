// Package figures computes every number benchledger reports from archived
// per-request records, through named definitions (docs/metrics.md): a run's
// figures, the check of a tool's stated figures against them, repeats, node
// aggregation over a common window, comparisons with their provenance
// differences, and sweeps with saturation detection. It is pure computation
// on plain data: no storage, no formatting.
package figures

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/internal/floatsort"
)

// Definition names how a figure is computed; the same text is in docs/metrics.md.
type Definition struct {
	Name    string `json:"name"`
	Unit    string `json:"unit"`
	Formula string `json:"formula"`
}

// Definitions of the computed figures, keyed by name: the Catalogue's
// metrics and the figures and methods they are computed with.
var Definitions = withCatalogue(map[string]Definition{
	"window":            {"window", "s", "max over completed requests of (start + latency) − min over all requests of start"},
	"input_throughput":  {"input_throughput", "tok/s", "Σ input tokens of completed requests / window"},
	"std":               {"std", "s", "population standard deviation √(Σ (x − mean)² / n)"},
	"percentile.linear": {"percentile.linear", "", "h = (n − 1)·p/100; x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]) over sorted x (NumPy default)"},
	"percentile.nearest-rank": {"percentile.nearest-rank", "",
		"x[⌈p/100·n⌉ − 1] over sorted x: the smallest value whose CDF ≥ p (guidellm)"},
	"percentile.lower-index": {"percentile.lower-index", "", "x[min(int(n·p/100), n − 1)] over sorted x (trtllm-bench)"},
	"total_output_tokens":    {"total_output_tokens", "tokens", "Σ output tokens of completed requests"},
	"total_input_tokens":     {"total_input_tokens", "tokens", "Σ input tokens of completed requests"},
	"rate_over_stated_duration": {"rate_over_stated_duration", "",
		"count / stated duration: how a tool computes its stated rate; compared with the stated rate"},
	"repeat.conservative": {"repeat.conservative", "",
		"min over repeats for higher-is-better figures, max over repeats for lower-is-better figures"},
	"repeat.median": {"repeat.median", "", "median over repeats (benchmath AssumeNothing summary, with its confidence interval)"},
	"node.window":   {"node.window", "s", "max over all replicas' completed requests of (start + latency) − min over all replicas' requests of start"},
	"node.output_throughput": {"node.output_throughput", "tok/s",
		"Σ over replicas of completed output tokens / node window"},
	"node.sum_of_rates": {"node.sum_of_rates", "tok/s",
		"Σ over replicas of (replica output tokens / replica window): shown only to measure its overstatement"},
	"node.overstatement": {"node.overstatement", "%", "(sum of rates / node output throughput − 1) × 100"},
	"scaling_efficiency": {"scaling_efficiency", "ratio", "node throughput / (replicas × single-replica throughput)"},
	"change.abs":         {"change.abs", "", "candidate − baseline"},
	"change.pct":         {"change.pct", "%", "(candidate − baseline) / baseline × 100"},
	"change.ratio":       {"change.ratio", "ratio", "candidate / baseline"},
	"change.better": {"change.better", "",
		"true when the change goes the metric's better way (higher throughput, lower latency), false when the other way; null when the metric has no better way or the values are equal"},
	"cost_per_million_output_tokens": {"cost_per_million_output_tokens", "currency",
		"price_per_gpu_hour × GPUs / (output tok/s × 3600) × 1e6: an estimate from a stated price"},
	"request_goodput": {"request_goodput", "req/s",
		"completed requests meeting the SLO the tool used (measurement.goodput) / stated duration: how vLLM computes its stated goodput"},
	"sweep.slo_point": {"sweep.slo_point", "",
		"the highest level at which it and every lower level have SLO attainment ≥ the target (repeats: their lowest attainment)"},
	"trend.outside_range": {"trend.outside_range", "",
		"a run whose value lies outside the min–max of the previous n runs of its series (ordered by date, then engine version)"},
	"sweep.marginal_gain": {"sweep.marginal_gain", "%", "(throughput[i+1] − throughput[i]) / throughput[i] × 100"},
	"sweep.latency_growth": {"sweep.latency_growth", "%",
		"(median latency[i+1] − median latency[i]) / median latency[i] × 100"},
	"sweep.saturation": {"sweep.saturation", "",
		"first point i whose next step gains < MaxGainPct throughput while median latency grows ≥ MinLatencyGrowthPct"},
})

// Percentiles reported by default for every latency metric.
var Percentiles = []float64{50, 90, 95, 99}

// Stat summarises one latency metric over requests.
type Stat struct {
	N      int     `json:"n"`
	Mean   float64 `json:"mean"`
	Std    float64 `json:"std"`    // population standard deviation (ddof 0), as vLLM and guidellm state it
	Median float64 `json:"median"` // the 50th percentile by Method
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	// Method is the percentile method of Median and P.
	Method PercentileMethod `json:"method"`
	// P maps a percentile (e.g. 99, 99.9) to its value by Method.
	P map[float64]float64 `json:"p"`

	// sorted keeps the values so that another method or percentile can be
	// read later (a stated-figure check against a tool with its own method)
	// without recomputing the run.
	sorted []float64
}

// Percentile reads percentile p with method m from the values the Stat was
// computed from; NaN when it holds none.
func (s Stat) Percentile(p float64, m PercentileMethod) float64 {
	if s.sorted == nil && s.N != 0 && m == s.Method {
		// A Stat without its values (a tool's stated statistics): only
		// what was stated, by the method it was stated with.
		if v, ok := s.P[p]; ok {
			return v
		}
		if p == 50 {
			return s.Median
		}
		return math.NaN()
	}
	return Percentile(s.sorted, p, m)
}

// Options choose the percentiles and their method for Recompute.
type Options struct {
	// Percentiles to compute for each latency metric; nil means the package
	// default Percentiles. Any p in [0, 100], e.g. 99.9.
	Percentiles []float64 `json:"percentiles"`
	// Method is the percentile method; "" means MethodLinear.
	Method PercentileMethod `json:"method"`
}

// RunFigures are one run's figures: recomputed from its per-request
// records (Recompute), or, for a summary-only run, the figures its tool
// stated (FromStated).
type RunFigures struct {
	// Source is SourceRecomputed or SourceStated (OriginOf says it per
	// value). Tool and StatedFrom are set for stated figures: the client
	// and the stated figure each value was read from, by metric name.
	Source     string                     `json:"source"`
	Tool       string                     `json:"tool"`
	StatedFrom map[string]benchrun.Stated `json:"stated_from"`

	Sent      int `json:"sent"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	// Short counts completed requests that produced fewer tokens than a
	// fixed requested output length; -1 when the length is not fixed/known.
	Short int `json:"short"`

	// WindowBasis says where the window came from: "per-request records"
	// (first send to last completion) or "stated duration" when the source
	// recorded no send times.
	WindowBasis string  `json:"window_basis"`
	Window      float64 `json:"window"`
	WindowStart float64 `json:"window_start"` // on the run's clock; Unknown for a stated duration

	OutputTokens int64 `json:"output_tokens"`
	InputTokens  int64 `json:"input_tokens"`

	OutputThroughput     float64 `json:"output_throughput"`
	TotalTokenThroughput float64 `json:"total_token_throughput"`
	RequestThroughput    float64 `json:"request_throughput"`
	AchievedConcurrency  float64 `json:"achieved_concurrency"`

	// PercentileMethod and Percentiles record how the latency statistics
	// were computed.
	PercentileMethod PercentileMethod `json:"percentile_method"`
	Percentiles      []float64        `json:"percentiles"`

	TTFT    Stat    `json:"ttft"`
	TPOT    Stat    `json:"tpot"`
	E2EL    Stat    `json:"e2_el"`
	ITLMean float64 `json:"itl_mean"`

	// GPUs serving the run (GPUsOf its provenance; 0 when not stated):
	// the divisor of output_throughput_per_gpu.
	GPUs float64 `json:"gpus"`
	// SLO is the run's requests judged against a case study's SLO
	// (ApplySLO); nil when none was declared.
	SLO *Goodput `json:"slo,omitempty"`
	// ToolSLO is the run's requests judged against the SLO its client
	// used for its stated goodput (ToolSLOField); nil when not stated.
	ToolSLO *Goodput `json:"tool_slo,omitempty"`
}

// Window bases.
const (
	BasisRecords        = "per-request records"
	BasisStatedDuration = "stated duration"
	BasisNone           = "none"
)

// Summarise computes a Stat over values (which it sorts in place) with
// linear percentiles at the default Percentiles.
func Summarise(values []float64) Stat {
	return SummariseWith(values, nil, MethodLinear)
}

// SummariseWith computes a Stat over values (which it sorts in place and
// keeps: do not modify them afterwards) at percentiles ps (nil: the default
// Percentiles) by method m ("" is linear).
func SummariseWith(values []float64, ps []float64, m PercentileMethod) Stat {
	m = m.orDefault()
	if ps == nil {
		ps = Percentiles
	}
	s := Stat{N: len(values), P: make(map[float64]float64, len(ps)), Method: m}
	if len(values) == 0 {
		nan := math.NaN()
		s.Mean, s.Std, s.Median, s.Min, s.Max = nan, nan, nan, nan, nan
		for _, p := range ps {
			s.P[p] = nan
		}
		return s
	}
	floatsort.Sort(values)
	s.sorted = values
	var sum float64
	for _, v := range values {
		sum += v
	}
	s.Mean = sum / float64(len(values))
	// Two passes: the one-pass formula loses digits when the spread is small
	// against the mean (epoch-sized or near-constant values).
	var ss float64
	for _, v := range values {
		d := v - s.Mean
		ss += d * d
	}
	s.Std = math.Sqrt(ss / float64(len(values)))
	s.Median = Percentile(values, 50, m)
	s.Min, s.Max = values[0], values[len(values)-1]
	for _, p := range ps {
		s.P[p] = Percentile(values, p, m)
	}
	return s
}

// RecomputeRun is Recompute as every reader of the archive calls it for a
// run: the window falls back on the duration the tool stated, and the
// fixed output length comes from the run's effective provenance.
func RecomputeRun(r *benchrun.Run, reqs []benchrun.Request, eff map[string]string) RunFigures {
	c := NewRunRecomputer(r, eff, len(reqs))
	for i := range reqs {
		c.Add(&reqs[i])
	}
	return c.Figures()
}

// RunRecomputer is RecomputeRun over records handed to it one at a time in
// dispatch order, so a caller can stream a run's records from the archive
// instead of holding them (the audit of a million requests): it keeps only
// the values the percentiles need.
type RunRecomputer struct {
	rc     *Recomputer
	gpus   float64
	slo    *SLOJudge // nil without a tool SLO
	sloErr string    // why the tool SLO could not be read
	hasSLO bool
}

// NewRunRecomputer starts RecomputeRun for run r, whose effective
// provenance is eff; sizeHint is about how many records will follow.
func NewRunRecomputer(r *benchrun.Run, eff map[string]string, sizeHint int) *RunRecomputer {
	statedDuration := math.NaN()
	if s, ok := r.StatedValue("duration"); ok {
		statedDuration = s.Value
	}
	c := &RunRecomputer{rc: NewRecomputer(sizeHint, statedDuration, FixedOutput(eff)), gpus: GPUsOf(eff)}
	if v := strings.TrimSpace(eff[ToolSLOField]); v != "" {
		c.hasSLO = true
		if slo, err := ParseSLO(v); err != nil {
			c.sloErr = ToolSLOField + ": " + err.Error()
		} else {
			c.slo = NewSLOJudge(slo)
		}
	}
	return c
}

// Add counts the next record; r may be reused by the caller afterwards.
func (c *RunRecomputer) Add(r *benchrun.Request) {
	c.rc.Add(r)
	if c.slo != nil {
		c.slo.Add(r)
	}
}

// Figures is RecomputeRun's result over the records added.
func (c *RunRecomputer) Figures() RunFigures {
	f := c.rc.Figures()
	f.GPUs = c.gpus
	if c.hasSLO {
		g := Goodput{Goodput: math.NaN(), Attainment: math.NaN(), Reason: c.sloErr}
		if c.slo != nil {
			g = c.slo.Goodput(f.Window)
		}
		f.ToolSLO = &g
	}
	return f
}

// ToolSLOField is the provenance field that states the SLO a client's
// stated goodput used (vLLM's --goodput is not written into its result
// file): the stated request_goodput is checked against the records judged
// by it.
const ToolSLOField = "measurement.goodput"

// FixedOutput is the requested fixed output length of a run's effective
// provenance, or 0 when outputs were not fixed.
func FixedOutput(eff map[string]string) int {
	if eff["workload.fixed_output"] != "true" {
		return 0
	}
	n, _ := strconv.Atoi(eff["workload.output_len"])
	return n
}

// Recompute derives a run's figures from its per-request records.
// statedDuration is used for the window only when the records carry no send
// times (vLLM files without start_times); fixedOutput is the requested fixed
// output length, or 0 when outputs were not fixed. An optional Options picks
// the percentiles and their method (default: Percentiles, linear); only the
// first is used.
func Recompute(reqs []benchrun.Request, statedDuration float64, fixedOutput int, opts ...Options) RunFigures {
	c := NewRecomputer(len(reqs), statedDuration, fixedOutput, opts...)
	for i := range reqs {
		c.Add(&reqs[i])
	}
	return c.Figures()
}

// Recomputer is Recompute over records handed to it one at a time, in
// dispatch order. It keeps the TTFT, TPOT and E2E latency of each completed
// request (the percentiles need every value) and running sums of the rest.
type Recomputer struct {
	opt            Options
	statedDuration float64
	fixedOutput    int
	f              RunFigures
	first, last    float64
	timed          bool
	ttft, tpot     []float64
	e2el           []float64
	latSum, gapSum float64
	gapN           int64
	outUnknown     bool
	inUnknown      bool
}

// NewRecomputer starts Recompute (same arguments); sizeHint is about how
// many records will follow (the samples are allocated for that many).
func NewRecomputer(sizeHint int, statedDuration float64, fixedOutput int, opts ...Options) *Recomputer {
	var opt Options
	if len(opts) > 0 {
		opt = opts[0]
	}
	opt.Method = opt.Method.orDefault()
	if opt.Percentiles == nil {
		opt.Percentiles = Percentiles
	}
	sizeHint = max(sizeHint, 0)
	c := &Recomputer{opt: opt, statedDuration: statedDuration,
		f: RunFigures{Source: SourceRecomputed, Short: -1, WindowStart: math.NaN(),
			PercentileMethod: opt.Method, Percentiles: slices.Clone(opt.Percentiles)},
		first: math.Inf(1), last: math.Inf(-1), timed: true,
		ttft: make([]float64, 0, sizeHint), tpot: make([]float64, 0, sizeHint), e2el: make([]float64, 0, sizeHint)}
	if fixedOutput > 0 {
		c.f.Short = 0
	}
	c.fixedOutput = fixedOutput
	return c
}

// Add counts the next record; r may be reused by the caller afterwards.
func (c *Recomputer) Add(r *benchrun.Request) {
	f := &c.f
	f.Sent++
	if benchrun.IsKnown(r.Start) {
		c.first = math.Min(c.first, r.Start)
	} else {
		c.timed = false
	}
	if r.Failed() {
		f.Failed++
		return
	}
	f.Completed++
	// A count the source did not record (-1) makes the total unknown,
	// not smaller: perf_analyzer records carry no token counts.
	if r.OutputTokens >= 0 {
		f.OutputTokens += int64(r.OutputTokens)
	} else {
		c.outUnknown = true
	}
	if r.InputTokens >= 0 {
		f.InputTokens += int64(r.InputTokens)
	} else {
		c.inUnknown = true
	}
	if c.fixedOutput > 0 && int(r.OutputTokens) < c.fixedOutput {
		f.Short++
	}
	if benchrun.IsKnown(r.Latency) {
		c.e2el = append(c.e2el, r.Latency)
		c.latSum += r.Latency
		if benchrun.IsKnown(r.Start) {
			c.last = math.Max(c.last, r.Start+r.Latency)
		}
	} else {
		c.timed = false
	}
	if benchrun.IsKnown(r.TTFT) {
		c.ttft = append(c.ttft, r.TTFT)
		if benchrun.IsKnown(r.Latency) && r.OutputTokens > 1 {
			c.tpot = append(c.tpot, (r.Latency-r.TTFT)/float64(r.OutputTokens-1))
		}
	}
	c.gapSum += r.Gaps.Sum
	c.gapN += int64(r.Gaps.Count)
}

// Figures is Recompute's result over the records added. It sorts the
// samples in place and keeps them (Stat's sorted values): call it once.
func (c *Recomputer) Figures() RunFigures {
	f := c.f
	timed := c.timed && f.Sent > 0
	switch {
	case timed && f.Completed > 0:
		f.WindowBasis = BasisRecords
		f.Window = c.last - c.first
		f.WindowStart = c.first
	case c.statedDuration > 0:
		f.WindowBasis = BasisStatedDuration
		f.Window = c.statedDuration
	default:
		f.WindowBasis = BasisNone
		f.Window = math.NaN()
	}
	f.OutputThroughput = float64(f.OutputTokens) / f.Window
	f.TotalTokenThroughput = float64(f.OutputTokens+f.InputTokens) / f.Window
	if c.outUnknown {
		f.OutputTokens, f.OutputThroughput, f.TotalTokenThroughput = -1, math.NaN(), math.NaN()
	}
	if c.inUnknown {
		f.InputTokens, f.TotalTokenThroughput = -1, math.NaN()
	}
	f.RequestThroughput = float64(f.Completed) / f.Window
	f.AchievedConcurrency = c.latSum / f.Window
	f.TTFT, f.TPOT, f.E2EL = summariseAll(c.opt, c.ttft, c.tpot, c.e2el)
	f.ITLMean = math.NaN()
	if c.gapN > 0 {
		f.ITLMean = c.gapSum / float64(c.gapN)
	}
	return f
}

// summariseAll sorts the three samples concurrently when they are large:
// sorting is most of Recompute's time on a million-request run.
func summariseAll(opt Options, a, b, c []float64) (Stat, Stat, Stat) {
	var out [3]Stat
	in := [3][]float64{a, b, c}
	if len(a)+len(b)+len(c) < 1<<15 {
		for i := range in {
			out[i] = SummariseWith(in[i], opt.Percentiles, opt.Method)
		}
		return out[0], out[1], out[2]
	}
	var wg sync.WaitGroup
	for i := range in {
		wg.Go(func() { out[i] = SummariseWith(in[i], opt.Percentiles, opt.Method) })
	}
	wg.Wait()
	return out[0], out[1], out[2]
}

// StatOf returns the statistics of a per-request latency metric by its
// name: "ttft", "tpot" or "e2el".
func (f *RunFigures) StatOf(name string) (Stat, bool) {
	switch name {
	case "ttft":
		return f.TTFT, true
	case "tpot":
		return f.TPOT, true
	case "e2el":
		return f.E2EL, true
	}
	return Stat{}, false
}
