// Package pyjson is a streaming JSON tokenizer for the files Python's json
// module writes: standard JSON plus the bare NaN, Infinity and -Infinity
// tokens json.dump emits by default, and a top-level sequence of values
// separated by whitespace (vLLM --append-result, SGLang JSONL) as well as a
// single value.
//
// It exists because benchmark files reach a gigabyte and hold tens of
// millions of numbers: the Decoder reads through a large buffer, scans bytes
// directly, hands out tokens that point into that buffer (no allocation per
// token), and can skip or capture a value of any size without building it.
// Every token and every error carries its byte offset and line.
package pyjson

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unsafe"

	"github.com/benchledger/benchledger/internal/jsonstr"
)

// Kind is the kind of a Token.
type Kind uint8

const (
	// EOF: the input ended after a complete top-level value (or was empty).
	EOF Kind = iota
	ObjectStart
	ObjectEnd
	ArrayStart
	ArrayEnd
	// Key is an object key; Bytes holds it decoded.
	Key
	// String is a string value; Bytes holds it decoded.
	String
	// Number is a number literal, including NaN, Infinity and -Infinity;
	// Bytes holds the literal as written.
	Number
	True
	False
	Null
)

var kindNames = [...]string{
	EOF: "end of input", ObjectStart: "object", ObjectEnd: "end of object",
	ArrayStart: "array", ArrayEnd: "end of array", Key: "key", String: "string",
	Number: "number", True: "boolean", False: "boolean", Null: "null",
}

// String names the kind as a message would: "object", "number", ...
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Token is one lexical token. Bytes points into the Decoder's buffer and is
// valid only until the next call on the Decoder.
type Token struct {
	Kind   Kind
	Line   int   // 1-based line of the token's first byte
	Offset int64 // byte offset of the token's first byte in the input
	Bytes  []byte
}

// Float parses a Number token. NaN and ±Infinity are returned as such; a
// literal beyond float64's range is an error.
func (t Token) Float() (float64, error) {
	if t.Kind != Number {
		return 0, fmt.Errorf("expected a number, found %s", t.Kind)
	}
	if v, ok := parseFloat(t.Bytes); ok {
		return v, nil
	}
	// ParseFloat does not retain its argument, so a view of the buffer
	// avoids an allocation per number.
	v, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(t.Bytes), len(t.Bytes)), 64)
	if err != nil {
		return v, fmt.Errorf("number %s is out of range", t.Bytes)
	}
	return v, nil
}

// Int parses a Number token that is an integer literal (no fraction or
// exponent) fitting in int64.
func (t Token) Int() (int64, error) {
	if t.Kind != Number {
		return 0, fmt.Errorf("expected an integer, found %s", t.Kind)
	}
	b := t.Bytes
	// Small non-negative integers dominate (token counts): parse them inline.
	if len(b) > 0 && len(b) <= 18 && b[0] != '-' {
		var v int64
		for _, c := range b {
			if c < '0' || c > '9' {
				return 0, fmt.Errorf("expected an integer, found %s", b)
			}
			v = v*10 + int64(c-'0')
		}
		return v, nil
	}
	v, err := strconv.ParseInt(unsafe.String(unsafe.SliceData(b), len(b)), 10, 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("integer %s is out of range", b)
		}
		return 0, fmt.Errorf("expected an integer, found %s", b)
	}
	return v, nil
}

// NonFinite reports whether a Number token is NaN, Infinity or -Infinity.
func (t Token) NonFinite() bool {
	if t.Kind != Number || len(t.Bytes) == 0 {
		return false
	}
	c := t.Bytes[0]
	if c == '-' && len(t.Bytes) > 1 {
		c = t.Bytes[1]
	}
	return c == 'N' || c == 'I'
}

// Text returns a String or Key token's decoded text as a new string, or a
// Number's literal.
func (t Token) Text() string { return string(t.Bytes) }

// Error is a syntax or read error at a place in the input.
type Error struct {
	Offset int64
	Line   int
	Msg    string
	Err    error // the reader's error, for read failures
}

func (e *Error) Error() string {
	return fmt.Sprintf("byte %d (line %d): %s", e.Offset, e.Line, e.Msg)
}

func (e *Error) Unwrap() error { return e.Err }

// Place is "byte N (line L)", for messages that add their own context.
func (e *Error) Place() string { return fmt.Sprintf("byte %d (line %d)", e.Offset, e.Line) }

