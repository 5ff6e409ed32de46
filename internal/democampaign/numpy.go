package democampaign

import (
	"math"
	"slices"
)

// vLLM's summary figures are numpy reductions of Python float lists. These
// helpers follow numpy's arithmetic (pairwise summation, population std,
// the "linear" percentile with its lerp) so the stated figures are the ones
// vLLM would have printed for the same records, to the last bit or close.

// npSum is np.add.reduce over a contiguous float64 array: numpy's pairwise
// summation (8-way unrolled leaves of up to 128 items).
func npSum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		s := 0.0
		for _, v := range a {
			s += v
		}
		return s
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range 8 {
				r[j] += a[i+j]
			}
		}
		s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			s += a[i]
		}
		return s
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return npSum(a[:n2]) + npSum(a[n2:])
	}
}

// npMean is np.mean: the sum divided by the count.
func npMean(a []float64) float64 { return npSum(a) / float64(len(a)) }

// npStd is np.std with ddof=0.
func npStd(a []float64) float64 {
	m := npMean(a)
	sq := make([]float64, len(a))
	for i, v := range a {
		d := v - m
		sq[i] = float64(d * d)
	}
	return math.Sqrt(npSum(sq) / float64(len(a)))
}

// npPercentile is np.percentile(a, p) with the default "linear" method,
// sorted being a sorted copy of the data.
func npPercentile(sorted []float64, p float64) float64 {
	n := len(sorted)
	q := p / 100
	virtual := float64(float64(n-1) * q) // float64(): no FMA into gamma
	prev := math.Floor(virtual)
	i := int(prev)
	if virtual >= float64(n-1) {
		return sorted[n-1]
	}
	if virtual < 0 {
		return sorted[0]
	}
	a, b := sorted[i], sorted[i+1]
	gamma := virtual - prev
	// numpy's _lerp: from the nearer end, for monotonicity.
	diff := b - a
	if gamma >= 0.5 {
		return b - float64(diff*(1-gamma)) // float64(): no FMA, as numpy
	}
	return a + float64(diff*gamma)
}

// npMedian is np.median: the middle item, or the mean of the middle two.
func npMedian(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// stats are the four figures vLLM states for a metric, in milliseconds.
type stats struct{ mean, median, std, p99 float64 }

func msStats(a []float64) stats {
	s := slices.Clone(a)
	slices.Sort(s)
	return stats{
		mean:   npMean(a) * 1000,
		median: npMedian(s) * 1000,
		std:    npStd(a) * 1000,
		p99:    npPercentile(s, 99) * 1000,
	}
}
