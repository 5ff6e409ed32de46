package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/benchledger/benchledger/internal/escape"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/runview"
	"github.com/benchledger/benchledger/store"
)

func showCommand() *command {
	return newCommand(command{
		name:  "show",
		args:  "RUN",
		short: "show one run: provenance, figures, completion, what is missing",
		long: `Shows one archived run: where it came from (every provenance field with the source
that stated it), its completion, its summary figures recomputed from the per-request
records beside the figures the source tool stated, and what it still lacks to be
publishable. RUN is a run id or a unique prefix of one.`,
	}, runShow)
}

// showOptions are show's flags.
type showOptions struct {
	db   string
	json bool
}

func (o *showOptions) addFlags(fs *flag.FlagSet, e env) {
	dbFlag(fs, e, &o.db)
	fs.BoolVar(&o.json, "json", false, "print one JSON document")
}

func runShow(ctx context.Context, e env, opts showOptions, args []string) error {
	if len(args) != 1 {
		return usageErrorf("show takes exactly one run id")
	}
	a, err := openForReading(opts.db, e)
	if err != nil {
		return err
	}
	defer a.Close()
	rec, err := a.Run(args[0])
	if err != nil {
		return err
	}
	reqs := rec.Run.Requests
	if reqs == nil && rec.Run.HasRequests {
		if reqs, err = a.Requests(rec.ID); err != nil {
			return err
		}
	}
	view := runview.Build(rec, reqs)
	events, err := a.Events(rec.ID)
	if err != nil {
		return err
	}
	for _, ev := range events {
		view.History = append(view.History, runview.HistoryRow{At: ev.At.UTC().Format(time.RFC3339), Action: ev.Action,
			Actor: ev.Actor, ToolVersion: ev.ToolVersion, Detail: ev.Detail})
	}
	if view.Captures, err = archivedCaptures(a, events); err != nil {
		return err
	}
	cs, err := a.Corrections(rec.ID)
	if err != nil {
		return err
	}
	for _, c := range cs {
		d := correctionDoc(c)
		view.Corrections = append(view.Corrections, runview.CorrectionRow{At: d.At, Actor: d.Actor, Field: d.Field, Old: d.Old, New: d.New, Reason: d.Reason})
	}
	if opts.json {
		return writeJSONAs(e.stdout, snakeCaseSchemaVersion, view)
	}
	writeRunText(e, view)
	return nil
}

func valueText(p *float64, unit string) string {
	if p == nil {
		return "-"
	}
	switch unit {
	case "s":
		return secondsText(*p)
	case "tok/s", "req/s", "tok/s/GPU":
		return rateText(*p) + " " + unit
	case "requests":
		return groupFloat(*p, 2)
	}
	return groupFloat(*p, 2) + " " + unit
}

