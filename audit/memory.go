package audit

import (
	"slices"
	"unsafe"

	"github.com/benchledger/benchledger/benchrun"
)

// memoryMargin is what an audit holds besides the records of the runs
// whose raw files are being parsed again: parse buffers, a blob chunk, the
// collector's headroom.
const memoryMargin = 24 << 20

// recordsMemory is what an audit holds at most while it parses raw files
// again, workers blobs at a time (perBlob: each blob's request count): the
// records of the largest blobs parsed side by side, and the margin. The
// program is told it (Options.ReserveMemory), so that a run larger than its
// memory limit foresaw does not keep the collector running back to back.
func recordsMemory(perBlob []int64, workers int) int64 {
	sorted := slices.Clone(perBlob)
	slices.Sort(sorted)
	slices.Reverse(sorted)
	var n int64
	for _, c := range sorted[:min(workers, len(sorted))] {
		n += max(c, 0)
	}
	return n*int64(unsafe.Sizeof(benchrun.Request{})) + memoryMargin
}
