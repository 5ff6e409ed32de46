package store

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/zstd"

	"github.com/benchledger/benchledger/store/internal/sqlitebulk"
)

// compressors is how many chunks a BlobWriter compresses at once. Compression
// is most of the cost of storing a file; when the caller's parser leaves a
// core idle, a second compressor uses it.
var compressors = min(max(runtime.GOMAXPROCS(0), 1), 4)

// chunkBuffers is how many full-size raw chunk buffers one BlobWriter may
// hold: one being filled by the caller, one per compressor, one waiting.
// It is what bounds ingest memory, whatever the file size.
func chunkBuffers() int { return compressors + 2 }

// Compression of new chunks. Speed matters more than ratio: a 1 GB file must
// be stored in seconds while a parser holds the other core. Benchmark files
// are mostly digits, where entropy coding does nearly all the work: DEFLATE
// with Huffman coding only (RFC 1951, readable by any inflater) runs about
// 3.5x faster than zstd's fastest level for 86% of its ratio (2.2 vs 2.6 on
// vLLM detailed files); store/internal/huffdeflate writes it about 1.8x as
// fast as klauspost/compress's writer on lists of numbers, no slower on
// other text, for the same size. Each chunk is its own stream, so a chunk
// decodes without the others. Archives may also hold zstd chunks (the first
// format), which OpenBlob still reads.
const (
	compressionDeflate = "deflate"
	compressionZstd    = "zstd"
)

// The zstd decoder refuses to produce more than the destination's capacity,
// so a damaged frame cannot make it allocate more than the chunk's size.
var zstdDecoder = sync.OnceValues(func() (*zstd.Decoder, error) {
	return zstd.NewReader(nil, zstd.WithDecodeAllCapLimit(true))
})

// chunk is one piece of a blob on its way through the pipeline.
type chunk struct {
	seq  int
	raw  []byte
	comp []byte
}

// BlobWriter stores the bytes of one raw file. The caller writes the bytes
// in any pieces; full chunks go to background goroutines, so the caller's
// parser keeps its core while others do the storing: compressors (zstd, in
// parallel) and one storer that, in chunk order, hashes the raw bytes and
// inserts the compressed ones. Close waits for them and verifies the
// content.
type BlobWriter struct {
	tx        *Tx
	sha       string
	size      int64
	name      string
	chunkSize int
	insert    *sql.Stmt

	cur       []byte // the chunk being filled
	limit     int    // the length at which cur is full
	seq       int    // sequence number of cur
	written   int64
	allocated int // full-size raw buffers made so far

	jobs     chan *chunk   // filled chunks, to the compressors
	results  chan *chunk   // compressed chunks, to the storer (any order)
	free     chan []byte   // full-size raw buffers the storer is done with
	freeComp chan []byte   // compressed-data buffers the storer is done with
	done     chan struct{} // closed when the storer has finished

	mu        sync.Mutex
	workerErr error
	aborted   bool

	// Set by the storer before done is closed.
	hash   hash.Hash
	chunks int

	// provisional: sha is a random key until Close learns the real one,
	// learnt (also when those bytes turn out to be archived already).
	provisional bool
	learnt      string

	closed   bool
	closeErr error
}

