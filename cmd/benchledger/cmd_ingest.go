package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/benchledger/benchledger/internal/escape"
	"os"
	"os/user"
	"strings"
	"text/tabwriter"

	"github.com/benchledger/benchledger/ingest"
	"github.com/benchledger/benchledger/ingest/registry"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

func ingestCommand() *command {
	return newCommand(command{
		name:  "ingest",
		args:  "PATH...",
		short: "archive result files and folders with their provenance",
		long: `Archives benchmark result files (and every file in the named folders, recursively)
into the archive: the raw bytes, the normalised runs and per-request records, and their
provenance. The format is detected from each file's content (--format forces one).

Provenance comes from the nearest campaign.yaml in a file's folder or above (--meta names
one manifest for every file), then from --set, which overrides both; the result file's own
statements are kept beside them and a contradiction is refused. See docs/provenance.md.

Prints one line per run: run id, new/duplicate/completed, format, file. Rejected files are
listed on stderr (file: place: reason) and nothing of them reaches the archive; the other
files are still ingested and the exit status is 3. In a file of several runs (a page of
result blocks, JSON Lines, a sweep) a bad run is rejected alone, at its place, and the
file's good runs are archived; every problem of the file is listed. Folders' non-result
files (manifests, narratives, sources) are skipped with a note. Re-ingesting the same bytes
creates nothing.
A manifest's external references (references:) are archived with the first file that uses
the manifest; each one recorded or re-checked is noted on stderr, not listed on stdout.`,
	}, runIngest)
}

// ingestOptions are ingest's flags.
type ingestOptions struct {
	db, meta, format string
	json             bool
	set              provenance.Record
}

func (o *ingestOptions) addFlags(fs *flag.FlagSet, e env) {
	dbFlag(fs, e, &o.db)
	fs.StringVar(&o.meta, "meta", "", "provenance manifest for every file (default: the nearest campaign.yaml)")
	fs.StringVar(&o.format, "format", "", "force the input format: "+strings.Join(registry.IDs(), ", "))
	fs.BoolVar(&o.json, "json", false, "print one JSON document instead of lines")
	setFlag(fs, &o.set)
}

// setFlag binds the repeatable --set field=value (ingest, record).
func setFlag(fs *flag.FlagSet, set *provenance.Record) {
	fs.Func("set", "provenance `field=value` for every run (repeatable; overrides the manifest)", func(s string) error {
		en, err := provenance.ParseSet(s)
		if err != nil {
			return err
		}
		*set = append(*set, en)
		return nil
	})
}

func runIngest(ctx context.Context, e env, opts ingestOptions, paths []string) error {
	if len(paths) == 0 {
		return usageErrorf("no files or folders to ingest")
	}
	if opts.format != "" {
		if _, ok := registry.ByID(opts.format); !ok {
			return usageErrorf("unknown --format %q (known: %s)", opts.format, strings.Join(registry.IDs(), ", "))
		}
	}
	a, err := store.Open(opts.db, writing(e, store.Options{}))
	if err != nil {
		return err
	}
	defer a.Close()
	sayNotices(e, a)

	prog := newProgress(e.stderr, !opts.json)
	defer prog.done()
	waited := false
	opt := ingest.Options{
		Archive: a, Manifest: opts.meta, Set: opts.set, Format: opts.format,
		ToolVersion: toolVersion(), Actor: osUser(),
		OnWait: func() {
			if !waited {
				prog.note("waiting for the archive's writer lock: another ingest is writing to " + opts.db)
				waited = true
			}
		},
		OnFile: func(n, total int, path string) {
			prog.status(fmt.Sprintf("ingesting %d/%d %s", n, total, escape.Terminal(path)))
		},
	}
	var outs []ingest.Outcome
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	rejected := 0
	var unpublishable foldedWarnings
	report := func(o ingest.Outcome) {
		outs = append(outs, o)
		// What reaches the terminal has its control characters escaped: a
		// file named "x\n<id>  new ..." must not forge an output line, nor
		// an escape sequence rewrite the screen (--json keeps the bytes).
		o.File, o.Place, o.Reason = escape.Terminal(o.File), escape.Terminal(o.Place), escape.Terminal(o.Reason)
		switch o.Status {
		case ingest.StatusRejected:
			rejected++
			prog.note("rejected: " + placeLine(o.File, o.Place, o.Reason))
		case ingest.StatusSkipped:
			prog.note("skipped: " + o.File + ": " + o.Reason)
		case ingest.StatusReference:
			// Not a run: stdout keeps one line per run.
			id, what, _ := strings.Cut(o.Reason, ": ")
			prog.note(fmt.Sprintf("note: %s: reference %s %s", o.File, id, what))
		default:
			if !opts.json {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", o.RunID, o.Status, o.Format, o.File)
				tw.Flush()
			}
			switch {
			case o.Note != "" && o.Status == ingest.StatusDuplicate:
				prog.note(fmt.Sprintf("note: %s: %s", o.File, o.Note))
			case o.Note != "":
				prog.note(fmt.Sprintf("warning: run %s (%s): %s", o.RunID, o.File, o.Note))
			case o.Status == ingest.StatusDuplicate:
				prog.note(fmt.Sprintf("note: %s is already archived as run %s; nothing was added", o.File, o.RunID))
			case o.Status == ingest.StatusCompleted && o.Companion != "":
				prog.note(fmt.Sprintf("note: %s is another file of run %s; it added %s", o.File, o.RunID, summariseAdded(o.Added)))
			case o.Status == ingest.StatusCompleted:
				prog.note(fmt.Sprintf("note: run %s was already archived; added provenance: %s", o.RunID, strings.Join(o.Added, ", ")))
			}
			if !o.Publishable {
				unpublishable.add(o)
			}
		}
	}
	err = ingest.Batch(ctx, paths, opt, report)
	tw.Flush()
	for _, line := range unpublishable.lines() {
		prog.note(line)
	}
	if opts.json {
		doc := struct {
			Outcomes []ingest.Outcome `json:"outcomes"`
		}{outs}
		if doc.Outcomes == nil {
			doc.Outcomes = []ingest.Outcome{}
		}
		writeJSON(e.stdout, doc)
	}
	if err != nil {
		if ctx.Err() != nil {
			prog.note("interrupted: the file in progress was not archived; files before it were")
		}
		return err
	}
	if rejected > 0 {
		prog.note(fmt.Sprintf("%d input(s) rejected", rejected))
		return errProblems
	}
	return nil
}

