package store

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/klauspost/compress/flate"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
)

func randomBytes(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

func TestBlobRoundTrip(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		const chunk = 1000
		text := []byte(strings.Repeat(`{"ttft": 0.0123, "itl": [0.01, 0.02]}`+"\n", 300)) // compressible, 11 chunks
		cases := []struct {
			name   string
			data   []byte
			pieces int // write in pieces of this size; 0 = one Write
			chunks int
		}{
			{"empty", nil, 0, 0},
			{"one byte", []byte{42}, 0, 1},
			{"just under a chunk", randomBytes(chunk-1, 1), 0, 1},
			{"exactly one chunk", randomBytes(chunk, 2), 0, 1},
			{"one byte over a chunk", randomBytes(chunk+1, 3), 7, 2},
			{"random, several chunks", randomBytes(10*chunk+500, 4), 0, 11},
			{"random, odd pieces", randomBytes(10*chunk+500, 5), 333, 11},
			{"text", text, 4096, (len(text) + chunk - 1) / chunk},
		}
		path := e.path(t)
		a := openArchive(t, path, Options{})
		a.chunkSize = chunk
		tx := begin(t, a)
		for _, c := range cases {
			sha := sha256Hex(c.data)
			bw, err := tx.NewBlob(sha, int64(len(c.data)), c.name)
			if err != nil {
				t.Fatalf("%s: NewBlob: %v", c.name, err)
			}
			rest := c.data
			for len(rest) > 0 {
				n := len(rest)
				if c.pieces > 0 {
					n = min(n, c.pieces)
				}
				if k, err := bw.Write(rest[:n]); err != nil || k != n {
					t.Fatalf("%s: Write = %d, %v", c.name, k, err)
				}
				rest = rest[n:]
			}
			if err := bw.Close(); err != nil {
				t.Fatalf("%s: Close: %v", c.name, err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}

		db := e.raw(t, path)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				sha := sha256Hex(c.data)
				var chunks, rows int
				var size int64
				if err := db.QueryRow("SELECT size, chunks, (SELECT count(*) FROM blob_chunks WHERE blob = sha256) FROM blobs WHERE sha256 = ?", sha).
					Scan(&size, &chunks, &rows); err != nil {
					t.Fatal(err)
				}
				if size != int64(len(c.data)) || chunks != c.chunks || rows != c.chunks {
					t.Errorf("size %d, chunks %d, chunk rows %d; want %d, %d, %d", size, chunks, rows, len(c.data), c.chunks, c.chunks)
				}
				if ok, err := a.HasBlob(sha); !ok || err != nil {
					t.Errorf("HasBlob = %v, %v", ok, err)
				}
				r, err := a.OpenBlob(sha)
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(r)
				r.Close()
				if err != nil || !bytes.Equal(got, c.data) {
					t.Fatalf("OpenBlob read %d bytes (err %v), want the original %d bytes", len(got), err, len(c.data))
				}
				r, _ = a.OpenBlob(sha)
				if err := iotest.TestReader(r, c.data); err != nil {
					t.Errorf("iotest.TestReader: %v", err)
				}
				r.Close()
			})
		}
		if _, err := a.OpenBlob(sha256Hex([]byte("never stored"))); !errors.Is(err, ErrNotFound) {
			t.Errorf("OpenBlob of an unknown blob = %v, want ErrNotFound", err)
		}
	})
}

// The stored compression is real. Huffman-only DEFLATE (chosen for speed)
// gains from the skewed byte frequencies of benchmark JSON, not from
// repetition, so the bound is what that coding achieves on this text (1.85x).
func TestBlobIsCompressed(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		path := e.path(t)
		a := openArchive(t, path, Options{})
		data := bytes.Repeat([]byte(`{"ttft": 0.0123456, "latency": 3.5}, `), 200_000) // ~7 MB: two default chunks
		tx := begin(t, a)
		sha := writeBlob(t, tx, data, "big.json")
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		var stored int64
		if err := e.raw(t, path).QueryRow("SELECT sum(length(data)) FROM blob_chunks WHERE blob = ?", sha).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if stored*3 > int64(len(data))*2 {
			t.Errorf("stored %d bytes for %d of repetitive text", stored, len(data))
		}
		r, _ := a.OpenBlob(sha)
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("round trip failed: %d bytes, %v", len(got), err)
		}
	})
}

