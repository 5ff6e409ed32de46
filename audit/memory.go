package audit

import (
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

// recordsMemory is what an audit holds at most while it parses raw files
// again, workers blobs at a time (perBlob: the bytes of each blob's
// records, recordBytes a request): the records of the largest blobs parsed
// side by side, and the margin. The program is told it
// (Options.ReserveMemory), so that a run larger than its memory limit
// foresaw does not keep the collector running back to back.
func recordsMemory(perBlob []int64, workers int) int64 {
	sorted := slices.Clone(perBlob)
	slices.Sort(sorted)
	slices.Reverse(sorted)
	var n int64
	for _, c := range sorted[:min(workers, len(sorted))] {
		n += max(c, 0)
	}
	return n + memoryMargin
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
