// Package jsonw writes JSON values by appending to a byte slice, with the
// exact bytes encoding/json's Marshal gives (HTML-safe escaping included),
// for pages that write the same small objects thousands of times and
// cannot afford reflection on each. Two other string escapings are options:
// encoding/json's without HTML escaping (Run.Extra), and the minimal one of
// the benchledger trace.
package jsonw

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
)

// ErrNotFinite: JSON has no NaN or infinity (json.Marshal refuses them too).
var ErrNotFinite = errors.New("jsonw: NaN or infinite number")

// Escaping is how AppendStringAs escapes a string.
type Escaping uint8

const (
	// HTMLSafe is json.Marshal's: <, > and & escaped for embedding in HTML,
	// U+2028 and U+2029 escaped for script, invalid UTF-8 replaced by
	// \ufffd.
	HTMLSafe Escaping = iota
	// NoHTML is encoding/json's Encoder with SetEscapeHTML(false): as
	// HTMLSafe but <, > and & kept, the text Python's json module writes
	// and reads back. Run.Extra is written so.
	NoHTML
	// Minimal escapes what JSON requires and DEL: \", \\, \n, \r, \t, other
	// control characters and DEL as \u00XX; UTF-8 (U+2028 too) is kept as
	// is and an invalid byte becomes U+FFFD itself. The benchledger trace is
	// written so: one record a line, readable in a terminal.
	Minimal
)

// plain[e][c] is whether ASCII byte c needs no escaping under e.
var plain = func() (t [3][utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		ok := c != '"' && c != '\\'
		t[HTMLSafe][c] = ok && c != '<' && c != '>' && c != '&'
		t[NoHTML][c] = ok
		t[Minimal][c] = ok && c != 0x7f
	}
	return t
}()

// AppendString writes s as json.Marshal does: <, > and & escaped for
// embedding in HTML, U+2028 and U+2029 escaped for script, invalid UTF-8
// replaced by \ufffd.
func AppendString(b []byte, s string) []byte { return AppendStringAs(b, s, HTMLSafe) }

// AppendStrings writes ss as json.Marshal writes a []string: a list of
// AppendString's strings, or null for a nil list.
func AppendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, s)
	}
	return append(b, ']')
}

// AppendStringAs writes s as a JSON string with the escaping e.
func AppendStringAs(b []byte, s string, e Escaping) []byte {
	const hex = "0123456789abcdef"
	safe := &plain[e]
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if safe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\b' && e != Minimal:
				b = append(b, '\\', 'b')
			case c == '\f' && e != Minimal:
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			if e == Minimal {
				b = append(b, "\ufffd"...)
			} else {
				b = append(b, `\ufffd`...)
			}
			i += size
			start = i
			continue
		}
		if (r == '\u2028' || r == '\u2029') && e != Minimal {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendFloat writes f as json.Marshal writes a float64: the shortest
// decimal, with an exponent below 1e-6 and from 1e21.
func AppendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, ErrNotFinite
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 is written e-9, as encoding/json does.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}
