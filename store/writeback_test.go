package store

import (
	"path/filepath"
	"testing"
)

// TestWritebackAtLargeCommit: the commit of a transaction that stored a
// large blob in a SQLite archive asks for early writeback while it runs
// (and stops asking when it returns); a small blob's commit does not.
func TestWritebackAtLargeCommit(t *testing.T) {
	defer func(n int64) { writebackFrom = n }(writebackFrom)
	writebackFrom = 2000
	a := openArchive(t, filepath.Join(t.TempDir(), "a.db"), Options{})
	for i, size := range []int{1000, 3000} {
		before := writebacks.Load()
		tx := begin(t, a)
		data := randomBytes(size, uint64(i))
		bw, err := tx.NewBlob("", int64(len(data)), "x")
		if err != nil {
			t.Fatal(err)
		}
		bw.Write(data)
		if err := bw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		want := int64(0)
		if int64(size) >= writebackFrom && canStartWriting {
			want = 1
		}
		if got := writebacks.Load() - before; got != want {
			t.Errorf("commit of a %d-byte blob started %d writebacks, want %d", size, got, want)
		}
	}
}
