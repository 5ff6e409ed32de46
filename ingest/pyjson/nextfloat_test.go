package pyjson

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll reads in to its end, or its first error, and writes down every
// token (kind, place, bytes, the value of a number or Float's error) and
// the decoder's place after it. With fast, each token is first asked of
// NextFloat, and of Next and Float only when NextFloat leaves it; taken
// counts the tokens NextFloat took. The reader hides its length, so a small
// size really is the buffer's size.
func readAll(in []byte, r io.Reader, size int, fast bool) (out string, taken int) {
	if r == nil {
		r = struct{ io.Reader }{bytes.NewReader(in)}
	}
	d := NewDecoderSize(r, size)
	var sb strings.Builder
	for {
		tok, v, ok := Token{}, 0.0, false
		var ferr error
		if fast {
			tok, v, ok = d.NextFloat()
		}
		if ok {
			taken++
		} else {
			var err error
			if tok, err = d.Next(); err != nil {
				fmt.Fprintf(&sb, "error %v\n", err)
				// The error sticks, and NextFloat does not hide it.
				if _, _, ok := d.NextFloat(); ok {
					sb.WriteString(afterError)
				}
				if _, err2 := d.Next(); err2 != err {
					fmt.Fprintf(&sb, "error then %v\n", err2)
				}
				return sb.String(), taken
			}
			if tok.Kind == Number {
				v, ferr = tok.Float()
			}
		}
		fmt.Fprintf(&sb, "%s %d:%d %q", tok.Kind, tok.Line, tok.Offset, tok.Bytes)
		if tok.Kind == Number {
			// Capture of a number consumes nothing more and gives its text.
			text, size, err := d.Capture(tok, 64, nil)
			fmt.Fprintf(&sb, " %x %v captured %q %d %v", math.Float64bits(v), ferr, text, size, err)
		}
		fmt.Fprintf(&sb, " | at %d line %d depth %d\n", d.InputOffset(), d.Line(), d.Depth())
		if tok.Kind == EOF {
			return sb.String(), taken
		}
	}
}

const afterError = "NextFloat took a token after an error\n"

// checkNextFloat: NextFloat then Next and Float read in as Next and Float
// alone do, token by token, value by value, error by error, with buffers
// of every size from the smallest up (a value cut by the buffer's end at
// each of its bytes), one byte per read, and the default buffer. It
// returns how many tokens NextFloat took with the default buffer.
func checkNextFloat(t *testing.T, in []byte, sizes []int) int {
	t.Helper()
	try := func(r func() io.Reader, size int) int {
		slow, _ := readAll(in, r(), size, false)
		fast, taken := readAll(in, r(), size, true)
		if slow != fast || strings.Contains(fast, afterError) {
			t.Fatalf("%q, buffer %d: Next and Float read\n%s\nNextFloat first read\n%s", in, size, slow, fast)
		}
		return taken
	}
	hidden := func() io.Reader { return nil }
	for _, size := range sizes {
		try(hidden, size)
	}
	try(func() io.Reader { return iotest.OneByteReader(bytes.NewReader(in)) }, 64)
	try(func() io.Reader { return iotest.HalfReader(bytes.NewReader(in)) }, 64)
	return try(func() io.Reader { return bytes.NewReader(in) }, DefaultBufferSize)
}

func smallSizes() []int {
	var s []int
	for n := minBufferSize; n <= 48; n++ {
		s = append(s, n)
	}
	return s
}

