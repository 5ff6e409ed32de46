// Package site writes the archive browser: a static, multilingual site of
// every run and case study in an archive, opened from disk or any file
// server (no server code, no network, no CDN).
//
// Layout under Options.Out (every link is relative, so file:// works):
//
//	index.html                  the languages
//	<lang>/index.html           campaigns and case studies
//	<lang>/runs.html            every run: filter, sort, tick two to compare
//	<lang>/run/<id>.html        one run: provenance, figures, charts, caveats, audit
//	<lang>/case/<id>.html       a case study: its reports, versions, errata
//	<lang>/compare/<case>--<name>.html  a comparison a case-study spec names
//	<lang>/diff.html            any two runs side by side (client side)
//	data/runs-<xx>.js           runs' fields and figures for diff.html (data.go)
//	raw/<sha256>/<name>         the original bytes of each raw file
//	reports/<case>/             the case study's rendered reports
//	assets/                     style, script, ECharts
//
// A build is incremental: .benchledger-site.json beside the pages records,
// per run, a key over everything its pages are made of (the run's latest
// archive event, the templates, the languages, the tool version, the
// comparisons that name it). A run whose key is unchanged is not read
// again; every other page is rewritten only when its bytes differ.
package site

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/benchledger/benchledger/caveat"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/benchledger/benchledger/audit"
	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/internal/atomicfile"
	"github.com/benchledger/benchledger/internal/csp"
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/publish"
	"github.com/benchledger/benchledger/render/assets"
	"github.com/benchledger/benchledger/spec"
	"github.com/benchledger/benchledger/store"
)

// Options say what to build where.
type Options struct {
	// Out is the site's folder (created when missing).
	Out string
	// Langs are locale tags; empty means spec.DefaultLanguages.
	Langs []string
	// Templates, when set, is a folder whose files replace the embedded
	// site templates of the same name (templates/site).
	Templates string
	// Cases are case studies evaluated from specs named on the command
	// line: their reports are rendered into the site and their comparisons
	// get pages. Case studies recorded in the archive without a spec here
	// still get a page with their versions and errata.
	Cases []Case
	// Force rebuilds every page, ignoring the manifest.
	Force bool
	// NoRaw leaves the raw files out: run pages show their SHA-256 but
	// offer no download. The copies are most of a first build's time
	// and of the site's size (they are the evidence, byte for byte).
	NoRaw bool
	// ToolVersion is shown in every footer and is part of every page key.
	ToolVersion string
	// Progress, when set, is called as runs are done, by one goroutine
	// at a time.
	Progress func(done, total int)
	// Redact, when set, redacts every text derived from provenance on
	// every page (docs/redaction.md): run summaries, provenance values,
	// file names, history, findings, confounders, caveats, the reports.
	Redact caveat.Redactor
	// GC, when set, is told as the build enters each of its phases, so
	// that the program (benchledger's main) can choose the garbage
	// collector's settings for it; it returns what undoes them. The
	// package never changes process-wide settings itself.
	GC func(GCPhase) (restore func())
}

// GCPhase is a part of a build whose memory behaves in its own way.
type GCPhase int

const (
	// GCBuild is the whole build. Its live heap is mostly the previous
	// build's record (6 MB of JSON for 10,000 runs), which Go's default
	// collector marks again at every doubling from a few megabytes: for a
	// rebuild of a few runs, a lazier collector saves about a tenth of the
	// CPU time for about 40 MB more peak.
	GCBuild GCPhase = iota
	// GCBulkRuns is the making of many runs' pages (bulkThreshold or
	// more), nested in GCBuild: most of what it allocates (a run's
	// records, its page) is garbage at once, so collecting a quarter as
	// often as by default saves time, and a soft limit bounds the heap.
	GCBulkRuns
)

// enterGC starts phase p of the build, returning what ends it.
func (o Options) enterGC(p GCPhase) (end func()) {
	if o.GC == nil {
		return func() {}
	}
	return o.GC(p)
}

