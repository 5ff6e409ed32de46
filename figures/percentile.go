package figures

import (
	"fmt"
	"math"
	"strings"
)

// PercentileMethod names how a percentile is read from a sorted sample.
// Benchmark tools disagree (FORMATS.md §9), and on small samples the methods
// give different numbers, so every percentile carries the method it used.
type PercentileMethod string

const (
	// MethodLinear is NumPy's default (and pandas'): linear interpolation
	// between the closest ranks, position h = (n−1)·p/100. Our default.
	MethodLinear PercentileMethod = "linear"
	// MethodNearestRank is the smallest value whose empirical CDF is ≥ p
	// (guidellm: np.searchsorted(cdf, p, "left")): sorted[⌈p/100·n⌉−1].
	MethodNearestRank PercentileMethod = "nearest-rank"
	// MethodLowerIndex is trtllm-bench's sorted[int(n·p/100)], clamped to the
	// last value: no interpolation, and p99 of fewer than 100 values is the max.
	MethodLowerIndex PercentileMethod = "lower-index"
)

// PercentileMethods lists the supported methods.
var PercentileMethods = []PercentileMethod{MethodLinear, MethodNearestRank, MethodLowerIndex}

// methodAliases are spellings parsers and manifests may use for the methods.
var methodAliases = map[string]PercentileMethod{
	"":                     MethodLinear,
	"linear":               MethodLinear,
	"numpy":                MethodLinear,
	"numpy-linear":         MethodLinear,
	"interpolated":         MethodLinear,
	"nearest-rank":         MethodNearestRank,
	"nearest":              MethodNearestRank,
	"cdf-nearest":          MethodNearestRank,
	"lower-index":          MethodLowerIndex,
	"lower":                MethodLowerIndex,
	"index":                MethodLowerIndex,
	"sorted[int(n*p)]":     MethodLowerIndex,
	"sorted[int(n·p)]":     MethodLowerIndex,
	"trtllm":               MethodLowerIndex,
	"trtllm-bench":         MethodLowerIndex,
	"guidellm":             MethodNearestRank,
	"linear-interpolation": MethodLinear,
}

// ParsePercentileMethod maps a stored or stated method name to a method.
// The empty string is the default, linear.
func ParsePercentileMethod(s string) (PercentileMethod, error) {
	if m, ok := methodAliases[strings.ToLower(strings.TrimSpace(s))]; ok {
		return m, nil
	}
	return "", fmt.Errorf("unknown percentile method %q (known: linear, nearest-rank, lower-index)", s)
}

// Valid reports whether m is one of the supported methods.
func (m PercentileMethod) Valid() bool {
	return m == MethodLinear || m == MethodNearestRank || m == MethodLowerIndex
}

// orDefault returns linear for the zero method.
func (m PercentileMethod) orDefault() PercentileMethod {
	if m == "" {
		return MethodLinear
	}
	return m
}

// Percentile reads percentile p (0..100) from sorted values with the given
// method ("" means linear). It returns NaN for an empty sample, a p outside
// [0, 100] and an unknown method: a missing figure, never a wrong one.
func Percentile(sorted []float64, p float64, m PercentileMethod) float64 {
	switch m.orDefault() {
	case MethodLinear:
		return PercentileLinear(sorted, p)
	case MethodNearestRank:
		return PercentileNearestRank(sorted, p)
	case MethodLowerIndex:
		return PercentileLowerIndex(sorted, p)
	}
	return math.NaN()
}

func badPercentile(n int, p float64) bool {
	return n == 0 || math.IsNaN(p) || p < 0 || p > 100
}

// PercentileLinear is numpy's default percentile (linear interpolation
// between closest ranks) over sorted values; p in [0, 100].
func PercentileLinear(sorted []float64, p float64) float64 {
	n := len(sorted)
	if badPercentile(n, p) {
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

// PercentileNearestRank is the smallest value whose empirical CDF is ≥ p:
// sorted[⌈p/100·n⌉−1], and the minimum for p = 0.
func PercentileNearestRank(sorted []float64, p float64) float64 {
	n := len(sorted)
	if badPercentile(n, p) {
		return math.NaN()
	}
	// p·n/100 is an exact integer whenever the CDF steps exactly at p (p99 of
	// 100 values); floating-point error can push it a hair above, and ceil
	// would then skip a rank. A relative 1e-12 is far above that error and
	// far below the gap between ranks.
	x := p * float64(n) / 100
	k := int(math.Ceil(x-1e-12*math.Max(1, x))) - 1
	return sorted[clamp(k, 0, n-1)]
}

// PercentileLowerIndex is trtllm-bench's sorted[int(n·p/100)], clamped. It
// evaluates n·(p/100) in float64 exactly as the tool's Python does with a
// fractional p (int(n * 0.99)), so that its stated figures reproduce even
// where that arithmetic truncates (0.29·100 = 28.999…).
func PercentileLowerIndex(sorted []float64, p float64) float64 {
	n := len(sorted)
	if badPercentile(n, p) {
		return math.NaN()
	}
	k := int(float64(n) * (p / 100))
	return sorted[clamp(k, 0, n-1)]
}

func clamp(k, lo, hi int) int {
	return max(lo, min(k, hi))
}
