package figures

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
)

// DeclaredMismatch is a declared workload value the per-request records
// do not bear out: a manifest's workload.input_len 64 beside records that
// average 65.5 input tokens.
type DeclaredMismatch struct {
	Field    string `json:"field"`
	Declared string `json:"declared"`
	Measured string `json:"measured"`
	Reason   string `json:"reason"`
}

// LengthTolerance is how far a mean token length may stray from a declared
// length, relative to it, before it is a mismatch: tokenizers and chat
// templates move a prompt by a token or so, not by percent.
const LengthTolerance = 0.01

// DeclaredMismatches checks the declared input and output lengths, request
// count and concurrency (eff, the effective provenance) against the
// records: mean input tokens of completed requests within the declared
// length or range (half a token and LengthTolerance either side), mean
// output tokens not above it, as many records as requests declared, and no
// more requests in flight at once than the declared concurrency. Nothing is
// checked without records or without the declared field.
func DeclaredMismatches(eff map[string]string, reqs []benchrun.Request) []DeclaredMismatch {
	if len(reqs) == 0 {
		return nil
	}
	var out []DeclaredMismatch
	meanTokens := func(get func(*benchrun.Request) int32) (float64, int) {
		sum, n := 0.0, 0
		for i := range reqs {
			if v := get(&reqs[i]); !reqs[i].Failed() && v >= 0 {
				sum += float64(v)
				n++
			}
		}
		if n == 0 {
			return math.NaN(), 0
		}
		return sum / float64(n), n
	}
	outside := func(mean, lo, hi float64) bool {
		switch {
		case mean < lo-0.5:
			return (lo-mean)/lo > LengthTolerance
		case mean > hi+0.5:
			return (mean-hi)/hi > LengthTolerance
		}
		return false
	}
	if d, ok := eff["workload.input_len"]; ok {
		if lo, hi, ok := lengthRange(d); ok {
			if mean, n := meanTokens(func(r *benchrun.Request) int32 { return r.InputTokens }); n > 0 && outside(mean, lo, hi) {
				out = append(out, DeclaredMismatch{Field: "workload.input_len", Declared: d, Measured: strconv.FormatFloat(mean, 'f', 2, 64),
					Reason: fmt.Sprintf("the %d completed requests average %.2f input tokens", n, mean)})
			}
		}
	}
	if d, ok := eff["workload.output_len"]; ok {
		if _, hi, ok := lengthRange(d); ok {
			if mean, n := meanTokens(func(r *benchrun.Request) int32 { return r.OutputTokens }); n > 0 && mean > hi+0.5 && (mean-hi)/hi > LengthTolerance {
				out = append(out, DeclaredMismatch{Field: "workload.output_len", Declared: d, Measured: strconv.FormatFloat(mean, 'f', 2, 64),
					Reason: fmt.Sprintf("the %d completed requests average %.2f output tokens, more than declared", n, mean)})
			}
		}
	}
	if d, ok := eff["workload.request_count"]; ok {
		if n, err := strconv.ParseFloat(strings.TrimSpace(d), 64); err == nil && n != float64(len(reqs)) {
			out = append(out, DeclaredMismatch{Field: "workload.request_count", Declared: d, Measured: strconv.Itoa(len(reqs)),
				Reason: fmt.Sprintf("the file holds %d request records", len(reqs))})
		}
	}
	if d, ok := eff["workload.concurrency"]; ok {
		if c, err := strconv.ParseFloat(strings.TrimSpace(d), 64); err == nil && c > 0 {
			if peak := PeakInFlight(reqs); peak > int(c) {
				out = append(out, DeclaredMismatch{Field: "workload.concurrency", Declared: d, Measured: strconv.Itoa(peak),
					Reason: fmt.Sprintf("up to %d requests were in flight at once, more than the declared limit", peak)})
			}
		}
	}
	return out
}

// PeakInFlight is the most requests in flight at one instant, over the
// requests whose send time and latency are known (a request ending when
// another starts does not overlap it); 0 when none are.
func PeakInFlight(reqs []benchrun.Request) int {
	type edge struct {
		t     float64
		delta int
	}
	var es []edge
	for i := range reqs {
		r := &reqs[i]
		if benchrun.IsKnown(r.Start) && benchrun.IsKnown(r.Latency) {
			es = append(es, edge{r.Start, 1}, edge{r.Start + r.Latency, -1})
		}
	}
	sort.Slice(es, func(i, j int) bool {
		if es[i].t != es[j].t {
			return es[i].t < es[j].t
		}
		return es[i].delta < es[j].delta
	})
	peak, cur := 0, 0
	for _, e := range es {
		cur += e.delta
		peak = max(peak, cur)
	}
	return peak
}

// lengthRange reads a declared length: "64" or a range "63-66".
func lengthRange(s string) (lo, hi float64, ok bool) {
	s = strings.TrimSpace(s)
	a, b, isRange := strings.Cut(s, "-")
	lo, err := strconv.ParseFloat(strings.TrimSpace(a), 64)
	if err != nil || lo <= 0 {
		return 0, 0, false
	}
	if !isRange {
		return lo, lo, true
	}
	hi, err = strconv.ParseFloat(strings.TrimSpace(b), 64)
	if err != nil || hi < lo {
		return 0, 0, false
	}
	return lo, hi, true
}
