package store

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	"github.com/klauspost/compress/flate"
)

// A blob of many chunks is read on a connection of its own into reused
// buffers (blobReader.bulk) on SQLite: the same bytes, the same errors for
// a chunk altered or missing, and its connection closed with the reader.
func TestBlobReadInBulk(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		path := e.path(t)
		a := openArchive(t, path, Options{})
		a.chunkSize = 1000
		data := randomBytes(6500, 21) // 7 chunks
		tx := begin(t, a)
		sha := writeBlob(t, tx, data, "many.bin")
		small := writeBlob(t, tx, randomBytes(2500, 22), "few.bin") // 3 chunks
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		open := func(sha string) *blobReader {
			t.Helper()
			r, err := a.OpenBlob(sha)
			if err != nil {
				t.Fatal(err)
			}
			return r.(*blobReader)
		}
		r := open(sha)
		if want := e.name == "sqlite"; r.bulk != want {
			t.Errorf("a blob of 7 chunks: bulk = %v, want %v", r.bulk, want)
		}
		if err := iotest.TestReader(r, data); err != nil {
			t.Errorf("iotest.TestReader: %v", err)
		}
		if e.name == "sqlite" && r.conn == nil {
			t.Error("the bulk reader read without a connection of its own")
		}
		if err := r.Close(); err != nil || r.conn != nil && r.chunk != nil {
			t.Errorf("Close = %v (connection kept: %v)", err, r.chunk != nil)
		}
		if r := open(small); r.bulk {
			t.Error("a blob of 3 chunks is read in bulk, on a connection opened for it")
		}

		// Chunk 5 replaced by a valid frame of other bytes, then deleted.
		var other bytes.Buffer
		fw, _ := flate.NewWriter(&other, flate.HuffmanOnly)
		fw.Write(randomBytes(1000, 23))
		fw.Close()
		db := e.raw(t, path)
		if _, err := db.Exec("UPDATE blob_chunks SET data = ? WHERE blob = ? AND seq = 5", other.Bytes(), sha); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadAll(open(sha)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("reading a blob with an altered chunk = %v, want ErrCorrupt", err)
		}
		if _, err := db.Exec("DELETE FROM blob_chunks WHERE blob = ? AND seq = 5", sha); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadAll(open(sha)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("reading a blob with a missing chunk = %v, want ErrCorrupt", err)
		}
	})
}
