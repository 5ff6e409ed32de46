// Package trace is the benchledger trace format (docs/trace-format.md), a
// per-request JSON Lines file: its reader, a format.Parser like any other,
// and its writer, which never writes what the reader would refuse. It
// stands apart from the batch pipeline, so exporting a trace needs only it.
package trace

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
	"github.com/benchledger/benchledger/provenance"
)

// NewParser returns the parser for benchledger's own per-request trace,
// "benchledger-trace" (docs/trace-format.md): JSON Lines, a header object on
// the first line, then one object per request in dispatch order. Custom
// clients write it, and so does Write.
func NewParser() format.Parser { return traceJSONL{} }

type traceJSONL struct{}

const (
	traceID = "benchledger-trace"
	// Version is the trace format version this package reads and writes.
	Version = 1
	// traceCtxEvery is how many requests pass between cancellation checks.
	traceCtxEvery = 1 << 12
	// Epoch start times must fall in [2000-01-01, 2100-01-01) UTC: outside
	// it they are a monotonic clock mislabelled, or milliseconds.
	traceEpochMin = 946684800
	traceEpochMax = 4102444800
	// traceTimeSlack absorbs the rounding of times written with six
	// decimals when a gap summary is compared with its own bounds.
	traceTimeSlack = 1e-6
	// traceMaxTime bounds any time or duration (300,000 years): beyond it
	// a value is garbage, and sums of such values lose all precision. Epoch
	// milliseconds stay below it, so the epoch check can name them.
	traceMaxTime = 1e13
)

// traceSlack is the tolerance when chunk gaps are compared with end −
// first_token near time t: a microsecond for six written decimals, plus a
// few float64 steps at t's magnitude. steps is larger on the writing side,
// which recomputes the times from start + ttft and may land a step away.
func traceSlack(t float64, steps float64) float64 {
	a := math.Abs(t)
	return traceTimeSlack + steps*(math.Nextafter(a, math.Inf(1))-a)
}

func (traceJSONL) ID() string       { return traceID }
func (traceJSONL) Describe() string { return "benchledger per-request JSONL trace" }

// Sniff reads the keys of the first line's object and looks for the version
// key. Writers put it first; any position within the first line counts.
func (traceJSONL) Sniff(name string, head []byte) bool {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	head = bytes.TrimLeft(head, " \t\r\n")
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	d, ok := jsonread.HeadObject(head)
	if !ok {
		return false
	}
	found := false
	jsonread.SniffObject(d, func(key string, _ pyjson.Token) bool {
		found = key == "benchledger_trace"
		return !found
	})
	return found
}

// Parse reads the header and every request line, then emits the one run.
func (traceJSONL) Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	p := &traceParser{
		ctx:    ctx,
		file:   name,
		d:      pyjson.NewDecoder(&jsonread.LineLimit{R: r}),
		extras: map[string]bool{},
	}
	run, err := p.parse()
	if err != nil {
		return err
	}
	return emit(run)
}

// traceParser reads one trace file.
type traceParser struct {
	ctx  context.Context
	file string
	d    *pyjson.Decoder

	run      *benchrun.Run
	hdr      traceHead
	cur      int // line of the object being read; 0 between objects
	rd       jsonread.Cursor
	prevLine int // line of the previous request, for the duplicate message

	errs     jsonread.ErrorTexts
	extras   map[string]bool // request keys this version does not read
	noTTFT   int             // completed requests without first_token
	noOutput int             // completed requests without output_tokens
}

// traceHead is what the header states that the request lines are checked
// against.
type traceHead struct {
	line     int
	clock    benchrun.Clock
	requests int64 // -1 when the header does not announce a count
	hasDate  bool
}

func (p *traceParser) errAt(line int, msgf string, args ...any) error {
	return format.Errorf(p.file, fmt.Sprintf("line %d", line), msgf, args...)
}

// syntax turns a decoder error into an InputError at its line.
func (p *traceParser) syntax(err error) error {
	return jsonread.LinesSyntax(p.file, p.cur, "not a JSON Lines trace", err)
}

// cursor reads the current line's object; its decoder errors are placed
// at the line (placed) where each loop returns, so a line costs no
// allocation.
func (p *traceParser) cursor() *jsonread.Cursor {
	if p.rd.Dec == nil {
		p.rd = jsonread.Cursor{Dec: p.d, File: p.file, Wrap: jsonread.Raw}
	}
	return &p.rd
}

