package jsonread

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/pyjson"
)

// readGaps reads `{"itl": LIST, "next": 1}` with Gaps and writes down the
// summary (exact bits), the failure (gap, token, reason, syntax error) and
// where the decoder is after it.
func readGaps(r io.Reader, size int) string {
	d := pyjson.NewDecoderSize(r, size)
	for range 2 {
		if _, err := d.Next(); err != nil {
			return err.Error()
		}
	}
	t, err := d.Next()
	if err != nil {
		return err.Error()
	}
	tick := &Ticker{Ctx: context.Background()}
	g, err := Gaps(d, t, tick, func(gap int, tok pyjson.Token, reason string, syntax error) error {
		return fmt.Errorf("gap %d: %s %d:%d %q: %q %v", gap, tok.Kind, tok.Line, tok.Offset, tok.Bytes, reason, syntax)
	})
	out := fmt.Sprintf("count %d sum %x min %x max %x error %v", g.Count, math.Float64bits(g.Sum), math.Float64bits(g.Min), math.Float64bits(g.Max), err)
	if err == nil {
		next, err := d.Next()
		out += fmt.Sprintf(" then %s %d:%d %q %v", next.Kind, next.Line, next.Offset, next.Bytes, err)
	}
	return out
}

// TestGapsHostileLists: Gaps reads hostile lists with the decoder's
// one-pass path (whole input in the buffer) as it does one byte per read
// (where that path never finds a whole number and Next and Float read
// every gap): the same summaries, the same failures at the same places.
func TestGapsHostileLists(t *testing.T) {
	cases := []struct{ list, want string }{
		{`[0.5, 0.25, 1]`, "count 3 sum 3ffc000000000000 min 3fd0000000000000 max 3ff0000000000000 error <nil> then key 1:24 \"next\" <nil>"},
		{`[]`, "count 0 sum 0 min 7ff8000000000001 max 7ff8000000000001 error <nil>"},
		{`[-0.0, 0.0]`, "count 2 sum 0 min 8000000000000000 max"},
		{`[0.5, -0.5, 1]`, `error gap 1: number 1:14 "-0.5": "-0.5 is not a valid gap in seconds" <nil>`},
		{`[0.5, -1]`, `error gap 1: number 1:14 "-1": "-1 is not a valid gap in seconds"`},
		{`[0.5, NaN]`, `"NaN is not a valid gap in seconds"`},
		{`[0.5, Infinity]`, `"Infinity is not a valid gap in seconds"`},
		{`[0.5, -Infinity]`, `"-Infinity is not a valid gap in seconds"`},
		{`[0.5, 1e400]`, `"1e400 is not a valid gap in seconds"`},
		{`[0.5, 1e-400]`, "count 2"},
		{`[0.5, 1e-7, 2.5E+3, 1.5e-05]`, "count 4"},
		{`[0.1234567890123456789012345, 12345678901234567890123, 0.00000000000000000000123]`, "count 3"},
		{`[0.5, "0.5"]`, `"expected a time in seconds, found string"`},
		{`[0.5, [0.5]]`, `"expected a time in seconds, found array"`},
		{`[0.5, {"a": 1}]`, `"expected a time in seconds, found object"`},
		{`[0.5, null]`, `"expected a time in seconds, found null"`},
		{`0.5`, `error gap -1: number 1:8 "0.5": "expected a list of gaps, found number"`},
		{"[\n    0.5,\n    0.25\n]", "count 2 sum 3fe8000000000000 min 3fd0000000000000 max 3fe0000000000000 error <nil> then key 4:"},
		{"[ 0.5 ,0.25\t,\r\n0.125 ]", "count 3"},
		{`[0.5, 01]`, `error gap 1: end of input 0:0 "": "" byte 15 (line 1): invalid number: unexpected '1'`},
		{`[0.5, 1.]`, "invalid number: expected a digit after '.'"},
		{`[0.5,, 1]`, "unexpected ',' where a value should start inside array"},
		{`[0.5 0.25]`, "expected ',' or ']' after an array element, found '0'"},
		{`[0.5, 0.25`, "unexpected end of input inside array"},
		{`[0.5, 0.`, "unexpected end of input inside number"},
	}
	for _, c := range cases {
		in := `{"itl": ` + c.list + `, "next": 1}`
		if strings.HasSuffix(c.list, "0.25") || strings.HasSuffix(c.list, "0.") {
			in = `{"itl": ` + c.list // truncated
		}
		whole := readGaps(bytes.NewReader([]byte(in)), pyjson.DefaultBufferSize)
		bytewise := readGaps(iotest.OneByteReader(bytes.NewReader([]byte(in))), 64)
		if whole != bytewise {
			t.Errorf("%s: read whole\n%s\none byte per read\n%s", c.list, whole, bytewise)
		}
		if small := readGaps(struct{ io.Reader }{bytes.NewReader([]byte(in))}, 16); small != whole {
			t.Errorf("%s: read whole\n%s\nwith a 16-byte buffer\n%s", c.list, whole, small)
		}
		if !strings.Contains(whole, c.want) {
			t.Errorf("%s: %s, want %s", c.list, whole, c.want)
		}
	}
}

