package democampaign

import (
	"fmt"
	"math"
	"sort"
)

// The published case gives two figures per run: output throughput over the
// window (so the window's length) and the median latency. The simulated
// engine gives a plausible shape but not those exact numbers, so fit adjusts
// it in two stages:
//
//  1. The client's per-request dispatch time moves the median within the
//     window (later sends shorten the latencies of the later requests without
//     moving the last completion much). It is found by bracketed search on
//     the ratio median/window, to within a small tolerance.
//  2. A monotone time map, linear with slope a before a pivot instant and b
//     after it, then puts median and window exactly on target. Stage 1
//     leaves a and b within a fraction of a percent of each other, so the
//     map is a calibration of engine and client speed, not a reshaping;
//     fit refuses larger corrections.

// Search range of the client's dispatch time per request.
const (
	dispatchMin = 20e-6
	dispatchMax = 2e-3
	ratioTol    = 5e-5 // relative; stage 2 absorbs the rest
	maxSkew     = 0.01 // largest |a/b - 1| Build accepts
)

// warp is the monotone time map of stage 2; origin (the first send) is fixed.
type warp struct{ origin, pivot, a, b float64 }

// skew is how far the map's two slopes are apart, relative.
func skew(w warp) float64 { return math.Abs(w.a/w.b - 1) }

func (w warp) at(t float64) float64 {
	if t <= w.pivot {
		return w.origin + float64(w.a*(t-w.origin)) // float64(): no FMA, see simulate
	}
	return w.origin + float64(w.a*(w.pivot-w.origin)) + float64(w.b*(t-w.pivot))
}

// shape is what the fit looks at: the window from the first send to the last
// receipt, the numpy median of latencies and the requests that make it, and
// the mean latency.
type shape struct {
	window, median float64
	lo, hi         int // requests at sorted positions (n-1)/2 and n/2
	mean           float64
}

// stat is the latency statistic the target places: the mean when the target
// names one, else the median.
func (s shape) stat(tg *Target) float64 {
	if tg.MeanE2EL > 0 {
		return s.mean
	}
	return s.median
}

func measure(tr *trace, w warp) shape {
	n := len(tr.send)
	lat := make([]float64, n)
	idx := make([]int, n)
	first, last := math.Inf(1), math.Inf(-1)
	for i := range n {
		r := tr.recv[i]
		s, e := w.at(tr.send[i]), w.at(r[len(r)-1])
		lat[i] = e - s
		idx[i] = i
		first = math.Min(first, s)
		last = math.Max(last, e)
	}
	sort.SliceStable(idx, func(x, y int) bool { return lat[idx[x]] < lat[idx[y]] })
	lo, hi := idx[(n-1)/2], idx[n/2]
	sum := 0.0
	for _, l := range lat {
		sum += l
	}
	return shape{window: last - first, median: (lat[lo] + lat[hi]) / 2, lo: lo, hi: hi, mean: sum / float64(n)}
}

// fitted is a simulated trace and the map that puts it on target.
type fitted struct {
	tr       *trace
	w        warp
	dispatch float64 // stage 1's client dispatch time per request, seconds
}