func (p *traceParser) placed(err error) error { return jsonread.Placed(err, p.syntax) }

func (p *traceParser) next() (pyjson.Token, error) {
	tok, err := p.d.Next()
	if err != nil {
		return tok, p.syntax(err)
	}
	return tok, nil
}

// object starts the next line's object: it returns false at the end of the
// input. lastLine is the line the previous object ended on.
func (p *traceParser) object(lastLine int) (pyjson.Token, bool, error) {
	p.cur = 0
	tok, err := p.next()
	if err != nil {
		return tok, false, err
	}
	switch {
	case tok.Kind == pyjson.EOF:
		return tok, false, nil
	case tok.Line == lastLine:
		return tok, false, p.errAt(tok.Line, "a second JSON value on the line: a trace holds one object per line")
	case tok.Kind != pyjson.ObjectStart:
		return tok, false, p.errAt(tok.Line, "expected a JSON object, found %s", tok.Kind)
	}
	p.cur = tok.Line
	return tok, true, nil
}

// oneLine checks that an object ended on the line it began on.
func (p *traceParser) oneLine(start, end pyjson.Token) error {
	if end.Line != start.Line {
		return p.errAt(start.Line, "the object continues on line %d: a trace holds one object per line (JSON Lines)", end.Line)
	}
	return nil
}

func (p *traceParser) parse() (*benchrun.Run, error) {
	first, ok, err := p.object(0)
	if err != nil {
		return nil, err
	}
	if !ok {
		if first.Offset == 0 {
			return nil, format.Errorf(p.file, "", "the file is empty")
		}
		return nil, format.Errorf(p.file, "", "the file holds only whitespace, no header")
	}
	p.run = &benchrun.Run{
		Ordinal:          0,
		Location:         fmt.Sprintf("line %d", first.Line),
		Format:           traceID,
		PercentileMethod: "linear",
		Facts:            map[string]string{},
		Extra:            map[string]string{},
		HasRequests:      true,
	}
	end, err := p.header(first)
	if err != nil {
		return nil, err
	}
	if err := p.oneLine(first, end); err != nil {
		return nil, err
	}
	if p.hdr.requests > 0 {
		// Trusted only up to 4M requests: a hostile header could claim
		// billions; the records grow past that as they arrive.
		p.run.Requests = make([]benchrun.Request, 0, min(p.hdr.requests, 1<<22))
	}
	last := end.Line
	for {
		if len(p.run.Requests)%traceCtxEvery == 0 {
			if err := p.ctx.Err(); err != nil {
				return nil, err
			}
		}
		start, ok, err := p.object(last)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		end, err := p.request(start)
		if err != nil {
			return nil, err
		}
		if err := p.oneLine(start, end); err != nil {
			return nil, err
		}
		last = end.Line
	}
	return p.finish()
}

// traceString are the header keys holding text, and the provenance field
// each states.
var traceString = map[string]string{
	"client":         "measurement.client",
	"client_version": "measurement.client_version",
	"host":           "measurement.client_host",
	"model_id":       "checkpoint.model_id",
	"tokenizer":      "checkpoint.tokenizer",
	"label":          "measurement.label",
	"dataset":        "workload.dataset",
	"date":           "measurement.date",
}

// traceCount are the header keys holding a positive whole number.
var traceCount = map[string]string{
	"requests":                "workload.request_count",
	"max_concurrency":         "workload.concurrency",
	"requested_input_tokens":  "workload.input_len",
	"requested_output_tokens": "workload.output_len",
}

