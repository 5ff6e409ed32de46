package main

import (
	"bytes"
	"context"
	"math"
	"runtime/debug"
	"strings"
	"sync"
	"testing"

	"github.com/benchledger/benchledger/render/site"
	"github.com/benchledger/benchledger/store"
)

// gcNow reads the process's GOGC and soft memory limit without changing them.
func gcNow() (percent int, limit int64) {
	return gcPercent(), debug.SetMemoryLimit(-1)
}

// keepGC sets the process's collector back as it was when the test ends.
// Tests that use it change process-wide settings: they must not run beside
// each other. TestTuneGC and TestReserveMemory are not parallel, so they
// end before any parallel test starts; TestSiteGCPhases, the one parallel
// test that uses it, then runs beside tests whose commands never touch
// the collector (run leaves it alone: env.gc is nil in the tests), and
// what it checks is what its own hooks set.
func keepGC(t *testing.T) {
	percent, limit := gcNow()
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
}

// main chooses the collector for the command it runs; $GOGC and
// $GOMEMLIMIT win.
func TestTuneGC(t *testing.T) {
	keepGC(t)
	none := func(string) string { return "" }
	for _, c := range []struct {
		name        string
		args        []string
		getenv      func(string) string
		wantPercent int
		wantLimit   int64
	}{
		{"ingest", []string{"ingest", "x"}, none, ingestGCPercent, ingestMemoryLimit},
		{"audit", []string{"audit"}, none, auditGCPercent, auditMemoryLimit},
		{"another command", []string{"site"}, none, 100, math.MaxInt64},
		{"no command", nil, none, 100, math.MaxInt64},
		{"$GOGC set", []string{"ingest"}, func(k string) string { return map[string]string{"GOGC": "100"}[k] }, 100, ingestMemoryLimit},
		{"$GOMEMLIMIT set", []string{"audit"}, func(k string) string { return map[string]string{"GOMEMLIMIT": "1GiB"}[k] }, auditGCPercent, math.MaxInt64},
	} {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
		g := tuneGC(c.args, c.getenv)
		percent, limit := gcNow()
		if percent != c.wantPercent || limit != c.wantLimit {
			t.Errorf("%s: GOGC %d, limit %d; want %d, %d", c.name, percent, limit, c.wantPercent, c.wantLimit)
		}
		if g.percent != percent || g.limit != limit {
			t.Errorf("%s: main remembers GOGC %d, limit %d; the process has %d, %d", c.name, g.percent, g.limit, percent, limit)
		}
	}
}

// The audit's reservation raises a limit main set, never one the user set
// or a process without one, and is undone.
func TestReserveMemory(t *testing.T) {
	keepGC(t)
	none := func(string) string { return "" }
	g := tuneGC([]string{"audit"}, none)
	g.reserveMemory(auditMemoryLimit / 2)()
	if _, limit := gcNow(); limit != auditMemoryLimit {
		t.Errorf("a reservation under the limit changed it to %d", limit)
	}
	release := g.reserveMemory(3 * auditMemoryLimit)
	if _, limit := gcNow(); limit != 3*auditMemoryLimit {
		t.Errorf("a reservation over the limit: limit %d, want %d", limit, 3*auditMemoryLimit)
	}
	release()
	if _, limit := gcNow(); limit != auditMemoryLimit {
		t.Errorf("after the release: limit %d, want %d", limit, auditMemoryLimit)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	g = tuneGC([]string{"site"}, none)
	g.reserveMemory(1 << 40)()
	if _, limit := gcNow(); limit != math.MaxInt64 {
		t.Errorf("without a limit a reservation set one: %d", limit)
	}
	g = tuneGC([]string{"audit"}, func(k string) string { return map[string]string{"GOMEMLIMIT": "1GiB"}[k] })
	debug.SetMemoryLimit(1 << 30)
	g.reserveMemory(1 << 40)()
	if _, limit := gcNow(); limit != 1<<30 {
		t.Errorf("a reservation changed the user's $GOMEMLIMIT: %d", limit)
	}
}

// A site build tells main of its phases, and main's settings hold in each:
// a first build of the (small) demo (34 runs) makes its runs' pages in
// bulk; a rebuild with nothing new does not; afterwards the process's
// settings are back. It is parallel (see keepGC): as the package's one
// test that was not, it held every other test back until the demo it
// waited for was built.
func TestSiteGCPhases(t *testing.T) {
	t.Parallel()
	keepGC(t)
	d := smallDemo(t)
	a, err := store.Open(d.db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
	g := tuneGC([]string{"site"}, func(string) string { return "" })
	type seen struct {
		phase   site.GCPhase
		percent int
		limit   int64
	}
	var phases []seen
	opt := site.Options{Out: t.TempDir(), Langs: []string{"en"}, NoRaw: true, ToolVersion: "test",
		GC: func(p site.GCPhase) func() {
			restore := g.site(p)
			percent, limit := gcNow()
			phases = append(phases, seen{p, percent, limit})
			return restore
		}}
	if _, err := site.Build(context.Background(), a, opt); err != nil {
		t.Fatal(err)
	}
	want := []seen{{site.GCBuild, siteBuildGCPercent, math.MaxInt64}, {site.GCBulkRuns, siteBulkGCPercent, siteBulkMemoryLimit}}
	if len(phases) != 2 || phases[0] != want[0] || phases[1] != want[1] {
		t.Errorf("first build: phases %+v, want %+v", phases, want)
	}
	if percent, limit := gcNow(); percent != 100 || limit != math.MaxInt64 {
		t.Errorf("after the build: GOGC %d, limit %d; want the process's 100 and none", percent, limit)
	}
	phases = nil
	if _, err := site.Build(context.Background(), a, opt); err != nil {
		t.Fatal(err)
	}
	if len(phases) != 1 || phases[0] != want[0] {
		t.Errorf("rebuild: phases %+v, want %+v", phases, want[:1])
	}
}

// gcRecorder records what the commands tell main's collector hooks.
type gcRecorder struct {
	mu       sync.Mutex
	phases   []site.GCPhase
	reserved []int64
}

func (r *gcRecorder) site(p site.GCPhase) func() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.phases = append(r.phases, p)
	return func() {}
}

func (r *gcRecorder) reserveMemory(n int64) func() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reserved = append(r.reserved, n)
	return func() {}
}

// The site and audit commands connect their libraries' hooks to main's.
func TestCommandsTellMainsCollector(t *testing.T) {
	t.Parallel()
	d := smallDemo(t)
	runWith := func(r *gcRecorder, args ...string) {
		t.Helper()
		var out, errb bytes.Buffer
		e := env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }, gc: r}
		if code := run(context.Background(), args, e); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, errb.String())
		}
	}
	var siteGC gcRecorder
	runWith(&siteGC, "site", "-q", "--db", d.db, "--out", t.TempDir(), "--lang", "en", "--raw=false")
	if len(siteGC.phases) == 0 || siteGC.phases[0] != site.GCBuild {
		t.Errorf("site told main of phases %v, want GCBuild first", siteGC.phases)
	}
	var auditGC gcRecorder
	runWith(&auditGC, "audit", "--db", d.db)
	if len(auditGC.reserved) != 1 || auditGC.reserved[0] <= 0 {
		t.Errorf("audit reserved %v, want one reservation", auditGC.reserved)
	}
}