func fit(sp *RunSpec) (*fitted, error) {
	n := sp.Client.Requests
	c, s, tg := &sp.Client, &sp.Server, &sp.Target
	if n < 2 || c.OutputLen < 2 || c.PromptTokens+c.FixedInput < 1 || s.MaxNumSeqs < 1 || s.MaxBatchedTokens < 1 ||
		!(s.StepBase > 0) || !(tg.OutputThroughput > 0) || (tg.MedianE2EL > 0) == (tg.MeanE2EL > 0) {
		return nil, fmt.Errorf("%s: incomplete run spec (it needs a throughput and one of median or mean latency)", sp.File)
	}
	wantW := float64(n*sp.Client.OutputLen) / sp.Target.OutputThroughput
	wantM := sp.Target.MedianE2EL + sp.Target.MeanE2EL // the one that is set
	want := wantM / wantW
	ident := warp{a: 1, b: 1}
	ratio := func(x float64) (float64, *trace) {
		tr := simulate(sp, x)
		ident.origin, ident.pivot = tr.send[0], tr.send[0]
		s := measure(tr, ident)
		return s.stat(tg)/s.window - want, tr
	}

	// Stage 1: Illinois false position on ratio(dispatch), which falls as
	// dispatch grows (with small steps where a request changes engine step).
	xa, xb := dispatchMin, dispatchMax
	fa, tr := ratio(xa)
	if math.Abs(fa) > ratioTol*want {
		var fb float64
		fb, tr = ratio(xb)
		if fa < 0 || fb > 0 {
			return nil, fmt.Errorf("%s: median/window %.4f is out of reach of this engine shape (%.4f..%.4f): change the server arguments",
				sp.File, want, fb+want, fa+want)
		}
		side := 0
		for it := 0; ; it++ {
			x := xb - fb*(xb-xa)/(fb-fa)
			fx, t := ratio(x)
			tr = t
			if math.Abs(fx) <= ratioTol*want {
				xa = x
				break
			}
			if it == 60 || xb-xa < 1e-9 {
				// A step in ratio(dispatch): stage 2 absorbs what is left.
				xa = x
				break
			}
			if (fx > 0) == (fa > 0) {
				xa, fa = x, fx
				if side == -1 {
					fb /= 2
				}
				side = -1
			} else {
				xb, fb = x, fx
				if side == 1 {
					fa /= 2
				}
				side = 1
			}
		}
	}
	f := &fitted{tr: tr, dispatch: xa}

	// Stage 2: for a pivot p, slope a applies before p and b after it, so
	// a time span [s, e] maps to a*len([s,e] before p) + b*len([s,e] after p).
	// Median (or mean) and window then are linear in (a, b): solve the 2x2
	// system for candidate pivots across the window and keep the one
	// needing the least skew. If the map reorders latencies around the
	// median, solve again for the new median pair; the mean is the mean of
	// the mapped latencies whatever their order.
	origin := tr.send[0]
	last := math.Inf(-1)
	for _, r := range tr.recv {
		last = math.Max(last, r[len(r)-1])
	}
	split := func(s, e, p float64) (before, after float64) {
		before = math.Max(0, math.Min(e, p)-s)
		after = math.Max(0, e-math.Max(s, p))
		return
	}
	w := warp{origin: origin, pivot: origin, a: 1, b: 1}
	for range 8 {
		s := measure(tr, w)
		lo, hi := s.lo, s.hi
		sLo, eLo := tr.send[lo], tr.recv[lo][len(tr.recv[lo])-1]
		sHi, eHi := tr.send[hi], tr.recv[hi][len(tr.recv[hi])-1]
		best := warp{}
		for k := 1; k < 256; k++ {
			p := origin + float64((last-origin)*float64(k)/256)
			var m1, m2 float64
			if tg.MeanE2EL > 0 {
				for i := range tr.send {
					b, a := split(tr.send[i], tr.recv[i][len(tr.recv[i])-1], p)
					m1 += b
					m2 += a
				}
				m1, m2 = m1/float64(n), m2/float64(n)
			} else {
				b1, a1 := split(sLo, eLo, p)
				b2, a2 := split(sHi, eHi, p)
				m1, m2 = (b1+b2)/2, (a1+a2)/2
			}
			w1, w2 := p-origin, last-p
			det := float64(m1*w2) - float64(m2*w1)
			if math.Abs(det) < 1e-12 {
				continue
			}
			c := warp{origin: origin, pivot: p, a: (float64(wantM*w2) - float64(m2*wantW)) / det, b: (float64(m1*wantW) - float64(wantM*w1)) / det}
			if c.a > 0 && c.b > 0 && (best.a == 0 || skew(c) < skew(best)) {
				best = c
			}
		}
		if best.a == 0 {
			return nil, fmt.Errorf("%s: no time map fits median and window", sp.File)
		}
		w = best
		if s2 := measure(tr, w); tg.MeanE2EL > 0 || s2.lo == lo && s2.hi == hi {
			break
		}
	}
	if skew(w) > maxSkew {
		return nil, fmt.Errorf("%s: time map slopes %.4f/%.4f differ by more than %.0f%%: the engine shape does not fit the targets",
			sp.File, w.a, w.b, maxSkew*100)
	}
	f.w = w
	return f, nil
}