// FuzzGaps: on any list, Gaps reads the same whole as one byte per read
// and with a small buffer.
func FuzzGaps(f *testing.F) {
	for _, s := range []string{`[0.5, 0.25, 1]`, "[\n 0.5,\n -0.0\n]", `[0.5, NaN, 1e-7]`, `[0.5, 01]`, `[0.5, "x"]`, `[1e400]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		in := []byte(`{"itl": ` + list)
		whole := readGaps(bytes.NewReader(in), pyjson.DefaultBufferSize)
		if bytewise := readGaps(iotest.OneByteReader(bytes.NewReader(in)), 64); bytewise != whole {
			t.Fatalf("%q: read whole\n%s\none byte per read\n%s", list, whole, bytewise)
		}
		if small := readGaps(struct{ io.Reader }{bytes.NewReader(in)}, 16); small != whole {
			t.Fatalf("%q: read whole\n%s\nwith a 16-byte buffer\n%s", list, whole, small)
		}
	})
}

// gapLists is a list of requests' gap lists as Python writes them, like
// the "itls" of one of the ingest benchmark's ordinary vLLM files.
func gapLists(requests, gaps int) []byte {
	b := []byte{'['}
	x := uint64(0x9E3779B97F4A7C15)
	for i := range requests {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '[')
		for k := range gaps {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			if k > 0 {
				b = append(b, ", "...)
			}
			b = strconv.AppendFloat(b, 0.005+float64(x%1_000_000_007)/1e11, 'f', -1, 64)
		}
		b = append(b, ']')
	}
	return append(b, ']')
}

// BenchmarkGaps: Gaps over the gap lists of 100 requests of 130 gaps each,
// read from memory.
func BenchmarkGaps(b *testing.B) {
	in := gapLists(100, 130)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	tick := &Ticker{Ctx: context.Background()}
	fail := func(int, pyjson.Token, string, error) error { return fmt.Errorf("bad") }
	for b.Loop() {
		d := pyjson.NewDecoder(bytes.NewReader(in))
		d.Next()
		var sum benchrun.GapStats
		for {
			t, err := d.Next()
			if err != nil || t.Kind != pyjson.ArrayStart {
				break
			}
			g, err := Gaps(d, t, tick, fail)
			if err != nil {
				b.Fatal(err)
			}
			sum.Count += g.Count
		}
		if sum.Count != 100*130 {
			b.Fatalf("%d gaps", sum.Count)
		}
	}
}

// TestReduceGapsIsAdd: reduceGaps gives, bit for bit, what GapStats.Add
// gives over the same list (the sum in the same order, -0 and +0 told
// apart in the least and the greatest), and refuses every list Gaps
// refuses.
func TestReduceGapsIsAdd(t *testing.T) {
	t.Parallel()
	negZero := math.Copysign(0, -1)
	lists := [][]float64{
		{}, {0.25}, {0}, {negZero}, {0, negZero}, {negZero, 0}, {negZero, negZero},
		{5, 0, negZero}, {5, negZero, 0}, {negZero, 5}, {0, 5, 3}, {3, 5, 0},
		{math.MaxFloat64, math.MaxFloat64}, {5e-324, 1e-310, 2}, {1e300, 1e-300, 1},
		{0.1, 0.2, 0.3}, {0.3, 0.2, 0.1}, {2, 2, 2},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		n := rng.IntN(300)
		l := make([]float64, n)
		for i := range l {
			switch rng.IntN(40) {
			case 0:
				l[i] = 0
			case 1:
				l[i] = negZero
			case 2:
				l[i] = math.Ldexp(rng.Float64(), rng.IntN(2000)-1000)
			default:
				l[i] = 0.005 + 0.05*rng.Float64()
			}
		}
		lists = append(lists, l)
	}
	bits := func(g benchrun.GapStats) [4]uint64 {
		return [4]uint64{uint64(g.Count), math.Float64bits(g.Sum), math.Float64bits(g.Min), math.Float64bits(g.Max)}
	}
	for _, l := range lists {
		want := benchrun.GapStats{Min: benchrun.Unknown, Max: benchrun.Unknown}
		for _, v := range l {
			want.Add(v)
		}
		got, ok := reduceGaps(l)
		if !ok || bits(got) != bits(want) {
			t.Fatalf("reduceGaps(%v) = %+v, %v; Add gives %+v", l, got, ok, want)
		}
	}
	for _, bad := range []float64{-1e-9, -5, math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, at := range []int{0, 1, 4} {
			l := []float64{0.5, 0.25, 1, 2, 0.125}
			l[at] = bad
			if g, ok := reduceGaps(l); ok {
				t.Errorf("reduceGaps(%v) = %+v, true; want it refused", l, g)
			}
		}
	}
}