// Case is a case study given by its spec.
type Case struct {
	Result *casestudy.Result
	// Audit is its audit (nil: no audit page); Publication the version
	// the reports show.
	Audit       *audit.Report
	Publication *publish.Publication
}

// Stats say what a build did.
type Stats struct {
	Runs        int // runs in the archive
	RunsRebuilt int // runs whose pages were made again
	Written     int // files written (new or changed)
	Unchanged   int // files already there with the same bytes
	Removed     int // files of an earlier build no longer part of the site
	// Distrusted says why the previous build's record was not used (it
	// named a file outside the folder); empty when it was, or there was
	// none.
	Distrusted string
	Index      string
}

// siteFormat changes whenever the layout or the manifest changes in a way
// an older build's pages would not match. 2: raw files at raw/<sha256>
// (format 1 had raw/<sha256>/<name>), rows under a MAC. 3: rows with
// group, sweep value, replica, offered load and median latency.
const siteFormat = 3

// Build writes the site of archive a into opt.Out.
func Build(ctx context.Context, a *store.Archive, opt Options) (Stats, error) {
	var st Stats
	if opt.Out == "" {
		return st, errors.New("site: no output folder")
	}
	langs := opt.Langs
	if len(langs) == 0 {
		langs = spec.DefaultLanguages
	}
	locs, err := locales.MatchExact(langs)
	if err != nil {
		return st, fmt.Errorf("site: %w", err)
	}
	// The run pages load the site's build of ECharts (only the chart
	// types and components benchledger draws), as assets/echarts.min.js.
	echarts, err := assets.EChartsSite()
	if err != nil {
		return st, fmt.Errorf("site: the run pages' charts need make assets: %w", err)
	}
	tpl, err := loadTemplates(opt.Templates)
	if err != nil {
		return st, err
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return st, err
	}
	ents, err := os.ReadDir(opt.Out)
	if err != nil {
		return st, err
	}
	b := &builder{ctx: ctx, a: a, opt: opt, locs: locs, tpl: tpl, out: opt.Out, keep: map[string]bool{}, dataLines: map[string]map[string][]byte{},
		files: atomicfile.Batch{Fresh: len(ents) == 0}, listed: newSiteFiles(opt.Out)}
	if b.siteKey, err = a.SiteKey(); err != nil {
		return st, err
	}
	defer opt.enterGC(GCBuild)()
	// A build that makes every run (into a folder without a build record,
	// or --force) begins reading them as soon as they are listed, beside
	// the other reads below: by the time the runs' keys are made, many
	// runs' records are ready, and their events and companion files too.
	// The scan's snapshot is taken after the list's, so it holds every run
	// listed (and runs archived since, which buildRuns passes over).
	makesAll := opt.Force || !slices.ContainsFunc(ents, func(e os.DirEntry) bool { return e.Name() == manifestName })
	defer func() {
		if b.early != nil {
			b.early.stop()
		}
	}()

	// What the build starts from, read side by side: the previous build's
	// record (6 MB of JSON for 10,000 runs) and the archive's lists.
	var summaries []store.RunSummary
	var stamps map[string]string
	var fresh bool
	err = concurrently(
		func() error {
			var err error
			if b.old, err = readManifest(opt.Out); err != nil {
				st.Distrusted = err.Error()
			}
			fresh = opt.Force || b.old.Format != siteFormat
			if fresh {
				// Nothing of the old record is reused, but the files it names
				// (all inside out: readManifest checked) are still the old
				// build's to remove.
				if b.old.Format != siteFormat {
					if err := removeOldRaw(b.out, b.old.Files); err != nil {
						return err
					}
				}
				b.old = manifest{Files: b.old.Files}
			}
			return nil
		},
		func() (err error) {
			if summaries, err = a.ListRuns(store.Filter{}); err == nil && makesAll && len(summaries) >= bulkThreshold {
				b.early = b.readBulk(ctx, nil, earlyQueued)
			}
			return err
		},
		func() (err error) { stamps, err = a.RunStamps(); return err },
		func() (err error) { b.blobSizes, err = a.BlobSizes(); return err },
		func() (err error) { b.cases, err = b.caseViews(); return err })
	if err != nil {
		return st, err
	}
	b.next = manifest{Format: siteFormat, Runs: map[string]manifestRun{}, Pages: map[string]string{}}
	st.Runs = len(summaries)
	if err := b.comparisonRuns(); err != nil {
		return st, err
	}
	if r := opt.Redact; r != nil {
		for i := range summaries {
			s := &summaries[i]
			s.Campaign, s.Role, s.Model, s.Engine, s.EngineVersion = r.Text(s.Campaign), r.Text(s.Role), r.Field("checkpoint.model_id", s.Model), r.Text(s.Engine), r.Text(s.EngineVersion)
			s.GPU, s.FileName = r.Field("hardware.gpu_model", s.GPU), r.Text(s.FileName)
		}
	}

	b.roles = make(map[string]string, len(summaries))
	for _, s := range summaries {
		b.roles[s.ID] = s.Role
	}

	// Runs: reuse what the manifest vouches for, rebuild the rest on a few
	// goroutines. The keys, the manifest's MACs (a hash each) and whether
	// the files are there are found on every core first.
	keys := make([]string, len(summaries))
	vouched := make([]bool, len(summaries))
	eachOnCores(len(summaries), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s := summaries[i]
			keys[i] = b.runKey(s, stamps[s.ID])
			m, ok := b.old.Runs[s.ID]
			vouched[i] = ok && m.Key == keys[i] && verified(b.siteKey, m) && b.filesExist(m.Files)
		}
	})
	var todo []int
	rows := make([]runRow, len(summaries))
	for i, s := range summaries {
		key := keys[i]
		if m := b.old.Runs[s.ID]; vouched[i] {
			rows[i] = rederived(m.Row, s)
			if rows[i] != m.Row {
				m.Row = rows[i]
				m.MAC = rowMAC(b.siteKey, m)
			}
			b.next.Runs[s.ID] = m
			for _, f := range m.Files {
				b.keep[f] = true
			}
			continue
		}
		rows[i].key = key
		todo = append(todo, i)
	}
	st.RunsRebuilt = len(todo)
	if err := b.buildRuns(summaries, rows, todo); err != nil {
		return st, err
	}
	defer b.writesDone() // for an early return; waited for below
	exists := make(map[string]bool, len(summaries))
	for _, s := range summaries {
		exists[s.ID] = true
	}
	// The diff page's data and the pages over all runs, and apart from
	// them the trend pages (per language), side by side; the trends are
	// found once, beside the other pages.
	var trendsOnce sync.Once
	// The build record's runs are written beside them too: the record is
	// the last file, and its runs (6 MB for 10,000) are known now.
	var record []byte
	// The data and the record need the runs in no order, so they begin
	// while the runs are put in the listing's order (orderRuns, on one
	// core: 20 ms for 10,000), which the other pages wait for.
	ordered := make(chan struct{})
	pages := []func() error{func() error { return b.writeData(exists, fresh) }, func() (err error) {
		record, err = manifestHead(b.next.Format, b.next.Runs)
		return err
	}}
	for _, l := range locs {
		pages = append(pages, func() error {
			<-ordered
			if err := ctx.Err(); err != nil {
				return err
			}
			return b.langPages(l, summaries, rows)
		}, func() error {
			<-ordered
			if err := ctx.Err(); err != nil {
				return err
			}
			trendsOnce.Do(func() { b.trends = findTrends(rows) })
			return b.trendPages(l, rows)
		})
	}
	pagesDone := make(chan error, 1)
	go func() { pagesDone <- concurrently(pages...) }()
	orderRuns(summaries, rows)
	close(ordered)
	if err := <-pagesDone; err != nil {
		return st, err
	}
	if err := b.writeAssets(echarts); err != nil {
		return st, err
	}
	if err := b.rootIndex(); err != nil {
		return st, err
	}
	if err := b.reports(); err != nil {
		return st, err
	}

	// Files an earlier build wrote that this one did not: a language no
	// longer asked for, a case study whose spec was not given this time.
	// The run files are written (the clean-up below reads what the build
	// kept).
	if err := b.writesDone(); err != nil {
		return st, err
	}
	for _, f := range b.old.Files {
		if b.keep[f] {
			continue
		}
		if removed, err := removeInside(b.out, f); err != nil {
			return st, err
		} else if removed {
			b.removed.Add(1)
		}
	}
	for f := range b.keep {
		b.next.Files = append(b.next.Files, f)
	}
	sort.Strings(b.next.Files)
	if err := writeManifest(b.out, appendManifestTail(record, b.next)); err != nil {
		return st, err
	}
	st.Written, st.Unchanged, st.Removed = int(b.written.Load()), int(b.unchanged.Load()), int(b.removed.Load())
	st.Index = filepath.Join(b.out, "index.html")
	return st, nil
}

