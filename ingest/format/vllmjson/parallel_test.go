package vllmjson_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format/vllmjson"
	"github.com/benchledger/benchledger/ingest/jsonread"
	"github.com/benchledger/benchledger/ingest/pyjson"
	"github.com/benchledger/benchledger/internal/testshared"
)

// vjParallel sets how the lists of gaps are read for the rest of the test:
// from item `from` on, in ranges of `size` bytes (from < 0: one by one).
func vjParallel(t testing.TB, from, size int) {
	t.Helper()
	f, s := jsonread.ParallelFrom, jsonread.ParallelRange
	t.Cleanup(func() { jsonread.ParallelFrom, jsonread.ParallelRange = f, s })
	if from < 0 {
		from = math.MaxInt
	}
	jsonread.ParallelFrom, jsonread.ParallelRange = from, size
}

// vjOutcome is everything a parse yields, as text: every run's content id,
// records, notes and place, and the error. NaN prints as NaN, so unknown
// values compare equal.
func vjOutcome(data []byte) string {
	var b bytes.Buffer
	err := vllmjson.New().Parse(context.Background(), "f.json", bytes.NewReader(data), func(r *benchrun.Run) error {
		vjPrintRun(&b, r)
		return nil
	})
	fmt.Fprintf(&b, "error: %v\n", err)
	return b.String()
}

// vjPrintRun writes what vjOutcome shows of one run.
func vjPrintRun(b *bytes.Buffer, r *benchrun.Run) {
	fmt.Fprintf(b, "run %s %q %q %q %q %d/%d\n", benchrun.ContentID(r), r.Location, r.FormatVariant, r.Rejection, r.Notes,
		r.Completed, r.Failed)
	for _, q := range r.Requests {
		fmt.Fprintf(b, "%+v\n", q)
	}
}

// vjSamePar parses data one by one, then on several cores in ranges of each
// size, and fails on any difference.
func vjSamePar(t *testing.T, name string, data []byte, sizes ...int) {
	t.Helper()
	vjParallel(t, -1, 0)
	want := vjOutcome(data)
	for _, size := range sizes {
		vjParallel(t, 0, size)
		if got := vjOutcome(data); got != want {
			t.Fatalf("%s: ranges of %d bytes: the parallel parse differs:\n%s\none by one:\n%s", name, size, vjHead(got), vjHead(want))
		}
	}
}

func vjHead(s string) string {
	if len(s) > 2000 {
		return s[:1000] + "\n...\n" + s[len(s)-1000:]
	}
	return s
}

// TestParallelGapsSameAsSerial: the lists of gaps read on several cores give
// the same records, notes and errors as read one by one, on generated
// files, the package's and the shared real files.
func TestParallelGapsSameAsSerial(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("the parallel reader needs GOMAXPROCS >= 2")
	}
	paths, _ := filepath.Glob("testdata/*.json")
	if root := testshared.Root(); root != "" {
		shared, _ := filepath.Glob(filepath.Join(root, "samples", "vllm", "*.json"))
		paths = append(paths, shared...)
	}
	for _, p := range paths {
		vjSamePar(t, p, vjReadFile(t, p), 16, 64, 1000, 0)
	}
	gen := vjGenerator(t)
	for _, args := range [][]string{
		{"-n", "3000", "-seed", "7"},
		{"-n", "500", "-seed", "3", "-append", "3"},
		{"-size", "3MB"},
	} {
		data := vjGenerate(t, gen, args...)
		vjSamePar(t, fmt.Sprint(args), data, 64, 4096, 100000, 0)
	}
}

