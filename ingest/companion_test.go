package ingest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/store"
)

// companionTestFormat is a test-only format: lines "key=value". It lets the
// batch's companion and per-run rejection handling be tested apart from any
// real client's parser. Files end in .bltest, which no real format claims.
type companionTestFormat struct{}

func (companionTestFormat) ID() string       { return "bltest" }
func (companionTestFormat) Describe() string { return "test-only companion format" }
func (companionTestFormat) Sniff(name string, _ []byte) bool {
	return strings.HasSuffix(name, ".bltest")
}

// Invocation: <stem>_<part>.bltest files are written by one invocation.
func (companionTestFormat) Invocation(path string) (string, bool) {
	name, ok := strings.CutSuffix(path, ".bltest")
	i := strings.LastIndexByte(name, '_')
	if !ok || i <= 0 || strings.LastIndexByte(name, '/') > i {
		return "", false
	}
	return name[:i], true
}

// Parse: each block separated by "---" is one run; keys: companion, model,
// requests (n records), stated (output_throughput), bad (a Rejection).
func (companionTestFormat) Parse(_ context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error {
	sc := bufio.NewScanner(r)
	ord := 0
	run := func() *benchrun.Run {
		return &benchrun.Run{Ordinal: ord, Location: "block " + strconv.Itoa(ord), Format: "bltest", SourceTool: "test",
			Clock: benchrun.ClockEpoch, Completed: -1, Failed: -1, Facts: map[string]string{}}
	}
	cur := run()
	flush := func() error {
		err := emit(cur)
		ord++
		cur = run()
		return err
	}
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "---" {
			if err := flush(); err != nil {
				return err
			}
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return format.Errorf(name, fmt.Sprintf("block %d", ord), "not key=value: %q", line)
		}
		switch k {
		case "companion":
			cur.Companion = v
		case "model":
			cur.Facts["checkpoint.model_id"] = v
		case "bad":
			cur.Rejection = v
		case "stated":
			x, _ := strconv.ParseFloat(v, 64)
			cur.Stated = append(cur.Stated, benchrun.Stated{Metric: "output_throughput", Value: x, Unit: "tok/s", SourceKey: "tput", SourceUnit: "tok/s"})
		case "requests":
			n, _ := strconv.Atoi(v)
			cur.HasRequests, cur.Completed, cur.Failed = true, int64(n), 0
			for i := 0; i < n; i++ {
				cur.Requests = append(cur.Requests, benchrun.Request{Index: i, Start: float64(i), TTFT: 0.1, Latency: 1, InputTokens: 10, OutputTokens: 20})
			}
		}
	}
	return flush()
}

// The test format is sniffed after every real one.
func init() {
	real := detect
	detect = func(name string, head []byte) format.Detection {
		d := real(name, head)
		if d.Parser == nil && (companionTestFormat{}).Sniff(name, head) {
			return format.Detection{Parser: companionTestFormat{}}
		}
		return d
	}
}