type builder struct {
	ctx       context.Context
	a         *store.Archive
	opt       Options
	locs      []locales.Locale
	tpl       *templateSet
	out       string
	old, next manifest
	siteKey   []byte // the archive's key for the manifest's MACs
	blobSizes map[string]int64
	cases     []*caseView
	// cmpLinks are, per run, the comparison pages that name it.
	cmpLinks map[string][]cmpRef
	// cmpRuns are the runs behind each comparison page's sides
	// (compare.go).
	cmpRuns map[cmpRef]*cmpRuns
	// roles are the runs' roles by id, as the runs table shows them (a
	// comparison page names a selection by its runs' role).
	roles map[string]string
	// trends are the configurations run over dates or engine versions
	// (trends.go), found once per build.
	trends []*trendSeries
	// dataLines are the diff page's lines of the runs made, by shard.
	dataLines map[string]map[string][]byte
	// files writes the build's files; Fresh when the folder was empty as
	// the build began.
	files atomicfile.Batch
	// writes feeds the writer goroutine while runs are made; writerDone
	// closes when it has written the last, with writeErr its first error.
	writes     chan fileWrite
	writerDone chan struct{}
	writeErr   error
	// messages caches, per language, catalogue messages without arguments;
	// repeatedTexts holds texts every run page repeats (builder.repeated).
	messages, repeatedTexts sync.Map
	// runLabelCache holds, per language, the run page's labels escaped
	// for writeRunHTML (escapedLabels).
	runLabelCache sync.Map
	// pagesKeyBytes is pagesKey's, made once.
	pagesKeyOnce  sync.Once
	pagesKeyBytes []byte

	mu                          sync.Mutex
	keep                        map[string]bool // files of this build, relative to out, with /
	written, unchanged, removed atomic.Int64
	pageSize                    atomic.Int64 // of the last run page made
	// listed are the site folder's files as filesExist finds them.
	listed *siteFiles
	// early reads every run from the build's start when it will make
	// them all (buildRuns takes it over).
	early *runReads
}

