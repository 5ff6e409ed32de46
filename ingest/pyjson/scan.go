package pyjson

import (
	"fmt"
	"unicode/utf8"

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

// plain marks bytes that may appear unescaped in a string and need no
// further check: printable ASCII except '"' and '\\'.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool { return c-'0' < 10 || (c|0x20)-'a' < 6 }

// scanString scans string contents from b[i] (after the opening quote). It
// returns the index just past the closing quote (scanDone), the start of an
// incomplete escape or UTF-8 sequence at the end of b (scanMore), or the
// offending index (scanBad). escaped reports backslash escapes seen.
func scanString(b []byte, i int, eof bool) (j int, st scanStatus, escaped bool, msg string) {
	n := len(b)
	for {
		for i < n && plain[b[i]] {
			i++
		}
		if i == n {
			if eof {
				return i, scanBad, escaped, "unexpected end of input inside string"
			}
			return i, scanMore, escaped, ""
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, scanDone, escaped, ""
		case c == '\\':
			escaped = true
			if i+1 >= n {
				if eof {
					return i, scanBad, escaped, "unexpected end of input inside string escape"
				}
				return i, scanMore, escaped, ""
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for k := i + 2; k < i+6; k++ {
					if k >= n {
						if eof {
							return i, scanBad, escaped, "unexpected end of input inside \\u escape"
						}
						return i, scanMore, escaped, ""
					}
					if !isHex(b[k]) {
						return k, scanBad, escaped, "invalid \\u escape: expected a hex digit, found " + describe(b[k])
					}
				}
				i += 6
			default:
				return i, scanBad, escaped, "invalid escape \\" + string(rune(b[i+1]))
			}
		case c < 0x20:
			return i, scanBad, escaped, fmt.Sprintf("control character 0x%02x in string", c)
		default:
			if !utf8.FullRune(b[i:]) {
				if eof {
					return i, scanBad, escaped, "invalid UTF-8 in string"
				}
				return i, scanMore, escaped, ""
			}
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return i, scanBad, escaped, "invalid UTF-8 in string"
			}
			i += size
		}
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
		j, st, esc, msg := scanString(d.buf[:d.end], i, d.atEOF)
		escaped = escaped || esc
		switch st {
		case scanDone:
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
		case scanBad:
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
