package figures

import (
	"math"
	"slices"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/internal/floatsort"
)

// CDFPoint is one point of an empirical distribution function: the share
// P of the values that are at most X.
type CDFPoint struct {
	X float64 `json:"x"`
	P float64 `json:"p"`
}

// MaxCDFPoints bounds the points ECDF keeps: a report stays light however
// many requests a run made.
const MaxCDFPoints = 200

// ECDF is the empirical distribution of values (any order; NaN ignored):
// the point (x₍ᵢ₎, i/n) for the i-th smallest value x₍ᵢ₎. With more than
// max values (max ≤ 0: MaxCDFPoints) it keeps the points of ranks
// ⌈k·n/max⌉, k = 1…max, evenly spaced in probability, and the first; the
// last point is always (largest value, 1). Of equal values only the
// highest rank is kept, so P is F(x) = share of values ≤ x.
func ECDF(values []float64, max int) []CDFPoint {
	if max <= 0 {
		max = MaxCDFPoints
	}
	s := make([]float64, 0, len(values))
	for _, v := range values {
		if !math.IsNaN(v) {
			s = append(s, v)
		}
	}
	if len(s) == 0 {
		return nil
	}
	floatsort.Sort(s)
	n := len(s)
	ranks := make([]int, 0, min(n, max+1))
	if n <= max {
		for i := 1; i <= n; i++ {
			ranks = append(ranks, i)
		}
	} else {
		ranks = append(ranks, 1)
		for k := 1; k <= max; k++ {
			if r := (k*n + max - 1) / max; r > ranks[len(ranks)-1] {
				ranks = append(ranks, r)
			}
		}
	}
	out := make([]CDFPoint, 0, len(ranks))
	for _, r := range ranks {
		// Move to the last of equal values: F(x) counts them all.
		for r < n && s[r] == s[r-1] {
			r++
		}
		if len(out) > 0 && out[len(out)-1].X == s[r-1] {
			continue
		}
		out = append(out, CDFPoint{X: s[r-1], P: float64(r) / float64(n)})
	}
	return out
}

// Values returns a copy of the sorted values a Stat was computed from (nil
// for a tool's stated statistics, which have none).
func (s Stat) Values() []float64 { return slices.Clone(s.sorted) }

// LoadPoint is a run's load at time T (seconds since its first send): the
// requests in flight (sent, not yet finished) and the requests completed
// so far.
type LoadPoint struct {
	T         float64 `json:"t"`
	InFlight  int     `json:"in_flight"`
	Completed int     `json:"completed"`
}

// MaxLoadPoints bounds the samples LoadOverTime takes.
const MaxLoadPoints = 200

// LoadOverTime samples a run's concurrency and completions at n evenly
// spaced times (n ≤ 1: MaxLoadPoints) from its first send to its last
// finish. A request is in flight from its send (Start) to its finish
// (Start + Latency), whether it completed or failed; it counts as
// completed from its finish if it did not fail. Requests without a known
// send time are left out, and one without a finish stays in flight to the
// end. Nil when no request has a send time.
func LoadOverTime(reqs []benchrun.Request, n int) []LoadPoint {
	if n <= 1 {
		n = MaxLoadPoints
	}
	var starts, ends, dones []float64
	for i := range reqs {
		r := &reqs[i]
		if !benchrun.IsKnown(r.Start) {
			continue
		}
		starts = append(starts, r.Start)
		if benchrun.IsKnown(r.Latency) && r.Latency >= 0 {
			ends = append(ends, r.Start+r.Latency)
			if !r.Failed() {
				dones = append(dones, r.Start+r.Latency)
			}
		}
	}
	if len(starts) == 0 {
		return nil
	}
	floatsort.Sort(starts)
	floatsort.Sort(ends)
	floatsort.Sort(dones)
	first, last := starts[0], starts[len(starts)-1]
	if len(ends) > 0 {
		last = math.Max(last, ends[len(ends)-1])
	}
	// atMost counts the sorted values ≤ t.
	atMost := func(s []float64, t float64) int {
		i, _ := slices.BinarySearchFunc(s, t, func(v, t float64) int {
			if v <= t {
				return -1
			}
			return 1
		})
		return i
	}
	out := make([]LoadPoint, 0, n)
	for k := 0; k < n; k++ {
		t := first + (last-first)*float64(k)/float64(n-1)
		if k == n-1 {
			t = last // no rounding short of the last finish
		}
		out = append(out, LoadPoint{T: t - first, InFlight: atMost(starts, t) - atMost(ends, t), Completed: atMost(dones, t)})
	}
	return out
}