// NewBlob starts storing a raw file whose bytes have the given SHA-256 (hex)
// and size. A blob already in the archive gives ErrExists (see HasBlob).
// With sha256hex "" the hash is learnt from the bytes themselves: the blob
// is stored under a provisional key that Close replaces (SHA256 then
// returns it), so an ingest can parse a large file in the same pass that
// hashes it. Close then gives ErrExists when those bytes were archived
// before.
// The caller writes exactly size bytes, then calls Close; Commit refuses a
// transaction whose BlobWriter was not closed successfully.
func (tx *Tx) NewBlob(sha256hex string, size int64, name string) (*BlobWriter, error) {
	sha := strings.ToLower(sha256hex)
	provisional := sha == ""
	if provisional {
		var key [32]byte
		if _, err := rand.Read(key[:]); err != nil {
			return nil, err
		}
		sha = hex.EncodeToString(key[:])
	}
	op := "store blob " + sha
	if err := tx.check(op); err != nil {
		return nil, err
	}
	if !validSHA256(sha) {
		return nil, fmt.Errorf("archive %s: store blob %q (%s): SHA-256 is not 64 hex digits", tx.a.path, sha256hex, name)
	}
	if size < 0 {
		return nil, fmt.Errorf("archive %s: %s (%s): negative size %d", tx.a.path, op, name, size)
	}
	if ok, err := hasBlob(tx.tx, tx.a.path, sha); err != nil {
		return nil, err
	} else if ok {
		return nil, fmt.Errorf("archive %s: %s (%s): %w", tx.a.path, op, name, ErrExists)
	}
	// The row goes in first (chunks filled in by Close) because chunks and
	// runs refer to it; Commit guarantees no unverified row survives.
	_, err := tx.tx.Exec(`INSERT INTO blobs (sha256, size, chunk_size, chunks, compression, name, stored_at)
		VALUES (?, ?, ?, 0, ?, ?, ?)`, sha, size, tx.a.chunkSize, compressionDeflate, name, formatTime(time.Now()))
	if err != nil {
		return nil, tx.wrap(op, err)
	}
	insert, err := tx.tx.Prepare("INSERT INTO blob_chunks (blob, seq, raw_size, data) VALUES (?, ?, ?, ?)")
	if err != nil {
		return nil, tx.wrap(op, err)
	}
	if size >= writebackFrom {
		tx.large = true
	}
	n := chunkBuffers()
	bw := &BlobWriter{
		tx:        tx,
		sha:       sha,
		size:      size,
		name:      name,
		chunkSize: tx.a.chunkSize,
		insert:    insert,
		jobs:      make(chan *chunk, 1),
		results:   make(chan *chunk, n),
		free:      make(chan []byte, n),
		freeComp:  make(chan []byte, n),
		done:      make(chan struct{}),
		hash:      sha256.New(),

		provisional: provisional,
	}
	tx.blobs = append(tx.blobs, bw)
	var compressing sync.WaitGroup
	for range compressors {
		compressing.Go(bw.compress)
	}
	go func() {
		compressing.Wait()
		close(bw.results)
	}()
	go bw.store()
	return bw, nil
}

// Write takes the next bytes of the file. Writing more than the declared
// size is an error at once.
func (bw *BlobWriter) Write(p []byte) (int, error) {
	if bw.closed {
		return 0, fmt.Errorf("archive %s: blob %s (%s): write after close", bw.tx.a.path, bw.sha, bw.name)
	}
	if err := bw.failed(); err != nil {
		return 0, err
	}
	if int64(len(p)) > bw.size-bw.written {
		return 0, fmt.Errorf("archive %s: blob %s (%s): %w: more than the declared %d bytes written",
			bw.tx.a.path, bw.sha, bw.name, ErrBlobMismatch, bw.size)
	}
	n := 0
	for len(p) > 0 {
		if bw.cur == nil {
			bw.limit = int(min(int64(bw.chunkSize), bw.size-bw.written))
			bw.cur = bw.buffer(bw.limit)
		}
		k := min(len(p), bw.limit-len(bw.cur))
		bw.cur = append(bw.cur, p[:k]...)
		p = p[k:]
		n += k
		bw.written += int64(k)
		if len(bw.cur) == bw.limit {
			bw.send()
		}
	}
	return n, nil
}

func (bw *BlobWriter) send() {
	bw.jobs <- &chunk{seq: bw.seq, raw: bw.cur}
	bw.seq++
	bw.cur = nil
}

// buffer returns an empty buffer for a chunk of n bytes: a recycled or new
// full-size one, or, for a file's short last chunk, one of just n bytes so a
// small file costs a small buffer. It blocks while all full-size buffers
// are in use, which is what holds the caller to the pipeline's pace.
func (bw *BlobWriter) buffer(n int) []byte {
	if n < bw.chunkSize {
		return make([]byte, 0, n)
	}
	select {
	case b := <-bw.free:
		return b
	default:
	}
	if bw.allocated < chunkBuffers() {
		bw.allocated++
		return make([]byte, 0, bw.chunkSize)
	}
	return <-bw.free
}

// compress is a compressor goroutine. After a failure or an abort it passes
// chunks on untouched, so the storer still sees (and recycles) every one.
func (bw *BlobWriter) compress() {
	for c := range bw.jobs {
		if bw.failed() == nil && !bw.isAborted() {
			var dst []byte
			select {
			case dst = <-bw.freeComp:
			default:
			}
			c.comp = deflateChunk(dst[:0], c.raw)
		}
		bw.results <- c
	}
}

