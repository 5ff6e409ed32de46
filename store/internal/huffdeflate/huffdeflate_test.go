package huffdeflate

import (
	"bytes"
	stdflate "compress/flate"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	kflate "github.com/klauspost/compress/flate"
)

// roundTrip codes in (after a prefix already in dst, which must stay) and
// reads it back with the standard library's inflater and with
// klauspost/compress's.
func roundTrip(t *testing.T, e *Encoder, name string, in []byte) []byte {
	t.Helper()
	prefix := []byte("kept")
	out := e.Append(append(make([]byte, 0, 16), prefix...), in)
	if !bytes.HasPrefix(out, prefix) {
		t.Fatalf("%s: the bytes already in dst were changed", name)
	}
	comp := out[len(prefix):]
	for reader, r := range map[string]io.Reader{
		"compress/flate":           stdflate.NewReader(bytes.NewReader(comp)),
		"klauspost/compress/flate": kflate.NewReader(bytes.NewReader(comp)),
	} {
		got, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("%s (%d bytes): %s: %v", name, len(in), reader, err)
		}
		if !bytes.Equal(got, in) {
			t.Fatalf("%s (%d bytes): %s reads back %d other bytes", name, len(in), reader, len(got))
		}
	}
	return comp
}

// pythonFloats is text like a latency list of a vLLM result file: with
// wide, the values span some powers of ten (exponents among them).
func pythonFloats(r *rand.Rand, n int, wide bool) []byte {
	b := []byte(`"itls": [`)
	for i := range n {
		if i > 0 {
			b = append(b, ", "...)
		}
		v := r.Float64()
		if wide {
			v = r.ExpFloat64() / 40
		}
		b = strconv.AppendFloat(b, v, 'g', -1, 64)
	}
	return append(b, "]"...)
}

// geometric draws bytes whose frequencies fall by ratio from one to the
// next: the closer ratio is to 0.5, the longer the rarest codes.
func geometric(r *rand.Rand, n int, ratio float64, symbols int) []byte {
	b := make([]byte, n)
	for i := range b {
		k := 0
		for k < symbols-1 && r.Float64() > ratio {
			k++
		}
		b[i] = byte('A' + k)
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 3*blockSize+17)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	digits := pythonFloats(r, 40000, true)
	// One byte the sample cannot see (it reads every fourth 8-byte word)
	// in a block of digits: the block is coded again from all its bytes.
	rare := bytes.Clone(digits[:blockSize])
	rare[8+3] = 'x'
	cases := []struct {
		name string
		in   []byte
	}{
		{"empty", nil},
		{"one zero byte", []byte{0}},
		{"one 0xff byte", []byte{0xff}},
		{"two bytes", []byte("ab")},
		{"one symbol", bytes.Repeat([]byte("7"), 100000)},
		{"two symbols", bytes.Repeat([]byte("01"), 50000)},
		{"random, stored", random},
		{"random, one stored block exactly", random[:maxStored]},
		{"random, a block", random[:blockSize]},
		{"random, a block and one", random[:blockSize+1]},
		{"digits", digits},
		{"narrow digits", pythonFloats(r, 40000, false)},
		{"digits, a block less one", digits[:blockSize-1]},
		{"digits, short", digits[:minSampled-1]},
		{"a byte the sample misses", rare},
		{"every byte value once", func() []byte {
			b := make([]byte, 256)
			for i := range b {
				b[i] = byte(i)
			}
			return b
		}()},
	}
	for _, ratio := range []float64{0.9, 0.7, 0.55, 0.51, 0.5} {
		cases = append(cases, struct {
			name string
			in   []byte
		}{fmt.Sprintf("geometric %.2f", ratio), geometric(r, 200000, ratio, 40)})
	}
	var e, small Encoder
	small.smallRoom = true
	for _, c := range cases {
		roundTrip(t, &e, c.name, c.in)
		roundTrip(t, &small, c.name+", out of room every few bytes", c.in)
	}
	// The same Encoder codes every case again in another order: nothing
	// of one chunk's tables leaks into the next.
	for i := len(cases) - 1; i >= 0; i-- {
		roundTrip(t, &e, cases[i].name+", again", cases[i].in)
	}
}

