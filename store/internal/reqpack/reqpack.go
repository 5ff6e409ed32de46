// Package reqpack is the packed form of a run's per-request records that
// the archive keeps beside its requests table (table request_packs): the
// same records as the table's rows read back, in one value, so a pass over
// thousands of runs (the site) reads one cell a run instead of decoding a
// dozen columns of every request.
//
// The layout, version 1: a version byte, the request count (uvarint), then
// for each request its index (varint, as a difference from the previous
// index plus one), seven float64s (little-endian IEEE bits: Start,
// QueueTime, TTFT, Latency, Gaps.Sum, Gaps.Min, Gaps.Max), three varints
// (InputTokens, OutputTokens, Gaps.Count) and the error text (uvarint
// length, bytes).
package reqpack

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/benchledger/benchledger/benchrun"
)

const version1 = 1

const floatsPerRequest = 7

// minRequestSize is the fewest bytes a request takes: its floats and one
// byte for each varint and the error's length.
const minRequestSize = floatsPerRequest*8 + 5

// Append appends the packed form of reqs to dst. Each value is stored as
// the requests table gives it back: an unknown figure (any NaN) as
// benchrun.Unknown, and negative zero as zero (SQLite stores a REAL zero
// without its sign).
func Append(dst []byte, reqs []benchrun.Request) []byte {
	dst = append(dst, version1)
	dst = binary.AppendUvarint(dst, uint64(len(reqs)))
	prev := -1
	for i := range reqs {
		r := &reqs[i]
		dst = binary.AppendVarint(dst, int64(r.Index)-int64(prev)-1)
		prev = r.Index
		for _, f := range [floatsPerRequest]float64{r.Start, r.QueueTime, r.TTFT, r.Latency, r.Gaps.Sum, r.Gaps.Min, r.Gaps.Max} {
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(canonical(f)))
		}
		dst = binary.AppendVarint(dst, int64(r.InputTokens))
		dst = binary.AppendVarint(dst, int64(r.OutputTokens))
		dst = binary.AppendVarint(dst, int64(r.Gaps.Count))
		dst = binary.AppendUvarint(dst, uint64(len(r.Error)))
		dst = append(dst, r.Error...)
	}
	return dst
}

func canonical(f float64) float64 {
	switch {
	case f != f:
		return benchrun.Unknown
	case f == 0:
		return 0
	}
	return f
}

// ErrCorrupt: the value is not a packed list of requests this version
// reads.
var ErrCorrupt = errors.New("not a packed list of requests")

// Decode reads a value Append wrote. A list of no requests is nil, as the
// requests table gives it.
func Decode(data []byte) ([]benchrun.Request, error) { return decode(data, true) }

// decode is Decode; fast false leaves every request to the checked decoder
// (the tests' reference for decodeFast).
func decode(data []byte, fast bool) ([]benchrun.Request, error) {
	d := decoder{b: data}
	if v := d.byte(); v != version1 {
		if d.err == nil {
			d.err = fmt.Errorf("%w: version %d", ErrCorrupt, v)
		}
		return nil, d.err
	}
	n := d.uvarint()
	// Each request takes at least minRequestSize bytes: a count the value
	// cannot hold is refused before anything is allocated for it.
	if d.err == nil && n > uint64(len(d.b))/minRequestSize {
		d.fail("%d requests in %d bytes", n, len(d.b))
	}
	if d.err != nil || n == 0 {
		if d.err == nil && len(d.b) > 0 {
			d.fail("%d bytes after the last request", len(d.b))
		}
		return nil, d.err
	}
	out := make([]benchrun.Request, n)
	prev := int64(-1)
	for i := range out {
		r := &out[i]
		if fast && len(d.b) >= fastRoom && decodeFast(r, &d.b, &prev) {
			continue
		}
		idx := prev + 1 + d.varint()
		if !nextIndex(idx, prev) {
			d.fail("index %d after %d", idx, prev)
		}
		prev = idx
		r.Index = int(idx)
		r.Start, r.QueueTime, r.TTFT, r.Latency = d.float(), d.float(), d.float(), d.float()
		r.Gaps.Sum, r.Gaps.Min, r.Gaps.Max = d.float(), d.float(), d.float()
		r.InputTokens, r.OutputTokens, r.Gaps.Count = d.int32(), d.int32(), d.int32()
		if l := d.uvarint(); l > 0 {
			r.Error = string(d.bytes(l))
		}
		if d.err != nil {
			return nil, fmt.Errorf("request %d: %w", i, d.err)
		}
	}
	if len(d.b) > 0 {
		return nil, fmt.Errorf("%w: %d bytes after the last request", ErrCorrupt, len(d.b))
	}
	return out, nil
}

