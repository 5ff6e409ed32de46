package pyjson

// NextFloat is Next followed by Token.Float for the bulk of a latency list,
// in one pass over the bytes: when the decoder is inside an array and its
// buffer holds the next element whole, written as Python writes a float or
// an integer without an exponent and followed directly by ',' or ']' (see
// number), it consumes the element (with the ',' and the whitespace before
// it), and returns the token Next would have returned and the value Float
// would have, with ok true. Otherwise it consumes nothing and ok is false:
// the caller calls Next and Float, whose tokens, values and errors are the
// reference (an exponent, NaN, Infinity, a value cut by the end of the
// buffer, anything that is not a number, the end of the array).
func (d *Decoder) NextFloat() (tok Token, v float64, ok bool) {
	if d.err != nil || (d.state != stArrayNext && d.state != stArrayFirst) {
		return Token{}, 0, false
	}
	buf := d.buf[:d.end]
	p, line := d.pos, d.line
	if d.state == stArrayNext {
		if p < len(buf) && buf[p] == ',' {
			p++ // the common case: no whitespace before the ','
		} else if p, line = skipSpace(buf, p, line); p < len(buf) && buf[p] == ',' {
			p++
		} else {
			return Token{}, 0, false
		}
	}
	if p < len(buf) && buf[p] == ' ' {
		p++
	}
	p, line = skipSpace(buf, p, line)
	v, n, ok := number(buf[p:])
	if !ok {
		return Token{}, 0, false
	}
	d.tokStart, d.pos, d.line, d.state = p, p+n, line, stArrayNext
	return Token{Kind: Number, Line: line, Offset: d.base + int64(p), Bytes: buf[p : p+n]}, v, true
}

// skipSpace returns the index of the first byte at or after b[i] that is
// not whitespace as space reads it (len(b) if none), and line advanced by
// the newlines passed.
func skipSpace(b []byte, i, line int) (int, int) {
	for ; i < len(b); i++ {
		switch b[i] {
		case ' ', '\t', '\r':
		case '\n':
			line++
		default:
			return i, line
		}
	}
	return i, line
}
