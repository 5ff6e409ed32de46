package pyjson

import (
	"fmt"

	"github.com/benchledger/benchledger/internal/jsonstr"
)

type scanStatus uint8

const (
	scanDone scanStatus = iota
	scanMore            // ran out of buffered bytes; read more and rescan
	scanBad
)

func isDigit(c byte) bool { return c-'0' < 10 }

// scanNumber scans a JSON number at the start of b. At the end of b with
// eof false it asks for more, since the number may continue.
func scanNumber(b []byte, eof bool) (int, scanStatus, string) {
	n := len(b)
	i := 0
	complete := false // b[:i] is a whole number by itself
	if b[0] == '-' {
		i++
		if i == n {
			goto end
		}
	}
	switch c := b[i]; {
	case c == '0':
		i++
	case c >= '1' && c <= '9':
		i++
		for i < n && isDigit(b[i]) {
			i++
		}
	default:
		return i, scanBad, "invalid number: expected a digit, found " + describe(c)
	}
	complete = true
	if i == n {
		goto end
	}
	if b[i] == '.' {
		complete = false
		i++
		if i == n {
			goto end
		}
		if !isDigit(b[i]) {
			return i, scanBad, "invalid number: expected a digit after '.', found " + describe(b[i])
		}
		for i < n && isDigit(b[i]) {
			i++
		}
		complete = true
		if i == n {
			goto end
		}
	}
	if b[i] == 'e' || b[i] == 'E' {
		complete = false
		i++
		if i == n {
			goto end
		}
		if b[i] == '+' || b[i] == '-' {
			i++
			if i == n {
				goto end
			}
		}
		if !isDigit(b[i]) {
			return i, scanBad, "invalid number: expected a digit in the exponent, found " + describe(b[i])
		}
		for i < n && isDigit(b[i]) {
			i++
		}
		complete = true
		if i == n {
			goto end
		}
	}
	if !delim(b[i]) {
		return i, scanBad, "invalid number: unexpected " + describe(b[i])
	}
	return i, scanDone, ""
end:
	switch {
	case !eof:
		return i, scanMore, ""
	case complete:
		return i, scanDone, ""
	}
	return i, scanBad, "unexpected end of input inside number"
}

func (d *Decoder) number() (Token, error) {
	start := d.pos
	for {
		if start+1 < d.end && d.buf[start] == '-' && d.buf[start+1] == 'I' {
			d.pos = start
			return d.literal("-Infinity", Number)
		}
		n, st, msg := scanNumber(d.buf[start:d.end], d.atEOF)
		switch st {
		case scanDone:
			d.tokStart = start
			d.pos = start + n
			d.afterValue()
			return Token{Kind: Number, Line: d.line, Offset: d.base + int64(start), Bytes: d.buf[start : start+n]}, nil
		case scanBad:
			return d.fail(start+n, msg)
		}
		shift, err := d.fill(start)
		if err != nil {
			return Token{}, err
		}
		start -= shift
	}
}

// str reads a string or key starting at the opening quote at d.pos. When
// skipping, it streams: only an incomplete escape or UTF-8 sequence is kept
// across refills. Otherwise the whole string must fit in the buffer (which
// grows up to maxToken).
func (d *Decoder) str(skip bool, k Kind) (Token, error) {
	start := d.pos
	line := d.line
	d.tokStart = start
	off := d.base + int64(start)
	i := start + 1
	escaped := false
	for {
		j, st, esc, msg := jsonstr.Scan(d.buf[:d.end], i, d.atEOF)
		escaped = escaped || esc
		switch st {
		case jsonstr.Done:
			d.pos = j
			if skip {
				return Token{Kind: k, Line: line, Offset: off}, nil
			}
			raw := d.buf[start+1 : j-1]
			if escaped {
				d.scratch = jsonstr.Unescape(d.scratch[:0], raw)
				raw = d.scratch
			}
			return Token{Kind: k, Line: line, Offset: off, Bytes: raw}, nil
		case jsonstr.Bad:
			return d.fail(j, msg)
		}
		keep := start
		if skip {
			keep = j
		} else if d.base+int64(j)-off > int64(d.maxToken) {
			return d.fail(start, fmt.Sprintf("string longer than %d bytes", d.maxToken))
		}
		shift, err := d.fill(keep)
		if err != nil {
			return Token{}, err
		}
		start -= shift
		i = j - shift
	}
}