// fastRoom is the most bytes a request takes before its error text: its
// floats and its four varints at their longest.
const fastRoom = floatsPerRequest*8 + 4*binary.MaxVarintLen64

// decodeFast decodes the request at the start of *b into r when nothing in
// it is wrong, advancing *b and *prev, which the caller has checked has at
// least fastRoom bytes: one bounds check for the floats, a varint of one
// byte read in place. A request it cannot take (a bad varint, an index or
// count out of range, an error text past the end) is left to the checked
// decoder, which reads it again from its start and says what is wrong.
// 100 requests decode in 0.62x the checked decoder's time (their
// allocation included), which a site of 10,000 runs spent a twentieth of
// its time in.
func decodeFast(r *benchrun.Request, b *[]byte, prev *int64) bool {
	in := *b
	p := 0
	varint := func() (int64, bool) {
		var u uint64
		if c := in[p]; c < 0x80 {
			u, p = uint64(c), p+1
		} else {
			v, k := binary.Uvarint(in[p:])
			if k <= 0 {
				return 0, false
			}
			u, p = v, p+k
		}
		return unzigzag(u), true
	}
	step, ok := varint()
	idx := *prev + 1 + step
	if !ok || !nextIndex(idx, *prev) {
		return false
	}
	f := in[p : p+floatsPerRequest*8]
	p += floatsPerRequest * 8
	in32, ok1 := varint()
	out32, ok2 := varint()
	gaps, ok3 := varint()
	if !ok1 || !ok2 || !ok3 || !inInt32(in32) || !inInt32(out32) || !inInt32(gaps) {
		return false
	}
	l, k := binary.Uvarint(in[p:])
	if k <= 0 || l > uint64(len(in)-p-k) {
		return false
	}
	p += k
	r.Index = int(idx)
	r.Start = math.Float64frombits(binary.LittleEndian.Uint64(f[0:]))
	r.QueueTime = math.Float64frombits(binary.LittleEndian.Uint64(f[8:]))
	r.TTFT = math.Float64frombits(binary.LittleEndian.Uint64(f[16:]))
	r.Latency = math.Float64frombits(binary.LittleEndian.Uint64(f[24:]))
	r.Gaps.Sum = math.Float64frombits(binary.LittleEndian.Uint64(f[32:]))
	r.Gaps.Min = math.Float64frombits(binary.LittleEndian.Uint64(f[40:]))
	r.Gaps.Max = math.Float64frombits(binary.LittleEndian.Uint64(f[48:]))
	r.InputTokens, r.OutputTokens, r.Gaps.Count = int32(in32), int32(out32), int32(gaps)
	if l > 0 {
		r.Error = string(in[p : p+int(l)])
		p += int(l)
	}
	*b, *prev = in[p:], idx
	return true
}

// decoder reads from b; after the first error every read gives zero.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
	}
}

func (d *decoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.fail("ends early")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, k := binary.Uvarint(d.b)
	if k <= 0 {
		d.fail("bad or truncated number")
		return 0
	}
	d.b = d.b[k:]
	return v
}

// varint reads a varint binary.AppendVarint wrote.
func (d *decoder) varint() int64 { return unzigzag(d.uvarint()) }

// nextIndex says whether idx may follow the index prev: the indexes of a
// run's requests increase and fit an int32.
func nextIndex(idx, prev int64) bool { return idx >= 0 && idx <= math.MaxInt32 && idx > prev }

// inInt32 says whether a count fits the int32 the record holds it in.
func inInt32(v int64) bool { return v >= math.MinInt32 && v <= math.MaxInt32 }

// unzigzag undoes binary.AppendVarint's zigzag encoding of a uvarint.
func unzigzag(u uint64) int64 {
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

func (d *decoder) int32() int32 {
	v := d.varint()
	if !inInt32(v) {
		d.fail("%d is out of range", v)
		return 0
	}
	return int32(v)
}

func (d *decoder) float() float64 {
	if d.err != nil || len(d.b) < 8 {
		d.fail("ends early")
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return v
}

func (d *decoder) bytes(n uint64) []byte {
	if d.err != nil || n > uint64(len(d.b)) {
		d.fail("ends early")
		return nil
	}
	b := d.b[:n]
	d.b = d.b[n:]
	return b
}