const (
	// DefaultBufferSize is the read buffer: large, so that refills (and the
	// copy of a partial token they imply) are rare.
	DefaultBufferSize = 1 << 20
	// DefaultMaxDepth bounds nesting so hostile input cannot exhaust memory.
	DefaultMaxDepth = 512
	// DefaultMaxToken bounds one token returned by Next (a string or key,
	// which must be whole in memory). Skip and Capture stream strings of
	// any length.
	DefaultMaxToken   = 64 << 20
	minBufferSize     = 16
	initialBufferSize = 64 << 10
)

type state uint8

const (
	stTop         state = iota // a top-level value or the end of input
	stArrayFirst               // a value or ']'
	stArrayNext                // ',' or ']'
	stObjectFirst              // a key or '}'
	stObjectNext               // ',' or '}'
	stColon                    // ':' then a value
)

// Decoder reads tokens from an io.Reader.
type Decoder struct {
	r       io.Reader
	buf     []byte
	pos     int   // next unread byte in buf
	end     int   // end of the data in buf
	base    int64 // input offset of buf[0]
	line    int
	atEOF   bool
	err     error // sticky: once set, every call returns it
	state   state
	stack   []byte // open containers, '{' or '['
	bom     bool   // the start of input was checked for a byte-order mark
	scratch []byte // decoded strings that contained escapes

	tokStart int // buf index of the last token's first byte

	capOn    bool
	capFrom  int // buf index from which consumed bytes still need copying
	capDst   []byte
	capLimit int
	capSize  int64

	maxDepth int
	maxToken int
	target   int  // buffer size to grow to once the input outgrows the first buffer
	borrowed bool // buf is an Input's bytes, read in place (NewDecoderSize)
}

// Input is a byte slice that a Decoder reads in place instead of copying
// it into a buffer of its own: a file read whole (an ingest of 1,000
// ordinary files allocated, cleared and copied 290 MB for those buffers).
// Its bytes must stay unchanged until the Decoder is done. To any other
// reader it is a bytes.Reader.
type Input struct {
	*bytes.Reader
	b []byte
}

// NewInput returns an Input of b.
func NewInput(b []byte) *Input { return &Input{Reader: bytes.NewReader(b), b: b} }

// NewDecoder returns a Decoder with a DefaultBufferSize buffer.
func NewDecoder(r io.Reader) *Decoder { return NewDecoderSize(r, DefaultBufferSize) }

// NewDecoderSize returns a Decoder with a buffer of size bytes (at least
// 16). Small sizes are for short inputs and for tests of refills.
//
// An input that tells its length (a bytes.Reader over a file read whole)
// gets a buffer of that length at once, when it is below size: a batch of
// 1,000 small files otherwise allocated, cleared and refilled a full-size
// buffer for each.
func NewDecoderSize(r io.Reader, size int) *Decoder {
	in, inPlace := r.(*Input)
	// An Input not read from yet is the whole input already: the Decoder
	// reads it all at once, where it lies, as it would read it to its end.
	inPlace = inPlace && len(in.b) > 0 && in.Len() == len(in.b)
	// Start small so that parsing many small files does not allocate a
	// large buffer each; fill grows it once the input proves long.
	first := initialBufferSize
	switch l, ok := r.(interface{ Len() int }); {
	case inPlace:
		size = len(in.b)
	case ok && l.Len() < size:
		size = l.Len() + 1 // + 1: the read that finds the end
		first = size
	}
	size = max(size, minBufferSize)
	d := &Decoder{
		r:        r,
		target:   size,
		line:     1,
		maxDepth: DefaultMaxDepth,
		maxToken: max(DefaultMaxToken, size),
		stack:    make([]byte, 0, 16),
	}
	if inPlace {
		in.Seek(0, io.SeekEnd)
		d.buf, d.borrowed, d.end, d.atEOF = in.b, true, len(in.b), true
	} else {
		d.buf = make([]byte, min(size, first))
	}
	return d
}

// SetMaxDepth sets the deepest nesting accepted (default 512).
func (d *Decoder) SetMaxDepth(n int) { d.maxDepth = max(n, 1) }

// SetMaxToken sets the longest key or string Next returns whole (default
// 64 MiB). The buffer grows up to this size when a string needs it.
func (d *Decoder) SetMaxToken(n int) { d.maxToken = max(n, len(d.buf)) }

