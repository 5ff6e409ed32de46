//go:build linux

package store

import (
	"os"

	"golang.org/x/sys/unix"
)

const canStartWriting = true

// startWriting asks the kernel to start writing the file's dirty pages to
// the disk, without waiting for them (sync_file_range(2) with
// SYNC_FILE_RANGE_WRITE alone, which makes nothing durable). An error only
// means the hint was not taken.
func startWriting(f *os.File) {
	unix.SyncFileRange(int(f.Fd()), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
}