func TestBlobMismatch(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		data := randomBytes(2500, 7)
		cases := []struct {
			name      string
			sha       string
			size      int64
			write     []byte
			failWrite bool // the error comes at Write rather than Close
		}{
			{"wrong sha", sha256Hex([]byte("something else")), int64(len(data)), data, false},
			{"fewer bytes than declared", sha256Hex(data), int64(len(data)), data[:2000], false},
			{"more bytes than declared", sha256Hex(data[:2000]), 2000, data, true},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				path := e.path(t)
				a := openArchive(t, path, Options{})
				a.chunkSize = 1000
				tx := begin(t, a)
				bw, err := tx.NewBlob(c.sha, c.size, "changed.json")
				if err != nil {
					t.Fatal(err)
				}
				_, werr := bw.Write(c.write)
				cerr := bw.Close()
				got := cerr
				if c.failWrite {
					got = werr
				} else if werr != nil {
					t.Fatalf("Write: %v", werr)
				}
				if !errors.Is(got, ErrBlobMismatch) {
					t.Fatalf("error = %v, want ErrBlobMismatch", got)
				}
				if err := tx.Commit(); err == nil {
					t.Fatal("Commit accepted a transaction with a failed blob")
				}
				if err := tx.Rollback(); err != nil {
					t.Fatalf("Rollback after refused Commit: %v", err)
				}
				if ok, _ := a.HasBlob(c.sha); ok {
					t.Error("the blob is in the archive")
				}
				db := e.raw(t, path)
				if n := countRows(t, db, "blobs") + countRows(t, db, "blob_chunks"); n != 0 {
					t.Errorf("%d blob rows remain", n)
				}
			})
		}
	})
}

func TestCommitRefusesUnclosedBlob(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		path := e.path(t)
		a := openArchive(t, path, Options{})
		a.chunkSize = 100
		tx := begin(t, a)
		data := randomBytes(1000, 9)
		bw, err := tx.NewBlob(sha256Hex(data), 1000, "partial.json")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := bw.Write(data[:500]); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err == nil || !strings.Contains(err.Error(), "not closed") {
			t.Fatalf("Commit with an open BlobWriter = %v, want a refusal", err)
		}
		db := e.raw(t, path)
		if n := countRows(t, db, "blobs") + countRows(t, db, "blob_chunks"); n != 0 {
			t.Errorf("%d blob rows remain", n)
		}
		if _, err := bw.Write(data[500:]); err == nil {
			t.Error("Write after the transaction ended succeeded")
		}
	})
}

func TestDuplicateBlob(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		a := openArchive(t, e.path(t), Options{})
		tx := begin(t, a)
		data := []byte("same bytes")
		writeBlob(t, tx, data, "a.json")
		if ok, err := tx.HasBlob(sha256Hex(data)); !ok || err != nil {
			t.Fatalf("Tx.HasBlob inside the writing transaction = %v, %v", ok, err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		tx = begin(t, a)
		if _, err := tx.NewBlob(sha256Hex(data), int64(len(data)), "b.json"); !errors.Is(err, ErrExists) {
			t.Fatalf("NewBlob of stored bytes = %v, want ErrExists", err)
		}
	})
}

func TestCorruptChunkDetected(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		path := e.path(t)
		a := openArchive(t, path, Options{})
		a.chunkSize = 1000
		data := randomBytes(3000, 11)
		tx := begin(t, a)
		sha := writeBlob(t, tx, data, "x.bin")
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		// Replace chunk 1 with a valid frame of other bytes: only the SHA-256
		// check can notice.
		var other bytes.Buffer
		fw, _ := flate.NewWriter(&other, flate.HuffmanOnly)
		fw.Write(randomBytes(1000, 12))
		fw.Close()
		if _, err := e.raw(t, path).Exec("UPDATE blob_chunks SET data = ? WHERE blob = ? AND seq = 1", other.Bytes(), sha); err != nil {
			t.Fatal(err)
		}
		r, err := a.OpenBlob(sha)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadAll(r); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("reading a tampered blob = %v, want ErrCorrupt", err)
		}
	})
}

// The ingest parses a file while its bytes are still being stored: runs
// are put between writes, on the transaction the blob pipeline also uses.
func TestPutRunWhileBlobIsWritten(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		path := e.path(t)
		a := openArchive(t, path, Options{})
		a.chunkSize = 512
		data := randomBytes(20_000, 13)
		sha := sha256Hex(data)
		tx := begin(t, a)
		bw, err := tx.NewBlob(sha, int64(len(data)), "interleaved.json")
		if err != nil {
			t.Fatal(err)
		}
		for i := range 4 {
			part := data[i*5000 : (i+1)*5000]
			if _, err := bw.Write(part); err != nil {
				t.Fatal(err)
			}
			if err := tx.PutRun(runRecord(sha, sampleRun(i))); err != nil {
				t.Fatalf("PutRun while the blob is being written: %v", err)
			}
		}
		if err := bw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		runs, err := a.RunsOfBlob(sha)
		if err != nil || len(runs) != 4 {
			t.Fatalf("RunsOfBlob = %d runs, %v", len(runs), err)
		}
		r, _ := a.OpenBlob(sha)
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("blob round trip: %d bytes, %v", len(got), err)
		}
	})
}