func TestCompanionFilesMakeOneRun(t *testing.T) {
	dir := t.TempDir()
	a, err := store.Open(filepath.Join(dir, "a.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ingestOne := func(p string) []Outcome {
		var outs []Outcome
		if err := Batch(context.Background(), []string{p}, Options{Archive: a, ToolVersion: "test", Actor: "test"}, func(o Outcome) { outs = append(outs, o) }); err != nil {
			t.Fatal(err)
		}
		return outs
	}
	summary := write("run_summary.bltest", "companion=k1\nmodel=m/x\nstated=123.5\n")
	records := write("run_records.bltest", "companion=k1\nmodel=m/x\nrequests=7\n")

	o1 := ingestOne(summary)
	if len(o1) != 1 || o1[0].Status != StatusNew {
		t.Fatalf("summary: %+v", o1)
	}
	first := o1[0].RunID
	o2 := ingestOne(records)
	if len(o2) != 1 || o2[0].Status != StatusCompleted || o2[0].Companion != "k1" {
		t.Fatalf("the records file must complete run %s: %+v", first, o2)
	}
	// The run is named by its records, whichever file came first; the id
	// the summary gave stays an alias.
	id := o2[0].RunID
	if id == first {
		t.Errorf("the records file must rename the run: still %s", id)
	}
	if got, err := a.ResolveRunID(first); err != nil || got != id {
		t.Errorf("old id %s resolves to %q, %v; want %s", first, got, err, id)
	}
	if !strings.Contains(strings.Join(o2[0].Added, ","), "per-request records") {
		t.Errorf("added: %v", o2[0].Added)
	}
	runs, _ := a.ListRuns(store.Filter{})
	if len(runs) != 1 {
		t.Fatalf("two files of one run made %d runs", len(runs))
	}
	rec, err := a.Run(id)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Run.HasRequests || len(rec.Run.Requests) != 7 || rec.Run.Completed != 7 {
		t.Errorf("merged run: has %v, %d records, completed %d", rec.Run.HasRequests, len(rec.Run.Requests), rec.Run.Completed)
	}
	if s, ok := rec.Run.StatedValue("output_throughput"); !ok || s.Value != 123.5 {
		t.Errorf("the summary's stated figure is gone: %+v", rec.Run.Stated)
	}
	files, err := a.RunFiles(id)
	if err != nil || len(files) != 1 || files[0].FileName != records || files[0].Format != "bltest" {
		t.Fatalf("run files: %+v %v", files, err)
	}
	// Re-ingesting the companion names the run as a duplicate, adding nothing.
	o3 := ingestOne(records)
	if len(o3) != 1 || o3[0].Status != StatusDuplicate || o3[0].RunID != id {
		t.Errorf("re-ingest of the companion: %+v", o3)
	}
	// A file with the key but another model is not the same run.
	other := write("run_other.bltest", "companion=k1\nmodel=m/y\nrequests=3\n")
	o4 := ingestOne(other)
	if len(o4) != 1 || o4[0].Status != StatusRejected || !strings.Contains(o4[0].Reason, "checkpoint.model_id") {
		t.Errorf("a disagreeing companion must be rejected: %+v", o4)
	}
	if n, _ := a.RunFiles(id); len(n) != 1 {
		t.Errorf("a rejected companion was attached")
	}
}

func TestOneBadRunOfSeveral(t *testing.T) {
	dir := t.TempDir()
	a, err := store.Open(filepath.Join(dir, "a.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	p := filepath.Join(dir, "sweep.bltest")
	os.WriteFile(p, []byte("model=m/x\nrequests=2\n---\nbad=line 2: negative duration\n---\nmodel=m/x\nrequests=3\n"), 0o644)
	var outs []Outcome
	if err := Batch(context.Background(), []string{p}, Options{Archive: a}, func(o Outcome) { outs = append(outs, o) }); err != nil {
		t.Fatal(err)
	}
	var news, rejected int
	for _, o := range outs {
		switch o.Status {
		case StatusNew:
			news++
		case StatusRejected:
			rejected++
			if o.Place != "block 1" || !strings.Contains(o.Reason, "negative duration") {
				t.Errorf("rejection: %+v", o)
			}
		}
	}
	if news != 2 || rejected != 1 {
		t.Fatalf("want 2 runs archived and 1 rejected: %+v", outs)
	}
	// All bad: nothing of the file is kept.
	q := filepath.Join(dir, "allbad.bltest")
	os.WriteFile(q, []byte("bad=one\n---\nbad=two\n"), 0o644)
	outs = nil
	if err := Batch(context.Background(), []string{q}, Options{Archive: a}, func(o Outcome) { outs = append(outs, o) }); err != nil {
		t.Fatal(err)
	}
	if len(outs) != 2 || outs[0].Status != StatusRejected || outs[1].Status != StatusRejected {
		t.Fatalf("all-bad file: %+v", outs)
	}
	if runs, _ := a.ListRuns(store.Filter{}); len(runs) != 2 {
		t.Errorf("all-bad file archived runs: %d", len(runs))
	}
}
