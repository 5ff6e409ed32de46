package jsonread

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// Column is what one per-request list of a column-wise result holds.
type Column uint8

const (
	ColInputTokens  Column = iota // token counts
	ColOutputTokens               // token counts
	ColTTFT                       // seconds
	ColStart                      // seconds
	ColLatency                    // seconds
	ColQueueTime                  // seconds
	ColChunkGaps                  // lists of gaps in seconds, each kept as its benchrun.GapStats
	ColErrorText                  // strings, "" for a request that succeeded
	NumColumns
)

// Records reads the per-request lists of a result that writes its records
// column by column (vLLM's and SGLang's input_lens, ttfts, itls, errors,
// ...) into one record per request. The first list read sets the count;
// every later one must hold as many items, and one that does not is
// refused once its items are read (their values first). The loop over a
// list's items, with its checks and places, exists here once; a parser
// sets the fields, hands each list to Column, and finishes the records
// through Each.
type Records struct {
	Dec  *pyjson.Decoder
	Tick *Ticker
	// Lists reads lists of gaps on several cores; nil reads them one by one.
	Lists *GapLists
	// Hint, a count the file states before its lists, sizes the records on
	// first use, trusted up to Limit (a hostile file can claim billions).
	Hint, Limit int64
	// Bad is the parser's rejection of token tok at place (ItemPlace,
	// GapPlace or KeyPlace); Syntax its rejection of a decoder error there.
	Bad    func(place string, tok pyjson.Token, reason string) error
	Syntax func(place string, err error) error
	// Text keeps a request's non-empty error text; nil keeps it as it is.
	Text func([]byte) string
	// Compact keeps the records column by column, each list in a slice of
	// its own type and the error texts apart (about 68 bytes a request
	// with every list, against benchrun.Request's 96): Requests is then
	// nil and the records are read through Len and Row.
	Compact bool

	reqs   []benchrun.Request
	cols   columns
	n      int  // the count, once fixed (compact)
	fixed  bool // the first list has ended and set the count
	key    string
	have   [NumColumns]bool
	failed int64
}

// GapPlace is the place prefix of gap k of item i of a key's list.
func GapPlace(key string, i, k int) string { return fmt.Sprintf("key %q item %d gap %d, ", key, i, k) }

// Column reads the list that vt begins, key's value, into col.
func (rs *Records) Column(key string, col Column, vt pyjson.Token) error {
	if vt.Kind != pyjson.ArrayStart {
		return rs.Bad(KeyPlace(key), vt, fmt.Sprintf("expected a list, found %s", vt.Kind))
	}
	rs.have[col] = true
	if rs.Compact {
		rs.cols.open(col, rs.fixed, rs.n, rs.hint())
	}
	i := 0
	for ; ; i++ {
		if col == ColChunkGaps && rs.Lists != nil {
			// The bulk of a large file: read on several cores while the
			// layout allows, then item by item from where that stopped.
			if _, err := rs.Lists.Read(rs.Dec, i, func(g benchrun.GapStats) error {
				rs.setGaps(i, g)
				i++
				return rs.Tick.Tick()
			}); err != nil {
				return err
			}
		}
		if err := rs.Tick.Tick(); err != nil {
			return err
		}
		t, err := rs.Dec.Next()
		if err != nil {
			return rs.Syntax(ItemPlace(key, i), err)
		}
		if t.Kind == pyjson.ArrayEnd {
			break
		}
		if err := rs.item(key, col, i, t); err != nil {
			return err
		}
	}
	if !rs.fixed {
		rs.fixed, rs.key, rs.n = true, key, i
		return nil
	}
	if i != rs.Len() {
		return rs.Bad(KeyPlace(key), vt, fmt.Sprintf("per-request lists differ in length: %q has %d items but %q has %d",
			key, i, rs.key, rs.Len()))
	}
	return nil
}

// item reads item i of key's list, t its first token.
func (rs *Records) item(key string, col Column, i int, t pyjson.Token) error {
	switch col {
	case ColInputTokens, ColOutputTokens:
		n, err := Tokens(t)
		if err != nil {
			return rs.Bad(ItemPlace(key, i), t, err.Error())
		}
		if rs.Compact {
			rs.cols.setTokens(col, i, n, rs.fixed)
		} else if r := rs.slot(i); r != nil {
			if col == ColInputTokens {
				r.InputTokens = n
			} else {
				r.OutputTokens = n
			}
		}
	case ColTTFT, ColStart, ColLatency, ColQueueTime:
		v, err := Seconds(t)
		if err != nil {
			return rs.Bad(ItemPlace(key, i), t, err.Error())
		}
		if rs.Compact {
			rs.cols.setSeconds(col, i, v, rs.fixed)
		} else if r := rs.slot(i); r != nil {
			*secondsField(r, col) = v
		}
	case ColChunkGaps:
		g, err := Gaps(rs.Dec, t, rs.Tick, func(k int, tok pyjson.Token, reason string, syntax error) error {
			where := ItemPlace(key, i)
			if k >= 0 {
				where = GapPlace(key, i, k)
			}
			if syntax != nil {
				return rs.Syntax(where, syntax)
			}
			return rs.Bad(where, tok, reason)
		})
		if err != nil {
			return err
		}
		rs.setGaps(i, g)
	case ColErrorText:
		if t.Kind != pyjson.String {
			return rs.Bad(ItemPlace(key, i), t, fmt.Sprintf("expected a string, found %s", t.Kind))
		}
		if rs.Compact && !rs.fixed {
			rs.cols.grow(i)
		}
		if len(t.Bytes) == 0 {
			if !rs.Compact {
				rs.slot(i)
			}
			return nil
		}
		rs.failed++
		if rs.fixed && i >= rs.Len() {
			return nil
		}
		s := string(t.Bytes)
		if rs.Text != nil {
			s = rs.Text(t.Bytes)
		}
		if rs.Compact {
			rs.cols.setError(i, s)
		} else if r := rs.slot(i); r != nil {
			r.Error = s
		}
	}
	return nil
}

