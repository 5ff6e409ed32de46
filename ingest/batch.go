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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/ingest/format"
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
	StatusRejected  Status = "rejected"  // bad input; nothing of the file reached the archive
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
	defer cancel()
	workers := min(max(runtime.GOMAXPROCS(0), 1), 4)
	// ahead bounds the files prepared but not yet written, and so memory.
	ahead := make(chan struct{}, workers+1)
	slots := make([]chan *prepared, len(files))
	for i := range slots {
		slots[i] = make(chan *prepared, 1)
	}
	go func() {
		for i := range files {
			select {
			case ahead <- struct{}{}:
			case <-ctx.Done():
				return
			}
			go func(i int) { slots[i] <- b.prepare(ctx, files[i]) }(i)
		}
	}()
	for i, f := range files {
		var p *prepared
		select {
		case p = <-slots[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		if opt.OnFile != nil {
			opt.OnFile(i+1, len(files), f.path)
		}
		err := b.write(ctx, p, report)
		<-ahead
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// smallFile: files up to this size are read whole and parsed and compressed
// ahead of their transaction; larger ones are streamed by the writer, so
// memory stays bounded whatever their size.
const smallFile = 16 << 20

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
	parseErr error
}

// candidate is a file to ingest; walked files may be skipped, named ones not.
type candidate struct {
	path   string
	walked bool
}

func collect(paths []string, report func(Outcome)) ([]candidate, error) {
	var out []candidate
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			report(Outcome{Status: StatusRejected, File: p, Reason: plainIOError(err)})
			continue
		}
		if !st.IsDir() {
			if !st.Mode().IsRegular() {
				// A named pipe would block the read forever, a device
				// never end: only regular files are results.
				report(Outcome{Status: StatusRejected, File: p, Reason: "not a regular file (" + kindOf(st.Mode()) + "): only regular files are read"})
				continue
			}
			out = append(out, candidate{path: p})
			continue
		}
		// A folder named through a symbolic link ("results" -> /mnt/x,
		// no trailing slash) is walked where it leads: it was named.
		root := p
		if lst, err := os.Lstat(p); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				root = real
			}
		}
		var found []candidate
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if root != p {
				path = filepath.Join(p, strings.TrimPrefix(path, root))
			}
			if err != nil {
				report(Outcome{Status: StatusRejected, File: path, Reason: plainIOError(err)})
				return nil
			}
			name := d.Name()
			if path != p && strings.HasPrefix(name, ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			switch t := d.Type(); {
			case t.IsRegular():
				found = append(found, candidate{path: path, walked: true})
			case t&fs.ModeSymlink != 0:
				// Links met while walking are not followed (a link to
				// "/" or a loop), but said: name the target to ingest it.
				target, _ := os.Readlink(path)
				report(Outcome{Status: StatusSkipped, File: path, Reason: "a symbolic link (to " + target + "), not followed while walking; name it on the command line to ingest what it leads to"})
			case !t.IsDir():
				report(Outcome{Status: StatusSkipped, File: path, Reason: "not a regular file (" + kindOf(t) + ")"})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Slice(found, func(i, j int) bool { return found[i].path < found[j].path })
		out = append(out, found...)
	}
	return out, nil
}

// kindOf names a file type that is not a regular file.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a folder"
	}
	return "not a regular file"
}

func plainIOError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
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
}

