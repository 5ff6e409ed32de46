package audit

import (
	"math"
	"runtime/debug"
	"slices"
	"unsafe"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/registry"
)

// memoryMargin is what an audit holds besides the records of the runs
// whose raw files are being parsed again: parse buffers, a blob chunk, the
// collector's headroom.
const memoryMargin = 24 << 20

// raiseMemoryLimit raises the process's soft memory limit, when one is set
// (benchledger audit sets one), to what the records of the blobs audited at
// once need (perBlob: the bytes of each blob's records, recordBytes a
// request; workers blobs at a time), so a run larger than the limit foresaw
// does not keep the collector running back to back; restore sets the limit
// back. Without a limit (Go's default, the in-process tests) it does
// nothing.
func raiseMemoryLimit(perBlob []int64, workers int) (restore func()) {
	cur := debug.SetMemoryLimit(-1)
	if cur == math.MaxInt64 {
		return func() {}
	}
	sorted := slices.Clone(perBlob)
	slices.Sort(sorted)
	slices.Reverse(sorted)
	var n int64
	for _, c := range sorted[:min(workers, len(sorted))] {
		n += max(c, 0)
	}
	need := n + memoryMargin
	if need <= cur {
		return func() {}
	}
	debug.SetMemoryLimit(need)
	return func() { debug.SetMemoryLimit(cur) }
}

// recordBytes is what one request's record costs while a raw file of the
// format formatID is parsed again: format.CompactRecordBytes for a format
// that keeps records column by column (format.CompactParser), else a
// benchrun.Request.
func recordBytes(formatID string) int64 {
	if p, ok := registry.ByID(formatID); ok {
		if _, ok := p.(format.CompactParser); ok {
			return format.CompactRecordBytes
		}
	}
	return int64(unsafe.Sizeof(benchrun.Request{}))
}
