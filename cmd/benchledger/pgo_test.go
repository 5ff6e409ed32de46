package main

import (
	"debug/elf"
	"debug/gosym"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// The profile the build is optimised with (default.pgo, scripts/pgo.sh)
// is a CPU profile of every kind of work make bench times, and its code is
// still the program's: a profile whose functions are gone optimises
// nothing, silently.
func TestDefaultPGO(t *testing.T) {
	t.Parallel()
	f, err := os.Open("default.pgo")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatalf("default.pgo: %v", err)
	}
	cpu := slices.IndexFunc(p.SampleType, func(st *profile.ValueType) bool { return st.Type == "cpu" && st.Unit == "nanoseconds" })
	if cpu < 0 {
		t.Fatalf("default.pgo has no cpu/nanoseconds samples: not a CPU profile")
	}

	const module = "github.com/benchledger/benchledger/"
	// physical is the function of each frame that had code of its own in
	// the profiled program (a location's last line; the others were
	// inlined into it).
	physical := func(loc *profile.Location) string {
		if len(loc.Line) == 0 || loc.Line[len(loc.Line)-1].Function == nil {
			return ""
		}
		return loc.Line[len(loc.Line)-1].Function.Name
	}

	// Each stage's share: the samples with one of its package's functions
	// anywhere on the stack.
	stages := []string{"render/site.", "ingest.", "ingest/format/vllmjson.", "audit.", "export.", "store."}
	share := make([]int64, len(stages))
	var total int64
	for _, s := range p.Sample {
		total += s.Value[cpu]
		for i, st := range stages {
			if slices.ContainsFunc(s.Location, func(loc *profile.Location) bool {
				return slices.ContainsFunc(loc.Line, func(l profile.Line) bool {
					return l.Function != nil && strings.HasPrefix(l.Function.Name, module+st)
				})
			}) {
				share[i] += s.Value[cpu]
			}
		}
	}
	if total == 0 {
		t.Fatal("default.pgo holds no samples")
	}
	for i, st := range stages {
		if pct := 100 * float64(share[i]) / float64(total); pct < 1 {
			t.Errorf("default.pgo: %s has %.2f%% of the samples: the profile does not cover that work (make pgo)", strings.TrimSuffix(st, "."), pct)
		}
	}

	if runtime.GOOS != "linux" {
		t.Skip("the staleness check reads this test binary's ELF sections")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer bin.Close()
	// The function table the runtime itself reads (go test strips the ELF
	// symbols, not this).
	tab, text := bin.Section(".gopclntab"), bin.Section(".text")
	if tab == nil || text == nil {
		t.Fatal("the test binary has no .gopclntab or .text")
	}
	data, err := tab.Data()
	if err != nil {
		t.Fatal(err)
	}
	funcs, err := gosym.NewTable(nil, gosym.NewLineTable(data, text.Addr))
	if err != nil {
		t.Fatal(err)
	}
	have := make(map[string]bool, len(funcs.Funcs))
	for _, fn := range funcs.Funcs {
		have[fn.Name] = true
	}

	// The samples in the program's own code, and those of them with a
	// function on the stack that this build no longer has.
	var ours, stale int64
	gone := map[string]bool{}
	for _, s := range p.Sample {
		mine, old := false, false
		for _, loc := range s.Location {
			if fn := physical(loc); strings.HasPrefix(fn, module) {
				mine = true
				if !have[fn] {
					old, gone[fn] = true, true
				}
			}
		}
		if mine {
			ours += s.Value[cpu]
		}
		if old {
			stale += s.Value[cpu]
		}
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for fn := range gone {
			if !yield(fn) {
				return
			}
		}
	})
	pct := 100 * float64(stale) / float64(max(ours, 1))
	// A renamed helper or two is tolerated (a function the profiled build
	// kept and this one inlined counts as gone too); a tenth is a stage's
	// worth of code the profile no longer describes (the site's pages are
	// a fifth of it).
	if ours == 0 || 10*stale > ours {
		t.Errorf("default.pgo is stale: %.0f%% of the samples in the program's own code pass through functions it no longer has (make pgo): %s",
			pct, strings.Join(names, ", "))
	}
	t.Logf("default.pgo: %d samples; %.1f%% of the program's own pass through functions that are gone: %s", len(p.Sample), pct, strings.Join(names, ", "))
}