// store is the storer goroutine: it takes compressed chunks in whatever
// order they finish and, in sequence order, hashes and inserts them.
func (bw *BlobWriter) store() {
	defer close(bw.done)
	pending := map[int]*chunk{}
	next := 0
	for c := range bw.results {
		pending[c.seq] = c
		for {
			c, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			if bw.failed() == nil && !bw.isAborted() {
				bw.hash.Write(c.raw)
				bw.tx.stmts.Lock()
				_, err := bw.insert.Exec(bw.sha, c.seq, len(c.raw), c.comp)
				bw.tx.stmts.Unlock()
				if err != nil {
					bw.fail(wrapErr(bw.tx.a.path, fmt.Sprintf("store blob %s (%s): chunk %d", bw.sha, bw.name, c.seq), err))
				}
				bw.chunks++
			}
			if cap(c.raw) == bw.chunkSize {
				bw.free <- c.raw[:0]
			}
			if c.comp != nil {
				select {
				case bw.freeComp <- c.comp[:0]:
				default:
				}
			}
		}
	}
}

func (bw *BlobWriter) failed() error {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	return bw.workerErr
}

func (bw *BlobWriter) fail(err error) {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	if bw.workerErr == nil {
		bw.workerErr = err
	}
}

func (bw *BlobWriter) isAborted() bool {
	bw.mu.Lock()
	defer bw.mu.Unlock()
	return bw.aborted
}

// Close stores the last chunk, waits for the pipeline and verifies that the
// bytes written have the declared size and SHA-256 (ErrBlobMismatch
// otherwise). Calling it again returns the first result.
func (bw *BlobWriter) Close() error {
	if bw.closed {
		return bw.closeErr
	}
	bw.closed = true
	bw.closeErr = bw.finish()
	return bw.closeErr
}

func (bw *BlobWriter) finish() error {
	if len(bw.cur) > 0 {
		bw.send()
	}
	close(bw.jobs)
	<-bw.done
	bw.insert.Close()
	if err := bw.failed(); err != nil {
		return err
	}
	where := fmt.Sprintf("archive %s: blob %s (%s)", bw.tx.a.path, bw.sha, bw.name)
	if bw.written != bw.size {
		return fmt.Errorf("%s: %w: %d bytes written, %d declared", where, ErrBlobMismatch, bw.written, bw.size)
	}
	got := hex.EncodeToString(bw.hash.Sum(nil))
	if bw.provisional {
		bw.learnt = got
		if ok, err := hasBlob(bw.tx.tx, bw.tx.a.path, got); err != nil {
			return err
		} else if ok {
			return fmt.Errorf("archive %s: blob %s (%s): %w", bw.tx.a.path, got, bw.name, ErrExists)
		}
		// The chunks follow through ON UPDATE CASCADE.
		if _, err := bw.tx.tx.Exec("UPDATE blobs SET sha256 = ? WHERE sha256 = ?", got, bw.sha); err != nil {
			return bw.tx.wrap("store blob "+got, err)
		}
		bw.sha, bw.provisional = got, false
	}
	if got != bw.sha {
		return fmt.Errorf("%s: %w: the bytes written have SHA-256 %s", where, ErrBlobMismatch, got)
	}
	if _, err := bw.tx.tx.Exec("UPDATE blobs SET chunks = ? WHERE sha256 = ?", bw.chunks, bw.sha); err != nil {
		return bw.tx.wrap("store blob "+bw.sha, err)
	}
	return nil
}

// SHA256 is the blob's SHA-256 (hex); for a blob started without one, known
// only after Close has read every byte: after a successful Close, or one
// that gave ErrExists (the SHA-256 of the blob archived before).
func (bw *BlobWriter) SHA256() string {
	if bw.provisional {
		return bw.learnt
	}
	return bw.sha
}

// abort stops the pipeline without storing more; the transaction is being
// rolled back.
func (bw *BlobWriter) abort() {
	if bw.closed {
		return
	}
	bw.mu.Lock()
	bw.aborted = true
	bw.mu.Unlock()
	bw.closed = true
	bw.closeErr = errors.New("transaction rolled back")
	close(bw.jobs)
	<-bw.done
	bw.insert.Close()
}

// HasBlob reports whether a raw file with this SHA-256 is archived.
func (a *Archive) HasBlob(sha string) (bool, error) {
	return hasBlob(a.r, a.path, sha)
}

// HasBlobOfSize reports whether the archive holds a raw file of exactly
// this many bytes: when it does not, a file of that size cannot be a
// duplicate, and an ingest need not hash it ahead to find out. (Blobs are
// few beside their chunks, so the scan of their table costs milliseconds.)
func (a *Archive) HasBlobOfSize(size int64) (bool, error) {
	ok, err := exists(a.r, "SELECT 1 FROM blobs WHERE size = ? LIMIT 1", size)
	if err != nil {
		return false, a.wrap(fmt.Sprintf("look up blobs of %d bytes", size), err)
	}
	return ok, nil
}