// Depth is the number of open objects and arrays.
func (d *Decoder) Depth() int { return len(d.stack) }

// InputOffset is the offset of the next unread byte.
func (d *Decoder) InputOffset() int64 { return d.base + int64(d.pos) }

// Line is the line of the next unread byte.
func (d *Decoder) Line() int { return d.line }

// Next returns the next token. At the end of input after complete values
// it returns a token of Kind EOF and a nil error; malformed or truncated
// input gives an *Error.
func (d *Decoder) Next() (Token, error) { return d.next(false) }

// Skip consumes the rest of the value that begins with first, which must be
// the token Next just returned: for an object or array everything up to its
// end, for anything else nothing. Strings inside are validated but not
// kept, so a value of any size is skipped in constant memory.
func (d *Decoder) Skip(first Token) error {
	if first.Kind != ObjectStart && first.Kind != ArrayStart {
		return nil
	}
	target := len(d.stack) - 1
	for len(d.stack) > target {
		if _, err := d.next(true); err != nil {
			return err
		}
	}
	return nil
}

// SkipOut consumes tokens until the decoder is back at depth (Depth()
// before the object or array it is inside was opened): a parser that
// refuses a value in the middle of one run's object resumes at the next
// run. Strings are validated but not kept.
func (d *Decoder) SkipOut(depth int) error {
	for len(d.stack) > depth {
		if _, err := d.next(true); err != nil {
			return err
		}
	}
	return nil
}

// Capture consumes the value that begins with first (the token Next just
// returned) like Skip and appends its raw JSON text to dst, keeping at most
// limit bytes. It returns dst and the value's full size in bytes; size >
// limit means dst holds only the first limit bytes of the value.
func (d *Decoder) Capture(first Token, limit int, dst []byte) ([]byte, int64, error) {
	if d.err != nil {
		return dst, 0, d.err
	}
	d.capOn, d.capFrom, d.capDst, d.capLimit, d.capSize = true, d.tokStart, dst, max(limit, 0), 0
	err := d.Skip(first)
	d.flushCapture(d.pos)
	d.capOn = false
	dst, d.capDst = d.capDst, nil
	return dst, d.capSize, err
}

func (d *Decoder) flushCapture(upto int) {
	if upto <= d.capFrom {
		return
	}
	chunk := d.buf[d.capFrom:upto]
	if room := d.capLimit - int(min(d.capSize, int64(d.capLimit))); room > 0 {
		d.capDst = append(d.capDst, chunk[:min(room, len(chunk))]...)
	}
	d.capSize += int64(len(chunk))
	d.capFrom = upto
}

// fill compacts the buffer so that buf[keep:end] moves to the front, then
// reads more input. It returns how far indices into buf moved down. The
// caller checks d.atEOF when nothing new arrived.
func (d *Decoder) fill(keep int) (int, error) {
	if d.atEOF {
		return 0, nil
	}
	if d.capOn {
		d.flushCapture(keep)
	}
	size := len(d.buf)
	if d.end-keep == size {
		// One token fills the whole buffer: grow, within the token limit.
		if size >= d.maxToken {
			return 0, d.failAt(d.base+int64(keep), fmt.Sprintf("token longer than %d bytes", d.maxToken))
		}
		size = min(2*size, d.maxToken)
	}
	if d.end == len(d.buf) && size < d.target {
		// The input outgrew the first, small buffer: move to the full size.
		size = d.target
	}
	if keep > 0 || size != len(d.buf) || d.borrowed {
		nb := d.buf
		if size != len(d.buf) || d.borrowed {
			// An Input's bytes are the caller's: never written.
			nb = make([]byte, size)
			d.borrowed = false
		}
		d.end = copy(nb, d.buf[keep:d.end])
		d.buf = nb
		d.base += int64(keep)
		d.pos -= keep
		d.tokStart -= keep
		d.capFrom -= keep
	}
	for tries := 0; ; tries++ {
		n, err := d.r.Read(d.buf[d.end:])
		d.end += n
		if err == io.EOF {
			d.atEOF = true
			return keep, nil
		}
		if err != nil {
			d.err = &Error{Offset: d.base + int64(d.end), Line: d.line, Msg: "reading input: " + err.Error(), Err: err}
			return keep, d.err
		}
		if n > 0 {
			return keep, nil
		}
		if tries > 100 {
			d.err = &Error{Offset: d.base + int64(d.end), Line: d.line, Msg: "reading input: " + io.ErrNoProgress.Error(), Err: io.ErrNoProgress}
			return keep, d.err
		}
	}
}