// A prepared blob reads back like a streamed one, including several chunks
// and an empty file, and a second copy is refused.
func TestPreparedBlobRoundTrip(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		a := openArchive(t, e.path(t), Options{})
		for _, data := range [][]byte{nil, []byte(`{"a": 1}`), randomBytes(DefaultChunkSize*2+123, 5)} {
			p, err := PrepareBlob(data, "")
			if err != nil {
				t.Fatal(err)
			}
			if p.SHA256 != sha256Hex(data) {
				t.Fatalf("sha %s, want %s", p.SHA256, sha256Hex(data))
			}
			tx := begin(t, a)
			if err := tx.PutPreparedBlob(p, "x"); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			r, err := a.OpenBlob(p.SHA256)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("read back %d bytes (%v), want %d", len(got), err, len(data))
			}
			tx = begin(t, a)
			if err := tx.PutPreparedBlob(p, "x"); !errors.Is(err, ErrExists) {
				t.Errorf("second copy: %v, want ErrExists", err)
			}
			tx.Rollback()
		}
	})
}

// A blob started without its hash learns it from its bytes; the same bytes
// streamed again are recognised at Close.
func TestProvisionalBlob(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		path := e.path(t)
		a := openArchive(t, path, Options{})
		a.chunkSize = 1000
		data := randomBytes(3500, 21)
		for round := 0; round < 2; round++ {
			// A blob of this size is archived after the first round only.
			if ok, err := a.HasBlobOfSize(int64(len(data))); err != nil || ok != (round == 1) {
				t.Fatalf("round %d: HasBlobOfSize = %v, %v", round, ok, err)
			}
			if ok, err := a.HasBlobOfSize(int64(len(data) - 1)); err != nil || ok {
				t.Fatalf("round %d: HasBlobOfSize of another size = %v, %v", round, ok, err)
			}
			tx := begin(t, a)
			bw, err := tx.NewBlob("", int64(len(data)), "p.bin")
			if err != nil {
				t.Fatal(err)
			}
			bw.Write(data)
			err = bw.Close()
			if round == 1 {
				if !errors.Is(err, ErrExists) {
					t.Fatalf("second stream of the same bytes: %v, want ErrExists", err)
				}
				// The ingest reports the duplicate under that hash.
				if bw.SHA256() != sha256Hex(data) {
					t.Fatalf("after ErrExists: learnt %q, want %s", bw.SHA256(), sha256Hex(data))
				}
				tx.Rollback()
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if bw.SHA256() != sha256Hex(data) {
				t.Fatalf("learnt %q, want %s", bw.SHA256(), sha256Hex(data))
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			r, err := a.OpenBlob(sha256Hex(data))
			if err != nil {
				t.Fatal(err)
			}
			if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("read back: %v", err)
			}
		}
		var n int
		e.raw(t, path).QueryRow("SELECT count(*) FROM blob_chunks").Scan(&n)
		if n != 4 {
			t.Errorf("%d chunk rows, want the 4 of one copy", n)
		}
	})
}

// A prepared blob released once stored gives its buffers to the next
// PrepareBlob (an ingest releases each after its part): what the first
// stored must not change when the second overwrites those buffers, on
// either engine, before and after the commit.
func TestPreparedBlobReleasedAfterPut(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		a := openArchive(t, e.path(t), Options{})
		tx := begin(t, a)
		var stored [][]byte
		var last *byte
		reused := false
		for i := range 20 {
			data := randomBytes(DefaultChunkSize+999, uint64(100+i))
			p, err := PrepareBlob(data, "")
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 && &p.chunks[0][:1][0] == last {
				reused = true
			}
			last = &p.chunks[0][:1][0]
			if err := tx.PutPreparedBlob(p, fmt.Sprint("f", i)); err != nil {
				t.Fatal(err)
			}
			p.Release()
			stored = append(stored, data)
		}
		if !reused {
			t.Error("no PrepareBlob took the buffers of the blob released before it")
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		for i, data := range stored {
			r, err := a.OpenBlob(sha256Hex(data))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			r.Close()
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("blob %d read back as %d bytes (%v) other than stored", i, len(got), err)
			}
		}
	})
}