// TestCodingLoops checks that the inputs of TestRoundTrip's kind reach
// every coding loop, so that each of them is read back somewhere.
func TestCodingLoops(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	seen := map[string]bool{}
	var e Encoder
	for _, in := range [][]byte{
		pythonFloats(r, 20000, false),
		pythonFloats(r, 20000, true),
		geometric(r, blockSize, 0.7, 6),
		geometric(r, blockSize, 0.8, 12),
		geometric(r, blockSize, 0.6, 20),
		geometric(r, blockSize, 0.55, 30),
		geometric(r, blockSize, 0.5, 40),
		geometric(r, blockSize, 0.03, 100),
		geometric(r, blockSize, 0.1, 100),
	} {
		e.histogram(in, false)
		e.huff.lengths(e.count[:], e.lens[:], litCodeLen)
		maxLen := uint8(0)
		for _, l := range e.lens {
			maxLen = max(maxLen, l)
		}
		loop := "four codes"
		switch pairs := e.distinct() <= maxPaired; {
		case pairs && maxLen <= 7:
			loop = "four pairs"
		case pairs && maxLen <= 9:
			loop = "three pairs"
		case pairs:
			loop = "two pairs"
		case maxLen <= 11:
			loop = "five codes"
		}
		seen[loop] = true
		roundTrip(t, &e, fmt.Sprintf("%s, longest code %d", loop, maxLen), in)
	}
	for _, loop := range []string{"four pairs", "three pairs", "two pairs", "five codes", "four codes"} {
		if !seen[loop] {
			t.Errorf("no input was coded by the loop of %s (seen: %v)", loop, seen)
		}
	}
}

func TestResample(t *testing.T) {
	t.Parallel()
	// From the middle of the list: its first bytes are a key.
	digits := pythonFloats(rand.New(rand.NewPCG(5, 6)), 20000, false)[100 : 100+blockSize]
	var e Encoder
	roundTrip(t, &e, "digits", digits)
	if e.resampled != 0 {
		t.Fatalf("a block of digits was coded twice (%d)", e.resampled)
	}
	rare := bytes.Clone(digits)
	rare[len(rare)/2+9] = '\x01'
	roundTrip(t, &e, "digits and a byte the sample misses", rare)
	if e.resampled != 1 {
		t.Fatalf("%d blocks coded again, want 1", e.resampled)
	}
}

// TestSplit: a block whose bytes change kind midway (a list of numbers,
// then text, as at the end of a result file) is coded as a block of each
// kind, no larger than klauspost/compress's writer makes it (which adapts
// its blocks too); as one block with one set of codes it took 12% more
// than that.
func TestSplit(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 12))
	in := append(pythonFloats(r, 20000, false)[100:100+40<<10], geometric(r, 24<<10, 0.15, 60)...)
	var e Encoder
	ours := len(roundTrip(t, &e, "numbers then text", in))
	var kb bytes.Buffer
	w, _ := kflate.NewWriter(&kb, kflate.HuffmanOnly)
	w.Write(in)
	w.Close()
	if float64(ours) > 1.02*float64(kb.Len()) {
		t.Errorf("numbers then text: %d bytes, against %d with klauspost/compress", ours, kb.Len())
	}
	t.Logf("numbers then text: %d bytes, klauspost %d", ours, kb.Len())
}

