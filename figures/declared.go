package figures

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/internal/floatsort"
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
	c := NewDeclaredCheck(eff, len(reqs))
	for i := range reqs {
		c.Add(&reqs[i])
	}
	return c.Mismatches()
}

// DeclaredCheck is DeclaredMismatches over records handed to it one at a
// time: it keeps sums, and the send and completion times only when a
// concurrency is declared (PeakInFlight needs them).
type DeclaredCheck struct {
	eff           map[string]string
	n             int
	inSum, outSum float64
	inN, outN     int
	inFlight      *InFlight // nil without a declared concurrency
	concurrency   float64
}

// NewDeclaredCheck starts DeclaredMismatches for a run whose effective
// provenance is eff; sizeHint is about how many records will follow.
func NewDeclaredCheck(eff map[string]string, sizeHint int) *DeclaredCheck {
	c := &DeclaredCheck{eff: eff}
	if d, ok := eff["workload.concurrency"]; ok {
		if v, err := strconv.ParseFloat(strings.TrimSpace(d), 64); err == nil && v > 0 {
			c.concurrency, c.inFlight = v, NewInFlight(sizeHint)
		}
	}
	return c
}

// Add counts the next record.
func (c *DeclaredCheck) Add(r *benchrun.Request) {
	c.n++
	if !r.Failed() {
		if r.InputTokens >= 0 {
			c.inSum += float64(r.InputTokens)
			c.inN++
		}
		if r.OutputTokens >= 0 {
			c.outSum += float64(r.OutputTokens)
			c.outN++
		}
	}
	if c.inFlight != nil {
		c.inFlight.Add(r)
	}
}

// Mismatches is DeclaredMismatches' result over the records added.
func (c *DeclaredCheck) Mismatches() []DeclaredMismatch {
	if c.n == 0 {
		return nil
	}
	eff := c.eff
	var out []DeclaredMismatch
	meanTokens := func(sum float64, n int) (float64, int) {
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
			if mean, n := meanTokens(c.inSum, c.inN); n > 0 && outside(mean, lo, hi) {
				out = append(out, DeclaredMismatch{Field: "workload.input_len", Declared: d, Measured: strconv.FormatFloat(mean, 'f', 2, 64),
					Reason: fmt.Sprintf("the %d completed requests average %.2f input tokens", n, mean)})
			}
		}
	}
	if d, ok := eff["workload.output_len"]; ok {
		if _, hi, ok := lengthRange(d); ok {
			if mean, n := meanTokens(c.outSum, c.outN); n > 0 && mean > hi+0.5 && (mean-hi)/hi > LengthTolerance {
				out = append(out, DeclaredMismatch{Field: "workload.output_len", Declared: d, Measured: strconv.FormatFloat(mean, 'f', 2, 64),
					Reason: fmt.Sprintf("the %d completed requests average %.2f output tokens, more than declared", n, mean)})
			}
		}
	}
	if d, ok := eff["workload.request_count"]; ok {
		if n, err := strconv.ParseFloat(strings.TrimSpace(d), 64); err == nil && n != float64(c.n) {
			out = append(out, DeclaredMismatch{Field: "workload.request_count", Declared: d, Measured: strconv.Itoa(c.n),
				Reason: fmt.Sprintf("the file holds %d request records", c.n)})
		}
	}
	if c.inFlight != nil {
		if peak := c.inFlight.Peak(); peak > int(c.concurrency) {
			out = append(out, DeclaredMismatch{Field: "workload.concurrency", Declared: eff["workload.concurrency"], Measured: strconv.Itoa(peak),
				Reason: fmt.Sprintf("up to %d requests were in flight at once, more than the declared limit", peak)})
		}
	}
	return out
}

// PeakInFlight is the most requests in flight at one instant, over the
// requests whose send time and latency are known (a request ending when
// another starts does not overlap it); 0 when none are.
func PeakInFlight(reqs []benchrun.Request) int {
	c := NewInFlight(len(reqs))
	for i := range reqs {
		c.Add(&reqs[i])
	}
	return c.Peak()
}

// InFlight is PeakInFlight over records handed to it one at a time: it
// keeps each timed request's send and completion time.
type InFlight struct {
	starts, ends []float64
}

// NewInFlight starts PeakInFlight; sizeHint is about how many records
// will follow.
func NewInFlight(sizeHint int) *InFlight {
	sizeHint = max(sizeHint, 0)
	times := make([]float64, 2*sizeHint) // one allocation for both
	return &InFlight{starts: times[:0:sizeHint], ends: times[sizeHint:sizeHint]}
}

// Add counts the next record.
func (c *InFlight) Add(r *benchrun.Request) {
	if benchrun.IsKnown(r.Start) && benchrun.IsKnown(r.Latency) {
		c.starts = append(c.starts, r.Start)
		c.ends = append(c.ends, r.Start+r.Latency)
	}
}

// Peak is PeakInFlight's result over the records added. It sorts the
// times in place: call it once.
func (c *InFlight) Peak() int {
	if !slices.IsSorted(c.starts) { // records come in dispatch order
		floatsort.Sort(c.starts)
	}
	floatsort.Sort(c.ends)
	// The sends and completions in time order, a completion before a send
	// at the same instant.
	peak, cur, j := 0, 0, 0
	for _, s := range c.starts {
		for j < len(c.ends) && c.ends[j] <= s {
			cur--
			j++
		}
		cur++
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
