package store

import (
	"path/filepath"
	"testing"
)

// TestWritebackWhileLargeBlob: a transaction storing a large blob in a
// SQLite archive asks for early writeback until it commits or rolls back;
// one storing a small blob does not.
func TestWritebackWhileLargeBlob(t *testing.T) {
	defer func(n int64) { writebackFrom = n }(writebackFrom)
	writebackFrom = 2000
	a := openArchive(t, filepath.Join(t.TempDir(), "a.db"), Options{})
	for i, c := range []struct {
		size   int
		commit bool
	}{{3000, false}, {1000, true}, {3000, true}} {
		tx := begin(t, a)
		data := randomBytes(c.size, uint64(i))
		bw, err := tx.NewBlob("", int64(len(data)), "x")
		if err != nil {
			t.Fatal(err)
		}
		w := tx.writeback
		if want := int64(c.size) >= writebackFrom && canStartWriting; (w != nil) != want {
			t.Fatalf("blob of %d bytes: writeback %v, want %v", c.size, w != nil, want)
		}
		if c.commit {
			bw.Write(data)
			if err := bw.Close(); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		} else {
			tx.Rollback()
		}
		if tx.writeback != nil {
			t.Errorf("blob of %d bytes: writeback still set after the transaction", c.size)
		}
		if w != nil {
			select {
			case <-w.done:
			default:
				t.Errorf("blob of %d bytes: the writeback goroutine still runs after the transaction", c.size)
			}
		}
	}
}
