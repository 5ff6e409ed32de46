package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/benchledger/benchledger/provenance"
)

// ClientRun is what running a benchmark client gave.
type ClientRun struct {
	Argv           []string
	Dir            string
	Started, Ended time.Time
	Exit           int    // -1: it did not exit by itself (a signal, or it could not start)
	Log            []byte // stdout and stderr as they were interleaved
	Err            error  // why it could not start, or how it ended when not with status 0
}

// RunClient runs argv in dir, its output going to stdout and stderr as
// well as into the log. When ctx ends (Ctrl-C) the client is sent SIGINT,
// and SIGKILL if it has not ended 10 seconds later.
func RunClient(ctx context.Context, argv []string, dir string, stdout, stderr io.Writer) ClientRun {
	r := ClientRun{Argv: argv, Dir: dir, Exit: -1}
	var log lockedBuffer
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stdout = io.MultiWriter(stdout, &log)
	cmd.Stderr = io.MultiWriter(stderr, &log)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	cmd.WaitDelay = 10 * time.Second
	r.Started = time.Now()
	err := cmd.Run()
	r.Ended = time.Now()
	r.Log = log.Bytes()
	var ee *exec.ExitError
	switch {
	case err == nil:
		r.Exit = 0
	case errors.As(err, &ee):
		r.Exit = ee.ExitCode() // -1 when a signal ended it
		r.Err = err
	default:
		r.Err = err
	}
	return r
}

// lockedBuffer is a bytes.Buffer both output streams write into; exec
// copies each stream from its own goroutine.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Bytes()
}

// Stamps are the files under some folders with their size and time, to
// find what a client wrote.
type Stamps map[string]stamp

type stamp struct {
	size int64
	mod  time.Time
}

// outputFlags are client flags that name where results go: a folder
// (walked) or a file. vLLM bench serve: --result-dir, --result-filename;
// SGLang bench_serving: --output-file; AIPerf: --artifact-dir,
// --output-artifact-dir; GuideLLM: --output-path, --output-dir; and the
// generic --output, -o.
var outputFlags = map[string]bool{
	"--result-dir": true, "--result-filename": true, "--output-file": true,
	"--artifact-dir": true, "--output-artifact-dir": true, "--output-path": true,
	"--output-dir": true, "--output": true, "-o": true,
}

// OutputPaths are the folders and files the client's own flags name, made
// absolute against dir; a --result-filename is joined to --result-dir as
// vLLM does.
func OutputPaths(argv []string, dir string) []string {
	var out []string
	resultDir, resultFile := "", ""
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		name, val, hasVal := strings.Cut(a, "=")
		if !outputFlags[name] {
			continue
		}
		if !hasVal {
			if i+1 >= len(argv) {
				continue
			}
			val = argv[i+1]
			i++
		}
		switch name {
		case "--result-dir":
			resultDir = val
		case "--result-filename":
			resultFile = val
		default:
			out = append(out, val)
		}
	}
	if resultDir != "" {
		out = append(out, resultDir)
	}
	if resultFile != "" {
		out = append(out, filepath.Join(resultDir, resultFile))
	}
	for i, p := range out {
		if !filepath.IsAbs(p) {
			out[i] = filepath.Join(dir, p)
		}
	}
	return out
}

// Stamp records the regular files of dir (its top level only: the
// working folder may be large) and of every folder in deep (recursively),
// and the files in deep themselves.
func Stamp(dir string, deep []string) Stamps {
	s := Stamps{}
	add := func(p string, info fs.FileInfo) {
		if info.Mode().IsRegular() {
			s[p] = stamp{info.Size(), info.ModTime()}
		}
	}
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if info, err := e.Info(); err == nil {
				add(filepath.Join(dir, e.Name()), info)
			}
		}
	}
	for _, d := range deep {
		filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil // a folder the client has not made yet
			}
			if info, err := e.Info(); err == nil {
				add(p, info)
			}
			return nil
		})
	}
	return s
}

// Written lists the files of after that are not in before, or changed,
// sorted.
func Written(before, after Stamps) []string {
	var out []string
	for p, st := range after {
		if old, ok := before[p]; !ok || old.size != st.size || !old.mod.Equal(st.mod) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// Bracket joins the captures taken before and after a run into the one
// that describes it. A fact both state alike stands; one they state
// differently is not established (the value during the run is not known)
// and is listed as a change; a fact only one of them states stands, and
// the change is listed (an engine that went away, or came up).
func Bracket(before, after *provenance.Capture) *provenance.Capture {
	out := *before
	out.Facts, out.Unknown = nil, nil
	afterFacts := map[string]provenance.Fact{}
	for _, f := range after.Facts {
		afterFacts[f.Field] = f
	}
	afterWhy := map[string]string{}
	for _, u := range after.Unknown {
		afterWhy[u.Field] = u.Why
	}
	var changed []string
	seen := map[string]bool{}
	for _, f := range before.Facts {
		seen[f.Field] = true
		a, ok := afterFacts[f.Field]
		switch {
		case !ok:
			out.Facts = append(out.Facts, f)
			changed = append(changed, fmt.Sprintf("%s: %q before the run, not established after (%s)", f.Field, f.Value, afterWhy[f.Field]))
		case a.Value != f.Value:
			out.Unknown = append(out.Unknown, provenance.Unknown{Field: f.Field,
				Why: fmt.Sprintf("changed during the run: %q before (%s), %q after (%s)", f.Value, f.How, a.Value, a.How)})
			changed = append(changed, fmt.Sprintf("%s: %q before the run, %q after", f.Field, f.Value, a.Value))
		default:
			out.Facts = append(out.Facts, f)
		}
	}
	for _, a := range after.Facts {
		if !seen[a.Field] {
			a.How = "after the run: " + a.How
			out.Facts = append(out.Facts, a)
			changed = append(changed, fmt.Sprintf("%s: not established before the run, %q after", a.Field, a.Value))
		}
	}
	have := map[string]bool{}
	for _, f := range out.Facts {
		have[f.Field] = true
	}
	for _, u := range out.Unknown {
		have[u.Field] = true
	}
	for _, u := range before.Unknown {
		if !have[u.Field] {
			out.Unknown = append(out.Unknown, u)
			have[u.Field] = true
		}
	}
	sort.SliceStable(out.Unknown, func(i, j int) bool { return out.Unknown[i].Field < out.Unknown[j].Field })
	out.Record = &provenance.Recorded{Changed: changed, Captured: "before and after the run (" + before.TakenAt + ", " + after.TakenAt + ")"}
	return &out
}
