package store

import (
	"os"
	"sync/atomic"
	"time"
)

// writeback has the disk write a SQLite archive file while the checkpoint
// that follows the commit of a large blob copies the write-ahead log into
// it, instead of when the checkpoint syncs it.
//
// The kernel writes dirty pages back only after half a minute or once
// gigabytes are dirty, so the checkpoint's sync of the archive file waited
// for all of the blob's compressed bytes to reach the disk (for the 950 MB
// bench file, 470 MB and about 0.2 s). Asking for writeback every
// writebackEvery while the checkpoint copies leaves the sync little to do.
// It changes what is written and when it is durable in no way: SQLite's
// syncs still decide that.
//
// The write-ahead log is left alone: written back early too, its sync got
// shorter, but a commit rewrites the frame headers after the first frame
// the transaction overwrote (SQLite's checksum chain), and those pages,
// already written, were written again (136 MB more for the bench file).
type writeback struct {
	stop, done chan struct{}
}

// writebackFrom is the blob size from which a commit asks for early
// writeback: a small file's pages are few, and the goroutine and the file
// it opens would cost more than they save. (A variable: tests lower it.)
var writebackFrom int64 = 64 << 20

const writebackEvery = 100 * time.Millisecond

// writebacks counts the writebacks started (for tests).
var writebacks atomic.Int64

// startWriteback starts asking for the writeback of the archive file
// until end is called; nil where it cannot (PostgreSQL, systems without
// sync_file_range).
func (a *Archive) startWriteback() *writeback {
	if a.d != sqliteDialect || !canStartWriting {
		return nil
	}
	f, err := os.Open(a.path)
	if err != nil {
		return nil
	}
	writebacks.Add(1)
	w := &writeback{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		defer f.Close()
		tick := time.NewTicker(writebackEvery)
		defer tick.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-tick.C:
				startWriting(f)
			}
		}
	}()
	return w
}

// end stops asking and waits until the goroutine is done.
func (w *writeback) end() {
	if w == nil {
		return
	}
	close(w.stop)
	<-w.done
}
