package pyjson

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// strconv.ParseFloat spends most of its time on the general case; the
// numbers benchmark files hold are short decimals (Python's shortest repr
// of a float: at most 17 significant digits, decimal exponent around -20 to
// +10). parseFloat converts exactly those with integer arithmetic and
// leaves everything else to strconv, so the result is always the correctly
// rounded float64.

// pow10f holds the powers of ten that float64 represents exactly.
var pow10f = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// pow10u holds the powers of ten that fit in a uint64.
var pow10u = func() (t [20]uint64) {
	t[0] = 1
	for i := 1; i < len(t); i++ {
		t[i] = t[i-1] * 10
	}
	return t
}()

// parseFloat converts a number literal that the tokenizer validated. ok is
// false when the literal is outside the fast cases (a mantissa beyond 64
// bits, a large decimal exponent, NaN, Infinity); the caller then uses
// strconv.ParseFloat.
func parseFloat(b []byte) (f float64, ok bool) {
	i := 0
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg = true
		i++
	}
	start := i
	i, m, ok := digits(b, i, 0)
	if !ok || i == start {
		return 0, false // beyond 64 bits; NaN, Infinity
	}
	exp := 0
	if i < len(b) && b[i] == '.' {
		start = i + 1
		if i, m, ok = digits(b, start, m); !ok {
			return 0, false
		}
		exp = start - i
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		e := 0
		for ; i < len(b) && isDigit(b[i]); i++ {
			if e < 10000 {
				e = e*10 + int(b[i]-'0')
			}
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != len(b) {
		return 0, false
	}
	switch {
	case m == 0:
		f = 0
	case m <= 1<<53 && exp >= -22 && exp <= 22:
		// Both operands are exact, so one IEEE operation rounds correctly.
		f = float64(m)
		if exp < 0 {
			f /= pow10f[-exp]
		} else {
			f *= pow10f[exp]
		}
	case exp < 0 && exp >= -19:
		if f, ok = divPow10(m, -exp); !ok {
			return 0, false
		}
	case exp >= 0 && exp <= 19:
		if f, ok = mulRound(m, pow10u[exp]); !ok {
			return 0, false
		}
	default:
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}

// eightDigits converts eight ASCII digits, loaded little-endian (first
// digit in the low byte), to their value with three multiplications
// instead of eight: bytes are combined pairwise, then the pairs.
func eightDigits(v uint64) uint64 {
	v -= 0x3030303030303030
	v = v*10 + v>>8 // bytes 0, 2, 4, 6 now hold two-digit values
	const mask = 0x000000FF000000FF
	v = ((v&mask)*(100+1000000<<32) + (v>>16&mask)*(1+10000<<32)) >> 32
	return v
}

// inv10 holds, for k = 1..19, 2^s/10^k rounded down to 128 bits (hi, lo)
// with its top bit set, and s.
var inv10 = func() (t [20]struct {
	hi, lo uint64
	s      int
}) {
	for k := 1; k < len(t); k++ {
		p := pow10u[k]
		s := 127 + bits.Len64(p)
		// Long division of the 192-bit 2^s by p, word by word.
		var w [3]uint64
		w[2-s/64] = 1 << (s % 64)
		var q [3]uint64
		var r uint64
		for i := range w {
			q[i], r = bits.Div64(r, w[i], p)
		}
		t[k].hi, t[k].lo, t[k].s = q[1], q[2], s
	}
	return t
}()

// divPow10 returns m/10^k correctly rounded, for m > 0 and 1 <= k <= 19.
// It multiplies m, shifted left until its top bit is set, by inv10[k]:
// the top 64 bits of the 192-bit product are the quotient's leading bits,
// truncated, and the true quotient is above the product (the reciprocal
// is rounded down) by less than one unit of their last bit. So the
// quotient is never exactly the product, and the rounding is the
// product's unless the bits below the 53 kept are one unit short of half
// way (a tie, or just below or above one): then divRound decides exactly.
// This is the idea of Eisel and Lemire's algorithm for divisors that are
// powers of ten below 10^20: two multiplications instead of divRound's
// 128-bit division.
func divPow10(m uint64, k int) (float64, bool) {
	r := &inv10[k]
	z := bits.LeadingZeros64(m)
	mm := m << z
	h1, _ := bits.Mul64(mm, r.lo)
	h2, l2 := bits.Mul64(mm, r.hi)
	mid, c := bits.Add64(l2, h1, 0)
	top := h2 + c
	e2 := 128 - r.s - z
	if top>>63 == 0 {
		top = top<<1 | mid>>63
		e2--
	}
	const drop = 64 - 53
	const half = 1 << (drop - 1)
	if top&(1<<drop-1) == half-1 {
		return divRound(m, pow10u[k])
	}
	// What lies below top is not zero (sticky).
	return round(top, true, e2)
}

// divRound returns m/p correctly rounded, for m > 0 and p a power of ten.
// It divides m·2^s by p in 128 bits with s chosen so the quotient has 63 or
// 64 bits; the remainder decides rounding exactly.
func divRound(m, p uint64) (float64, bool) {
	s := 63 + bits.Len64(p) - bits.Len64(m) // 0..126
	var hi, lo uint64
	switch {
	case s >= 64:
		hi = m << (s - 64)
	case s == 0:
		lo = m
	default:
		hi, lo = m>>(64-s), m<<s
	}
	// hi < p holds because m·2^s < 2^(63+Len(p)), so Div64 cannot overflow.
	q, r := bits.Div64(hi, lo, p)
	e2 := -s
	if q>>63 == 0 {
		q <<= 1
		e2--
	}
	return round(q, r != 0, e2)
}

// mulRound returns m·p correctly rounded.
func mulRound(m, p uint64) (float64, bool) {
	hi, lo := bits.Mul64(m, p)
	if hi == 0 {
		if lo <= 1<<53 {
			return float64(lo), true
		}
		z := bits.LeadingZeros64(lo)
		return round(lo<<z, false, -z)
	}
	z := bits.LeadingZeros64(hi)
	top := hi<<z | lo>>(64-z)
	return round(top, lo<<z != 0, 64-z)
}

// round returns (top + δ)·2^e2 rounded to nearest even, where top has its
// highest bit set and sticky says whether δ, the part below top's last bit
// (less than 1), is non-zero.
func round(top uint64, sticky bool, e2 int) (float64, bool) {
	const drop = 64 - 53
	mant := top >> drop
	rem := top & (1<<drop - 1)
	const half = 1 << (drop - 1)
	if rem > half || (rem == half && (sticky || mant&1 == 1)) {
		mant++
		if mant == 1<<53 {
			mant >>= 1
			e2++
		}
	}
	// mant is in [2^52, 2^53): the value is 1.f × 2^(52+drop+e2).
	biased := 52 + drop + e2 + 1023
	if biased < 1 || biased > 2046 {
		return 0, false // subnormal or overflow: leave it to strconv
	}
	return math.Float64frombits(uint64(biased)<<52 | mant&(1<<52-1)), true
}

// number reads the number at the start of b in the form Python writes
// the values of a latency list, -?(0|[1-9][0-9]*)(\.[0-9]+)? followed by
// ',' or ']', and converts it: it checks and converts in one pass, eight
// digits at a time, what scanNumber and parseFloat do in two. ok is false
// for anything else (an exponent, a mantissa beyond 64 bits, another byte
// after it, a malformed number): the caller then uses scanNumber and
// parseFloat, whose results and errors are the reference; for the numbers
// number takes, its float and length are theirs.
func number(b []byte) (f float64, n int, ok bool) {
	i := 0
	neg := false
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	if i >= len(b) || !isDigit(b[i]) {
		return 0, 0, false
	}
	var m uint64
	if b[i] == '0' {
		i++
	} else if i, m, ok = digits(b, i, 0); !ok {
		return 0, 0, false
	}
	exp := 0
	if i < len(b) && b[i] == '.' {
		start := i + 1
		if i, m, ok = digits(b, start, m); !ok || i == start {
			return 0, 0, false
		}
		exp = start - i
	}
	if i >= len(b) || b[i] != ',' && b[i] != ']' {
		return 0, 0, false
	}
	switch {
	case m == 0:
		f = 0
	case m <= 1<<53 && exp >= -22:
		f = float64(m) / pow10f[-exp]
	case exp < 0 && exp >= -19:
		if f, ok = divPow10(m, -exp); !ok {
			return 0, 0, false
		}
	default:
		return 0, 0, false
	}
	if neg {
		f = -f
	}
	return f, i, true
}

// digits appends the decimal digits at b[i:] to m, eight at a time while
// eight bytes remain, and returns the index past them; ok is false when m
// would overflow.
func digits(b []byte, i int, m uint64) (int, uint64, bool) {
	for i+8 <= len(b) {
		v := binary.LittleEndian.Uint64(b[i:])
		// A byte is a digit when its high nibble is 3, also after adding 6
		// (which carries into the next byte only from a non-digit).
		const hiNibbles, threes, sixes = 0xF0F0F0F0F0F0F0F0, 0x3030303030303030, 0x0606060606060606
		x := (v&hiNibbles ^ threes) | ((v+sixes)&hiNibbles ^ threes)
		c := bits.TrailingZeros64(x) >> 3 // digits before the first other byte
		if c == 0 {
			return i, m, true
		}
		if c < 8 {
			// The c digits last, after leading '0's.
			v = v<<(8*(8-c)) | threes>>(8*c)
		}
		hi, lo := bits.Mul64(m, pow10u[c])
		lo, carry := bits.Add64(lo, eightDigits(v), 0)
		if hi != 0 || carry != 0 {
			return i, m, false
		}
		m = lo
		i += c
		if c < 8 {
			return i, m, true
		}
	}
	for ; i < len(b) && isDigit(b[i]); i++ {
		hi, lo := bits.Mul64(m, 10)
		lo, carry := bits.Add64(lo, uint64(b[i]-'0'), 0)
		if hi != 0 || carry != 0 {
			return i, m, false
		}
		m = lo
	}
	return i, m, true
}