// foldedWarnings gathers the runs archived as not publishable and says so
// once per list of missing fields: a node run's 32 replicas described by
// one incomplete manifest are one warning with a count, not 32.
type foldedWarnings struct {
	order []string                    // missing lists, in the order first met
	runs  map[string][]ingest.Outcome // by missing list
}

func (w *foldedWarnings) add(o ingest.Outcome) {
	key := strings.Join(o.Missing, ", ")
	if w.runs == nil {
		w.runs = map[string][]ingest.Outcome{}
	}
	if _, ok := w.runs[key]; !ok {
		w.order = append(w.order, key)
	}
	w.runs[key] = append(w.runs[key], o)
}

// foldedNamed is how many runs a folded warning names before "and N more".
const foldedNamed = 3

func (w *foldedWarnings) lines() []string {
	var out []string
	for _, missing := range w.order {
		runs := w.runs[missing]
		if len(runs) == 1 {
			out = append(out, fmt.Sprintf("warning: run %s (%s) is archived but not publishable; missing: %s", runs[0].RunID, runs[0].File, missing))
			continue
		}
		var named []string
		for _, o := range runs[:min(len(runs), foldedNamed)] {
			named = append(named, o.RunID+" ("+o.File+")")
		}
		more := ""
		if n := len(runs) - foldedNamed; n > 0 {
			more = fmt.Sprintf(" and %d more", n)
		}
		out = append(out, fmt.Sprintf("warning: %d runs are archived but not publishable; missing: %s (runs %s%s; benchledger show RUN says what each lacks)",
			len(runs), missing, strings.Join(named, ", "), more))
	}
	return out
}

func placeLine(file, place, reason string) string {
	if place == "" {
		return file + ": " + reason
	}
	return file + ": " + place + ": " + reason
}

// osUser names who ran the ingest, for the event log.
func osUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if s := os.Getenv("USER"); s != "" {
		return s
	}
	return "unknown"
}

// summariseAdded shortens what a companion file added: "per-request
// records, 55 stated figures, 55 figures in full precision, facts
// checkpoint.model_id, workload.concurrency".
func summariseAdded(added []string) string {
	var parts, facts []string
	stated, precise := 0, 0
	for _, a := range added {
		switch {
		case strings.HasPrefix(a, "stated "):
			stated++
		case strings.HasPrefix(a, "full-precision "):
			precise++
		case strings.HasPrefix(a, "fact "), strings.HasPrefix(a, "provenance "):
			_, f, _ := strings.Cut(a, " ")
			facts = append(facts, f)
		default:
			parts = append(parts, a)
		}
	}
	if stated > 0 {
		parts = append(parts, fmt.Sprintf("%d stated figures", stated))
	}
	if precise > 0 {
		parts = append(parts, fmt.Sprintf("%d figures in full precision", precise))
	}
	if len(facts) > 0 {
		parts = append(parts, "provenance "+strings.Join(facts, ", "))
	}
	if len(parts) == 0 {
		return "nothing new"
	}
	return strings.Join(parts, "; ")
}