// TestLengths checks the code lengths: none longer than the limit, a code
// for every symbol with a count, and a complete code (Kraft's sum is 1),
// which inflaters require.
func TestLengths(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	fib := make([]uint32, 30)
	fib[0], fib[1] = 1, 1
	for i := 2; i < len(fib); i++ {
		fib[i] = fib[i-1] + fib[i-2]
	}
	cases := [][]uint32{
		{0, 0, 0},
		{5},
		{0, 9},
		{1, 1},
		fib[:20], // a tree 19 deep without the limit
		fib,
	}
	for range 300 {
		c := make([]uint32, 2+r.IntN(256))
		for i := range c {
			if r.IntN(3) > 0 {
				c[i] = uint32(r.ExpFloat64() * float64(1+r.IntN(1<<r.IntN(20))))
			}
		}
		cases = append(cases, c)
	}
	var h huffman
	for _, limit := range []int{maxCodeLen, maxCLCodeLen} {
		for i, count := range cases {
			if len(count) > 1<<limit {
				continue
			}
			lens := make([]uint8, max(len(count), 2))
			h.lengths(count, lens, limit)
			var kraft uint64
			coded := 0
			for s, l := range lens {
				if int(l) > limit {
					t.Fatalf("case %d, limit %d: symbol %d has %d bits", i, limit, s, l)
				}
				if s < len(count) && count[s] > 0 && l == 0 {
					t.Fatalf("case %d, limit %d: symbol %d has a count and no code", i, limit, s)
				}
				if l > 0 {
					kraft += 1 << (limit - int(l))
					coded++
				}
			}
			if coded < 2 || kraft != 1<<limit {
				t.Fatalf("case %d, limit %d: %d codes, Kraft sum %d/%d, want a complete code", i, limit, coded, kraft, 1<<limit)
			}
		}
	}
}

// TestRealFiles codes the repository's result files, and compares the
// size with klauspost/compress's Huffman-only DEFLATE, which this
// replaced.
func TestRealFiles(t *testing.T) {
	t.Parallel()
	var e Encoder
	var ours, theirs, files int
	err := filepath.WalkDir("../../../ingest", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Base(filepath.Dir(path)) == "dumps" {
			return err
		}
		in, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		ours += len(roundTrip(t, &e, path, in))
		var kb bytes.Buffer
		w, _ := kflate.NewWriter(&kb, kflate.HuffmanOnly)
		w.Write(in)
		w.Close()
		theirs += kb.Len()
		files++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("only %d files under ingest/", files)
	}
	t.Logf("%d files: %d bytes, klauspost %d", files, ours, theirs)
	if float64(ours) > 1.03*float64(theirs) {
		t.Errorf("%d files code to %d bytes, against %d with klauspost/compress", files, ours, theirs)
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte(""))
	f.Add([]byte("[0.0123, 0.4567, 1.25]"))
	f.Add(bytes.Repeat([]byte{0, 1, 2, 3, 255}, 3000))
	f.Fuzz(func(t *testing.T, in []byte) {
		var e Encoder
		roundTrip(t, &e, "fuzz", in)
		// An input of over a block made of it reaches the sampled and
		// paired paths.
		if len(in) > 0 {
			roundTrip(t, &e, "fuzz, repeated", bytes.Repeat(in, 1+(blockSize+minSampled)/len(in)))
		}
	})
}

func benchInput(b *testing.B) []byte {
	return pythonFloats(rand.New(rand.NewPCG(9, 10)), 1<<17, false)[:1<<20]
}

func BenchmarkEncoder(b *testing.B) {
	in := benchInput(b)
	var e Encoder
	dst := make([]byte, 0, len(in))
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		dst = e.Append(dst[:0], in)
	}
}

// BenchmarkKlauspost is the writer this package replaced, on the same
// input.
func BenchmarkKlauspost(b *testing.B) {
	in := benchInput(b)
	var kb bytes.Buffer
	kb.Grow(len(in))
	w, _ := kflate.NewWriter(&kb, kflate.HuffmanOnly)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		kb.Reset()
		w.Reset(&kb)
		w.Write(in)
		w.Close()
	}
}

// TestLog2: split's estimates use an approximation of log2.
func TestLog2(t *testing.T) {
	t.Parallel()
	worst := 0.0
	for x := 1.0; x < 1<<20; x *= 1.0137 {
		worst = max(worst, math.Abs(log2(x)-math.Log2(x)))
	}
	if worst > 0.01 {
		t.Errorf("log2 is off by up to %g", worst)
	}
}