// TestNextFloatAsNextAndFloat: hostile lists read the same with and without
// the one-pass path, and the path takes the ordinary numbers.
func TestNextFloatAsNextAndFloat(t *testing.T) {
	cases := []struct {
		in    string
		taken int // tokens NextFloat takes with the default buffer
	}{
		{`[0.006205926008988172, 0.006311136996373534, 0.0424214510130696]`, 3},
		{`[[0.1, 0.2], [], [0.3]]`, 3},
		{`[1, 20, 300, 0, -0, -0.0, 0.0, -1.5]`, 8},
		{`[1,2,3]`, 3},
		{"[\n    0.1,\n    0.2,\n    0.3\n]", 2},   // the last is followed by a newline
		{"[ 0.1, 0.2\t,\t0.3 ,\r\n0.4,\t0.5 ]", 2}, // a number followed by whitespace is Next's
		{"[0.1,\n\n\n0.2, \n 0.3]", 3},
		{`[1e-7, 1E5, 2.5e+3, 0.5, 1.5e-05]`, 1},
		{`[0.5, NaN, Infinity, -Infinity, 0.25]`, 2},
		{`[12345678901234567890123, 0.1234567890123456789012345, 0.00000000000000000000123, 18446744073709551616, 1.5]`, 1},
		{`[9007199254740993, 0.9999999999999999, 0.99999999999999999, 1.0000000000000002]`, 3},
		{`[1e400, -1e400, 1e-400, 0.5]`, 1},
		{`[0.5, "0.5", null, true, false, {"a": 0.5}, [0.5], 0.5]`, 3},
		{`{"itl": [0.1, 0.2], "x": 0.5, "y": [0.5]}`, 3},
		{"\ufeff[0.1, 0.2]", 2},
		{`0.5, 0.25`, 0},
		{"[0.5] 0.25, 1", 1},
		{`{1, 2}`, 0},
		{`{"a": 1, 2, 3}`, 0},
		{"0.5\n[0.5]\n0.25", 1},
		{`[0.1, 0.2`, 1},
		{`[0.1, 0.`, 1},
		{`[0.1,`, 1},
		{`[0.1, 0.2,]`, 2},
		{`[,1]`, 0},
		{`[1,,2]`, 1},
		{`[1 2]`, 0},
		{`[1}`, 0},
		{`[0.5, 01]`, 1},
		{`[0.5, 1.]`, 1},
		{`[0.5, 1.e5]`, 1},
		{`[0.5, -]`, 1},
		{`[0.5, --1]`, 1},
		{`[0.5, -Inf]`, 1},
		{`[0.5, 0x1]`, 1},
		{`[0.5, 1.5.5]`, 1},
		{`[0.5, .5]`, 1},
		{`[0.5, +1]`, 1},
		{"[0.5,\x00 0.5]", 1},
		{"[0.5, \x00]", 1},
		{"[0.5\x00, 0.5]", 0},
	}
	for _, c := range cases {
		got := checkNextFloat(t, []byte(c.in), smallSizes())
		if got != c.taken {
			t.Errorf("%q: NextFloat took %d tokens, want %d", c.in, got, c.taken)
		}
	}
	// A long list of latency-like numbers, split by small buffers at every
	// place within a number.
	b := append(append([]byte{'['}, bytes.Join(latencyNumbers("")[:300], []byte(", "))...), ']')
	if got := checkNextFloat(t, b, []int{16, 17, 19, 23, 29, 31, 37, 64, 100, 1000}); got != 300 {
		t.Errorf("NextFloat took %d of 300 latency numbers", got)
	}
}

// errAfter returns its data, and with the last of it err.
type errAfter struct {
	data [][]byte
	err  error
}

func (r *errAfter) Read(b []byte) (int, error) {
	n := copy(b, r.data[0])
	if r.data[0] = r.data[0][n:]; len(r.data[0]) > 0 {
		return n, nil
	}
	if r.data = r.data[1:]; len(r.data) > 0 {
		return n, nil
	}
	return n, r.err
}

// TestNextFloatAfterReadError: a read that brings data and an error
// together leaves whole numbers in the buffer after Next's error; NextFloat
// does not read them either.
func TestNextFloatAfterReadError(t *testing.T) {
	in := func() io.Reader {
		return &errAfter{data: [][]byte{[]byte("[0.2"), []byte("5, 0.1]")}, err: errors.New("disk on fire")}
	}
	slow, _ := readAll(nil, in(), 64, false)
	fast, _ := readAll(nil, in(), 64, true)
	if slow != fast || strings.Contains(fast, afterError) || !strings.Contains(slow, "disk on fire") {
		t.Fatalf("Next and Float read\n%s\nNextFloat first read\n%s", slow, fast)
	}
}

// FuzzNextFloat: on any input, NextFloat then Next and Float read as Next
// and Float alone do.
func FuzzNextFloat(f *testing.F) {
	for _, s := range []string{`[0.1, 0.2, 1e5, NaN]`, "[\n 1,\n 2\n]", `{"a": [0.5, -0.0], "b": 1}`, `[[1], [2, 3]]`, `[0.1, 01]`} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, in []byte, sz uint8) {
		checkNextFloat(t, in, []int{minBufferSize + int(sz%64)})
	})
}