// header reads the header object whose '{' was first and returns its '}'.
func (p *traceParser) header(first pyjson.Token) (pyjson.Token, error) {
	line := first.Line
	p.hdr = traceHead{line: line, requests: -1}
	version := false
	seen := map[string]bool{}
	c := p.cursor()
	end, err := c.Keys(func(kt pyjson.Token) error {
		key := string(kt.Bytes)
		if seen[key] {
			return p.errAt(line, "header key %q appears twice", key)
		}
		seen[key] = true
		vt, err := c.Next("")
		if err != nil {
			return err
		}
		if vt.Kind == pyjson.Null {
			switch {
			case key == "benchledger_trace":
				return p.errAt(line, "the header's \"benchledger_trace\" version is null")
			case !slices.Contains(traceHeaderKeys, key):
				p.run.Extra[key] = "null"
			}
			return nil // a known key left unstated
		}
		return p.headerKey(line, key, vt, &version)
	})
	switch {
	case err != nil:
		return end, p.placed(err)
	case !version:
		return end, p.errAt(line, "not a benchledger trace header: no \"benchledger_trace\" version key (the first line must be the header)")
	case p.hdr.clock == benchrun.ClockNone:
		return end, p.errAt(line, "the header has no \"clock\": \"epoch\" or \"monotonic\"")
	case p.run.SourceTool == "":
		return end, p.errAt(line, "the header has no \"client\" naming the tool that wrote the trace")
	}
	return end, nil
}

func (p *traceParser) headerKey(line int, key string, vt pyjson.Token, version *bool) error {
	run := p.run
	bad := func(want string) error {
		return p.errAt(line, "header key %q must be %s, found %s", key, want, jsonread.Show(vt))
	}
	fact := func(field, value string) error {
		if err := provenance.Validate(provenance.Entry{Field: field, Value: value}); err != nil {
			return p.errAt(line, "header key %q: %v", key, err)
		}
		run.Facts[field] = value
		return nil
	}
	switch key {
	case "benchledger_trace":
		n, err := vt.Int()
		if vt.Kind != pyjson.Number || err != nil {
			return bad("the format version, an integer")
		}
		if n != Version {
			return p.errAt(line, "unsupported benchledger_trace version %d: this version of benchledger reads version %d", n, Version)
		}
		*version = true
		run.FormatVariant = "version " + strconv.Itoa(Version)
		return nil
	case "clock":
		if vt.Kind != pyjson.String {
			return bad(`"epoch" or "monotonic"`)
		}
		switch c := benchrun.Clock(vt.Bytes); c {
		case benchrun.ClockEpoch, benchrun.ClockMonotonic:
			p.hdr.clock = c
			run.Clock = c
			run.Facts["measurement.clock"] = string(c)
			return nil
		}
		return bad(`"epoch" or "monotonic"`)
	case "request_rate":
		switch {
		case vt.Kind == pyjson.String && string(vt.Bytes) == "inf":
			return fact("workload.request_rate", "inf")
		case vt.Kind == pyjson.Number:
			v, err := vt.Float()
			if err != nil || math.IsNaN(v) || v <= 0 {
				return bad(`a positive number or "inf"`)
			}
			if math.IsInf(v, 1) {
				return fact("workload.request_rate", "inf")
			}
			return fact("workload.request_rate", strconv.FormatFloat(v, 'g', -1, 64))
		}
		return bad(`a positive number or "inf"`)
	case "fixed_output":
		if vt.Kind != pyjson.True && vt.Kind != pyjson.False {
			return bad("true or false")
		}
		return fact("workload.fixed_output", strconv.FormatBool(vt.Kind == pyjson.True))
	case "temperature":
		v, err := vt.Float()
		if vt.Kind != pyjson.Number || err != nil || vt.NonFinite() || v < 0 {
			return bad("a number ≥ 0")
		}
		return fact("workload.temperature", strconv.FormatFloat(v, 'g', -1, 64))
	case "seed":
		n, err := vt.Int()
		if vt.Kind != pyjson.Number || err != nil {
			return bad("an integer")
		}
		return fact("workload.seed", strconv.FormatInt(n, 10))
	case "metadata":
		return p.metadata(line, vt)
	}
	if field, ok := traceString[key]; ok {
		if vt.Kind != pyjson.String {
			return bad("a string")
		}
		s := strings.TrimSpace(string(vt.Bytes))
		if s == "" {
			if key == "client" {
				return p.errAt(line, "the header's \"client\" is empty: name the tool that wrote the trace")
			}
			return nil // an empty text states nothing
		}
		if key == "client" {
			run.SourceTool = s
		}
		if key == "date" {
			p.hdr.hasDate = true
		}
		return fact(field, s)
	}
	if field, ok := traceCount[key]; ok {
		n, err := vt.Int()
		if vt.Kind != pyjson.Number || err != nil || n < 1 {
			return bad("a positive integer")
		}
		if key == "requests" {
			p.hdr.requests = n
		}
		return fact(field, strconv.FormatInt(n, 10))
	}
	// Anything else is kept as written.
	raw, size, err := p.d.Capture(vt, jsonread.ExtraLimit, nil)
	if err != nil {
		return p.syntax(err)
	}
	if size > jsonread.ExtraLimit {
		run.Extra[key] = jsonread.OversizeNote(size)
	} else {
		run.Extra[key] = string(raw)
	}
	return nil
}

