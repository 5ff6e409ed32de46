package store

import (
	"context"
	"crypto/sha256"
	"testing"
	"time"
	"os"
)

func TestZZExperiment(t *testing.T) {
	if os.Getenv("EXP") == "" { t.Skip() }
	data := vllmLikeJSON(256 << 20)
	enc, _ := encoder()
	t0 := time.Now()
	var comps [][]byte
	for off := 0; off < len(data); off += DefaultChunkSize {
		end := min(off+DefaultChunkSize, len(data))
		comps = append(comps, enc.EncodeAll(data[off:end], nil))
	}
	t.Logf("zstd: %v", time.Since(t0))
	t0 = time.Now()
	sha256.Sum256(data)
	t.Logf("sha: %v", time.Since(t0))
	a := newArchive(t)
	t0 = time.Now()
	tx, _ := a.Begin(context.Background(), nil)
	tx.tx.Exec(`INSERT INTO blobs VALUES (?, 1, 1, 0, 'zstd', 'x', 'x')`, sha256Hex([]byte("x")))
	st, _ := tx.tx.Prepare("INSERT INTO blob_chunks VALUES (?, ?, ?, ?)")
	for i, c := range comps {
		if _, err := st.Exec(sha256Hex([]byte("x")), i, 1, c); err != nil { t.Fatal(err) }
	}
	t.Logf("insert: %v", time.Since(t0))
	t1 := time.Now()
	if err := tx.tx.Commit(); err != nil { t.Fatal(err) }
	t.Logf("commit: %v", time.Since(t1))
	t1 = time.Now()
	a.Close()
	t.Logf("close: %v total sqlite %v", time.Since(t1), time.Since(t0))
}