func (d *Decoder) failAt(off int64, msg string) error {
	if d.err == nil {
		d.err = &Error{Offset: off, Line: d.line, Msg: msg}
	}
	return d.err
}

func (d *Decoder) fail(i int, msg string) (Token, error) {
	return Token{}, d.failAt(d.base+int64(i), msg)
}

// space skips whitespace, counting lines, and returns the next byte without
// consuming it; ok is false at the end of input.
func (d *Decoder) space() (c byte, ok bool, err error) {
	for {
		buf := d.buf[:d.end]
		for i := d.pos; i < len(buf); i++ {
			c := buf[i]
			if c > ' ' {
				d.pos = i
				return c, true, nil
			}
			switch c {
			case ' ', '\t', '\r':
			case '\n':
				d.line++
			default:
				d.pos = i
				return c, true, nil
			}
		}
		d.pos = d.end
		if d.atEOF {
			return 0, false, nil
		}
		if _, err := d.fill(d.pos); err != nil {
			return 0, false, err
		}
		if d.pos == d.end && d.atEOF {
			return 0, false, nil
		}
	}
}

func (d *Decoder) inside() string {
	if len(d.stack) == 0 {
		return "at top level"
	}
	if d.stack[len(d.stack)-1] == '{' {
		return "inside object"
	}
	return "inside array"
}

func describe(c byte) string { return jsonstr.DescribeByte(c) }

func (d *Decoder) next(skip bool) (Token, error) {
	// Fast path for the bulk of a benchmark file: the next number in an
	// array of numbers, written by Python as ", 0.0123".
	if d.state == stArrayNext && d.err == nil {
		buf := d.buf[:d.end]
		if p := d.pos; p+2 < len(buf) && buf[p] == ',' {
			p++
			if buf[p] == ' ' {
				p++
			}
			if c := buf[p]; c-'0' < 10 || (c == '-' && p+1 < len(buf) && buf[p+1] != 'I') {
				if n, st, _ := scanNumber(buf[p:], d.atEOF); st == scanDone {
					d.tokStart, d.pos = p, p+n
					return Token{Kind: Number, Line: d.line, Offset: d.base + int64(p), Bytes: buf[p : p+n]}, nil
				}
			}
		}
	}
	return d.nextSlow(skip)
}

func (d *Decoder) nextSlow(skip bool) (Token, error) {
	if d.err != nil {
		return Token{}, d.err
	}
	if !d.bom {
		d.bom = true
		if err := d.skipBOM(); err != nil {
			return Token{}, err
		}
	}
	c, ok, err := d.space()
	if err != nil {
		return Token{}, err
	}
	if !ok {
		if d.state == stTop {
			d.tokStart = d.pos
			return Token{Kind: EOF, Line: d.line, Offset: d.base + int64(d.pos)}, nil
		}
		return d.fail(d.pos, "unexpected end of input "+d.inside())
	}
	switch d.state {
	case stTop, stArrayFirst:
		if c == ']' && d.state == stArrayFirst {
			return d.close(ArrayEnd)
		}
		return d.value(c, skip)
	case stArrayNext:
		switch c {
		case ',':
			d.pos++
			if c, err = d.afterComma(); err != nil {
				return Token{}, err
			}
			return d.value(c, skip)
		case ']':
			return d.close(ArrayEnd)
		}
		return d.fail(d.pos, "expected ',' or ']' after an array element, found "+describe(c))
	case stObjectNext:
		switch c {
		case ',':
			d.pos++
			if c, err = d.afterComma(); err != nil {
				return Token{}, err
			}
			if c != '"' {
				return d.fail(d.pos, "expected a string key after ',' in object, found "+describe(c))
			}
			return d.key(skip)
		case '}':
			return d.close(ObjectEnd)
		}
		return d.fail(d.pos, "expected ',' or '}' after an object value, found "+describe(c))
	case stObjectFirst:
		switch c {
		case '"':
			return d.key(skip)
		case '}':
			return d.close(ObjectEnd)
		}
		return d.fail(d.pos, "expected a string key or '}' in object, found "+describe(c))
	default: // stColon
		if c != ':' {
			return d.fail(d.pos, "expected ':' after object key, found "+describe(c))
		}
		d.pos++
		c, ok, err = d.space()
		if err != nil {
			return Token{}, err
		}
		if !ok {
			return d.fail(d.pos, "unexpected end of input after object key")
		}
		return d.value(c, skip)
	}
}