// metadata reads the header's "metadata" object: free-form pairs, stated as
// metadata.<key> facts.
func (p *traceParser) metadata(line int, vt pyjson.Token) error {
	if vt.Kind != pyjson.ObjectStart {
		return p.errAt(line, "header key \"metadata\" must be an object of strings, found %s", jsonread.Show(vt))
	}
	c := p.cursor()
	_, err := c.Object(nil, func(m jsonread.Member) error {
		key, v := m.Key, m.Value
		var s string
		switch v.Kind {
		case pyjson.String, pyjson.Number:
			s = strings.TrimSpace(string(v.Bytes))
		case pyjson.True, pyjson.False:
			s = strconv.FormatBool(v.Kind == pyjson.True)
		case pyjson.Null:
			return nil
		default:
			return p.errAt(line, "header \"metadata\" key %q must be a string, found %s", key, v.Kind)
		}
		if strings.TrimSpace(key) == "" {
			return p.errAt(line, "header \"metadata\" has an empty key")
		}
		if s != "" {
			p.run.Facts["metadata."+key] = s
		}
		return nil
	})
	return p.placed(err)
}

// traceReq is one request line as read, before its checks.
type traceReq struct {
	i                                      int64
	start, firstToken, end, queue          float64
	hasI, hasStart, hasFirst, hasEnd, hasQ bool
	in, out                                int64 // -1 unknown
	errText                                string
	failed                                 bool
	gaps                                   benchrun.GapStats
	hasGaps, hasITL                        bool
}

// Request keys, as bits for the duplicate check.
const (
	tkI = 1 << iota
	tkStart
	tkFirst
	tkEnd
	tkIn
	tkOut
	tkError
	tkQueue
	tkGaps
	tkITL
)

var traceReqKeys = map[string]int{
	"i": tkI, "start": tkStart, "first_token": tkFirst, "end": tkEnd, "input_tokens": tkIn,
	"output_tokens": tkOut, "error": tkError, "queue_time": tkQueue, "gaps": tkGaps, "itl": tkITL,
}

// request reads one request object whose '{' was first and returns its '}'.
func (p *traceParser) request(first pyjson.Token) (pyjson.Token, error) {
	line := first.Line
	q := traceReq{in: -1, out: -1, gaps: benchrun.GapStats{Min: benchrun.Unknown, Max: benchrun.Unknown}}
	seen := 0
	c := p.cursor()
	end, err := c.Keys(func(kt pyjson.Token) error {
		bit, known := traceReqKeys[string(kt.Bytes)]
		if known && seen&bit != 0 {
			return p.errAt(line, "key %q appears twice in one request", kt.Bytes)
		}
		seen |= bit
		if !known && len(p.extras) < 16 && !p.extras[string(kt.Bytes)] {
			p.extras[string(kt.Bytes)] = true // now: the token's bytes last until the next call
		}
		vt, err := c.Next("")
		if err != nil {
			return err
		}
		if !known {
			return c.Skip("", vt)
		}
		return p.reqKey(line, bit, &q, vt)
	})
	if err != nil {
		return end, p.placed(err)
	}
	return end, p.addRequest(line, &q)
}