// runKey is everything a run's pages are made of besides the run itself,
// whose latest event stands for its content (run ids come from content, and
// every later change appends an event).
//
// The text hashed is pagesKey's, then "run %s\nstamp %s\npublishable
// %t\nblob %s\n" and a "comparison %s %s\n" line per comparison, written
// without fmt: a rebuild makes the key of every run.
func (b *builder) runKey(s store.RunSummary, stamp string) string {
	pk := b.pagesKey()
	t := make([]byte, 0, len(pk)+256)
	t = append(t, pk...)
	t = append(append(append(t, "run "...), s.ID...), "\nstamp "...)
	t = append(append(t, stamp...), "\npublishable "...)
	t = strconv.AppendBool(t, s.Publishable)
	t = append(append(append(t, "\nblob "...), s.BlobSHA256...), '\n')
	for _, c := range b.cmpLinks[s.ID] {
		t = append(append(append(append(append(t, "comparison "...), c.Case...), ' '), c.Name...), '\n')
	}
	sum := sha256.Sum256(t)
	return hex.EncodeToString(sum[:])
}

// pagesKey is the part of every page's key that is the same for the
// whole build: the layout, the tool, the templates, the catalogues, the
// languages, whether raw files and redaction are on. It is made once.
func (b *builder) pagesKey() []byte {
	b.pagesKeyOnce.Do(func() {
		var buf bytes.Buffer
		fmt.Fprintf(&buf, "format %d\ntool %s\ntemplates %s\ncatalogues %s\nraw %t\nredact %t\n", siteFormat, b.opt.ToolVersion, b.tpl.digest, locales.Digest(), !b.opt.NoRaw, b.opt.Redact != nil)
		for _, l := range b.locs {
			fmt.Fprintf(&buf, "lang %s\n", l.Tag())
		}
		b.pagesKeyBytes = buf.Bytes()
	})
	return b.pagesKeyBytes
}

