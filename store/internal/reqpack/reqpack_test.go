package reqpack

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
)

// randomRequests are n records with the values the requests table holds:
// unknown figures, unknown token counts, error texts (with a NUL byte and
// multi-byte text), gaps, indices with holes.
func randomRequests(rng *rand.Rand, n int) []benchrun.Request {
	out := make([]benchrun.Request, n)
	idx := rng.IntN(3)
	figure := func() float64 {
		switch rng.IntN(10) {
		case 0:
			return benchrun.Unknown
		case 1:
			return 0
		case 2:
			return math.Float64frombits(rng.Uint64() &^ (0x7ff << 52)) // subnormal or zero
		case 3:
			return rng.NormFloat64() * 1e300
		}
		return rng.Float64() * 100
	}
	tokens := func() int32 {
		if rng.IntN(8) == 0 {
			return -1
		}
		return rng.Int32N(1 << 20)
	}
	for i := range out {
		r := &out[i]
		r.Index = idx
		idx += 1 + rng.IntN(2)*rng.IntN(1000)
		r.Start, r.QueueTime, r.TTFT, r.Latency = figure(), figure(), figure(), figure()
		r.InputTokens, r.OutputTokens = tokens(), tokens()
		r.Gaps = benchrun.GapStats{Count: rng.Int32N(5000), Sum: figure(), Min: figure(), Max: figure()}
		switch rng.IntN(6) {
		case 0:
			r.Error = "HTTP 500: upstream reset ✗"
		case 1:
			r.Error = "nul\x00 <tags> & \"quotes\""
		}
	}
	return out
}

// same reports whether two lists hold the same records, bit for bit (an
// unknown figure is benchrun.Unknown's NaN).
func same(a, b []benchrun.Request) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d records, want %d", len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		fx := []float64{x.Start, x.QueueTime, x.TTFT, x.Latency, x.Gaps.Sum, x.Gaps.Min, x.Gaps.Max}
		fy := []float64{y.Start, y.QueueTime, y.TTFT, y.Latency, y.Gaps.Sum, y.Gaps.Min, y.Gaps.Max}
		for k := range fx {
			if math.Float64bits(fx[k]) != math.Float64bits(fy[k]) {
				return fmt.Errorf("record %d: figure %d is %v (%#x), want %v (%#x)", i, k, fx[k], math.Float64bits(fx[k]), fy[k], math.Float64bits(fy[k]))
			}
		}
		x.Start, x.QueueTime, x.TTFT, x.Latency, x.Gaps.Sum, x.Gaps.Min, x.Gaps.Max = 0, 0, 0, 0, 0, 0, 0
		y.Start, y.QueueTime, y.TTFT, y.Latency, y.Gaps.Sum, y.Gaps.Min, y.Gaps.Max = 0, 0, 0, 0, 0, 0, 0
		if x != y {
			return fmt.Errorf("record %d: %+v, want %+v", i, x, y)
		}
	}
	return nil
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 100, 5000} {
		for range 20 {
			reqs := randomRequests(rng, n)
			got, err := Decode(Append(nil, reqs))
			if err != nil {
				t.Fatalf("%d records: %v", n, err)
			}
			if err := same(got, reqs); err != nil {
				t.Fatalf("%d records: %v", n, err)
			}
		}
	}
	// Appending to a buffer keeps what it held.
	reqs := randomRequests(rng, 3)
	b := Append([]byte("prefix"), reqs)
	if string(b[:6]) != "prefix" {
		t.Fatalf("Append overwrote its destination: %q", b[:6])
	}
	if got, err := Decode(b[6:]); err != nil || same(got, reqs) != nil {
		t.Fatalf("after a prefix: %v, %v", err, same(got, reqs))
	}
}

// TestCanonical: values are kept as the requests table gives them back,
// an unknown of any NaN bits as benchrun.Unknown, -0 as 0; and no records
// decode to nil, as the table gives none.
func TestCanonical(t *testing.T) {
	t.Parallel()
	otherNaN := math.Float64frombits(0x7ff8dead00000001)
	got, err := Decode(Append(nil, []benchrun.Request{{Index: 4, Start: math.Copysign(0, -1), TTFT: otherNaN, Latency: -2.5}}))
	if err != nil {
		t.Fatal(err)
	}
	want := []benchrun.Request{{Index: 4, Start: 0, TTFT: benchrun.Unknown, Latency: -2.5}}
	if err := same(got, want); err != nil {
		t.Error(err)
	}
	if got, err := Decode(Append(nil, nil)); got != nil || err != nil {
		t.Errorf("no records: %v, %v; want nil, nil", got, err)
	}
}

