package main

import (
	"math"
	"runtime/debug"

	"github.com/benchledger/benchledger/render/site"
)

// The garbage collector's settings are chosen here, for the one command a
// process runs, and nowhere else: a library that changed them would change
// them for every other command and test in its process. The libraries say
// what they are about to do through option hooks (audit.Options'
// ReserveMemory, site.Options' GC), which the commands connect to
// env.gc; the in-process test runner calls run, never main, so env.gc is
// nil there and Go's defaults stay.
//
// $GOMEMLIMIT and $GOGC, when set, win over every choice made here.

// gcHooks are what the commands connect to their libraries' hooks;
// main's are its *gcSettings.
type gcHooks interface {
	site(site.GCPhase) (restore func())
	reserveMemory(bytes int64) (release func())
}

// gcSettings is what main chose for this process, and what the commands'
// hooks may change for a phase of their work.
type gcSettings struct {
	percent      int   // the process's GOGC
	limit        int64 // its soft memory limit (math.MaxInt64: none)
	fixedPercent bool  // $GOGC is set
	fixedLimit   bool  // $GOMEMLIMIT is set
}

// tuneGC sets the garbage collector for the command in args, before it
// runs, and returns the settings for the commands' hooks.
//
// Ingest memory is bounded by design (streamed files, chunked blobs), so
// its collector is tuned by that bound rather than by heap growth: a soft
// limit keeps a large file's heap from doubling past it, and a lazy GOGC
// stops a batch of small files (whose live heap is tiny) from collecting
// every few megabytes — that alone took a third of the time of ingesting
// 1,000 files.
//
// An audit holds one run's records while its raw file is parsed again (68
// bytes a request for vLLM's files, kept column by column; 96 for other
// formats), and little else: the stored records are streamed and the blob
// read into reused buffers, so what it allocates besides is garbage of a
// few megabytes. A soft limit and an eager GOGC keep the heap from
// doubling past the records (a run of a million requests peaked at
// ~250 MB with Go's defaults; 119–126 MB with these); the audit reserves
// more (reserveMemory) for runs whose records alone would not fit under it.
func tuneGC(args []string, getenv func(string) string) *gcSettings {
	g := &gcSettings{fixedPercent: getenv("GOGC") != "", fixedLimit: getenv("GOMEMLIMIT") != ""}
	cmd := ""
	if len(args) > 0 {
		cmd = args[0]
	}
	switch cmd {
	case "audit":
		g.setLimit(auditMemoryLimit)
		g.setPercent(auditGCPercent)
	case "ingest":
		g.setLimit(ingestMemoryLimit)
		g.setPercent(ingestGCPercent)
	}
	g.percent = gcPercent()
	g.limit = debug.SetMemoryLimit(-1)
	return g
}

// gcPercent reads the process's GOGC, which Go reads only by setting it
// (SetGCPercent(-1) turns the collector off until it is set back).
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

func (g *gcSettings) setPercent(p int) {
	if !g.fixedPercent {
		debug.SetGCPercent(p)
	}
}

func (g *gcSettings) setLimit(l int64) {
	if !g.fixedLimit {
		debug.SetMemoryLimit(l)
	}
}

// ingestMemoryLimit is the soft heap limit of an ingest (see tuneGC). At
// 72 MiB a 950 MB file peaks at 112–121 MB of RSS, in the same time; at
// 80 MiB it reached 128 MB, the bound issue 2 set.
const (
	ingestMemoryLimit = 72 << 20
	ingestGCPercent   = 800
)

// The collector of an audit (see tuneGC): a run of 1,000,000 vLLM
// requests needs 68 MB of records and the audit's 24 MiB margin (its
// reservation raises this limit by half a MiB). Measured on that run, peak
// RSS as make bench prints it: 135–137 MB with a 128 MiB limit alone; with
// a 96 MiB limit 115 MB mostly, up to 130 MB in about one run in eight;
// with this one 110 MB mostly, up to 122 MB in two runs of ten, in the
// same CPU time (1.006x, 6 alternating pairs). The higher peaks are memory
// SQLite freed and glibc kept.
const (
	auditMemoryLimit = 88 << 20
	auditGCPercent   = 50
)

// reserveMemory is the audit's hook: it raises the process's soft memory
// limit, when there is one, to what the audit says it will hold at once,
// so the collector does not run back to back near the limit. It returns
// what sets the limit back.
func (g *gcSettings) reserveMemory(bytes int64) (release func()) {
	cur := debug.SetMemoryLimit(-1)
	if g.fixedLimit || cur == math.MaxInt64 || bytes <= cur {
		return func() {}
	}
	debug.SetMemoryLimit(bytes)
	return func() { debug.SetMemoryLimit(cur) }
}

// Settings of the site's phases (see site.GCPhase): a build runs with a
// lazier collector (its live heap is mostly the previous build's record),
// and the making of many runs' pages with GOGC 400 under a 1 GiB soft
// limit; after those pages, a big build goes on with the process's own
// settings. Making 10,000 runs' pages with 400 instead of 200 took 0.955x
// the time (12 alternating pairs) for 70 MB more at the peak (310 MB; Hugo
// building as many simple pages peaks at 480 MB).
const (
	siteBuildGCPercent  = 400
	siteBulkGCPercent   = 400
	siteBulkMemoryLimit = 1 << 30
)

// site is the site build's hook.
func (g *gcSettings) site(p site.GCPhase) (restore func()) {
	switch p {
	case site.GCBuild:
		old := gcPercent()
		g.setPercent(siteBuildGCPercent)
		return func() { debug.SetGCPercent(old) }
	case site.GCBulkRuns:
		limit := debug.SetMemoryLimit(-1)
		g.setPercent(siteBulkGCPercent)
		g.setLimit(min(limit, siteBulkMemoryLimit))
		return func() {
			debug.SetGCPercent(g.percent)
			debug.SetMemoryLimit(limit)
		}
	}
	return func() {}
}