func (p *traceParser) reqKey(line, bit int, q *traceReq, vt pyjson.Token) error {
	switch bit {
	case tkI:
		n, err := vt.Int()
		if vt.Kind != pyjson.Number || err != nil || n < 0 {
			return p.errAt(line, "\"i\" must be a request index, an integer ≥ 0, found %s", jsonread.Show(vt))
		}
		q.i, q.hasI = n, true
	case tkStart, tkFirst, tkEnd, tkQueue:
		name := "start"
		switch bit {
		case tkFirst:
			name = "first_token"
		case tkEnd:
			name = "end"
		case tkQueue:
			name = "queue_time"
		}
		if vt.Kind == pyjson.Null {
			return nil
		}
		v, err := p.seconds(line, name, vt)
		if err != nil {
			return err
		}
		switch bit {
		case tkStart:
			q.start, q.hasStart = v, true
		case tkFirst:
			q.firstToken, q.hasFirst = v, true
		case tkEnd:
			q.end, q.hasEnd = v, true
		default:
			q.queue, q.hasQ = v, true
		}
	case tkIn, tkOut:
		name := "input_tokens"
		if bit == tkOut {
			name = "output_tokens"
		}
		if vt.Kind == pyjson.Null {
			return nil
		}
		n, err := p.tokens(line, name, vt)
		if err != nil {
			return err
		}
		if bit == tkIn {
			q.in = n
		} else {
			q.out = n
		}
	case tkError:
		switch vt.Kind {
		case pyjson.Null:
		case pyjson.String:
			if len(vt.Bytes) > 0 {
				q.failed = true
				q.errText = p.errs.Intern(vt.Bytes)
			}
		default:
			return p.errAt(line, "\"error\" must be null or a string, found %s", jsonread.Show(vt))
		}
	case tkGaps:
		if vt.Kind == pyjson.Null {
			return nil
		}
		g, err := p.gapSummary(line, vt)
		if err != nil {
			return err
		}
		q.gaps, q.hasGaps = g, true
	case tkITL:
		if vt.Kind == pyjson.Null {
			return nil
		}
		g, err := p.itl(line, vt)
		if err != nil {
			return err
		}
		q.gaps, q.hasITL = g, true
	}
	return nil
}

// seconds reads a time or duration: a finite number of seconds.
func (p *traceParser) seconds(line int, name string, vt pyjson.Token) (float64, error) {
	if vt.Kind != pyjson.Number {
		return 0, p.errAt(line, "%q must be a number of seconds, found %s", name, jsonread.Show(vt))
	}
	if vt.NonFinite() {
		return 0, p.errAt(line, "%q is %s: not a time", name, vt.Bytes)
	}
	v, err := vt.Float()
	if err != nil {
		return 0, p.errAt(line, "%q: %v", name, err)
	}
	if v < 0 {
		return 0, p.errAt(line, "%q is negative (%s)", name, vt.Bytes)
	}
	if v > traceMaxTime {
		return 0, p.errAt(line, "%q of %s s is not a plausible time", name, vt.Bytes)
	}
	return v, nil
}

// tokens reads a token count.
func (p *traceParser) tokens(line int, name string, vt pyjson.Token) (int64, error) {
	if vt.Kind != pyjson.Number {
		return 0, p.errAt(line, "%q must be a token count, found %s", name, jsonread.Show(vt))
	}
	n, err := vt.Int()
	if err != nil {
		// Tolerate 256.0 for 256; refuse 2.5 and non-finite values.
		f, ferr := vt.Float()
		if ferr != nil || vt.NonFinite() || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return 0, p.errAt(line, "%q must be a whole token count, found %s", name, vt.Bytes)
		}
		n = int64(f)
	}
	if n < 0 {
		return 0, p.errAt(line, "%q is negative (%d)", name, n)
	}
	if n > math.MaxInt32 {
		return 0, p.errAt(line, "%q of %d is implausibly large", name, n)
	}
	return n, nil
}