// OpenBlob returns the original bytes of an archived file, decompressed and
// read chunk by chunk, so memory stays one chunk whatever the file size. At
// the end the reader checks the SHA-256 of everything it returned and
// reports ErrCorrupt instead of io.EOF when it does not match.
func (a *Archive) OpenBlob(sha string) (io.ReadCloser, error) {
	br, err := a.openBlobIn(a.r, sha)
	if err != nil {
		return nil, err
	}
	// A connection of its own pays off over many chunks only.
	br.bulk = a.d == sqliteDialect && br.chunks >= bulkBlobChunks
	return br, nil
}

// bulkBlobChunks is how many chunks a blob has at least for OpenBlob to
// read them with sqlitebulk (blobReader.bulk).
const bulkBlobChunks = 4

// querier is what reading a blob needs: the read connections, or the
// transaction of an upgrade.
type querier interface {
	QueryRow(query string, args ...any) *sql.Row
	Query(query string, args ...any) (*sql.Rows, error)
}

func (a *Archive) openBlobIn(q querier, sha string) (*blobReader, error) {
	sha = strings.ToLower(sha)
	br := &blobReader{a: a, q: q, sha: sha, hash: sha256.New()}
	err := q.QueryRow("SELECT size, chunks, compression FROM blobs WHERE sha256 = ?", sha).Scan(&br.size, &br.chunks, &br.compression)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("archive %s: blob %s: %w", a.path, sha, ErrNotFound)
	case err != nil:
		return nil, a.wrap("open blob "+sha, err)
	}
	switch br.compression {
	case compressionZstd:
		if br.zstd, err = zstdDecoder(); err != nil {
			return nil, fmt.Errorf("archive %s: open blob %s: zstd: %w", a.path, sha, err)
		}
	case compressionDeflate:
	default:
		return nil, fmt.Errorf("archive %s: blob %s: %w: unknown compression %q", a.path, sha, ErrCorrupt, br.compression)
	}
	return br, nil
}

type blobReader struct {
	a      *Archive
	q      querier
	sha    string
	size   int64
	chunks int

	compression string
	zstd        *zstd.Decoder
	inflater    io.ReadCloser

	// bulk reads the chunks of a SQLite archive's blob on a connection of
	// its own (conn, opened at the first chunk) into one reused buffer:
	// the database/sql driver copies every compressed chunk into a new
	// slice, which for a 1.5 GB file is 700 MB of garbage to collect.
	bulk  bool
	conn  *sqlitebulk.Conn
	chunk *sqlitebulk.Stmt

	next int    // next chunk to load
	buf  []byte // the current chunk, decompressed
	off  int    // read position in buf
	read int64
	hash hash.Hash
	err  error // sticky: io.EOF or the first failure
}

func (br *blobReader) Read(p []byte) (int, error) {
	for br.off == len(br.buf) {
		if br.err != nil {
			return 0, br.err
		}
		if br.next == br.chunks {
			br.err = br.verify()
			return 0, br.err
		}
		if err := br.load(); err != nil {
			br.err = err
			return 0, err
		}
	}
	n := copy(p, br.buf[br.off:])
	br.off += n
	return n, nil
}

func (br *blobReader) load() error {
	if br.bulk {
		return br.loadBulk()
	}
	// The compressed bytes are read in place (RawBytes, valid until the
	// rows close) rather than copied once more for Scan: a large blob is
	// hundreds of megabytes of them.
	rows, err := br.q.Query("SELECT raw_size, data FROM blob_chunks WHERE blob = ? AND seq = ?", br.sha, br.next)
	if err != nil {
		return br.a.wrap(fmt.Sprintf("read blob %s chunk %d", br.sha, br.next), err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return br.a.wrap(fmt.Sprintf("read blob %s chunk %d", br.sha, br.next), err)
		}
		return fmt.Errorf("archive %s: blob %s: %w: chunk %d of %d is missing", br.a.path, br.sha, ErrCorrupt, br.next, br.chunks)
	}
	var rawSize int
	var data sql.RawBytes
	if err := rows.Scan(&rawSize, &data); err != nil {
		return br.a.wrap(fmt.Sprintf("read blob %s chunk %d", br.sha, br.next), err)
	}
	return br.inflate(rawSize, data)
}

