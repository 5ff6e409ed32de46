// Package figures computes every number benchledger reports from archived
// per-request records, through named definitions (docs/metrics.md). It is
// pure computation: no storage, no formatting.
package figures

import (
	"math"
	"sort"

	"github.com/benchledger/benchledger/benchrun"
)

// Definition names how a figure is computed; the same text is in docs/metrics.md.
type Definition struct {
	Name    string
	Unit    string
	Formula string
}

// Definitions of the recomputed run figures.
var Definitions = map[string]Definition{
	"window":                 {"window", "s", "max over completed requests of (start + latency) − min over all requests of start"},
	"output_throughput":      {"output_throughput", "tok/s", "Σ output tokens of completed requests / window"},
	"total_token_throughput": {"total_token_throughput", "tok/s", "Σ (input + output tokens) of completed requests / window"},
	"request_throughput":     {"request_throughput", "req/s", "completed requests / window"},
	"achieved_concurrency":   {"achieved_concurrency", "requests", "Σ latency of completed requests / window"},
	"ttft":                   {"ttft", "s", "first streamed content chunk − send, over completed requests"},
	"tpot":                   {"tpot", "s", "(latency − ttft) / (output tokens − 1), over completed requests with more than one output token"},
	"e2el":                   {"e2el", "s", "last streamed content chunk − send, over completed requests"},
	"itl.mean":               {"itl.mean", "s", "Σ chunk gaps / number of chunk gaps, pooled over completed requests"},
}

// Percentiles reported by default for every latency metric.
var Percentiles = []float64{50, 90, 95, 99}

// Stat summarises one latency metric over requests.
type Stat struct {
	N      int
	Mean   float64
	Median float64
	Min    float64
	Max    float64
	// P maps a percentile (e.g. 99) to its value, linear interpolation.
	P map[float64]float64
}

// RunFigures are one run's figures recomputed from its per-request records.
type RunFigures struct {
	Sent, Completed, Failed int
	// Short counts completed requests that produced fewer tokens than a
	// fixed requested output length; -1 when the length is not fixed/known.
	Short int

	// WindowBasis says where the window came from: "per-request records"
	// (first send to last completion) or "stated duration" when the source
	// recorded no send times.
	WindowBasis string
	Window      float64
	WindowStart float64 // on the run's clock; Unknown for a stated duration

	OutputTokens, InputTokens int64

	OutputThroughput     float64
	TotalTokenThroughput float64
	RequestThroughput    float64
	AchievedConcurrency  float64

	TTFT, TPOT, E2EL Stat
	ITLMean          float64
}

// PercentileLinear is numpy's default percentile (linear interpolation
// between closest ranks) over sorted values; p in [0, 100].
func PercentileLinear(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	pos := p / 100 * float64(n-1)
	lo := int(math.Floor(pos))
	if lo >= n-1 {
		return sorted[n-1]
	}
	frac := pos - float64(lo)
	return sorted[lo] + frac*(sorted[lo+1]-sorted[lo])
}

// Summarise computes a Stat over values (which it sorts in place).
func Summarise(values []float64) Stat {
	s := Stat{N: len(values), P: map[float64]float64{}}
	if len(values) == 0 {
		s.Mean, s.Median, s.Min, s.Max = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		return s
	}
	sort.Float64s(values)
	var sum float64
	for _, v := range values {
		sum += v
	}
	s.Mean = sum / float64(len(values))
	s.Median = PercentileLinear(values, 50)
	s.Min, s.Max = values[0], values[len(values)-1]
	for _, p := range Percentiles {
		s.P[p] = PercentileLinear(values, p)
	}
	return s
}

// Recompute derives a run's figures from its per-request records.
// statedDuration is used for the window only when the records carry no send
// times (vLLM files without start_times); fixedOutput is the requested fixed
// output length, or 0 when outputs were not fixed.
func Recompute(reqs []benchrun.Request, statedDuration float64, fixedOutput int) RunFigures {
	f := RunFigures{Sent: len(reqs), Short: -1, WindowStart: math.NaN()}
	if fixedOutput > 0 {
		f.Short = 0
	}
	first, last := math.Inf(1), math.Inf(-1)
	timed := len(reqs) > 0
	var ttft, tpot, e2el []float64
	var latSum, gapSum float64
	var gapN int64
	for i := range reqs {
		r := &reqs[i]
		if benchrun.IsKnown(r.Start) {
			first = math.Min(first, r.Start)
		} else {
			timed = false
		}
		if r.Failed() {
			f.Failed++
			continue
		}
		f.Completed++
		if r.OutputTokens > 0 {
			f.OutputTokens += int64(r.OutputTokens)
		}
		if r.InputTokens > 0 {
			f.InputTokens += int64(r.InputTokens)
		}
		if fixedOutput > 0 && int(r.OutputTokens) < fixedOutput {
			f.Short++
		}
		if benchrun.IsKnown(r.Latency) {
			e2el = append(e2el, r.Latency)
			latSum += r.Latency
			if benchrun.IsKnown(r.Start) {
				last = math.Max(last, r.Start+r.Latency)
			}
		} else {
			timed = false
		}
		if benchrun.IsKnown(r.TTFT) {
			ttft = append(ttft, r.TTFT)
			if benchrun.IsKnown(r.Latency) && r.OutputTokens > 1 {
				tpot = append(tpot, (r.Latency-r.TTFT)/float64(r.OutputTokens-1))
			}
		}
		gapSum += r.Gaps.Sum
		gapN += int64(r.Gaps.Count)
	}
	switch {
	case timed && f.Completed > 0:
		f.WindowBasis = "per-request records"
		f.Window = last - first
		f.WindowStart = first
	case statedDuration > 0:
		f.WindowBasis = "stated duration"
		f.Window = statedDuration
	default:
		f.WindowBasis = "none"
		f.Window = math.NaN()
	}
	f.OutputThroughput = float64(f.OutputTokens) / f.Window
	f.TotalTokenThroughput = float64(f.OutputTokens+f.InputTokens) / f.Window
	f.RequestThroughput = float64(f.Completed) / f.Window
	f.AchievedConcurrency = latSum / f.Window
	f.TTFT, f.TPOT, f.E2EL = Summarise(ttft), Summarise(tpot), Summarise(e2el)
	f.ITLMean = math.NaN()
	if gapN > 0 {
		f.ITLMean = gapSum / float64(gapN)
	}
	return f
}
