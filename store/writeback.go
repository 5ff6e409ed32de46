package store

import (
	"os"
	"time"
)

// writeback has the disk start writing a SQLite archive's files while a
// transaction storing a large blob runs, instead of at its commit.
//
// The compressed blob goes first to the write-ahead log and, at the
// checkpoint that follows the commit, into the archive file; the
// checkpoint syncs the log, copies it and syncs the file. The kernel
// writes dirty pages back only after half a minute or once gigabytes are
// dirty, so both syncs waited for all of those bytes to reach the disk
// (hundreds of megabytes for a 1 GB result file: one to two seconds of an
// ingest's wall time). Asking for writeback every writebackEvery lets the
// disk write the log while the file is parsed and the archive file while
// the checkpoint copies, and the syncs find little left to do. It changes
// what is written and when it is durable in no way: SQLite's syncs still
// decide that.
type writeback struct {
	stop, done chan struct{}
}

// writebackFrom is the blob size from which a transaction asks for early
// writeback: a small file's pages are few, and the goroutine and the files
// it opens would cost more than they save. (A variable: tests lower it.)
var writebackFrom int64 = 64 << 20

const writebackEvery = 100 * time.Millisecond

// startWriteback starts asking for the writeback of the archive file and
// its write-ahead log until end is called; nil where it cannot (PostgreSQL,
// systems without sync_file_range).
func (a *Archive) startWriteback() *writeback {
	if a.d != sqliteDialect || !canStartWriting {
		return nil
	}
	w := &writeback{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		names := []string{a.path + "-wal", a.path}
		files := make([]*os.File, len(names))
		defer func() {
			for _, f := range files {
				if f != nil {
					f.Close()
				}
			}
		}()
		tick := time.NewTicker(writebackEvery)
		defer tick.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
			for i, f := range files {
				if f == nil {
					var err error
					if f, err = os.Open(names[i]); err != nil {
						continue // not there yet: the next tick tries again
					}
					files[i] = f
				}
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