func (rs *Records) hint() int64 { return min(max(rs.Hint, 16), rs.Limit) }

// slot is request i's record (format.Slot).
func (rs *Records) slot(i int) *benchrun.Request {
	return format.Slot(&rs.reqs, rs.fixed, i, rs.Hint, rs.Limit)
}

func (rs *Records) setGaps(i int, g benchrun.GapStats) {
	if rs.Compact {
		rs.cols.setGaps(i, g, rs.fixed)
	} else if r := rs.slot(i); r != nil {
		r.Gaps = g
	}
}

func secondsField(r *benchrun.Request, col Column) *float64 {
	switch col {
	case ColTTFT:
		return &r.TTFT
	case ColStart:
		return &r.Start
	case ColLatency:
		return &r.Latency
	}
	return &r.QueueTime
}

// Fixed reports whether a list has been read whole and set the count.
func (rs *Records) Fixed() bool { return rs.fixed }

// Has reports whether col's list was read.
func (rs *Records) Has(col Column) bool { return rs.have[col] }

// Failed is how many non-empty error texts the errors list held.
func (rs *Records) Failed() int64 { return rs.failed }

// Len is the number of records.
func (rs *Records) Len() int {
	if rs.Compact {
		if rs.fixed {
			return rs.n
		}
		return rs.cols.n
	}
	return len(rs.reqs)
}

// Requests are the records as rows; nil when Compact.
func (rs *Records) Requests() []benchrun.Request { return rs.reqs }

// Row is record i.
func (rs *Records) Row(i int) benchrun.Request {
	if !rs.Compact {
		return rs.reqs[i]
	}
	return rs.cols.row(i)
}

// Rows are the records as format.Rows: the columns themselves when
// Compact (the decoder and the rest of Records are not kept).
func (rs *Records) Rows() format.Rows {
	if !rs.Compact {
		return requestRows(rs.reqs)
	}
	c := rs.cols
	return &compactRows{c: &c, n: rs.Len()}
}

type requestRows []benchrun.Request

func (r requestRows) Len() int                   { return len(r) }
func (r requestRows) Row(i int) benchrun.Request { return r[i] }

type compactRows struct {
	c *columns
	n int
}

func (r *compactRows) Len() int                   { return r.n }
func (r *compactRows) Row(i int) benchrun.Request { return r.c.row(i) }

// Each calls f with every record in order; what f changes is kept.
func (rs *Records) Each(f func(i int, r *benchrun.Request)) {
	if !rs.Compact {
		for i := range rs.reqs {
			f(i, &rs.reqs[i])
		}
		return
	}
	// One record handed to f, whatever the count: f may keep its address.
	var r, old benchrun.Request
	for i := range rs.Len() {
		r = rs.cols.row(i)
		old = r
		f(i, &r)
		rs.cols.set(i, &old, &r, rs.Len())
	}
}

// columns are compact records: a slice per list read (nil for a list the
// file lacks) and the error texts of failed requests by index.
type columns struct {
	n                           int // items of the first list so far
	in, out                     []int32
	ttft, start, latency, queue []float64
	gapCount                    []int32
	gapSum, gapMin, gapMax      []float64
	errIdx                      []int32 // ascending
	errText                     []string
}

// open makes col's slice: n items of their unknown value when the count is
// fixed, else empty with room for hint.
func (c *columns) open(col Column, fixed bool, n int, hint int64) {
	size := n
	if !fixed {
		size = 0
	}
	floats := func() []float64 {
		s := make([]float64, size, max(size, int(hint)))
		for i := range s {
			s[i] = benchrun.Unknown
		}
		return s
	}
	ints := func(v int32) []int32 {
		s := make([]int32, size, max(size, int(hint)))
		for i := range s {
			s[i] = v
		}
		return s
	}
	switch col {
	case ColInputTokens:
		c.in = ints(-1)
	case ColOutputTokens:
		c.out = ints(-1)
	case ColTTFT:
		c.ttft = floats()
	case ColStart:
		c.start = floats()
	case ColLatency:
		c.latency = floats()
	case ColQueueTime:
		c.queue = floats()
	case ColChunkGaps:
		c.gapCount, c.gapSum, c.gapMin, c.gapMax = ints(0), floats(), floats(), floats()
		for i := range c.gapSum {
			c.gapSum[i] = 0
		}
	}
}

