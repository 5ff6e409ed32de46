package audit

import (
	"math"
	"runtime/debug"
	"testing"
	"unsafe"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
)

// The soft memory limit benchledger audit sets is raised to what the
// records of the blobs parsed at once need, and set back afterwards; a
// process without a limit keeps none.
func TestRaiseMemoryLimit(t *testing.T) {
	orig := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(orig) })
	size := int64(unsafe.Sizeof(benchrun.Request{}))

	debug.SetMemoryLimit(math.MaxInt64)
	raiseMemoryLimit([]int64{1 << 30}, 1)()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("without a limit: the limit became %d", got)
	}

	const limit = 128 << 20
	debug.SetMemoryLimit(limit)
	// Under the limit: unchanged.
	restore := raiseMemoryLimit([]int64{10 * size, 1_000_000 * size, 5 * size}, 2)
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("records of 1,000,010 requests: limit %d, want %d kept", got, limit)
	}
	restore()
	// Over it: the two largest blobs of four, parsed at once, and the margin.
	restore = raiseMemoryLimit([]int64{1_500_000 * size, 10 * size, 2_000_000 * size, 700_000 * size}, 2)
	if got, want := debug.SetMemoryLimit(-1), 3_500_000*size+memoryMargin; got != want {
		t.Errorf("records of 3,500,000 requests: limit %d, want %d", got, want)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("restored limit %d, want %d", got, limit)
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