// gapSummary reads {"n": N, "sum": S, "min": A, "max": B}.
func (p *traceParser) gapSummary(line int, vt pyjson.Token) (benchrun.GapStats, error) {
	g := benchrun.GapStats{Min: benchrun.Unknown, Max: benchrun.Unknown}
	if vt.Kind != pyjson.ObjectStart {
		return g, p.errAt(line, "\"gaps\" must be an object {\"n\", \"sum\", \"min\", \"max\"}, found %s", jsonread.Show(vt))
	}
	n := int64(-1)
	var sum float64
	hasSum := false
	c := p.cursor()
	_, err := c.Keys(func(kt pyjson.Token) error {
		key := string(kt.Bytes) // on the stack: it does not escape
		v, err := c.Next("")
		if err != nil {
			return err
		}
		switch key {
		case "n":
			count, err := v.Int()
			if v.Kind != pyjson.Number || err != nil || count < 0 || count > math.MaxInt32 {
				return p.errAt(line, "\"gaps\" \"n\" must be a count of gaps, found %s", jsonread.Show(v))
			}
			n = count
		case "sum", "min", "max":
			if v.Kind == pyjson.Null {
				return nil
			}
			name := "gaps sum"
			switch key {
			case "min":
				name = "gaps min"
			case "max":
				name = "gaps max"
			}
			s, err := p.seconds(line, name, v)
			if err != nil {
				return err
			}
			switch key {
			case "sum":
				sum, hasSum = s, true
			case "min":
				g.Min = s
			default:
				g.Max = s
			}
		default:
			return c.Skip("", v)
		}
		return nil
	})
	if err != nil {
		return g, p.placed(err)
	}
	switch {
	case n < 0:
		return g, p.errAt(line, "\"gaps\" has no \"n\"")
	case n == 0:
		if hasSum && sum != 0 {
			return g, p.errAt(line, "\"gaps\" has n 0 but a sum of %g s", sum)
		}
		return benchrun.GapStats{Min: benchrun.Unknown, Max: benchrun.Unknown}, nil
	case !hasSum || !benchrun.IsKnown(g.Min) || !benchrun.IsKnown(g.Max):
		return g, p.errAt(line, "\"gaps\" with n %d needs \"sum\", \"min\" and \"max\"", n)
	case g.Min > g.Max:
		return g, p.errAt(line, "\"gaps\" min %g s is above max %g s", g.Min, g.Max)
	}
	fn := float64(n)
	if mean := sum / fn; mean < g.Min-traceTimeSlack || mean > g.Max+traceTimeSlack {
		return g, p.errAt(line, "\"gaps\" mean %g s (sum / n) is outside [min, max] = [%g, %g]", mean, g.Min, g.Max)
	}
	g.Count, g.Sum = int32(n), sum
	return g, nil
}

// itl reduces a full list of chunk gaps to its summary as it streams past.
func (p *traceParser) itl(line int, vt pyjson.Token) (benchrun.GapStats, error) {
	g := benchrun.GapStats{Min: benchrun.Unknown, Max: benchrun.Unknown}
	if vt.Kind != pyjson.ArrayStart {
		return g, p.errAt(line, "\"itl\" must be a list of gaps in seconds, found %s", jsonread.Show(vt))
	}
	for k := 0; ; k++ {
		e, err := p.next()
		if err != nil {
			return g, err
		}
		if e.Kind == pyjson.ArrayEnd {
			return g, nil
		}
		v, err := p.seconds(line, fmt.Sprintf("itl item %d", k), e)
		if err != nil {
			return g, err
		}
		if g.Count == math.MaxInt32 {
			return g, p.errAt(line, "too many gaps in one request")
		}
		g.Add(v)
		if g.Sum > traceMaxTime {
			return g, p.errAt(line, "\"itl\" gaps add up to more than %g s", float64(traceMaxTime))
		}
	}
}

// addRequest checks one request line and appends its record.
func (p *traceParser) addRequest(line int, q *traceReq) error {
	want := int64(len(p.run.Requests))
	switch {
	case !q.hasI:
		return p.errAt(line, "the request has no \"i\" (its index in dispatch order)")
	case q.i == want-1:
		return p.errAt(line, "duplicate request index i=%d (line %d has it too)", q.i, p.prevLine)
	case q.i != want:
		return p.errAt(line, "request index i=%d out of order: expected i=%d (request lines are in dispatch order, i = 0, 1, 2, ... without gaps)", q.i, want)
	case q.hasGaps && q.hasITL:
		return p.errAt(line, "request i=%d has both \"gaps\" and \"itl\": give one of them", q.i)
	}
	if !q.hasStart {
		return p.errAt(line, "request i=%d has no \"start\"", q.i)
	}
	if reason := traceCheckTimes(p.hdr.clock, q.start, q.firstToken, q.end, q.hasFirst, q.hasEnd, q.failed); reason != "" {
		return p.errAt(line, "request i=%d: %s", q.i, reason)
	}
	r := benchrun.Request{
		Index: int(q.i), Start: q.start, QueueTime: benchrun.Unknown, TTFT: benchrun.Unknown,
		Latency: benchrun.Unknown, InputTokens: int32(q.in), OutputTokens: int32(q.out),
		Error: q.errText, Gaps: q.gaps,
	}
	if q.hasFirst {
		r.TTFT = q.firstToken - q.start
	}
	if q.hasEnd {
		r.Latency = q.end - q.start
	}
	if q.hasQ {
		r.QueueTime = q.queue
	}
	if q.gaps.Count > 0 && q.hasFirst && q.hasEnd && q.gaps.Sum > q.end-q.firstToken+traceSlack(q.end, 4) {
		return p.errAt(line, "request i=%d: its chunk gaps add up to %g s, more than end − first_token = %g s", q.i, q.gaps.Sum, q.end-q.firstToken)
	}
	if !q.failed {
		if !q.hasFirst {
			p.noTTFT++
		}
		if q.out < 0 {
			p.noOutput++
		}
	}
	p.run.Requests = append(p.run.Requests, r)
	p.prevLine = line
	return nil
}

