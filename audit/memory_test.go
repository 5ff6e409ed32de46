package audit

import (
	"context"
	"runtime"
	"testing"
	"unsafe"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
)

// What an audit reserves is the records of the largest blobs parsed at
// once, and the margin.
func TestRecordsMemory(t *testing.T) {
	t.Parallel()
	size := int64(unsafe.Sizeof(benchrun.Request{}))
	for _, c := range []struct {
		perBlob []int64
		workers int
		want    int64
	}{
		{[]int64{1_500_000 * size, 10 * size, 2_000_000 * size, 700_000 * size}, 2, 3_500_000*size + memoryMargin},
		{[]int64{10 * size, 1_000_000 * size, 5 * size}, 4, 1_000_015*size + memoryMargin},
		{[]int64{-1, 7 * size}, 1, 7*size + memoryMargin},
		{nil, 2, memoryMargin},
	} {
		if got := recordsMemory(c.perBlob, c.workers); got != c.want {
			t.Errorf("recordsMemory(%v, %d) = %d, want %d", c.perBlob, c.workers, got, c.want)
		}
	}
}

// An audit that parses raw files again tells the program what it will hold
// (the records of both runs' blobs, parsed side by side), and releases it
// when it is done; one that reads no raw file reserves nothing.
func TestAuditReservesMemory(t *testing.T) {
	t.Parallel()
	a, _, _ := archiveOf(t, map[string]vllmFile{"a.json": {n: 40}, "b.json": {n: 40, start: 300}}, true)
	var reserved []int64
	released := 0
	opt := Options{ReserveMemory: func(n int64) func() {
		reserved = append(reserved, n)
		return func() { released++ }
	}}
	if _, err := RunSelected(context.Background(), a, nil, opt); err != nil {
		t.Fatal(err)
	}
	vllm := int64(40 * format.CompactRecordBytes) // vLLM files are parsed again column by column
	if want := recordsMemory([]int64{vllm, vllm}, min(4, runtime.GOMAXPROCS(0), 2)); len(reserved) != 1 || reserved[0] != want || released != 1 {
		t.Errorf("reserved %v (released %d times), want [%d] released once", reserved, released, want)
	}
	reserved, released = nil, 0
	sel, err := ParseSelection("integrity.chain")
	if err != nil {
		t.Fatal(err)
	}
	opt.Checks = sel
	if _, err := RunSelected(context.Background(), a, nil, opt); err != nil {
		t.Fatal(err)
	}
	if len(reserved) != 0 {
		t.Errorf("an archive-wide check reserved %v", reserved)
	}
}

// A vLLM file's records are parsed again column by column, in fewer bytes
// than other formats' rows.
func TestRecordBytes(t *testing.T) {
	if got := recordBytes("vllm-serve-json"); got != format.CompactRecordBytes {
		t.Errorf("vLLM: %d bytes a request, want %d", got, format.CompactRecordBytes)
	}
	if got, want := recordBytes("sglang-bench-serving"), int64(unsafe.Sizeof(benchrun.Request{})); got != want {
		t.Errorf("SGLang: %d bytes a request, want %d", got, want)
	}
}