func writeRunText(e env, v *runview.View) {
	w := e.stdout
	fmt.Fprintf(w, "Run %s\n", v.ID)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// The run's place is its ordinal, the number --json gives and a
	// manifest's ordinal: selects (from 0); the location says where that is.
	where := fmt.Sprintf("%s (ordinal %d", v.File, v.Ordinal)
	if v.Location != "" {
		where += ": " + v.Location
	}
	where += ")"
	fmt.Fprintf(tw, "  file\t%s\n", where)
	fmt.Fprintf(tw, "  sha256\t%s\n", v.SHA256)
	fmt.Fprintf(tw, "  format\t%s\n", strings.TrimSpace(v.Format+" — "+v.FormatVariant))
	fmt.Fprintf(tw, "  ingested\t%s\n", v.IngestedAt)
	if v.Publishable {
		fmt.Fprintf(tw, "  publishable\tyes\n")
	} else {
		fmt.Fprintf(tw, "  publishable\tno — missing: %s\n", strings.Join(v.Missing, ", "))
	}
	tw.Flush()

	if len(v.Corrections) > 0 {
		fmt.Fprintf(w, "\nProvenance (sources: file = the result file itself, manifest = campaign.yaml, cli = --set, amend = a correction, in effect)\n")
	} else {
		fmt.Fprintf(w, "\nProvenance (sources: file = the result file itself, manifest = campaign.yaml, cli = --set)\n")
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, g := range runview.GroupProvenance(v.Provenance) {
		value := oneLine(g.Value)
		if strings.HasSuffix(g.Sources, string(provenance.FromAmend)) {
			if g.Value == "" {
				value = "(unset)"
			}
			value += "  [corrected]"
		}
		if capturedValue(v.Captures, g.Field, g.Value) {
			value += "  [captured]"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", g.Field, g.Sources, value)
	}
	for _, m := range v.Missing {
		if _, ok := provenance.Lookup(m); ok || strings.Contains(m, "|") {
			fmt.Fprintf(tw, "  %s\t-\t(missing)\n", m)
		}
	}
	tw.Flush()
	writeCaptures(w, v.Captures)
	if len(v.History) > 0 {
		fmt.Fprintf(w, "\nHistory\n")
		for _, h := range v.History {
			fmt.Fprintf(w, "  %s  %s by %s with benchledger %s\n", h.At, h.Action, h.Actor, h.ToolVersion)
		}
	}

	if len(v.Corrections) > 0 {
		fmt.Fprintf(w, "\nCorrections (benchledger amend; append-only)\n")
		for _, c := range v.Corrections {
			fmt.Fprintf(w, "  %s  %s: %s -> %s by %s: %s\n", c.At, c.Field, optionalText(c.Old), optionalText(c.New), c.Actor, oneLine(c.Reason))
		}
	}

	c := v.Completion
	fmt.Fprintf(w, "\nCompletion\n  sent %s, completed %s, failed %s", countText(c.Sent), countText(c.Completed), countText(c.Failed))
	if c.Failed < 0 {
		fmt.Fprint(w, " (the file does not record failures)")
	}
	if c.Short >= 0 {
		fmt.Fprintf(w, ", shorter than the fixed output length: %s", countText(c.Short))
	}
	fmt.Fprintln(w)

	if !strings.HasPrefix(v.WindowBasis, "no per-request records") {
		fmt.Fprintf(w, "\nFigures (recomputed from per-request records; window: %s; percentiles: linear)\n", v.WindowBasis)
	} else {
		// A summary-only run: its figures are its tool's (docs/provenance.md,
		// "Where a value comes from").
		fmt.Fprintf(w, "\nFigures (no per-request records: stated figures only, by %s, not recomputable)\n", dash(v.SourceTool))
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  metric\trecomputed\tstated by %s\n", dash(v.SourceTool))
	for _, f := range v.Figures {
		name := strings.ReplaceAll(f.Metric, "_", " ")
		st := valueText(f.Stated, f.Unit)
		if f.Impossible != "" {
			st += "  IMPOSSIBLE"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", name, valueText(f.Recomputed, f.Unit), st)
	}
	tw.Flush()
	if len(v.Impossible) > 0 {
		fmt.Fprintf(w, "\nImpossible stated figures (not measurements; audit check plausibility.stated fails)\n")
		for _, i := range v.Impossible {
			fmt.Fprintf(w, "  IMPOSSIBLE %s (%s): %s\n", i.Metric, i.Key, i.Reason)
		}
	}
	if len(v.StatedChecks) > 0 {
		bad, byDef := 0, 0
		for _, c := range v.StatedChecks {
			switch {
			case c.Definitional != nil:
				byDef++
			case !c.OK:
				bad++
			}
		}
		if byDef > 0 {
			fmt.Fprintf(w, "\nStated figures checked against the records: %d agree, %d differ by the tool's definition, %d disagree\n", len(v.StatedChecks)-bad-byDef, byDef, bad)
		} else {
			fmt.Fprintf(w, "\nStated figures checked against the records: %d agree, %d disagree\n", len(v.StatedChecks)-bad, bad)
		}
		for _, c := range v.StatedChecks {
			if d := c.Definitional; d != nil {
				fmt.Fprintf(w, "  BY DEFINITION %s: stated %s, recomputed %s by ours (%s; the tool's: %s): %s\n", c.Metric,
					valueText(runview.FinitePtr(c.Stated), c.Unit), valueText(runview.FinitePtr(c.Recomputed), c.Unit), d.Ours, d.Tools, c.Reason)
				continue
			}
			if !c.OK {
				fmt.Fprintf(w, "  DISAGREES %s: stated %s, recomputed %s (tolerance %s; %s)\n", c.Metric,
					valueText(runview.FinitePtr(c.Stated), c.Unit), valueText(runview.FinitePtr(c.Recomputed), c.Unit), c.ToleranceBasis, c.Reason)
			}
		}
	}
	if len(v.Caveats) > 0 {
		fmt.Fprintf(w, "\nCaveats (codes with parameters; see docs/metrics.md)\n")
		for _, c := range v.Caveats {
			fmt.Fprintf(w, "  %s\n", caveatText(c))
		}
	}
	if len(v.Extra) > 0 {
		fmt.Fprintf(w, "\nKept as written (keys benchledger does not interpret): %s\n", strings.Join(v.Extra, ", "))
	}
	if len(v.Notes) > 0 {
		fmt.Fprintf(w, "\nNotes\n")
		for _, n := range v.Notes {
			fmt.Fprintf(w, "  - %s\n", n)
		}
	}
}

// oneLine makes a stored value safe for a terminal: control characters
// (newlines, escape sequences from hostile strings) are shown, not obeyed.
func oneLine(s string) string {
	s = printable(s)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

func optionalText(p *string) string {
	if p == nil {
		return "(none)"
	}
	return fmt.Sprintf("%q", *p)
}

// printable replaces control characters, so a value cannot move the
// cursor or forge a line.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, s)
}

// archivedCaptures reads the capture: section of each manifest the run's
// ingest events archived (docs/capture.md).
func archivedCaptures(a *store.Archive, events []store.Event) ([]runview.CaptureView, error) {
	var out []runview.CaptureView
	seen := map[string]bool{}
	for _, ev := range events {
		var d struct {
			Manifest     string `json:"manifest"`
			ManifestFile string `json:"manifest_file"`
		}
		if ev.Detail == "" || json.Unmarshal([]byte(ev.Detail), &d) != nil || d.Manifest == "" || seen[d.Manifest] {
			continue
		}
		seen[d.Manifest] = true
		r, err := a.OpenBlob(d.Manifest)
		if err != nil {
			return nil, fmt.Errorf("the manifest %s (blob %s): %w", d.ManifestFile, d.Manifest, err)
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return nil, fmt.Errorf("the manifest %s (blob %s): %w", d.ManifestFile, d.Manifest, err)
		}
		m, err := provenance.ParseManifest(d.ManifestFile, data)
		if err != nil || m.Capture == nil {
			continue // the audit reports a manifest that no longer parses
		}
		out = append(out, runview.Capture(d.ManifestFile, m.Capture))
	}
	return out, nil
}

// capturedValue reports whether value of field is what a capture established.
func capturedValue(cs []runview.CaptureView, field, value string) bool {
	for _, c := range cs {
		for _, f := range c.Facts {
			if f.Field == field && f.Value == value {
				return true
			}
		}
	}
	return false
}

func writeCaptures(w io.Writer, cs []runview.CaptureView) {
	for _, c := range cs {
		fmt.Fprintf(w, "\nCaptured on the benchmark host at %s by %s (%s)\n", printable(c.TakenAt), printable(c.Tool), printable(c.Manifest))
		if r := c.Record; r != nil {
			fmt.Fprintf(w, "  command  %s\n  in       %s\n  ran      %s to %s, exit status %d; console log blob %s\n",
				printable(escape.ShellJoin(r.Command)), printable(r.Dir), printable(r.Started), printable(r.Ended), r.Exit, printable(r.Log))
			for _, ch := range r.Changed {
				fmt.Fprintf(w, "  changed during the run: %s\n", printable(ch))
			}
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, f := range c.Facts {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.Field, oneLine(f.Value), printable(f.How))
		}
		for _, u := range c.Unknown {
			fmt.Fprintf(tw, "  %s\t(not established)\t%s\n", u.Field, printable(u.Why))
		}
		tw.Flush()
	}
}
