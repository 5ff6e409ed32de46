// Package ingest is the batch pipeline: it walks folders, detects each
// file's format (ingest/registry), parses it with that format's package,
// applies provenance manifests and hands the runs to the store. The
// formats, the reading toolkit they share (ingest/jsonread) and the trace
// format (ingest/trace) live in packages of their own below this one.
package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/pyjson"
	"github.com/benchledger/benchledger/ingest/registry"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

// Status is what happened to one file or run.
type Status string

const (
	StatusNew       Status = "new"       // archived now
	StatusDuplicate Status = "duplicate" // these bytes were archived before, with the same provenance
	StatusCompleted Status = "completed" // archived before; this ingest added provenance it lacked
	StatusRejected  Status = "rejected"  // bad input; nothing of the file (or of this run of it) reached the archive
	StatusSkipped   Status = "skipped"   // not a result (manifest, narrative, source...) met while walking
)

// Outcome reports one run (new, duplicate, completed) or one file (rejected,
// skipped).
type Outcome struct {
	Status      Status   `json:"status"`
	RunID       string   `json:"id,omitempty"`
	Ordinal     int      `json:"ordinal"`
	Format      string   `json:"format,omitempty"`
	File        string   `json:"file"`
	Publishable bool     `json:"publishable"`
	Missing     []string `json:"missing,omitempty"`
	// Place and Reason explain a rejection or a skip.
	Place  string `json:"place,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Added lists provenance fields a "completed" outcome filled in, or
	// what a companion file added to its run.
	Added []string `json:"added,omitempty"`
	// Companion is the companion key when the file completed a run another
	// file of the same run created (benchrun.Run.Companion).
	Companion string `json:"companion,omitempty"`
	// Note is a warning about an ingested run (kept apart from a run of the
	// same shape, the same run as another file's).
	Note string `json:"note,omitempty"`
}

// Options configures a batch ingest.
type Options struct {
	Archive     *store.Archive
	Manifest    string            // --meta: one manifest for every file; "" = look for campaign.yaml
	Set         provenance.Record // --set values, applied to every run
	Format      string            // --format: parser id to force; "" = detect
	ToolVersion string
	Actor       string
	// OnWait is called when another process holds the archive's writer lock.
	OnWait func()
	// OnFile is called before each file is read, with its 1-based position
	// among the files found (for progress display).
	OnFile func(n, total int, path string)
}

// Batch ingests files and folders. report is called once per outcome, in
// order. The returned error is a fatal one (archive unusable, interrupted);
// rejected inputs are outcomes, not errors.
//
// Files are prepared ahead on other cores (read, hashed, detected, and for
// small files parsed and compressed) while earlier ones are written, each in
// its own transaction and in the order found.
func Batch(ctx context.Context, paths []string, opt Options, report func(Outcome)) error {
	files, err := collect(paths, report)
	if err != nil {
		return err
	}
	b := &batch{opt: opt, manifests: map[string]*manifestEntry{}}
	if opt.Manifest != "" {
		m, err := provenance.LoadManifest(opt.Manifest)
		if err != nil {
			return err
		}
		b.fixed = m
	}
	if opt.Format != "" {
		if b.forced, _ = registry.ByID(opt.Format); b.forced == nil {
			return fmt.Errorf("unknown --format %q (known: %s)", opt.Format, strings.Join(registry.IDs(), ", "))
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	// The files being prepared are dropped, and their goroutines done,
	// before Batch returns: the caller closes the archive they read.
	var preparing sync.WaitGroup
	defer func() {
		cancel()
		preparing.Wait()
	}()
	workers := min(max(runtime.GOMAXPROCS(0), 1), 4)
	// running bounds the files being prepared at once, and the writer, to
	// a core each, the writer first (cores.go); ahead, the bytes of the
	// small files prepared or being prepared but not yet written, and so
	// memory. The queue lets the preparing go on while the writer waits
	// for the disk (a group's commit, a checkpoint).
	running := newCores(workers)
	b.cores = running
	ahead := semaphore.NewWeighted(aheadBytes)
	held := make([]int64, len(files)) // each file's share of ahead
	slots := make([]chan *prepared, len(files))
	for i := range slots {
		slots[i] = make(chan *prepared, 1)
	}
	preparing.Go(func() {
		for i := range files {
			held[i] = aheadCost(files[i].path)
			if ahead.Acquire(ctx, held[i]) != nil {
				return
			}
			if running.take(ctx, false) != nil {
				return
			}
			preparing.Go(func() {
				p := b.prepare(ctx, files[i])
				running.give()
				slots[i] <- p
			})
		}
	})
	// Outcomes of files written in the open group are held until it
	// commits: a line on stdout means the file is in the archive.
	b.report = report
	hold := func(o Outcome) {
		if b.group == nil {
			report(o)
			return
		}
		b.held = append(b.held, o)
	}
	for i, f := range files {
		var p *prepared
		select {
		case p = <-slots[i]:
		case <-ctx.Done():
			return errors.Join(ctx.Err(), b.flush())
		}
		if opt.OnFile != nil {
			opt.OnFile(i+1, len(files), f.path)
		}
		if err := running.take(ctx, true); err != nil {
			return errors.Join(err, b.flush())
		}
		err := b.write(ctx, p, hold)
		if p.blob != nil {
			// Written or not, its compressed bytes are done with.
			p.blob.Release()
		}
		running.give()
		ahead.Release(held[i])
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			// The files written before this one stay archived, as
			// each in a transaction of its own would.
			return errors.Join(err, b.flush())
		}
	}
	return b.flush()
}

// smallFile: files up to this size are read whole and parsed and compressed
// ahead of their transaction; larger ones are streamed by the writer, so
// memory stays bounded whatever their size.
var smallFile int64 = 16 << 20 // a variable: tests stream small files

// aheadBytes bounds the bytes of the small files prepared ahead of the
// writer (aheadCost each); tests lower it. 1,000 ordinary files (290 KB
// each) ingested 0.90x the wall time with this bound as with three files
// ahead (median of 12 alternating pairs), for 14 MB more at the peak.
var aheadBytes int64 = 2 * smallFile

// aheadCost is what preparing a file holds until it is written: its size
// when it is read whole, and at least a 256th of aheadBytes for any file
// (a large one, a skipped one), so the count of files ahead is bounded
// too; at most aheadBytes, which a file alone may take.
func aheadCost(path string) int64 {
	least := aheadBytes / 256
	st, err := os.Stat(path)
	if err != nil || st.Size() > smallFile {
		return least
	}
	return min(max(st.Size(), least), aheadBytes)
}

// detect decides a file's format; tests add a format of their own here.
var detect = registry.Detect

// prepared is what the preparation stage found out about one file.
type prepared struct {
	c      candidate
	done   *Outcome // a rejection or a skip, decided without the archive
	parser format.Parser
	sum    string
	size   int64
	known  bool // the archive already holds these bytes
	fatal  error

	// Small files only: the compressed bytes and the parse result.
	blob     *store.PreparedBlob
	runs     []*benchrun.Run
	ids      []string // the runs' contentIDs
	parseErr error
}

type manifestEntry struct {
	m   *provenance.Manifest
	err error
}

type batch struct {
	opt       Options
	forced    format.Parser // --format
	fixed     *provenance.Manifest
	manifests map[string]*manifestEntry
	// referencesDone: manifest paths whose references: this batch has
	// recorded (see recordReferences).
	referencesDone map[string]bool
	// manifest is the manifest of the file being stored (nil: none).
	manifest *provenance.Manifest

	// group holds the transactions of the small files written since it
	// began, held, their outcomes, and report the caller's function for
	// outcomes (see part and flush).
	group      *store.Group
	groupStart time.Time
	groupBytes int64
	held       []Outcome
	report     func(Outcome)

	// cores are the batch's cores (see Batch).
	cores *cores
}

// A group of small files' transactions is committed once it has held the
// archive's write lock this long or stored this many raw bytes (or before a
// file that is not written in a group): a commit per file cost more than
// writing the file (a sync on PostgreSQL; on SQLite a fresh copy in the
// write-ahead log of every page the file's rows share with the files before
// it), while another writer waits at most this long, and an interrupted
// ingest keeps the files written before it.
const (
	groupTime  = 250 * time.Millisecond
	groupBytes = 32 << 20
)

// part begins the transaction of one file (or of a manifest's references)
// as a part of the open group, beginning a group when none is open.
func (b *batch) part(ctx context.Context) (*store.Tx, error) {
	if b.group == nil {
		g, err := b.opt.Archive.BeginGroup(ctx, b.opt.OnWait)
		if err != nil {
			return nil, err
		}
		b.group, b.groupStart, b.groupBytes = g, time.Now(), 0
	}
	return b.group.Begin()
}

// partDone is called after a part committed: size raw bytes more are in
// the group, which is committed when it is full.
func (b *batch) partDone(size int64) error {
	b.groupBytes += size
	if b.groupBytes >= groupBytes || time.Since(b.groupStart) >= groupTime {
		return b.flush()
	}
	return nil
}

// flush commits the open group, if any, and reports its held outcomes.
func (b *batch) flush() error {
	g := b.group
	if g == nil {
		return nil
	}
	b.group = nil
	held := b.held
	b.held = nil
	if err := g.Commit(); err != nil {
		return err
	}
	for _, o := range held {
		b.report(o)
	}
	return nil
}

// declaredSources archives what a run's declared provenance comes from —
// the manifest's bytes as a blob, the --set values — and returns it, with
// the file's absolute path the manifest's run items are matched against,
// for the event's detail of every write that declares provenance (ingest,
// complete, provenance-completed): with them audit replays the events and
// recomputes the provenance (docs/provenance.md).
func (b *batch) declaredSources(tx *store.Tx, path string) (map[string]any, error) {
	out := map[string]any{}
	if abs, err := filepath.Abs(path); err == nil {
		out["path"] = abs
	}
	if m := b.manifest; m != nil {
		sha, err := tx.PutBytes(m.Bytes, m.Path)
		if err != nil {
			return nil, err
		}
		abs, _ := filepath.Abs(m.Path)
		out["manifest"], out["manifest_file"] = sha, abs
	}
	if len(b.opt.Set) > 0 {
		set := make([]string, 0, len(b.opt.Set))
		for _, e := range b.opt.Set {
			set = append(set, e.Field+"="+e.Value)
		}
		out["set"] = set
	}
	return out, nil
}

// manifestFor finds the manifest that applies to a file: --meta, else the
// nearest campaign.yaml in the file's folder or above.
func (b *batch) manifestFor(path string) (*provenance.Manifest, error) {
	if b.fixed != nil {
		return b.fixed, nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	mp, ok := provenance.FindManifest(filepath.Dir(abs), "")
	if !ok {
		return nil, nil
	}
	e := b.manifests[mp]
	if e == nil {
		m, err := provenance.LoadManifest(mp)
		e = &manifestEntry{m: m, err: err}
		b.manifests[mp] = e
	}
	return e.m, e.err
}

// relTo is the file's slash path relative to the manifest's folder, or its
// base name when it lies elsewhere (a --meta manifest for files anywhere).
func relTo(m *provenance.Manifest, path string) string { return m.Rel(path) }

// rejectError carries a rejection out of the store transaction.
type rejectError struct {
	out  Outcome
	more []Outcome // further rejections of the same file (its other bad runs)
}

func (r *rejectError) Error() string { return r.out.Reason }

// prepare reads, detects and hashes one file; a small file is also parsed
// and compressed. It runs on a worker goroutine: it touches the archive
// only to read.
func (b *batch) prepare(ctx context.Context, c candidate) *prepared {
	p := &prepared{c: c}
	reject := func(place, reason string) *prepared {
		p.done = &Outcome{Status: StatusRejected, File: c.path, Place: place, Reason: reason}
		return p
	}
	f, err := os.Open(c.path)
	if err != nil {
		return reject("", plainIOError(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return reject("", plainIOError(err))
	}
	p.size = st.Size()
	// A small file is read whole into a buffer of fileBuffers, detection
	// looking at its first bytes as they arrive; a large one's first bytes
	// are read alone, and the writer streams it from its start.
	var whole *[]byte
	var head []byte
	if p.size <= smallFile {
		whole = fileBuffer(max(p.size, 0))
		defer fileBuffers.Put(whole)
		head = (*whole)[:min(format.HeadSize, len(*whole))]
	} else {
		head = make([]byte, format.HeadSize)
	}
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return reject("", plainIOError(err))
	}
	head = head[:n]
	if p.parser = b.forced; p.parser == nil {
		d := detect(c.path, head)
		switch {
		case d.Parser != nil && !(d.NamedOnly && c.walked):
			p.parser = d.Parser
		case d.NotResult != "" && c.walked:
			p.done = &Outcome{Status: StatusSkipped, File: c.path, Reason: "not a result: " + d.NotResult}
			return p
		case d.NotResult != "":
			return reject("", "not a benchmark result: "+d.NotResult)
		case d.Unsupported != "":
			return reject("", "recognised as "+d.Unsupported+", which this version of benchledger cannot ingest yet")
		case len(bytes.TrimSpace(head)) == 0:
			return reject("", "empty file")
		case c.walked && !registry.LooksLikeResultFile(c.path, head):
			p.done = &Outcome{Status: StatusSkipped, File: c.path, Reason: "not a recognised benchmark result"}
			return p
		default:
			return reject("byte 0", "not a recognised benchmark result ("+describeHead(head)+"); known formats: "+strings.Join(registry.IDs(), ", "))
		}
	}
	if whole == nil {
		// Streamed by the writer, which hashes while it parses.
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return reject("", plainIOError(err))
		}
		return p
	}
	data := *whole
	if _, err := io.ReadFull(f, data[n:]); err != nil {
		return reject("", "the file changed while it was read: "+plainIOError(err))
	}
	sum := sha256.Sum256(data)
	p.size, p.sum = int64(len(data)), hex.EncodeToString(sum[:])
	if p.known, p.fatal = b.opt.Archive.HasBlob(p.sum); p.known || p.fatal != nil {
		return p
	}
	p.parseErr = p.parser.Parse(ctx, c.path, pyjson.NewInput(data), func(r *benchrun.Run) error {
		p.runs = append(p.runs, r)
		return nil
	})
	p.runs, p.parseErr = settle(c.path, p.runs, p.parseErr)
	if p.parseErr == nil {
		p.ids = contentIDs(p.runs)
		p.blob, p.fatal = store.PrepareBlob(data, p.sum)
	}
	return p
}

// fileBuffers hold the bytes of small files read whole (*[]byte), for
// the next files once prepare is done with them: nothing prepared refers
// to them (a parser's decoder reads them in place, pyjson.Input, and what
// it keeps it copies, as a Token's bytes are valid only until the next
// token; PrepareBlob compresses into new slices). 1,000 ordinary files
// otherwise allocated and cleared 290 MB.
var fileBuffers sync.Pool

// fileBuffer returns a buffer of n bytes, from fileBuffers when one there
// is large enough.
func fileBuffer(n int64) *[]byte {
	if b, ok := fileBuffers.Get().(*[]byte); ok && int64(cap(*b)) >= n {
		*b = (*b)[:n]
		return b
	}
	b := make([]byte, n)
	return &b
}

// write archives one prepared file (or reports what preparation decided).
// It runs on the batch's one writer goroutine.
func (b *batch) write(ctx context.Context, p *prepared, report func(Outcome)) error {
	c := p.c
	if p.done != nil {
		report(*p.done)
		return nil
	}
	if p.fatal != nil {
		return p.fatal
	}
	m, err := b.manifestFor(c.path)
	if err == nil {
		// --set may not contradict what the manifest's capture: established.
		err = m.CheckSet(b.opt.Set)
	}
	if err != nil {
		report(Outcome{Status: StatusRejected, File: c.path, Reason: "provenance manifest: " + err.Error()})
		return nil
	}
	b.manifest = m
	if err := b.recordReferences(ctx, m, report); err != nil {
		return err
	}
	declared := func(r *benchrun.Run) provenance.Record {
		var rec provenance.Record
		if m != nil {
			rec = append(rec, m.ForRun(relTo(m, c.path), provenance.RunContent{Ordinal: r.Ordinal, Facts: r.Facts, Extra: r.Extra})...)
		}
		return append(rec, b.opt.Set...)
	}
	again := func() error {
		// Read through the archive's readers, which see what is
		// committed only.
		if err := b.flush(); err != nil {
			return err
		}
		existing, err := b.opt.Archive.RunsOfBlob(p.sum)
		if err != nil {
			return err
		}
		return b.again(ctx, c.path, p.sum, existing, declared, report)
	}
	var dup *duplicateError
	if p.known {
		return again()
	}
	var outs []Outcome
	if p.blob != nil || p.parseErr != nil {
		outs, err = b.storePrepared(ctx, p, declared)
	} else if err = b.flush(); err == nil {
		// A large file is written in a transaction of its own.
		outs, err = b.storeStreamed(ctx, p, declared)
	}
	var rej *rejectError
	switch {
	case errors.As(err, &rej):
		report(rej.out)
		for _, o := range rej.more {
			report(o)
		}
		return nil
	case errors.Is(err, errAlreadyArchived):
		return again()
	case errors.As(err, &dup):
		p.sum = dup.sum
		return again()
	case err != nil:
		return err
	}
	for _, o := range outs {
		report(o)
	}
	return nil
}

// parseRejection turns a parser's error into a rejection, or passes on
// what is not about the input (interruption, the archive failing).
func parseRejection(ctx context.Context, path string, err error) error {
	var ie *format.InputError
	var rej *rejectError
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &rej):
		return err
	case errors.As(err, &ie):
		return &rejectError{out: Outcome{Status: StatusRejected, File: path, Place: ie.Place, Reason: ie.Reason}}
	}
	return err
}

// settle applies format.Settle, the one rule for every format: the runs
// to hand to putRuns (which reports each bad one at its place, and the
// whole file when none is good), or the error that rejects the file (or is
// not about the input) when the parse gave no run.
func settle(path string, runs []*benchrun.Run, parseErr error) ([]*benchrun.Run, error) {
	out, file, err := format.Settle(path, runs, parseErr)
	switch {
	case err != nil:
		return nil, err
	case len(out) == 0:
		return nil, file
	}
	return out, nil
}

// storePrepared writes a small file parsed and compressed ahead.
func (b *batch) storePrepared(ctx context.Context, p *prepared, declared func(*benchrun.Run) provenance.Record) ([]Outcome, error) {
	path := p.c.path
	if p.parseErr != nil {
		return nil, parseRejection(ctx, path, p.parseErr)
	}
	tx, err := b.part(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() // a no-op after Commit
	// Another ingest may have archived the same bytes while this one
	// waited for the lock (or a file before it in the group held them).
	if err := tx.PutPreparedBlob(p.blob, path); errors.Is(err, store.ErrExists) {
		return nil, errAlreadyArchived
	} else if err != nil {
		return nil, err
	}
	outs, err := b.putRuns(tx, p.parser, p.sum, path, p.runs, p.ids, declared)
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return outs, b.partDone(p.size)
}

// duplicateError: a streamed file turned out to be archived already.
type duplicateError struct{ sum string }

func (d *duplicateError) Error() string { return "already archived as blob " + d.sum }

// storeStreamed archives a large file in one pass: it is parsed while its
// bytes are hashed, compressed and stored, in one transaction, with memory
// bounded whatever its size. The hash (and so the run ids) is known only at
// the end, so the runs are written last. When the archive holds a file of
// the same size, a second reader hashes the file on its own meanwhile: when
// it finds the bytes already archived, the parse stops early instead of
// running to the end of a large duplicate. Otherwise no file archived yet
// can have these bytes, and the one read is all the work (a file archived
// by another ingest meanwhile is found when the blob is closed).
func (b *batch) storeStreamed(ctx context.Context, p *prepared, declared func(*benchrun.Run) provenance.Record) ([]Outcome, error) {
	path := p.c.path
	changed := func(why string) error {
		return &rejectError{out: Outcome{Status: StatusRejected, File: path, Reason: "the file changed while it was read" + why}}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &rejectError{out: Outcome{Status: StatusRejected, File: path, Reason: plainIOError(err)}}
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return nil, &rejectError{out: Outcome{Status: StatusRejected, File: path, Reason: plainIOError(err)}}
	}
	if before.Size() != p.size {
		return nil, changed(fmt.Sprintf(" (%d bytes, then %d)", p.size, before.Size()))
	}

	parseCtx, stopParse := context.WithCancel(ctx)
	defer stopParse()
	sideResult := func() sideHash { return sideHash{} }
	maybe, err := b.opt.Archive.HasBlobOfSize(p.size)
	if err != nil {
		return nil, err
	} else if maybe {
		sideResult = b.sideHash(ctx, parseCtx, stopParse, path)
	}

	var tx *store.Tx
	if !maybe && b.opt.Archive.WritesDirect(p.size) {
		// The transaction may lock the archive against readers (store
		// BeginLarge): no file is prepared meanwhile, as preparing reads
		// the archive. The parse keeps both cores busy anyway.
		giveBack, terr := b.cores.takeOthers(ctx)
		if terr != nil {
			return nil, terr
		}
		defer giveBack()
		tx, err = b.opt.Archive.BeginLarge(ctx, b.opt.OnWait, p.size)
	} else {
		tx, err = b.opt.Archive.Begin(ctx, b.opt.OnWait)
	}
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() // a no-op after Commit
	bw, err := tx.NewBlob("", p.size, path)
	if err != nil {
		return nil, err
	}
	var runs []*benchrun.Run
	tee := io.TeeReader(ctxReader{parseCtx, f}, bw)
	err = p.parser.Parse(parseCtx, path, tee, func(r *benchrun.Run) error { runs = append(runs, r); return nil })
	if err != nil && ctx.Err() == nil && parseCtx.Err() != nil {
		if r := sideResult(); r.known {
			return nil, &duplicateError{r.sum}
		}
	}
	if runs, err = settle(path, runs, err); err != nil {
		return nil, parseRejection(ctx, path, err)
	}
	ids := make(chan []string, 1)
	go func() { ids <- contentIDs(runs) }()
	// The parser may stop before the end (trailing whitespace); the archive
	// keeps every byte.
	if _, err := io.Copy(io.Discard, tee); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if r := sideResult(); r.known {
			return nil, &duplicateError{r.sum}
		}
		return nil, &rejectError{out: Outcome{Status: StatusRejected, File: path, Reason: plainIOError(err)}}
	}
	r := sideResult()
	if err := bw.Close(); err != nil {
		switch {
		case errors.Is(err, store.ErrExists) && bw.SHA256() != "":
			return nil, &duplicateError{bw.SHA256()}
		case errors.Is(err, store.ErrBlobMismatch) || errors.Is(err, store.ErrExists):
			return nil, changed(": " + err.Error())
		}
		return nil, err
	}
	sum := bw.SHA256()
	if r.err == nil && r.sum != "" && r.sum != sum {
		return nil, changed(" (two reads gave different SHA-256)")
	}
	// The one read saw one version of the file: the path still names the
	// file opened, with the size and modification time it had then.
	if now, err := os.Stat(path); err != nil || !os.SameFile(before, now) ||
		now.Size() != before.Size() || !now.ModTime().Equal(before.ModTime()) {
		return nil, changed("")
	}
	outs, err := b.putRuns(tx, p.parser, sum, path, runs, <-ids, declared)
	if err != nil {
		return nil, err
	}
	return outs, tx.Commit()
}

// sideHash is the result of hashing a file on its own, beside the parse.
type sideHash struct {
	sum   string
	known bool // the archive already holds these bytes
	err   error
}

// sideHash starts hashing the file at path on its own goroutine and
// returns the function that waits for the result. When the archive holds
// those bytes, stopParse stops the parse.
func (b *batch) sideHash(ctx, parseCtx context.Context, stopParse func(), path string) func() sideHash {
	side := make(chan sideHash, 1)
	go func() {
		sh := hashFile(parseCtx, path)
		if sh.err == nil {
			if sh.known, sh.err = b.opt.Archive.HasBlob(sh.sum); sh.known {
				stopParse()
			}
		}
		side <- sh
	}()
	var sh *sideHash
	return func() sideHash {
		if sh == nil {
			select {
			case r := <-side:
				sh = &r
			case <-ctx.Done():
				return sideHash{err: ctx.Err()}
			}
		}
		return *sh
	}
}

func hashFile(ctx context.Context, path string) sideHash {
	g, err := os.Open(path)
	if err != nil {
		return sideHash{err: err}
	}
	defer g.Close()
	h := sha256.New()
	if _, err := io.Copy(h, ctxReader{ctx, g}); err != nil {
		return sideHash{err: err}
	}
	return sideHash{sum: hex.EncodeToString(h.Sum(nil))}
}

var errAlreadyArchived = errors.New("archived meanwhile by another ingest")

func describeHead(head []byte) string {
	t := strings.TrimSpace(string(head))
	switch {
	case strings.IndexByte(string(head), 0) >= 0:
		return "binary data"
	case strings.HasPrefix(t, "{") || strings.HasPrefix(t, "["):
		return "JSON of an unknown kind"
	default:
		return "text of an unknown kind"
	}
}

// ctxReader stops a long read when the context is cancelled (Ctrl-C during
// a 1 GB file).
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
