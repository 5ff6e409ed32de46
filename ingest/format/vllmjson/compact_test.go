package vllmjson_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/format/vllmjson"
	"github.com/benchledger/benchledger/internal/testshared"
)

// vjCompactOutcome is vjOutcome of ParseCompact: each run's rows, read
// back one by one, stand in for its Requests.
func vjCompactOutcome(t testing.TB, data []byte) string {
	t.Helper()
	var b bytes.Buffer
	p, ok := vllmjson.New().(format.CompactParser)
	if !ok {
		t.Fatal("the vLLM parser is no format.CompactParser")
	}
	err := p.ParseCompact(context.Background(), "f.json", bytes.NewReader(data), func(r *benchrun.Run, rows format.Rows) error {
		if r.Requests != nil {
			t.Errorf("%s: Requests set by ParseCompact", r.Location)
		}
		if rows != nil {
			for i := range rows.Len() {
				r.Requests = append(r.Requests, rows.Row(i))
			}
		}
		vjPrintRun(&b, r)
		return nil
	})
	fmt.Fprintf(&b, "error: %v\n", err)
	return b.String()
}

// TestCompactSameAsRows: the records ParseCompact keeps column by column
// read back as the ones Parse gives, with the same notes and errors, on
// the package's, the shared and generated files and on files that take
// each finishing rule (failures, latency placeholders, derived latency,
// lists of different lengths).
func TestCompactSameAsRows(t *testing.T) {
	paths, _ := filepath.Glob("testdata/*.json")
	if root := testshared.Root(); root != "" {
		shared, _ := filepath.Glob(filepath.Join(root, "samples", "vllm", "*.json"))
		paths = append(paths, shared...)
	}
	files := map[string][]byte{}
	for _, p := range paths {
		files[p] = vjReadFile(t, p)
	}
	head := `{"date": "20250101-120000", "model_id": "m", "num_prompts": 3, "completed": 2, "duration": 1.5, `
	for name, body := range map[string]string{
		"failures":         `"errors": ["", "boom", ""], "input_lens": [5, 6, 7], "ttfts": [0.1, 0.0, 0.2], "latencies": [1.0, 0.0, 1.5], "itls": [[0.1, 0.2], [], [0.3]], "failed": 1`,
		"placeholders":     `"latencies": [1.0, 0.0, 2.0], "ttfts": [0.1, 0.0, 0.2], "output_lens": [3, 0, 4]`,
		"derived latency":  `"ttfts": [0.1, 0.0, 0.2], "itls": [[0.1, 0.2], [], [0.3]], "errors": ["", "x", ""]`,
		"gaps first":       `"itls": [[0.1], [0.2, 0.3], []], "start_times": [0.0, 0.5, 1.0], "queue_times": [0.0, 0.1, 0.2]`,
		"longer list":      `"input_lens": [1, 2, 3], "output_lens": [1, 2, 3, 4]`,
		"shorter list":     `"ttfts": [0.1, 0.2, 0.3], "errors": ["a", ""]`,
		"bad item":         `"input_lens": [1, 2, 3], "ttfts": [0.1, -2, 0.3]`,
		"errors first":     `"errors": ["", "", "late"], "latencies": [1.0, 2.0, 0.0]`,
		"error past count": `"input_lens": [1, 2], "errors": ["", "x", "y"]`,
	} {
		files[name] = []byte(head + body + "}")
	}
	gen := vjGenerator(t)
	for _, args := range [][]string{
		{"-n", "3000", "-seed", "7", "-fail-rate", "0.05"},
		{"-n", "500", "-seed", "3", "-append", "3"},
		{"-n", "400", "-seed", "5", "-format", "legacy"},
	} {
		files[fmt.Sprint(args)] = vjGenerate(t, gen, args...)
	}
	for name, data := range files {
		want, got := vjOutcome(data), vjCompactOutcome(t, data)
		if got != want {
			t.Errorf("%s: ParseCompact differs:\n%s\nParse:\n%s", name, vjHead(got), vjHead(want))
		}
	}
}

// TestCompactSmaller: a run of 100,000 requests with every list holds at
// most format.CompactRecordBytes a request when compact, well under a
// benchrun.Request.
func TestCompactSmaller(t *testing.T) {
	data := vjGenerate(t, vjGenerator(t), "-n", "100000", "-out-len", "4")
	p := vllmjson.New().(format.CompactParser)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var rows format.Rows
	if err := p.ParseCompact(context.Background(), "f.json", bytes.NewReader(data), func(_ *benchrun.Run, r format.Rows) error {
		rows = r
		return nil
	}); err != nil || rows == nil {
		t.Fatal(err, rows)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := int(after.HeapAlloc-before.HeapAlloc) / rows.Len()
	runtime.KeepAlive(rows)
	runtime.KeepAlive(data)
	if per > format.CompactRecordBytes || per >= int(unsafe.Sizeof(benchrun.Request{})) {
		t.Errorf("%d bytes a request held", per)
	}
	t.Logf("%d bytes a request held", per)
}