func (d *Decoder) skipBOM() error {
	for d.end-d.pos < 3 && !d.atEOF {
		if _, err := d.fill(d.pos); err != nil {
			return err
		}
	}
	if d.end-d.pos >= 3 && d.buf[d.pos] == 0xef && d.buf[d.pos+1] == 0xbb && d.buf[d.pos+2] == 0xbf {
		d.pos += 3
	}
	return nil
}

func (d *Decoder) afterComma() (byte, error) {
	c, ok, err := d.space()
	if err != nil {
		return 0, err
	}
	if !ok {
		_, err = d.fail(d.pos, "unexpected end of input "+d.inside())
		return 0, err
	}
	return c, nil
}

func (d *Decoder) close(k Kind) (Token, error) {
	d.tokStart = d.pos
	tok := Token{Kind: k, Line: d.line, Offset: d.base + int64(d.pos)}
	d.pos++
	d.stack = d.stack[:len(d.stack)-1]
	d.afterValue()
	return tok, nil
}

// afterValue sets what may follow a complete value.
func (d *Decoder) afterValue() {
	switch {
	case len(d.stack) == 0:
		d.state = stTop
	case d.stack[len(d.stack)-1] == '[':
		d.state = stArrayNext
	default:
		d.state = stObjectNext
	}
}

func (d *Decoder) open(c byte, k Kind, st state) (Token, error) {
	if len(d.stack) >= d.maxDepth {
		return d.fail(d.pos, fmt.Sprintf("nesting deeper than %d levels", d.maxDepth))
	}
	d.tokStart = d.pos
	tok := Token{Kind: k, Line: d.line, Offset: d.base + int64(d.pos)}
	d.pos++
	d.stack = append(d.stack, c)
	d.state = st
	return tok, nil
}

func (d *Decoder) value(c byte, skip bool) (Token, error) {
	switch c {
	case '{':
		return d.open('{', ObjectStart, stObjectFirst)
	case '[':
		return d.open('[', ArrayStart, stArrayFirst)
	case '"':
		tok, err := d.str(skip, String)
		if err == nil {
			d.afterValue()
		}
		return tok, err
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return d.number()
	case 'N':
		return d.literal("NaN", Number)
	case 'I':
		return d.literal("Infinity", Number)
	case 't':
		return d.literal("true", True)
	case 'f':
		return d.literal("false", False)
	case 'n':
		return d.literal("null", Null)
	}
	return d.fail(d.pos, "unexpected "+describe(c)+" where a value should start "+d.inside())
}

func (d *Decoder) key(skip bool) (Token, error) {
	tok, err := d.str(skip, Key)
	if err == nil {
		d.state = stColon
	}
	return tok, err
}

// delim reports whether c may follow a number or literal.
func delim(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ',', ']', '}', ':':
		return true
	}
	// Containers and strings self-delimit, so a top-level sequence such
	// as 1[2] or 1"a" still reads unambiguously; the grammar rejects them
	// inside containers anyway.
	return c == '[' || c == '{' || c == '"'
}

func (d *Decoder) literal(lit string, k Kind) (Token, error) {
	start := d.pos
	for d.end-start < len(lit)+1 && !d.atEOF {
		shift, err := d.fill(start)
		if err != nil {
			return Token{}, err
		}
		start -= shift
	}
	n := 0
	for n < len(lit) && start+n < d.end && d.buf[start+n] == lit[n] {
		n++
	}
	if n < len(lit) {
		if start+n == d.end {
			return d.fail(start+n, "unexpected end of input inside "+strconv.Quote(lit))
		}
		return d.fail(start+n, "invalid literal: expected "+strconv.Quote(lit))
	}
	if start+n < d.end && !delim(d.buf[start+n]) {
		return d.fail(start+n, "unexpected "+describe(d.buf[start+n])+" after "+lit)
	}
	d.tokStart = start
	d.pos = start + n
	d.afterValue()
	return Token{Kind: k, Line: d.line, Offset: d.base + int64(start), Bytes: d.buf[start : start+n]}, nil
}