// declaredSources archives what a run's declared provenance comes from —
// the manifest's bytes as a blob, the --set values — and returns it for
// the event's detail: with them audit recomputes the provenance
// (docs/provenance.md).
func (b *batch) declaredSources(tx *store.Tx) (map[string]any, error) {
	out := map[string]any{}
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
	head := make([]byte, min(format.HeadSize, max(p.size, 0)+1))
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
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return reject("", plainIOError(err))
	}
	if p.size > smallFile {
		// Streamed by the writer, which hashes while it parses.
		return p
	}
	data := make([]byte, p.size)
	if _, err := io.ReadFull(f, data); err != nil {
		return reject("", "the file changed while it was read: "+plainIOError(err))
	}
	sum := sha256.Sum256(data)
	p.size, p.sum = int64(len(data)), hex.EncodeToString(sum[:])
	if p.known, p.fatal = b.opt.Archive.HasBlob(p.sum); p.known || p.fatal != nil {
		return p
	}
	p.parseErr = p.parser.Parse(ctx, c.path, bytes.NewReader(data), func(r *benchrun.Run) error {
		p.runs = append(p.runs, r)
		return nil
	})
	if p.parseErr == nil {
		p.blob, p.fatal = store.PrepareBlob(data, p.sum)
	}
	return p
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
	} else {
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

// storePrepared writes a small file parsed and compressed ahead.
func (b *batch) storePrepared(ctx context.Context, p *prepared, declared func(*benchrun.Run) provenance.Record) ([]Outcome, error) {
	path := p.c.path
	if p.parseErr != nil {
		return nil, parseRejection(ctx, path, p.parseErr)
	}
	if len(p.runs) == 0 {
		return nil, &rejectError{out: Outcome{Status: StatusRejected, File: path, Reason: "no benchmark run found in the file"}}
	}
	tx, err := b.opt.Archive.Begin(ctx, b.opt.OnWait)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback() // a no-op after Commit
	// Another ingest may have archived the same bytes while this one
	// waited for the lock.
	if has, err := tx.HasBlob(p.sum); err != nil {
		return nil, err
	} else if has {
		return nil, errAlreadyArchived
	}
	if err := tx.PutPreparedBlob(p.blob, path); err != nil {
		return nil, err
	}
	outs, err := b.putRuns(tx, p.parser, p.sum, path, p.runs, declared)
	if err != nil {
		return nil, err
	}
	return outs, tx.Commit()
}

// putRuns stores a file's runs with their provenance, one event each. A
// run the parser rejected (one bad line of several), or whose declared
// provenance contradicts it, is reported as rejected at its place while the
// others are stored: every problem of the file in one pass. When every run
// is bad, the file is rejected and nothing of it is kept.
func (b *batch) putRuns(tx *store.Tx, parser format.Parser, sum, path string, runs []*benchrun.Run, declared func(*benchrun.Run) provenance.Record) ([]Outcome, error) {
	var outs, rejected []Outcome
	now := time.Now().UTC()
	good := make([]*benchrun.Run, 0, len(runs))
	for _, r := range runs {
		if r.Rejection != "" {
			rejected = append(rejected, Outcome{Status: StatusRejected, File: path, Ordinal: r.Ordinal, Place: r.Location, Reason: r.Rejection})
			continue
		}
		if cs := provenance.Contradictions(record(r, declared(r))); len(cs) > 0 {
			rejected = append(rejected, Outcome{Status: StatusRejected, File: path, Ordinal: r.Ordinal, Place: r.Location, Reason: contradictionText(cs)})
			continue
		}
		good = append(good, r)
	}
	if len(good) == 0 {
		return nil, &rejectError{out: rejected[0], more: rejected[1:]}
	}
	inv := invocation(parser, path)
	for _, r := range good {
		id := benchrun.ContentID(r)
		// The same run archived from another file (a sweep's summary.json
		// and its run=N.json): one run, this file attached to it.
		if existing, err := tx.ExistingRun(id); err != nil {
			return nil, err
		} else if existing != nil {
			o, err := b.attachSame(tx, existing, sum, path, r, now)
			if err != nil {
				return nil, err
			}
			outs = append(outs, o)
			continue
		}
		var note string
		if r.Companion != "" {
			candidates, err := tx.CompanionRuns(r.Companion)
			if err != nil {
				return nil, err
			}
			var existing *store.RunRecord
			for _, c := range candidates {
				ci := c.Invocation
				if ci == "" {
					// Archived before schema 6 recorded invocations: the
					// file name it was ingested under names it.
					if cp, ok := registry.ByID(c.Run.Format); ok {
						ci = invocation(cp, c.FileName)
					}
				}
				if inv != "" && ci == inv {
					if existing, err = tx.ExistingRun(c.ID); err != nil {
						return nil, err
					}
					break
				}
			}
			if existing != nil {
				o, err := b.completeRun(tx, existing, sum, path, r, declared(r), now)
				if err != nil {
					return nil, err
				}
				outs = append(outs, o)
				continue
			}
			if len(candidates) > 0 {
				ids := make([]string, len(candidates))
				for i, c := range candidates {
					ids[i] = c.ID
				}
				note = fmt.Sprintf("same companion key (%s) as run %s, but not written by the same invocation (another folder or file-name stem): kept as a run of its own, never merged on a coincidence of shape",
					r.Companion, strings.Join(ids, ", "))
			}
		}
		rec := record(r, declared(r))
		note = joinNotes(note, declaredNote(r, rec))
		missing := blockers(r, rec)
		if err := tx.PutRun(&store.RunRecord{ID: id, BlobSHA256: sum, FileName: path, Run: r, Provenance: rec,
			Publishable: len(missing) == 0, Missing: missing, IngestedAt: now, Invocation: inv}); err != nil {
			return nil, err
		}
		d, err := b.declaredSources(tx)
		if err != nil {
			return nil, err
		}
		d["file"], d["format"], d["ordinal"], d["publishable"], d["missing"] = path, r.Format, r.Ordinal, len(missing) == 0, missing
		if abs, err := filepath.Abs(path); err == nil {
			d["path"] = abs
		}
		detail, _ := json.Marshal(d)
		if err := tx.AppendEvent(store.Event{At: now, Actor: b.opt.Actor, ToolVersion: b.opt.ToolVersion, Action: "ingest",
			RunID: id, BlobSHA256: sum, Detail: string(detail)}); err != nil {
			return nil, err
		}
		outs = append(outs, Outcome{Status: StatusNew, RunID: id, Ordinal: r.Ordinal, Format: r.Format, File: path,
			Publishable: len(missing) == 0, Missing: missing, Note: note})
	}
	return append(outs, rejected...), nil
}

// declaredNote is the ingest warning for declared workload values the
// records do not bear out (figures.DeclaredMismatches; the audit reports
// the same as provenance.declared_vs_measured).
func declaredNote(r *benchrun.Run, rec provenance.Record) string {
	if !r.HasRequests {
		return ""
	}
	var parts []string
	for _, m := range figures.DeclaredMismatches(rec.Effective(), r.Requests) {
		parts = append(parts, fmt.Sprintf("%s is declared as %s but %s", m.Field, m.Declared, m.Reason))
	}
	return strings.Join(parts, "; ")
}

func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// invocation names the tool invocation that wrote path (see
// format.Invoker): its absolute folder and its name's stem; "" when the
// format has none or the name is not one the tool writes.
func invocation(parser format.Parser, path string) string {
	inv, ok := parser.(format.Invoker)
	if !ok {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	key, ok := inv.Invocation(filepath.ToSlash(abs))
	if !ok {
		return ""
	}
	return key
}

// attachSame records a file whose run the archive already holds whole.
func (b *batch) attachSame(tx *store.Tx, existing *store.RunRecord, sum, path string, r *benchrun.Run, now time.Time) (Outcome, error) {
	if err := tx.AttachFile(existing.ID, store.RunFile{Blob: sum, Ordinal: r.Ordinal, FileName: path, Format: r.Format,
		Added: []string{}, AddedAt: now}); err != nil {
		return Outcome{}, err
	}
	detail, _ := json.Marshal(map[string]any{"file": path, "format": r.Format, "ordinal": r.Ordinal, "same_content": true})
	if err := tx.AppendEvent(store.Event{At: now, Actor: b.opt.Actor, ToolVersion: b.opt.ToolVersion, Action: "same-run",
		RunID: existing.ID, BlobSHA256: sum, Detail: string(detail)}); err != nil {
		return Outcome{}, err
	}
	return Outcome{Status: StatusDuplicate, RunID: existing.ID, Ordinal: r.Ordinal, Format: r.Format, File: path,
		Publishable: existing.Publishable, Missing: existing.Missing,
		Note: "the same run as " + existing.FileName + " (" + existing.Run.Location + "): one run, this file attached to it"}, nil
}

// completeRun attaches a file to the run another file of the same run
// (Run.Companion) created, and completes that run with what this file adds:
// per-request records, stated figures, file facts, declared provenance.
func (b *batch) completeRun(tx *store.Tx, existing *store.RunRecord, sum, path string, r *benchrun.Run, declared provenance.Record, now time.Time) (Outcome, error) {
	merged := existing.Run
	rankBefore := benchrun.Rank(merged)
	hadRequests, nStated := merged.HasRequests, len(merged.Stated)
	before := slices.Clone(merged.Stated)
	factsBefore := map[string]bool{}
	for k := range merged.Facts {
		factsBefore[k] = true
	}
	added, err := benchrun.MergeCompanion(merged, r)
	if err != nil {
		return Outcome{}, &rejectError{out: Outcome{Status: StatusRejected, File: path, Place: r.Location,
			Reason: fmt.Sprintf("describes run %s (companion key %s) but %v", existing.ID, r.Companion, err)}}
	}
	var newFacts provenance.Record
	keys := make([]string, 0, len(r.Facts))
	for k := range r.Facts {
		if !factsBefore[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		newFacts = append(newFacts, provenance.Entry{Field: k, Value: r.Facts[k], Source: provenance.FromFile})
	}
	// Declared provenance (this file's manifest, --set) the run lacks.
	have := map[string]bool{}
	for _, e := range existing.Provenance {
		have[e.Field+"\x00"+string(e.Source)] = true
	}
	for _, e := range declared {
		if !have[e.Field+"\x00"+string(e.Source)] {
			newFacts = append(newFacts, e)
			have[e.Field+"\x00"+string(e.Source)] = true
			added = append(added, "provenance "+e.Field)
		}
	}
	rec := append(append(provenance.Record(nil), existing.Provenance...), newFacts...)
	if cs := provenance.Contradictions(rec); len(cs) > 0 {
		return Outcome{}, &rejectError{out: Outcome{Status: StatusRejected, File: path, Place: r.Location, Reason: contradictionText(cs)}}
	}
	missing := blockers(merged, rec)
	replaced := map[int]benchrun.Stated{}
	for i := range before {
		if merged.Stated[i] != before[i] {
			replaced[i] = merged.Stated[i]
		}
	}
	err = tx.AttachCompanion(existing.ID, store.Completion{Run: merged, Replaced: replaced,
		File:      store.RunFile{Blob: sum, Ordinal: r.Ordinal, FileName: path, Format: r.Format, Added: added, AddedAt: now},
		NewStated: merged.Stated[nStated:], NewFacts: newFacts, NewRequests: !hadRequests && merged.HasRequests,
		Provenance: rec, Publishable: len(missing) == 0, Missing: missing})
	if err != nil {
		return Outcome{}, err
	}
	// The run is named by its richest file, whichever came first: a file
	// that outranks the one the id came from renames the run (the old id
	// stays an alias).
	id := existing.ID
	detailMap := map[string]any{"file": path, "format": r.Format, "ordinal": r.Ordinal, "companion": r.Companion,
		"added": added, "publishable": len(missing) == 0, "missing": missing}
	if rank, newID := benchrun.Rank(r), benchrun.ContentID(r); rank > rankBefore || (rank == rankBefore && newID < id) {
		renamed, err := tx.RekeyRun(id, newID, "named by its richer file "+path)
		if err != nil {
			return Outcome{}, err
		}
		if renamed {
			detailMap["renamed_from"] = id
			id = newID
		}
	}
	detail, _ := json.Marshal(detailMap)
	if err := tx.AppendEvent(store.Event{At: now, Actor: b.opt.Actor, ToolVersion: b.opt.ToolVersion, Action: "complete",
		RunID: id, BlobSHA256: sum, Detail: string(detail)}); err != nil {
		return Outcome{}, err
	}
	return Outcome{Status: StatusCompleted, RunID: id, Ordinal: r.Ordinal, Format: r.Format, File: path,
		Publishable: len(missing) == 0, Missing: missing, Added: added, Companion: r.Companion}, nil
}

// duplicateError: a streamed file turned out to be archived already.
type duplicateError struct{ sum string }

func (d *duplicateError) Error() string { return "already archived as blob " + d.sum }

// storeStreamed archives a large file in one pass: it is parsed while its
// bytes are hashed, compressed and stored, in one transaction, with memory
// bounded whatever its size. The hash (and so the run ids) is known only at
// the end, so the runs are written last. Meanwhile a second reader hashes
// the file on its own: when it finds the bytes already archived, the parse
// stops early instead of running to the end of a large duplicate.
func (b *batch) storeStreamed(ctx context.Context, p *prepared, declared func(*benchrun.Run) provenance.Record) ([]Outcome, error) {
	path := p.c.path
	f, err := os.Open(path)
	if err != nil {
		return nil, &rejectError{out: Outcome{Status: StatusRejected, File: path, Reason: plainIOError(err)}}
	}
	defer f.Close()

	parseCtx, stopParse := context.WithCancel(ctx)
	defer stopParse()
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
	sideResult := func() sideHash {
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

	tx, err := b.opt.Archive.Begin(ctx, b.opt.OnWait)
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
	if err := p.parser.Parse(parseCtx, path, tee, func(r *benchrun.Run) error { runs = append(runs, r); return nil }); err != nil {
		if ctx.Err() == nil && parseCtx.Err() != nil {
			if r := sideResult(); r.known {
				return nil, &duplicateError{r.sum}
			}
		}
		return nil, parseRejection(ctx, path, err)
	}
	if len(runs) == 0 {
		return nil, &rejectError{out: Outcome{Status: StatusRejected, File: path, Reason: "no benchmark run found in the file"}}
	}
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
		case errors.Is(err, store.ErrExists) && r.sum != "":
			return nil, &duplicateError{r.sum}
		case errors.Is(err, store.ErrBlobMismatch) || errors.Is(err, store.ErrExists):
			return nil, &rejectError{out: Outcome{Status: StatusRejected, File: path, Reason: "the file changed while it was read: " + err.Error()}}
		}
		return nil, err
	}
	sum := bw.SHA256()
	if r.err == nil && r.sum != sum {
		return nil, &rejectError{out: Outcome{Status: StatusRejected, File: path, Reason: "the file changed while it was read (two reads gave different SHA-256)"}}
	}
	outs, err := b.putRuns(tx, p.parser, sum, path, runs, declared)
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

// record gathers everything stated about a run's provenance: the file's own
// facts and what the manifest and --set declare.
func record(r *benchrun.Run, declared provenance.Record) provenance.Record {
	keys := make([]string, 0, len(r.Facts))
	for k := range r.Facts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rec := make(provenance.Record, 0, len(keys)+len(declared))
	for _, k := range keys {
		rec = append(rec, provenance.Entry{Field: k, Value: r.Facts[k], Source: provenance.FromFile})
	}
	return append(rec, declared...)
}

// blockers lists what keeps a run from being publishable: the one rule,
// figures.Blockers.
func blockers(r *benchrun.Run, rec provenance.Record) []string {
	return figures.Blockers(r, rec.Effective())
}

func contradictionText(cs []provenance.Contradiction) string {
	var parts []string
	for _, c := range cs {
		s := fmt.Sprintf("the file says %s = %q but the %s says %q", c.Field, c.FileValue, c.Source, c.DeclaredValue)
		if c.Reason != "" {
			s += " (" + c.Reason + ")"
		}
		parts = append(parts, s)
	}
	return "provenance contradicts the file: " + strings.Join(parts, "; ")
}

// again handles bytes that are already archived: a duplicate when the
// declared provenance agrees, a completion when it only adds fields, and a
// refusal when it changes what was recorded.
func (b *batch) again(ctx context.Context, path, sum string, existing []store.RunSummary,
	declared func(*benchrun.Run) provenance.Record, report func(Outcome)) error {
	type plan struct {
		rec     *store.RunRecord
		added   provenance.Record
		missing []string
	}
	var plans []plan
	var conflicts []string
	for _, s := range existing {
		rec, err := b.opt.Archive.RunMeta(s.ID)
		if err != nil {
			return err
		}
		stored := declaredOnly(rec.Provenance).Effective()
		var added provenance.Record
		for _, e := range dedupe(declared(rec.Run)) {
			old, ok := stored[e.Field]
			switch {
			case !ok:
				added = append(added, e)
			case old != e.Value:
				conflicts = append(conflicts, fmt.Sprintf("run %s has %s = %q, this ingest says %q", rec.ID, e.Field, old, e.Value))
			}
		}
		full := append(append(provenance.Record{}, rec.Provenance...), added...)
		if cs := provenance.Contradictions(full); len(cs) > 0 {
			conflicts = append(conflicts, fmt.Sprintf("run %s: %s", rec.ID, contradictionText(cs)))
		}
		plans = append(plans, plan{rec: rec, added: added, missing: blockers(rec.Run, full)})
	}
	if len(conflicts) > 0 {
		report(Outcome{Status: StatusRejected, File: path, Reason: "already archived with different provenance, which an ingest does not change: " +
			strings.Join(conflicts, "; ") + "; to correct an archived value, use benchledger amend RUN --set field=value --reason TEXT"})
		return nil
	}
	needWrite := false
	for _, p := range plans {
		if len(p.added) > 0 {
			needWrite = true
		}
	}
	if needWrite {
		tx, err := b.opt.Archive.Begin(ctx, b.opt.OnWait)
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		for _, p := range plans {
			if len(p.added) == 0 {
				continue
			}
			if err := tx.AddProvenance(p.rec.ID, p.added, len(p.missing) == 0, p.missing); err != nil {
				tx.Rollback()
				return err
			}
			detail, _ := json.Marshal(map[string]any{"file": path, "added": fieldsOf(p.added)})
			if err := tx.AppendEvent(store.Event{At: now, Actor: b.opt.Actor, ToolVersion: b.opt.ToolVersion,
				Action: "provenance-completed", RunID: p.rec.ID, BlobSHA256: sum, Detail: string(detail)}); err != nil {
				tx.Rollback()
				return err
			}
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	for _, p := range plans {
		st := StatusDuplicate
		if len(p.added) > 0 {
			st = StatusCompleted
		}
		report(Outcome{Status: st, RunID: p.rec.ID, Ordinal: p.rec.Run.Ordinal, Format: p.rec.Run.Format, File: path,
			Publishable: len(p.missing) == 0, Missing: p.missing, Added: fieldsOf(p.added)})
	}
	return nil
}

func declaredOnly(r provenance.Record) provenance.Record {
	var out provenance.Record
	for _, e := range r {
		if e.Source != provenance.FromFile && e.Source != provenance.FromAmend {
			out = append(out, e)
		}
	}
	return out
}

// dedupe keeps the effective declared value per field (--set over manifest).
func dedupe(r provenance.Record) provenance.Record {
	eff := r.Effective()
	var out provenance.Record
	seen := map[string]bool{}
	for i := len(r) - 1; i >= 0; i-- {
		e := r[i]
		if seen[e.Field] || eff[e.Field] != e.Value {
			continue
		}
		seen[e.Field] = true
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}

func fieldsOf(r provenance.Record) []string {
	var out []string
	for _, e := range r {
		out = append(out, e.Field)
	}
	return out
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