// filesExist says whether every file is a regular file under out, reached
// through no symbolic link, as the build began (siteFiles: each folder is
// read once, the first time).
func (b *builder) filesExist(files []string) bool {
	return b.listed.exist(files)
}

// rederived is a cached row with every field the run's summary gives
// taken from the archive again: only what needs the run's records read
// (workload, throughput, audit counts) comes from the cache, under its MAC.
func rederived(r runRow, s store.RunSummary) runRow {
	r.ID, r.Campaign, r.Role, r.Model, r.Engine, r.Version, r.GPU, r.Date, r.Publishable =
		s.ID, s.Campaign, s.Role, s.Model, s.Engine, s.EngineVersion, s.GPU, s.Date, s.Publishable
	if s.RequestCount >= 0 {
		r.Requests = s.RequestCount
	}
	return r
}

// bulkThreshold: from this many runs to make, they are read in one pass
// over the archive's tables (store.ScanRuns) rather than one by one.
const bulkThreshold = 32

// buildRuns makes the pages of the runs at the todo indexes, filling their
// rows for the runs table. One goroutine reads the runs, a few make their
// pages, and one writes the files: many writers into one folder only
// contend for it.
func (b *builder) buildRuns(summaries []store.RunSummary, rows []runRow, todo []int) error {
	if len(todo) == 0 {
		return nil
	}
	if len(todo) >= bulkThreshold {
		defer b.opt.enterGC(GCBulkRuns)()
	}
	ctx, cancelBuild := context.WithCancel(b.ctx)
	defer cancelBuild()
	index := make(map[string]int, len(todo))
	for _, i := range todo {
		index[summaries[i].ID] = i
	}
	// The reading: begun with the build when it makes every run, else
	// begun here for the runs to make.
	rd := b.early
	b.early = nil
	switch {
	case rd != nil && len(todo) >= bulkThreshold:
	case len(todo) >= bulkThreshold:
		if rd != nil {
			rd.stop()
		}
		wanted := make(map[string]bool, len(todo))
		for id := range index {
			wanted[id] = true
		}
		rd = b.readBulk(ctx, wanted, recordsQueued)
	default:
		if rd != nil {
			rd.stop()
		}
		rd = b.readEach(ctx, summaries, todo)
	}
	defer rd.stop()
	cancel := func() {
		cancelBuild()
		rd.cancel()
	}

	// The writer.
	b.writes = make(chan fileWrite, 64)
	writes, writerDone := b.writes, make(chan struct{})
	b.writerDone = writerDone
	go func() {
		defer close(writerDone)
		for w := range writes {
			if b.writeErr == nil {
				if b.writeErr = b.write(w.rel, w.data); b.writeErr != nil {
					cancel()
				}
			}
			if w.buf != nil {
				w.buf.Reset()
				pageBuffers.Put(w.buf)
			}
		}
	}()

	// The page makers.
	workers := min(max(runtime.GOMAXPROCS(0), 1), 8, len(todo))
	errs := make([]error, workers)
	var done atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			if <-rd.sideReady; rd.sideErr != nil {
				cancel() // reported once, below
			}
			for rec := range rd.recs {
				if errs[w] != nil || ctx.Err() != nil {
					continue
				}
				i, ok := index[rec.ID]
				if !ok {
					// Read by the scan of every run begun with the build
					// (Build): archived after the runs were listed.
					continue
				}
				m, err := b.runPages(rec, summaries[i], rows[i].key, rd.events[rec.ID], rd.companions[rec.ID])
				if err != nil {
					errs[w] = fmt.Errorf("site: run %s: %w", rec.ID, err)
					cancel()
					continue
				}
				rows[i] = m.Row
				b.mu.Lock()
				b.next.Runs[rec.ID] = m
				n := done.Add(1)
				if b.opt.Progress != nil {
					b.opt.Progress(int(n), len(todo))
				}
				b.mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	// The writer finishes the queued files while the pages that list the
	// runs are made (Build waits for it through writesDone); on an error
	// it is waited for here.
	close(b.writes)
	b.writes = nil
	if rd.sideErr != nil {
		return errors.Join(rd.sideErr, b.writesDone())
	}
	if err := errors.Join(errs...); err != nil {
		return errors.Join(err, b.writesDone())
	}
	if err := b.ctx.Err(); err != nil {
		return errors.Join(err, b.writesDone())
	}
	if rd.readErr != nil {
		return errors.Join(rd.readErr, b.writesDone())
	}
	if n := done.Load(); n != int64(len(todo)) {
		// A file the writer could not write stops the page makers: its
		// error says why runs are missing.
		if err := b.writesDone(); err != nil {
			return err
		}
		return fmt.Errorf("site: %d of %d runs read from the archive", n, len(todo))
	}
	return nil
}

// recordsQueued is how many runs' records the reader may hold ready
// for the page makers; earlyQueued when it begins with the build, before
// they start: about what the scan reads in the build's set-up, sharing
// the cores with it (at ~56 us of CPU a run). Each record queued is peak
// memory (~30 MB for 512 of 100 requests).
const recordsQueued, earlyQueued = 128, 512

// runReads is the reading of the runs whose pages a build makes: one
// goroutine reads their records into recs, closing it at the end (readErr
// then says why it stopped short), and another their events and companion
// files (sideErr), closing sideReady when done.
type runReads struct {
	cancel     context.CancelFunc
	recs       chan *store.RunRecord
	readErr    error
	sideReady  chan struct{}
	events     map[string][]store.Event
	companions map[string][]store.RunFile
	sideErr    error
}

// stop ends the reads and waits for their goroutines: what they read is
// not used.
func (r *runReads) stop() {
	r.cancel()
	for range r.recs {
	}
	<-r.sideReady
}

// send hands rec to the page makers unless ctx ends first.
func (r *runReads) send(ctx context.Context, rec *store.RunRecord) error {
	select {
	case r.recs <- rec:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// readBulk reads the runs wanted holds (every run when nil) in one pass
// over the archive (store.ScanRuns), queued records at most ahead of the
// page makers, and the events and companion files of every run.
func (b *builder) readBulk(ctx context.Context, wanted map[string]bool, queued int) *runReads {
	ctx, cancel := context.WithCancel(ctx)
	r := &runReads{cancel: cancel, recs: make(chan *store.RunRecord, queued), sideReady: make(chan struct{})}
	go func() {
		defer close(r.sideReady)
		if r.events, r.sideErr = b.a.EventsByRun(); r.sideErr == nil {
			r.companions, r.sideErr = b.a.RunFilesByRun()
		}
	}()
	go func() {
		defer close(r.recs)
		r.readErr = b.a.ScanRuns(ctx, wanted, func(rec *store.RunRecord) error { return r.send(ctx, rec) })
	}()
	return r
}

// readEach reads the runs at the todo indexes one by one, with their
// events and companion files (a rebuild after an ingest reads a few runs,
// not the whole archive).
func (b *builder) readEach(ctx context.Context, summaries []store.RunSummary, todo []int) *runReads {
	ctx, cancel := context.WithCancel(ctx)
	r := &runReads{cancel: cancel, recs: make(chan *store.RunRecord, recordsQueued), sideReady: make(chan struct{}),
		events: map[string][]store.Event{}, companions: map[string][]store.RunFile{}}
	go func() {
		defer close(r.sideReady)
		for _, i := range todo {
			id := summaries[i].ID
			if r.events[id], r.sideErr = b.a.Events(id); r.sideErr != nil {
				return
			}
			if r.companions[id], r.sideErr = b.a.RunFiles(id); r.sideErr != nil {
				return
			}
		}
	}()
	go func() {
		defer close(r.recs)
		for _, i := range todo {
			rec, err := b.a.Run(summaries[i].ID)
			if err == nil {
				err = r.send(ctx, rec)
			}
			if err != nil {
				r.readErr = err
				return
			}
		}
	}()
	return r
}

// eachOnCores splits 0 to n-1 into as many ranges as there are cores and
// calls fn for each range [lo, hi) side by side (fn must be safe to call
// so).
func eachOnCores(n int, fn func(lo, hi int)) {
	parts := min(max(runtime.GOMAXPROCS(0), 1), max(n/256, 1))
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() { fn(p*n/parts, (p+1)*n/parts) })
	}
	wg.Wait()
}

// concurrently runs fns on goroutines of their own and returns their
// errors joined.
func concurrently(fns ...func() error) error {
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Go(func() { errs[i] = fn() })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// fileWrite is a file for the writer goroutine; buf, when set, holds data
// and goes back to pageBuffers once written.
type fileWrite struct {
	rel  string
	data []byte
	buf  *bytes.Buffer
}

// pageBuffers are the buffers run pages are made in, used again once the
// writer is done with them: a fresh one per page was a tenth of what a
// build allocates, all of it zeroed first.
var pageBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// writeRunFile hands a run's file, the bytes buf holds, to the writer,
// which counts it as part of this build; buf is the writer's now.
//
// A page gets its Content-Security-Policy here, on the page maker's
// goroutine and in buf itself (no copy of the page): the one writer is the
// build's narrow part, and write leaves a page that has its policy as it
// is.
func (b *builder) writeRunFile(rel string, buf *bytes.Buffer) {
	if strings.HasSuffix(rel, ".html") {
		csp.ApplyBuffer(buf, csp.Site)
	}
	b.writes <- fileWrite{rel, buf.Bytes(), buf}
}

// writesDone waits for the writer of buildRuns to write the files handed
// to it, and returns its first error.
func (b *builder) writesDone() error {
	if b.writerDone == nil {
		return nil
	}
	<-b.writerDone
	b.writerDone = nil
	return b.writeErr
}

// keepFile counts rel (relative to out, with /) as part of this build, so
// the clean-up after it leaves the file alone.
func (b *builder) keepFile(rel string) {
	b.mu.Lock()
	b.keep[rel] = true
	b.mu.Unlock()
}

// write puts data at rel (relative to out, with /) unless the file there
// already has these bytes, and counts the file as part of this build.
func (b *builder) write(rel string, data []byte) error {
	b.keepFile(rel)
	if strings.HasSuffix(rel, ".html") {
		data = csp.Apply(data, csp.Site)
	}
	wrote, err := b.files.Write(filepath.Join(b.out, filepath.FromSlash(rel)), data)
	if err != nil {
		return err
	}
	if wrote {
		b.written.Add(1)
	} else {
		b.unchanged.Add(1)
	}
	return nil
}

// safeName keeps a file name's letters, digits, dots, dashes and
// underscores, so a hostile name cannot leave its folder or break a link.
func safeName(name string) string {
	base := filepath.Base(strings.ReplaceAll(name, `\`, "/"))
	var sb strings.Builder
	for _, r := range base {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			sb.WriteRune(r)
		default:
			sb.WriteByte('_')
		}
	}
	s := strings.TrimLeft(sb.String(), ".")
	if s == "" {
		return "raw"
	}
	if len(s) > 100 {
		s = s[len(s)-100:]
	}
	return s
}