// loadBulk is load on the blob's own connection (bulk).
func (br *blobReader) loadBulk() error {
	op := fmt.Sprintf("read blob %s chunk %d", br.sha, br.next)
	if br.chunk == nil {
		uri, err := fileURI(br.a.path, "mode=ro")
		if err != nil {
			return br.a.wrap(op, err)
		}
		if br.conn, err = sqlitebulk.Open(uri, int(readerBusyTimeout.Milliseconds())); err != nil {
			return br.a.wrap(op, err)
		}
		if br.chunk, err = br.conn.Prepare("SELECT raw_size, data FROM blob_chunks WHERE blob = ? AND seq = ?"); err != nil {
			return br.a.wrap(op, err)
		}
	}
	rows, err := br.chunk.Query(br.sha, strconv.Itoa(br.next))
	if err != nil {
		return br.a.wrap(op, err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return br.a.wrap(op, err)
		}
		return fmt.Errorf("archive %s: blob %s: %w: chunk %d of %d is missing", br.a.path, br.sha, ErrCorrupt, br.next, br.chunks)
	}
	rawSize, ok := rows.Int(0)
	if !ok {
		return fmt.Errorf("archive %s: blob %s: %w: chunk %d has raw size %v", br.a.path, br.sha, ErrCorrupt, br.next, rows.Value(0))
	}
	return br.inflate(int(rawSize), rows.Bytes(1))
}

// inflate decompresses the next chunk, data, which holds rawSize bytes.
func (br *blobReader) inflate(rawSize int, data []byte) error {
	if cap(br.buf) < rawSize {
		br.buf = make([]byte, 0, rawSize)
	}
	out, err := br.decompress(data, br.buf[:0:rawSize])
	if err != nil || len(out) != rawSize {
		return fmt.Errorf("archive %s: blob %s: %w: chunk %d does not decompress to its %d bytes: %v",
			br.a.path, br.sha, ErrCorrupt, br.next, rawSize, err)
	}
	br.hash.Write(out)
	br.buf, br.off = out, 0
	br.read += int64(len(out))
	br.next++
	return nil
}

// decompress decodes one chunk into dst (whose capacity is the chunk's raw
// size) and refuses a chunk that decodes to more.
func (br *blobReader) decompress(data, dst []byte) ([]byte, error) {
	if br.compression == compressionZstd {
		return br.zstd.DecodeAll(data, dst)
	}
	src := bytes.NewReader(data)
	if br.inflater == nil {
		br.inflater = flate.NewReader(src)
	} else if err := br.inflater.(flate.Resetter).Reset(src, nil); err != nil {
		return nil, err
	}
	n, err := io.ReadFull(br.inflater, dst[:cap(dst)])
	if err != nil {
		return nil, err
	}
	var probe [1]byte
	if m, _ := br.inflater.Read(probe[:]); m > 0 {
		return nil, errors.New("decodes to more than its recorded size")
	}
	return dst[:n], nil
}

func (br *blobReader) verify() error {
	if br.read != br.size {
		return fmt.Errorf("archive %s: blob %s: %w: chunks hold %d bytes, %d recorded", br.a.path, br.sha, ErrCorrupt, br.read, br.size)
	}
	if got := hex.EncodeToString(br.hash.Sum(nil)); got != br.sha {
		return fmt.Errorf("archive %s: blob %s: %w: the stored bytes have SHA-256 %s", br.a.path, br.sha, ErrCorrupt, got)
	}
	return io.EOF
}

func (br *blobReader) Close() error {
	if br.err == nil {
		br.err = errors.New("read after close")
	}
	br.buf = nil
	if br.conn != nil {
		br.chunk = nil
		return br.conn.Close()
	}
	return nil
}

// PutBytes archives a small file that is not a result (a manifest, a spec,
// a narrative) as a blob, content-addressed like every raw file, and
// returns its SHA-256; bytes already archived are not stored again.
func (tx *Tx) PutBytes(data []byte, name string) (string, error) {
	sum := sha256.Sum256(data)
	sha := hex.EncodeToString(sum[:])
	if ok, err := hasBlob(tx.tx, tx.a.path, sha); err != nil || ok {
		return sha, err
	}
	bw, err := tx.NewBlob(sha, int64(len(data)), name)
	if err != nil {
		return "", err
	}
	if _, err := bw.Write(data); err != nil {
		bw.Close()
		return "", err
	}
	return sha, bw.Close()
}
