package jsonread

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"unicode/utf8"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// The value readers below return the reason a value is bad as an error's
// text; the caller names the place (each format words its places its own
// way), so the checks and their messages exist once.

// Tokens reads a per-request token count: a non-negative integer that fits
// a benchrun.Request.
func Tokens(t pyjson.Token) (int32, error) {
	if t.Kind != pyjson.Number {
		return 0, fmt.Errorf("expected a token count, found %s", t.Kind)
	}
	n, err := t.Int()
	if err != nil {
		return 0, fmt.Errorf("expected a token count, found %s", t.Bytes)
	}
	if n < 0 {
		return 0, fmt.Errorf("negative token count %d", n)
	}
	if n > math.MaxInt32 {
		return 0, fmt.Errorf("token count %d is implausibly large", n)
	}
	return int32(n), nil
}

// Seconds reads a per-request time written in seconds: finite and not
// negative.
func Seconds(t pyjson.Token) (float64, error) {
	if t.Kind != pyjson.Number {
		return 0, fmt.Errorf("expected a time in seconds, found %s", t.Kind)
	}
	v, err := t.Float()
	if err != nil {
		return 0, err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s is not a valid time", t.Bytes)
	}
	if v < 0 {
		return 0, fmt.Errorf("negative time %s", t.Bytes)
	}
	return v, nil
}

// Whole reads an integer that Python may have written as a float (200.0 for
// 200): ok is false for a fraction, a non-finite value, or one beyond 2^53.
func Whole(t pyjson.Token) (int64, bool) {
	n, err := t.Int()
	if err == nil {
		return n, true
	}
	f, ferr := t.Float()
	if ferr != nil || t.NonFinite() || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// Ticker checks for cancellation once every CtxEvery items of a long list.
type Ticker struct {
	Ctx context.Context
	n   int
}

// Tick counts an item and returns the context's error every CtxEvery items.
func (t *Ticker) Tick() error {
	t.n++
	if t.n < CtxEvery {
		return nil
	}
	t.n = 0
	return t.Ctx.Err()
}

// GapFail reports a bad gap list: gap is -1 for the list itself, else the
// index of the bad gap; syntax is a decoder error (reason is then empty).
type GapFail func(gap int, tok pyjson.Token, reason string, syntax error) error

// Gaps reduces one request's list of inter-chunk gaps in seconds, which
// begins with t, to its summary as it streams past: a large file holds tens
// of millions of gaps. tick counts each gap (cancellation).
func Gaps(d *pyjson.Decoder, t pyjson.Token, tick *Ticker, fail GapFail) (benchrun.GapStats, error) {
	g := benchrun.GapStats{Min: benchrun.Unknown, Max: benchrun.Unknown}
	if t.Kind != pyjson.ArrayStart {
		return g, fail(-1, t, fmt.Sprintf("expected a list of gaps, found %s", t.Kind), nil)
	}
	for k := 0; ; k++ {
		if err := tick.Tick(); err != nil {
			return g, err
		}
		// Most gaps take the one-pass path; what it leaves (the end of
		// the list, anything unusual) takes Next and Float as before.
		e, v, ok := d.NextFloat()
		var ferr error
		if !ok {
			var err error
			if e, err = d.Next(); err != nil {
				return g, fail(k, e, "", err)
			}
			if e.Kind == pyjson.ArrayEnd {
				return g, nil
			}
			if e.Kind != pyjson.Number {
				return g, fail(k, e, fmt.Sprintf("expected a time in seconds, found %s", e.Kind), nil)
			}
			v, ferr = e.Float()
		}
		if ferr != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return g, fail(k, e, fmt.Sprintf("%s is not a valid gap in seconds", e.Bytes), nil)
		}
		if g.Count == math.MaxInt32 {
			return g, fail(k, e, "too many gaps in one request", nil)
		}
		g.Add(v)
	}
}