// TestParallelGapsDamaged: a file damaged in the middle of its list of gaps
// is refused (or read) exactly as one by one: the same reason, at the same
// byte, line and item.
func TestParallelGapsDamaged(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("the parallel reader needs GOMAXPROCS >= 2")
	}
	data := vjGenerate(t, vjGenerator(t), "-n", "800", "-seed", "11")
	start := bytes.Index(data, []byte(`"itls": [[`))
	end := start + bytes.Index(data[start:], []byte("]]"))
	if start < 0 || end <= start {
		t.Fatal("no itls in the generated file")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	damages := []string{"x", "\n", "NaN", "-1.0", "]", "[", `"s"`, "  ", "1e999", "-", "0.1.2", "{}", ""}
	var refused int
	for k := range 80 {
		at := start + 20 + rng.IntN(end-start-40)
		d := damages[k%len(damages)]
		bad := append(append(append([]byte{}, data[:at]...), d...), data[at+1:]...)
		switch {
		case k%17 == 0:
			bad = data[:at] // cut off
		case k%2 == 1:
			// Inserted where a gap begins: a negative, non-finite or
			// out-of-range gap, a line break, a string.
			at += bytes.Index(data[at:], []byte(", ")) + 2
			d = []string{"-", "NaN, ", "Infinity, ", "1e999, ", "\n", `"a", `, "-0.0, "}[k/2%7]
			bad = append(append(append([]byte{}, data[:at]...), d...), data[at:]...)
		}
		vjParallel(t, -1, 0)
		want := vjOutcome(bad)
		if !bytes.Contains([]byte(want), []byte("error: <nil>")) {
			refused++
		}
		for _, size := range []int{64, 5000, 0} {
			vjParallel(t, 0, size)
			if got := vjOutcome(bad); got != want {
				t.Fatalf("damage %q at byte %d, ranges of %d: differs:\n%s\none by one:\n%s", d, at, size, vjHead(got), vjHead(want))
			}
		}
	}
	if refused < 30 {
		t.Errorf("only %d of 80 damaged files refused: the damage misses the lists", refused)
	}
}

// TestParallelGapsUsed: on a file laid out as json.dump writes it, the
// parallel reader takes the lists (it does not give up and leave them all to
// the one-by-one reader), in bounded memory.
func TestParallelGapsUsed(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("the parallel reader needs GOMAXPROCS >= 2")
	}
	data := vjGenerate(t, vjGenerator(t), "-size", "8MB")
	d := pyjson.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := d.Next()
		if err != nil {
			t.Fatal(err)
		}
		if tok.Kind == pyjson.Key && string(tok.Bytes) == "itls" {
			break
		}
	}
	if tok, err := d.Next(); err != nil || tok.Kind != pyjson.ArrayStart {
		t.Fatal(tok, err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var g jsonread.GapLists
	count := 0
	n, err := g.Read(d, jsonread.ParallelFrom, func(benchrun.GapStats) error { count++; return nil })
	runtime.ReadMemStats(&after)
	if err != nil || n != count {
		t.Fatal(n, count, err)
	}
	if tok, err := d.Next(); err != nil || tok.Kind != pyjson.ArrayEnd {
		t.Fatalf("after %d lists: %v %v, not the end of the list", n, tok, err)
	}
	if n < 1000 {
		t.Fatalf("the parallel reader took %d lists", n)
	}
	// Ranges are reused: what is allocated does not grow with the input
	// (8 MB here).
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 6<<20 {
		t.Errorf("reading %d lists allocated %d bytes", n, alloc)
	}
}

// BenchmarkGapLists parses a generated 64 MB file one by one and on
// several cores.
func BenchmarkGapLists(b *testing.B) {
	data, err := os.ReadFile(os.Getenv("VJ_BENCH_FILE"))
	if err != nil {
		data = vjGenerate(b, vjGenerator(b), "-size", "64MB")
	}
	for _, mode := range []struct {
		name string
		from int
	}{{"serial", -1}, {"parallel", jsonread.ParallelFrom}} {
		b.Run(mode.name, func(b *testing.B) {
			vjParallel(b, mode.from, 0)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			p := vllmjson.New()
			for b.Loop() {
				if err := p.Parse(context.Background(), "m.json", bytes.NewReader(data), func(*benchrun.Run) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
