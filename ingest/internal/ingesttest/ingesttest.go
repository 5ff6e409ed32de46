// Package ingesttest holds the helpers the format packages' tests share:
// parse a file, check its figures, facts and rejections, detect and ingest
// it through the batch pipeline into a fresh archive.
package ingesttest

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/ingest"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/registry"
	"github.com/benchledger/benchledger/internal/testshared"
	"github.com/benchledger/benchledger/store"
)

func Read(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Parse runs a parser over data and collects what it emits.
func Parse(p format.Parser, name string, data []byte) ([]*benchrun.Run, error) {
	var runs []*benchrun.Run
	err := p.Parse(context.Background(), name, bytes.NewReader(data), func(r *benchrun.Run) error {
		runs = append(runs, r)
		return nil
	})
	return runs, err
}

// Settled parses data as the batch reads it (format.Settle, the rule of
// every format): the runs, good and rejected, and the file's rejection when
// no run is good.
func Settled(p format.Parser, name string, data []byte) ([]*benchrun.Run, error) {
	runs, err := Parse(p, name, data)
	out, file, err := format.Settle(name, runs, err)
	if err != nil {
		return out, err
	}
	if file != nil {
		return out, file
	}
	return out, nil
}

// Rejections lists the rejected runs of runs as "place: reason", in order.
func Rejections(runs []*benchrun.Run) []string {
	var out []string
	for _, r := range runs {
		if r.Rejection != "" {
			out = append(out, r.Location+": "+r.Rejection)
		}
	}
	return out
}

// One parses data that must hold exactly one good run.
func One(t testing.TB, p format.Parser, name string, data []byte) *benchrun.Run {
	t.Helper()
	runs, err := Parse(p, name, data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(runs) != 1 || runs[0].Rejection != "" {
		t.Fatalf("%s: want one run, got %d (%+v)", name, len(runs), runs)
	}
	return runs[0]
}

// WantStated checks stated figures (metric → value in the canonical unit)
// within rel relative tolerance, and their canonical units.
func WantStated(t testing.TB, r *benchrun.Run, rel float64, want map[string]float64) {
	t.Helper()
	units := map[string]string{"completed": "requests", "failed": "requests", "output_throughput": "tok/s",
		"total_token_throughput": "tok/s", "request_throughput": "req/s", "duration": "s",
		"input_throughput": "tok/s", "total_input_tokens": "tokens", "total_output_tokens": "tokens"}
	for metric, v := range want {
		s, ok := r.StatedValue(metric)
		if !ok {
			t.Errorf("%s: no stated %s", r.Format, metric)
			continue
		}
		unit, ok := units[metric]
		if !ok {
			unit = "s" // latency statistics
		}
		if s.Unit != unit {
			t.Errorf("%s: %s in %q, want %q", r.Format, metric, s.Unit, unit)
		}
		if math.Abs(s.Value-v) > rel*math.Max(1e-300, math.Abs(v)) {
			t.Errorf("%s: stated %s = %.17g, want %.17g (source %s %s)", r.Format, metric, s.Value, v, s.SourceKey, s.SourceUnit)
		}
	}
}

func WantFacts(t testing.TB, r *benchrun.Run, want map[string]string) {
	t.Helper()
	for k, v := range want {
		got, ok := r.Facts[k]
		switch {
		case v == "" && ok:
			t.Errorf("%s: fact %s = %q, want none", r.Format, k, got)
		case v != "" && got != v:
			t.Errorf("%s: fact %s = %q, want %q", r.Format, k, got, v)
		}
	}
}

func HasNote(r *benchrun.Run, sub string) bool {
	return slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, sub) })
}

// WantInputError checks that err is an InputError whose place and reason
// contain the given parts.
func WantInputError(t testing.TB, err error, place, reason string) {
	t.Helper()
	var ie *format.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("want an *InputError (%q at %q), got %T %v", reason, place, err, err)
	}
	if !strings.Contains(ie.Place, place) || !strings.Contains(ie.Reason, reason) {
		t.Errorf("got place %q reason %q; want place containing %q, reason containing %q", ie.Place, ie.Reason, place, reason)
	}
}

