package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/benchledger/benchledger/store/internal/huffdeflate"
)

// PreparedBlob is a small raw file hashed and compressed ahead of its
// transaction, so an ingest can prepare the next files on other cores while
// one file is being written. It holds the compressed chunks only.
type PreparedBlob struct {
	SHA256    string
	Size      int64
	chunkSize int
	rawSizes  []int
	chunks    [][]byte
}

// PrepareBlob compresses raw in chunks of DefaultChunkSize. sum is raw's
// SHA-256 in hex when the caller has computed it already (an ingest hashes
// first, to skip duplicates), or "" to compute it here. It touches no
// archive and is safe to call from any goroutine.
func PrepareBlob(raw []byte, sum string) (*PreparedBlob, error) {
	if sum == "" {
		h := sha256.Sum256(raw)
		sum = hex.EncodeToString(h[:])
	}
	p := &PreparedBlob{SHA256: sum, Size: int64(len(raw)), chunkSize: DefaultChunkSize}
	for off := 0; off < len(raw); off += DefaultChunkSize {
		piece := raw[off:min(off+DefaultChunkSize, len(raw))]
		var dst []byte
		if b, ok := preparedChunks.Get().(*[]byte); ok {
			dst = (*b)[:0]
		}
		if cap(dst) < len(piece)/2 {
			dst = make([]byte, 0, len(piece)/2)
		}
		p.chunks = append(p.chunks, deflateChunk(dst, piece))
		p.rawSizes = append(p.rawSizes, len(piece))
	}
	return p, nil
}

// preparedChunks hold the buffers of released prepared blobs' chunks
// (*[]byte) for the next PrepareBlob: an ingest of 1,000 ordinary files
// otherwise allocated and cleared 117 MB for them.
var preparedChunks sync.Pool

// Release gives p's compressed chunks to the next PrepareBlob. p must not
// be used afterwards. PutPreparedBlob's statements copy the bytes they
// store, so p may be released once it returned.
func (p *PreparedBlob) Release() {
	for i, c := range p.chunks {
		preparedChunks.Put(&c)
		p.chunks[i] = nil
	}
	p.chunks = nil
}

// deflaters holds the chunk compressors (deflateChunk) between uses: each
// has some 300 KB of tables, which a sync.Pool would drop at every garbage
// collection, and an ingest of 1,000 small files made them again for each.
var deflaters = make(chan *huffdeflate.Encoder, 8)

// deflateChunk appends raw to dst compressed as one chunk's own stream
// (DEFLATE with Huffman coding only, see compressionDeflate): how
// PrepareBlob and a BlobWriter's compressors store every new chunk.
func deflateChunk(dst, raw []byte) []byte {
	var enc *huffdeflate.Encoder
	select {
	case enc = <-deflaters:
	default:
		enc = new(huffdeflate.Encoder)
	}
	out := enc.Append(dst, raw)
	select {
	case deflaters <- enc:
	default:
	}
	return out
}

// PutPreparedBlob stores a prepared blob in the transaction. A blob already
// stored gives ErrExists.
func (tx *Tx) PutPreparedBlob(p *PreparedBlob, name string) error {
	op := "store blob " + p.SHA256
	if err := tx.check(op); err != nil {
		return err
	}
	// One statement says whether the blob was stored before: it inserts
	// no row then.
	res, err := tx.tx.Exec(`INSERT INTO blobs (sha256, size, chunk_size, chunks, compression, name, stored_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (sha256) DO NOTHING`, p.SHA256, p.Size, p.chunkSize, len(p.chunks), compressionDeflate, name,
		formatTime(time.Now()))
	if err != nil {
		return tx.wrap(op, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return tx.wrap(op, err)
	} else if n == 0 {
		return fmt.Errorf("archive %s: %s (%s): %w", tx.a.path, op, name, ErrExists)
	}
	for i, c := range p.chunks {
		if _, err := tx.tx.Exec("INSERT INTO blob_chunks (blob, seq, raw_size, data) VALUES (?, ?, ?, ?)",
			p.SHA256, i, p.rawSizes[i], c); err != nil {
			return tx.wrap(op, err)
		}
	}
	return nil
}
