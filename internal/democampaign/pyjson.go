package democampaign

import (
	"math"
	"strconv"
	"unicode/utf16"
)

// vLLM saves results with Python's json.dump(obj, f): one line, ", " and
// ": " separators, ASCII-only strings, floats as repr(float). pyJSON writes
// the same bytes from Go, so a generated file is indistinguishable in form
// from one the tool wrote. encoding/json differs on every one of those points
// (no spaces, HTML escaping, "1e-05" vs "0.00001", "1" vs "1.0").
type pyJSON struct {
	b     []byte
	first bool // no member written yet in the current object
}

func (w *pyJSON) open()  { w.b = append(w.b, '{'); w.first = true }
func (w *pyJSON) close() { w.b = append(w.b, '}') }

// key starts an object member.
func (w *pyJSON) key(k string) {
	if !w.first {
		w.b = append(w.b, ", "...)
	}
	w.first = false
	w.b = appendPyString(w.b, k)
	w.b = append(w.b, ": "...)
}

func (w *pyJSON) str(k, v string) { w.key(k); w.b = appendPyString(w.b, v) }
func (w *pyJSON) null(k string)   { w.key(k); w.b = append(w.b, "null"...) }
func (w *pyJSON) int(k string, v int) {
	w.key(k)
	w.b = strconv.AppendInt(w.b, int64(v), 10)
}
func (w *pyJSON) float(k string, v float64) { w.key(k); w.b = appendPyFloat(w.b, v) }

// optStr writes null for "" (Python None).
func (w *pyJSON) optStr(k, v string) {
	if v == "" {
		w.null(k)
		return
	}
	w.str(k, v)
}

func (w *pyJSON) ints(k string, vs []int) {
	w.key(k)
	w.b = append(w.b, '[')
	for i, v := range vs {
		if i > 0 {
			w.b = append(w.b, ", "...)
		}
		w.b = strconv.AppendInt(w.b, int64(v), 10)
	}
	w.b = append(w.b, ']')
}

func (w *pyJSON) floats(k string, vs []float64) {
	w.key(k)
	w.b = appendPyFloats(w.b, vs)
}

func (w *pyJSON) floatLists(k string, vss [][]float64) {
	w.key(k)
	w.b = append(w.b, '[')
	for i, vs := range vss {
		if i > 0 {
			w.b = append(w.b, ", "...)
		}
		w.b = appendPyFloats(w.b, vs)
	}
	w.b = append(w.b, ']')
}

func (w *pyJSON) strs(k string, vs []string) {
	w.key(k)
	w.b = append(w.b, '[')
	for i, v := range vs {
		if i > 0 {
			w.b = append(w.b, ", "...)
		}
		w.b = appendPyString(w.b, v)
	}
	w.b = append(w.b, ']')
}

func appendPyFloats(b []byte, vs []float64) []byte {
	b = append(b, '[')
	for i, v := range vs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendPyFloat(b, v)
	}
	return append(b, ']')
}

// appendPyFloat appends f as Python's repr(float) (and so json.dump) writes
// it: the shortest digits that read back as f; positional notation when
// 1e-4 <= |f| < 1e16, always with a fractional part ("1.0"); otherwise
// d[.ddd]e±XX with at least two exponent digits ("1e-05", "1.5e+16").
// Non-finite values come out as json.dump's NaN / Infinity / -Infinity.
func appendPyFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(b, "-0.0"...)
		}
		return append(b, "0.0"...)
	}
	// Shortest round-trip digits from strconv, then Python's layout rules.
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], math.Abs(f), 'e', -1, 64) // d.ddde±XX
	var digits [24]byte
	nd := 0
	i := 0
	for ; e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits[nd] = e[i]
			nd++
		}
	}
	exp, _ := strconv.Atoi(string(e[i+1:]))
	if f < 0 {
		b = append(b, '-')
	}
	// Python's rule (format_float_short, mode 'r'): with the value written
	// 0.DIGITS x 10^decpt, positional when -4 < decpt <= 16.
	decpt := exp + 1
	if decpt > -4 && decpt <= 16 {
		switch {
		case decpt <= 0:
			b = append(b, "0."...)
			for range -decpt {
				b = append(b, '0')
			}
			b = append(b, digits[:nd]...)
		case decpt >= nd:
			b = append(b, digits[:nd]...)
			for range decpt - nd {
				b = append(b, '0')
			}
			b = append(b, ".0"...)
		default:
			b = append(b, digits[:decpt]...)
			b = append(b, '.')
			b = append(b, digits[decpt:nd]...)
		}
		return b
	}
	b = append(b, digits[0])
	if nd > 1 {
		b = append(b, '.')
		b = append(b, digits[1:nd]...)
	}
	b = append(b, 'e')
	if exp < 0 {
		b = append(b, '-')
		exp = -exp
	} else {
		b = append(b, '+')
	}
	if exp < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, int64(exp), 10)
}

// appendPyString appends s quoted as json.dump does with ensure_ascii=True:
// only printable ASCII stays as is; \" \\ \n \r \t \b \f get short escapes;
// everything else becomes \uXXXX (lower-case hex, UTF-16 surrogate pairs
// beyond the BMP). "/" is not escaped, and neither are < > &.
func appendPyString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	u4 := func(b []byte, r rune) []byte {
		return append(b, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
	}
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"':
			b = append(b, '\\', '"')
		case r == '\\':
			b = append(b, '\\', '\\')
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r == '\b':
			b = append(b, '\\', 'b')
		case r == '\f':
			b = append(b, '\\', 'f')
		case r >= 0x20 && r <= 0x7e:
			b = append(b, byte(r))
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			b = u4(u4(b, r1), r2)
		default:
			b = u4(b, r)
		}
	}
	return append(b, '"')
}