// FuzzError fails unless err, what a parser returned for arbitrary bytes
// named file, is nil or an InputError naming file with a reason: no other
// error may come from the bytes alone.
func FuzzError(t testing.TB, err error, file string) {
	t.Helper()
	if err != nil {
		var ie *format.InputError
		if !errors.As(err, &ie) || ie.File != file || ie.Reason == "" {
			t.Fatalf("error %T %v", err, err)
		}
	}
}

// FuzzStated fails on a stated figure of r that is unknown, infinite,
// negative or unnamed.
func FuzzStated(t testing.TB, r *benchrun.Run) {
	t.Helper()
	for _, s := range r.Stated {
		if !benchrun.IsKnown(s.Value) || math.IsInf(s.Value, 0) || s.Value < 0 || s.Metric == "" {
			t.Fatalf("stated %+v", s)
		}
	}
}

// Detect returns the format id Detect picks for a file ("" for none).
func Detect(path string, data []byte) string {
	d := registry.Detect(path, data[:min(len(data), format.HeadSize)])
	if d.Parser == nil {
		return ""
	}
	return d.Parser.ID()
}

// BatchOutcomes ingests paths into a fresh archive and returns it with
// the outcomes, in order.
func BatchOutcomes(t *testing.T, paths ...string) (*store.Archive, []ingest.Outcome) {
	t.Helper()
	a, err := store.Open(filepath.Join(t.TempDir(), "a.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	var outs []ingest.Outcome
	err = ingest.Batch(context.Background(), paths, ingest.Options{Archive: a, ToolVersion: "test", Actor: "test"}, func(o ingest.Outcome) {
		outs = append(outs, o)
	})
	if err != nil {
		t.Fatal(err)
	}
	return a, outs
}

// Batch is BatchOutcomes where a rejection fails the test.
func Batch(t *testing.T, paths ...string) (*store.Archive, []ingest.Outcome) {
	t.Helper()
	a, outs := BatchOutcomes(t, paths...)
	for _, o := range outs {
		if o.Status == ingest.StatusRejected {
			t.Errorf("rejected %s: %s %s", o.File, o.Place, o.Reason)
		}
	}
	return a, outs
}

// CheckStated compares a run's stated figures with the figures its
// records give, as the audit does.
func CheckStated(stated []benchrun.Stated, reqs []benchrun.Request, method string, opt figures.StatedOptions) figures.StatedAudit {
	f := figures.Recompute(reqs, math.NaN(), 0, figures.Options{Percentiles: []float64{25, 50, 75, 90, 95, 99}})
	opt.SourceMethod = method
	return figures.CheckStated(stated, f, opt)
}

// Fixtures lists the test fixtures of every format package (the files
// under ingest/format/*/testdata and ingest/trace/testdata), for tests that
// check a format refuses the others' files.
func Fixtures() []string {
	_, file, _, _ := runtime.Caller(0) // <repo>/ingest/internal/ingesttest/ingesttest.go
	ingestDir := filepath.Join(filepath.Dir(file), "..", "..")
	var out []string
	for _, pattern := range []string{"format/*/testdata/*", "format/*/testdata/*/*", "trace/testdata/*"} {
		m, _ := filepath.Glob(filepath.Join(ingestDir, pattern))
		for _, f := range m {
			if st, err := os.Stat(f); err == nil && !st.IsDir() {
				out = append(out, f)
			}
		}
	}
	return out
}

// Head is what detection sees of a file: its first format.HeadSize bytes.
func Head(data []byte) []byte { return data[:min(len(data), format.HeadSize)] }

// EachSample calls fn for every real result file in ../shared/samples, with
// the tool folder it sits in and its head: the detectors' tests check that
// other tools' files are not taken for theirs. Without ../shared it calls
// nothing (the tests' own fixtures still run).
func EachSample(t testing.TB, fn func(tool, path string, head []byte)) {
	t.Helper()
	root := testshared.Root()
	if root == "" {
		return
	}
	dirs, err := os.ReadDir(filepath.Join(root, "samples"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		for _, path := range testshared.Samples(t, d.Name()) {
			fn(d.Name(), path, Head(Read(t, path)))
		}
	}
}
