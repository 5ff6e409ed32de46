package audit

import (
	"math"
	"runtime/debug"
	"testing"
	"unsafe"

	"github.com/benchledger/benchledger/benchrun"
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
	restore := raiseMemoryLimit([]int64{10, 1_000_000, 5}, 2)
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("records of 1,000,010 requests: limit %d, want %d kept", got, limit)
	}
	restore()
	// Over it: the two largest blobs of four, parsed at once, and the margin.
	restore = raiseMemoryLimit([]int64{1_500_000, 10, 2_000_000, 700_000}, 2)
	if got, want := debug.SetMemoryLimit(-1), 3_500_000*size+memoryMargin; got != want {
		t.Errorf("records of 3,500,000 requests: limit %d, want %d", got, want)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Errorf("restored limit %d, want %d", got, limit)
	}
}
