package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/benchledger/benchledger/capture"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/registry"
	"github.com/benchledger/benchledger/internal/atomicfile"
	"github.com/benchledger/benchledger/internal/escape"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

func recordCommand() *command {
	c := newCommand(command{
		name:  "record",
		args:  "-- COMMAND [ARG...]",
		short: "run a benchmark client, capturing the environment before and after, and ingest what it wrote",
		long: `Runs a benchmark client (vllm bench serve, python3 -m sglang.bench_serving, aiperf
profile, guidellm benchmark, ...) as a child process in the current folder (or -C DIR),
its output passing through. Before and after the run it captures the environment as
'benchledger capture' does (--server, --model); a fact that changed during the run (the
engine restarted, say) is not established, and the change is listed.

The console output is archived as a blob, with the exact command line, exit status and
start and end times (an archive event 'record'), whatever the client did. When the
client exits with status 0, the result files it wrote are ingested: new or changed files
in the client's folder (its top level), in the folders and files its own output flags
name (--result-dir, --result-filename, --output-file, --artifact-dir, --output-path,
...), and under --results DIR. Their manifest is the capture document, written to
--capture FILE (default benchledger-record-TIME.yaml in the client's folder), with the
command line as metadata.record.command; --set applies as in ingest. A client that
fails, or is interrupted, leaves its log archived and nothing ingested. See
docs/capture.md. Record's own flags come before the command; the "--" before it may be
left out.`,
	}, runRecord)
	c.passthrough = true
	return c
}

// recordOptions are record's flags.
type recordOptions struct {
	db, dir, results, capture string
	engineFlags
	set provenance.Record
}

func (o *recordOptions) addFlags(fs *flag.FlagSet, e env) {
	dbFlag(fs, e, &o.db)
	fs.StringVar(&o.dir, "C", ".", "run the client in this `folder`")
	o.engineFlags.addFlags(fs, "the serving engine's base `URL`, captured before and after")
	fs.StringVar(&o.results, "results", "", "a further `folder` where the client writes its results")
	fs.StringVar(&o.capture, "capture", "", "write the capture document to this `file` (default: benchledger-record-TIME.yaml in the client's folder)")
	setFlag(fs, &o.set)
}

func runRecord(ctx context.Context, e env, opts recordOptions, args []string) error {
	if len(args) == 0 {
		return usageErrorf("record needs the client's command after --: benchledger record -- vllm bench serve ...")
	}
	dir, err := filepath.Abs(opts.dir)
	if err != nil {
		return err
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usageErrorf("-C %s: not a folder", opts.dir)
	}
	copts, err := opts.options(e)
	if err != nil {
		return err
	}
	deep := capture.OutputPaths(args, dir)
	if opts.results != "" {
		abs, err := filepath.Abs(opts.results)
		if err != nil {
			return err
		}
		deep = append(deep, abs)
	}
	a, err := store.Open(opts.db, writing(e, store.Options{}))
	if err != nil {
		return err
	}
	defer a.Close()

	before := capture.Take(ctx, copts)
	stamps := capture.Stamp(dir, deep)
	run := capture.RunClient(ctx, args, dir, e.stdout, e.stderr)
	after := capture.Take(context.WithoutCancel(ctx), copts)
	doc := capture.Bracket(before, after)
	written := capture.Written(stamps, capture.Stamp(dir, deep))
	results := resultFiles(written)
	rec := doc.Record
	rec.Command, rec.Dir, rec.Exit = args, dir, run.Exit
	rec.Started, rec.Ended = run.Started.UTC().Format(time.RFC3339Nano), run.Ended.UTC().Format(time.RFC3339Nano)
	for _, p := range results {
		if rel, err := filepath.Rel(dir, p); err == nil {
			rec.Results = append(rec.Results, filepath.ToSlash(rel))
		} else {
			rec.Results = append(rec.Results, p)
		}
	}
	if rec.Log, err = archiveLog(ctx, a, run, rec); err != nil {
		return err
	}
	a.Close()
	took := run.Ended.Sub(run.Started).Round(time.Millisecond)
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(e.stderr, "record: interrupted after %s; the console log is archived (blob %s); nothing was ingested\n", took, rec.Log)
		return ctx.Err()
	case run.Exit != 0:
		return fmt.Errorf("the client %s after %s; its console log is archived (blob %s); nothing was ingested", clientEnd(run), took, rec.Log)
	case len(results) == 0:
		return fmt.Errorf("the client exited with status 0 after %s but wrote no result file here or where its output flags point (name its folder with --results); its console log is archived (blob %s)", took, rec.Log)
	}
	// The recorded command line is provenance of every run it wrote.
	doc.Facts = append(doc.Facts, provenance.Fact{Field: "metadata.record.command", Value: escape.ShellJoin(args),
		How: "benchledger record: the command line it ran, in " + dir})
	path := opts.capture
	if path == "" {
		path = filepath.Join(dir, "benchledger-record-"+run.Started.UTC().Format("20060102T150405Z")+".yaml")
	}
	if err := atomicfile.WriteWith(path, func(w io.Writer) error { return capture.Write(w, doc, path) }); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	fmt.Fprintf(e.stderr, "record: the client exited with status 0 after %s; %d result file(s); capture in %s; console log blob %s\n", took, len(results), path, rec.Log)
	for _, ch := range rec.Changed {
		fmt.Fprintf(e.stderr, "record: changed during the run: %s\n", ch)
	}
	return runIngest(ctx, e, ingestOptions{db: opts.db, meta: path, set: opts.set}, results)
}

// resultFiles keeps the written files ingest can read, or that look like
// broken results (which ingest then rejects with the reason): a client's
// own logs and caches are left alone.
func resultFiles(written []string) []string {
	var out []string
	for _, p := range written {
		head := make([]byte, format.HeadSize)
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		n, _ := io.ReadFull(f, head)
		f.Close()
		d := registry.Detect(p, head[:n])
		if (d.Parser != nil && d.NotResult == "") || (d.Parser == nil && d.NotResult == "" && registry.LooksLikeResultFile(p, head[:n])) {
			out = append(out, p)
		}
	}
	return out
}

// archiveLog keeps the client's console output as a blob and the run as an
// archive event, in one transaction, before anything is ingested.
func archiveLog(ctx context.Context, a *store.Archive, run capture.ClientRun, rec *provenance.Recorded) (string, error) {
	tx, err := a.Begin(context.WithoutCancel(ctx), nil)
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	sha, err := tx.PutBytes(run.Log, "console log of "+escape.ShellJoin(run.Argv))
	if err != nil {
		return "", err
	}
	detail, err := json.Marshal(map[string]any{"command": rec.Command, "dir": rec.Dir, "exit": rec.Exit,
		"started": rec.Started, "ended": rec.Ended, "results": rec.Results, "changed": rec.Changed})
	if err != nil {
		return "", err
	}
	if err := tx.AppendEvent(store.Event{Action: "record", Actor: osUser(), ToolVersion: toolVersion(), BlobSHA256: sha, Detail: string(detail)}); err != nil {
		return "", err
	}
	return sha, tx.Commit()
}

func clientEnd(run capture.ClientRun) string {
	switch {
	case run.Exit >= 0:
		return fmt.Sprintf("exited with status %d", run.Exit)
	case run.Err != nil:
		return "ended: " + run.Err.Error()
	}
	return "did not exit"
}
