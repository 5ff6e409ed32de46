package main

import (
	"math"
	"strconv"
	"strings"
)

// Console number style (English): thousands grouped with commas. Reports use
// locale-aware formatting; the command line stays plain English.

func groupInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// groupFloat formats v with the given decimals and grouped thousands.
func groupFloat(v float64, decimals int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	n, _ := strconv.ParseInt(intPart, 10, 64)
	out := groupInt(n)
	if intPart == "-0" {
		out = "-0"
	}
	if frac != "" {
		out += "." + frac
	}
	return out
}

// rateText prints a throughput: whole units from 100 up, two decimals below.
func rateText(v float64) string {
	if math.Abs(v) >= 100 {
		return groupFloat(v, 0)
	}
	return groupFloat(v, 2)
}

// secondsText prints a duration: milliseconds below one second.
func secondsText(v float64) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case math.Abs(v) < 1:
		return groupFloat(v*1000, 2) + " ms"
	default:
		return groupFloat(v, 2) + " s"
	}
}