// grow counts item i of the first list.
func (c *columns) grow(i int) { c.n = max(c.n, i+1) }

func (c *columns) tokens(col Column) *[]int32 {
	if col == ColOutputTokens {
		return &c.out
	}
	return &c.in
}

func (c *columns) seconds(col Column) *[]float64 {
	switch col {
	case ColTTFT:
		return &c.ttft
	case ColStart:
		return &c.start
	case ColLatency:
		return &c.latency
	}
	return &c.queue
}

// put stores item i of a list: appended while the first list sets the
// count, else in place (an item past the count is not kept).
func put[T any](s *[]T, i int, v T, fixed bool) {
	switch {
	case !fixed:
		*s = append(*s, v)
	case i < len(*s):
		(*s)[i] = v
	}
}

func (c *columns) setTokens(col Column, i int, v int32, fixed bool) {
	put(c.tokens(col), i, v, fixed)
	c.grow(i)
}

func (c *columns) setSeconds(col Column, i int, v float64, fixed bool) {
	put(c.seconds(col), i, v, fixed)
	c.grow(i)
}

func (c *columns) setGaps(i int, g benchrun.GapStats, fixed bool) {
	put(&c.gapCount, i, g.Count, fixed)
	put(&c.gapSum, i, g.Sum, fixed)
	put(&c.gapMin, i, g.Min, fixed)
	put(&c.gapMax, i, g.Max, fixed)
	c.grow(i)
}

// setError sets request i's error text ("" for none).
func (c *columns) setError(i int, s string) {
	k := len(c.errIdx)
	if k == 0 || int(c.errIdx[k-1]) < i {
		if s != "" {
			c.errIdx = append(c.errIdx, int32(i))
			c.errText = append(c.errText, s)
		}
		return
	}
	j := sort.Search(k, func(j int) bool { return int(c.errIdx[j]) >= i })
	switch {
	case j < k && int(c.errIdx[j]) == i && s != "":
		c.errText[j] = s
	case j < k && int(c.errIdx[j]) == i:
		c.errIdx = slices.Delete(c.errIdx, j, j+1)
		c.errText = slices.Delete(c.errText, j, j+1)
	case s != "":
		c.errIdx = slices.Insert(c.errIdx, j, int32(i))
		c.errText = slices.Insert(c.errText, j, s)
	}
}

func (c *columns) errorOf(i int) string {
	j := sort.Search(len(c.errIdx), func(j int) bool { return int(c.errIdx[j]) >= i })
	if j < len(c.errIdx) && int(c.errIdx[j]) == i {
		return c.errText[j]
	}
	return ""
}

// row assembles record i.
func (c *columns) row(i int) benchrun.Request {
	r := format.NewRequest(i)
	at := func(s []float64, v *float64) {
		if s != nil {
			*v = s[i]
		}
	}
	for _, col := range [...]Column{ColTTFT, ColStart, ColLatency, ColQueueTime} {
		at(*c.seconds(col), secondsField(&r, col))
	}
	if c.in != nil {
		r.InputTokens = c.in[i]
	}
	if c.out != nil {
		r.OutputTokens = c.out[i]
	}
	if c.gapCount != nil {
		r.Gaps = benchrun.GapStats{Count: c.gapCount[i], Sum: c.gapSum[i], Min: c.gapMin[i], Max: c.gapMax[i]}
	}
	r.Error = c.errorOf(i)
	return r
}

// keep sets item i of col's slice s, making the slice (n items) first when
// the file had no such list.
func keep[T any](c *columns, s *[]T, col Column, i, n int, v T) {
	if *s == nil {
		c.open(col, true, n, 0)
	}
	(*s)[i] = v
}

// set keeps what changed from old to r in record i of n, making a column
// that a change needs.
func (c *columns) set(i int, old, r *benchrun.Request, n int) {
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	for _, col := range [...]Column{ColTTFT, ColStart, ColLatency, ColQueueTime} {
		if v := *secondsField(r, col); !same(*secondsField(old, col), v) {
			keep(c, c.seconds(col), col, i, n, v)
		}
	}
	if r.InputTokens != old.InputTokens {
		keep(c, &c.in, ColInputTokens, i, n, r.InputTokens)
	}
	if r.OutputTokens != old.OutputTokens {
		keep(c, &c.out, ColOutputTokens, i, n, r.OutputTokens)
	}
	if og, g := old.Gaps, r.Gaps; og.Count != g.Count || !same(og.Sum, g.Sum) || !same(og.Min, g.Min) || !same(og.Max, g.Max) {
		if c.gapCount == nil {
			c.open(ColChunkGaps, true, n, 0)
		}
		c.gapCount[i], c.gapSum[i], c.gapMin[i], c.gapMax[i] = g.Count, g.Sum, g.Min, g.Max
	}
	if old.Error != r.Error {
		c.setError(i, r.Error)
	}
}