// traceCheckTimes returns why a request's times are invalid, or "". The
// reader and the writer share it, so Write never writes what Parse
// refuses.
func traceCheckTimes(clock benchrun.Clock, start, first, end float64, hasFirst, hasEnd, failed bool) string {
	for _, v := range []struct {
		name string
		v    float64
		has  bool
	}{{"start", start, true}, {"first_token", first, hasFirst}, {"end", end, hasEnd}} {
		if v.has && (math.IsNaN(v.v) || math.IsInf(v.v, 0) || v.v < 0 || v.v > traceMaxTime) {
			return fmt.Sprintf("%q %g is not a time", v.name, v.v)
		}
	}
	if clock == benchrun.ClockEpoch && (start < traceEpochMin || start >= traceEpochMax) {
		return fmt.Sprintf("start %s is not epoch seconds between 2000 and 2100 (a monotonic clock, or milliseconds?)", formatTraceFloat(start))
	}
	if !hasEnd && !failed {
		return "a completed request needs \"end\" (only a failed request, with an \"error\", may leave it null)"
	}
	if hasEnd && end < start {
		return fmt.Sprintf("end %s is before start %s", formatTraceFloat(end), formatTraceFloat(start))
	}
	if hasFirst && (first < start || hasEnd && first > end) {
		hi := "end"
		if hasEnd {
			hi = formatTraceFloat(end)
		}
		return fmt.Sprintf("first_token %s is outside [start, end] = [%s, %s]", formatTraceFloat(first), formatTraceFloat(start), hi)
	}
	return ""
}

// finish checks the run as a whole and fills its counts, facts and notes.
func (p *traceParser) finish() (*benchrun.Run, error) {
	run := p.run
	n := int64(len(run.Requests))
	if n == 0 {
		return nil, p.errAt(p.hdr.line, "run has no requests: the file holds a header and no request lines")
	}
	if p.hdr.requests >= 0 && p.hdr.requests != n {
		return nil, p.errAt(p.hdr.line, "the header announces %d requests but the file holds %d request lines (is it truncated?)", p.hdr.requests, n)
	}
	run.Facts["workload.request_count"] = strconv.FormatInt(n, 10)
	var failed int64
	first := math.Inf(1)
	for i := range run.Requests {
		if run.Requests[i].Failed() {
			failed++
		}
		first = min(first, run.Requests[i].Start)
	}
	run.Failed, run.Completed = failed, n-failed
	if p.hdr.clock == benchrun.ClockEpoch && !p.hdr.hasDate {
		sec, frac := math.Modf(first)
		t := time.Unix(int64(sec), int64(frac*1e9)).UTC()
		run.Facts["measurement.date"] = t.Format(time.RFC3339)
		p.note("measurement.date is the earliest request start (epoch clock), in UTC")
	}
	if p.noTTFT > 0 {
		p.note("%d completed requests have no first_token: their TTFT is unknown", p.noTTFT)
	}
	if p.noOutput > 0 {
		p.note("%d completed requests have no output_tokens: their output is not counted", p.noOutput)
	}
	if p.errs.Cut > 0 {
		p.note("%d error texts longer than %d bytes are kept shortened (whole in the raw bytes)", p.errs.Cut, jsonread.ErrorMax)
	}
	if len(p.extras) > 0 {
		keys := slices.Sorted(maps.Keys(p.extras))
		p.note("request lines carry keys this version does not read, kept in the raw bytes only: %s", strings.Join(keys, ", "))
	}
	return run, nil
}

func (p *traceParser) note(msgf string, args ...any) {
	p.run.Notes = append(p.run.Notes, fmt.Sprintf(msgf, args...))
}
