// Package suggest finds the name a misspelt one was meant to be, for the
// "did you mean" of every error about an unknown name (manifest keys,
// provenance fields, narrative bindings).
package suggest

import (
	"math"
	"strings"
)

// Nearest returns the candidate closest to s by edit distance (ignoring
// the case of s), if it is close enough to be a likely typo: at most two
// edits, or a quarter of the name's length for long names.
func Nearest(s string, candidates []string) string {
	best, bestD := "", math.MaxInt
	low := strings.ToLower(s)
	for _, c := range candidates {
		if d := Distance(low, c); d < bestD {
			best, bestD = c, d
		}
	}
	if bestD <= max(2, len(s)/4) {
		return best
	}
	return ""
}

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