// TestDecodeRefuses: a damaged value is an error wrapping ErrCorrupt that
// says what is wrong, never a panic or records made up.
func TestDecodeRefuses(t *testing.T) {
	t.Parallel()
	reqs := randomRequests(rand.New(rand.NewPCG(3, 4)), 5)
	good := Append(nil, reqs)
	for n := range len(good) {
		if _, err := Decode(good[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("cut to %d of %d bytes: %v, want ErrCorrupt", n, len(good), err)
		}
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "ends early"},
		{"unknown version", append([]byte{2}, good[1:]...), "version 2"},
		{"bytes after", append(append([]byte{}, good...), 0), "1 bytes after the last request"},
		{"count beyond the bytes", []byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f}, "requests in 0 bytes"},
		{"bytes after no requests", []byte{1, 0, 7}, "1 bytes after the last request"},
		{"index going back", func() []byte {
			b := Append(nil, []benchrun.Request{{Index: 3}, {Index: 4}})
			// The second index's difference (0, one after the first) made -2.
			b[2+1+7*8+3+1] = 3 // zigzag varint of -2
			return b
		}(), "index 2 after 3"},
		{"token count beyond int32", func() []byte {
			b := []byte{1, 1, 0}
			b = append(b, make([]byte, 7*8)...)
			b = append(b, 0xfe, 0xff, 0xff, 0xff, 0x1f) // the varint of 2^32 - 1
			return append(b, 0, 0, 0)
		}(), "out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode(tc.data)
			if !errors.Is(err, ErrCorrupt) || got != nil {
				t.Fatalf("Decode: %v, %v; want ErrCorrupt", got, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
		})
	}
}

// TestFastAgreesWithChecked: decodeFast takes every request of a sound
// pack with room after it, and on packs with bytes changed anywhere,
// Decode gives what the checked decoder alone gives: the same records or
// the same error.
func TestFastAgreesWithChecked(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	reqs := randomRequests(rng, 200)
	good := Append(nil, reqs)

	// Sound: every request but those within fastRoom of the end is
	// decoded by decodeFast.
	in := good[1:]
	_, k := binary.Uvarint(in)
	in = in[k:]
	prev, fast := int64(-1), 0
	var r benchrun.Request
	for len(in) >= fastRoom {
		r = benchrun.Request{}
		if !decodeFast(&r, &in, &prev) {
			t.Fatalf("decodeFast refused sound request %d", fast)
		}
		if err := same([]benchrun.Request{r}, reqs[fast:fast+1]); err != nil {
			t.Fatalf("request %d: %v", fast, err)
		}
		fast++
	}
	if fast < 190 {
		t.Fatalf("decodeFast took %d of 200 requests", fast)
	}

	for trial := range 3000 {
		data := append([]byte{}, good...)
		for range 1 + rng.IntN(3) {
			data[1+rng.IntN(len(data)-1)] = byte(rng.Uint32())
		}
		got, err := Decode(data)
		want, wantErr := decode(data, false)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("trial %d: error %v, the checked decoder's %v", trial, err, wantErr)
		}
		if err == nil {
			if err := same(got, want); err != nil {
				t.Fatalf("trial %d: %v", trial, err)
			}
		}
	}
}

// FuzzDecode: any bytes either decode to records that pack again to a value
// decoding to the same records, or give ErrCorrupt; never a panic.
func FuzzDecode(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 3, 40} {
		f.Add(Append(nil, randomRequests(rng, n)))
	}
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Decode(data)
		// The fast path decodes what the checked decoder decodes, and
		// refuses what it refuses, with the same error.
		checked, checkedErr := decode(data, false)
		if fmt.Sprint(err) != fmt.Sprint(checkedErr) {
			t.Fatalf("error %v; the checked decoder's %v", err, checkedErr)
		}
		if err == nil {
			if err := same(got, checked); err != nil {
				t.Fatalf("fast against checked: %v", err)
			}
		}
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		again, err := Decode(Append(nil, got))
		if err != nil {
			t.Fatalf("packed again: %v", err)
		}
		canon := make([]benchrun.Request, len(got))
		copy(canon, got)
		for i := range canon {
			r := &canon[i]
			r.Start, r.QueueTime, r.TTFT, r.Latency = canonical(r.Start), canonical(r.QueueTime), canonical(r.TTFT), canonical(r.Latency)
			r.Gaps.Sum, r.Gaps.Min, r.Gaps.Max = canonical(r.Gaps.Sum), canonical(r.Gaps.Min), canonical(r.Gaps.Max)
		}
		if err := same(again, canon); err != nil {
			t.Fatal(err)
		}
	})
}

// BenchmarkDecode: a run of 100 requests, as a site reads 10,000 of them.
func BenchmarkDecode(b *testing.B) {
	data := Append(nil, randomRequests(rand.New(rand.NewPCG(9, 10)), 100))
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeChecked is BenchmarkDecode without decodeFast.
func BenchmarkDecodeChecked(b *testing.B) {
	data := Append(nil, randomRequests(rand.New(rand.NewPCG(9, 10)), 100))
	for b.Loop() {
		if _, err := decode(data, false); err != nil {
			b.Fatal(err)
		}
	}
}