// An error text is kept up to ErrorMax bytes, and identical texts share one
// string (up to ErrorDistinct distinct ones), so a run of a million
// failures costs one string, not a million.
const (
	ErrorMax      = 1 << 10
	ErrorDistinct = 1 << 10
)

// ErrorTexts interns the error texts of a run's requests, each cut to
// ErrorMax bytes on a rune boundary. The zero value is ready to use.
type ErrorTexts struct {
	Cut   int // texts shortened so far
	texts map[string]string
}

// Intern returns the kept text for b.
func (e *ErrorTexts) Intern(b []byte) string {
	if len(b) > ErrorMax {
		cut := ErrorMax
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		b = b[:cut]
		e.Cut++
	}
	if s, ok := e.texts[string(b)]; ok {
		return s
	}
	s := string(b)
	if e.texts == nil {
		e.texts = map[string]string{}
	}
	if len(e.texts) < ErrorDistinct {
		e.texts[s] = s
	}
	return s
}

// ParallelFrom is how many items of a list of gap lists are read one by
// one before GapLists reads the rest on several goroutines: a short list
// is not worth the goroutines. Tests lower it to exercise the parallel
// reader on small inputs.
var ParallelFrom = 4096

// ParallelRange is the size of the ranges GapLists cuts the input into (0:
// pyjson's default). Tests make it small.
var ParallelRange = 0

// GapLists reads the items of a list of gap lists (vLLM's and SGLang's
// "itls") on several cores, with the same results and errors as Gaps read
// one by one. Call Read where the list's next item may start; it returns
// how many items it consumed (maybe 0) and leaves the decoder at the next
// item for Gaps. The zero value reads with GOMAXPROCS goroutines.
type GapLists struct {
	lists pyjson.Lists[benchrun.GapStats]
	// wait is how many items to read one by one before trying again, after
	// a try that gave up early (a file laid out unlike Python's json.dump).
	wait, tries int
}

// Read consumes items from item i on (its index in the list) while the
// decoder allows, calling emit with each one's summary in order.
func (g *GapLists) Read(d *pyjson.Decoder, i int, emit func(benchrun.GapStats) error) (int, error) {
	if i < ParallelFrom || g.wait > 0 {
		g.wait = max(g.wait-1, 0)
		return 0, nil
	}
	if g.lists.Reduce == nil {
		g.lists = pyjson.Lists[benchrun.GapStats]{Workers: min(runtime.GOMAXPROCS(0), 4), Reduce: reduceGaps, RangeSize: ParallelRange}
	}
	n, err := g.lists.Read(d, emit)
	if err == nil && n < 64 {
		// Little gained: read one by one for a while, more each time.
		g.tries++
		g.wait = 64 << min(g.tries, 10)
	}
	return n, err
}

// reduceGaps is what Gaps computes for a list that is valid; false for one
// that is not, which Gaps then reads and reports. It is GapStats.Add over
// the list, in a loop of plain comparisons (a third of the time: the
// 325,000 lists of the bench's large file spent 0.27 s in Add): the sum is
// taken in the same order, so it is the same float. Go's min and max,
// which Add uses, put -0 below +0, where a plain comparison keeps the zero
// it saw first; a list whose least or greatest value is a zero therefore
// goes through Add.
func reduceGaps(vals []float64) (benchrun.GapStats, bool) {
	g := benchrun.GapStats{Min: benchrun.Unknown, Max: benchrun.Unknown}
	if len(vals) >= math.MaxInt32 {
		return g, false
	}
	if len(vals) == 0 {
		return g, true
	}
	sum, lo, hi := 0.0, vals[0], vals[0]
	for _, v := range vals {
		// Not negative, not NaN, not infinite (-0 passes, as in Gaps).
		if !(v >= 0 && v <= math.MaxFloat64) {
			return g, false
		}
		sum += v
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	if lo == 0 || hi == 0 {
		for _, v := range vals {
			g.Add(v)
		}
		return g, true
	}
	return benchrun.GapStats{Count: int32(len(vals)), Sum: sum, Min: lo, Max: hi}, true
}
