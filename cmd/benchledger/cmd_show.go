package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/benchledger/benchledger/audit"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/caveat"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

func showCommand() *command {
	c := &command{
		name:  "show",
		args:  "RUN",
		short: "show one run: provenance, figures, completion, what is missing",
		long: `Shows one archived run: where it came from (every provenance field with the source
that stated it), its completion, its summary figures recomputed from the per-request
records beside the figures the source tool stated, and what it still lacks to be
publishable. RUN is a run id or a unique prefix of one.`,
	}
	c.run = func(ctx context.Context, e env, args []string) error {
		fs := newFlags(c, e)
		db := dbFlag(fs, e)
		asJSON := fs.Bool("json", false, "print one JSON document")
		rest, err := parseArgs(fs, args)
		if err != nil {
			return err
		}
		if len(rest) != 1 {
			return usageErrorf("show takes exactly one run id")
		}
		a, err := openForReading(*db, e)
		if err != nil {
			return err
		}
		defer a.Close()
		rec, err := a.Run(rest[0])
		if err != nil {
			return err
		}
		reqs := rec.Run.Requests
		if reqs == nil && rec.Run.HasRequests {
			if reqs, err = a.Requests(rec.ID); err != nil {
				return err
			}
		}
		view := newRunView(rec, reqs)
		events, err := a.Events(rec.ID)
		if err != nil {
			return err
		}
		for _, ev := range events {
			view.History = append(view.History, historyRow{At: ev.At.UTC().Format(time.RFC3339), Action: ev.Action,
				Actor: ev.Actor, ToolVersion: ev.ToolVersion, Detail: ev.Detail})
		}
		if *asJSON {
			enc := json.NewEncoder(e.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(view)
		}
		view.writeText(e)
		return nil
	}
	return c
}

// figureRow is one summary figure: recomputed and as the source stated it.
type figureRow struct {
	Metric     string   `json:"metric"`
	Unit       string   `json:"unit"`
	Recomputed *float64 `json:"recomputed,omitempty"`
	Stated     *float64 `json:"stated,omitempty"`
	SourceKey  string   `json:"source_key,omitempty"`
	Definition string   `json:"definition,omitempty"`
}

type provenanceRow struct {
	Field  string `json:"field"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

type runView struct {
	ID               string          `json:"id"`
	File             string          `json:"file"`
	Ordinal          int             `json:"ordinal"`
	Location         string          `json:"location,omitempty"`
	SHA256           string          `json:"sha256"`
	Format           string          `json:"format"`
	FormatVariant    string          `json:"format_variant,omitempty"`
	SourceTool       string          `json:"source_tool,omitempty"`
	PercentileMethod string          `json:"percentile_method,omitempty"`
	Clock            string          `json:"clock"`
	IngestedAt       string          `json:"ingested_at"`
	Publishable      bool            `json:"publishable"`
	Missing          []string        `json:"missing"`
	Provenance       []provenanceRow `json:"provenance"`
	Completion       struct {
		Sent      int64 `json:"sent"`      // -1 unknown
		Completed int64 `json:"completed"` // -1 unknown
		Failed    int64 `json:"failed"`    // -1 unknown
		Short     int64 `json:"short"`     // -1 unknown or not a fixed-length workload
	} `json:"completion"`
	WindowBasis string       `json:"window_basis"`
	Figures     []figureRow  `json:"figures"`
	History     []historyRow `json:"history"`
	// StatedChecks compare each figure the source tool stated with its
	// recomputation; Caveats are the codes the run's own data raises.
	StatedChecks []figures.StatedCheck `json:"stated_checks,omitempty"`
	Caveats      []caveat.Caveat       `json:"caveats"`
	Extra        []string              `json:"extra_keys,omitempty"`
	Notes        []string              `json:"notes,omitempty"`
}

// provenanceGroup is one line of show's provenance table: a field's value
// and every source that stated it (file and manifest often agree).
type provenanceGroup struct{ field, value, sources string }

func groupProvenance(rows []provenanceRow) []provenanceGroup {
	var out []provenanceGroup
	for _, r := range rows {
		if n := len(out); n > 0 && out[n-1].field == r.Field && out[n-1].value == r.Value {
			out[n-1].sources += ", " + r.Source
			continue
		}
		out = append(out, provenanceGroup{r.Field, r.Value, r.Source})
	}
	return out
}

// historyRow is one archive event about the run.
type historyRow struct {
	At          string `json:"at"`
	Action      string `json:"action"`
	Actor       string `json:"actor"`
	ToolVersion string `json:"tool_version"`
	Detail      string `json:"detail,omitempty"`
}

func ptr(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func newRunView(rec *store.RunRecord, reqs []benchrun.Request) *runView {
	r := rec.Run
	v := &runView{ID: rec.ID, File: rec.FileName, Ordinal: r.Ordinal, Location: r.Location, SHA256: rec.BlobSHA256,
		Format: r.Format, FormatVariant: r.FormatVariant, SourceTool: r.SourceTool, PercentileMethod: r.PercentileMethod,
		Clock: string(r.Clock), IngestedAt: rec.IngestedAt.UTC().Format(time.RFC3339), Publishable: rec.Publishable,
		Missing: rec.Missing, Notes: r.Notes}
	if v.Missing == nil {
		v.Missing = []string{}
	}
	if v.Clock == "" {
		v.Clock = "none"
	}
	for _, p := range rec.Provenance {
		v.Provenance = append(v.Provenance, provenanceRow{p.Field, p.Value, string(p.Source)})
	}
	sort.SliceStable(v.Provenance, func(i, j int) bool { return v.Provenance[i].Field < v.Provenance[j].Field })
	for k := range r.Extra {
		v.Extra = append(v.Extra, k)
	}
	sort.Strings(v.Extra)

	eff := provenance.Record(rec.Provenance).Effective()
	fixed := 0
	if eff["workload.fixed_output"] == "true" {
		fixed, _ = strconv.Atoi(eff["workload.output_len"])
	}
	stated := func(m string) *float64 {
		if s, ok := r.StatedValue(m); ok {
			return ptr(s.Value)
		}
		return nil
	}
	key := func(m string) string {
		if s, ok := r.StatedValue(m); ok {
			return s.SourceKey
		}
		return ""
	}
	v.Completion.Sent, v.Completion.Completed, v.Completion.Failed, v.Completion.Short = r.RequestCount(), r.Completed, r.Failed, -1
	statedDuration := math.NaN()
	if d := stated("duration"); d != nil {
		statedDuration = *d
	}
	var f *figures.RunFigures
	if r.HasRequests && len(reqs) > 0 {
		ff := figures.Recompute(reqs, statedDuration, fixed)
		f = &ff
		checked := figures.CheckStated(r.Stated, ff, audit.StatedOptions(r))
		v.StatedChecks = checked.Checks
		v.Caveats = caveat.Sort(caveat.ForRun(rec.ID, ff, eff))
		v.Completion.Sent, v.Completion.Completed, v.Completion.Failed = int64(ff.Sent), int64(ff.Completed), int64(ff.Failed)
		v.Completion.Short = int64(ff.Short)
		v.WindowBasis = ff.WindowBasis
	} else {
		v.WindowBasis = "no per-request records: stated figures only"
	}
	add := func(metric, unit string, recomputed float64) {
		row := figureRow{Metric: metric, Unit: unit, Stated: stated(metric), SourceKey: key(metric)}
		if f != nil {
			row.Recomputed = ptr(recomputed)
		}
		def := metric
		if i := strings.IndexByte(metric, '.'); i > 0 && metric != "itl.mean" {
			def = metric[:i]
		}
		if d, ok := figures.Definitions[def]; ok {
			row.Definition = d.Formula
		}
		if row.Recomputed != nil || row.Stated != nil {
			v.Figures = append(v.Figures, row)
		}
	}
	nan := math.NaN()
	pick := func(get func(*figures.RunFigures) float64) float64 {
		if f == nil {
			return nan
		}
		return get(f)
	}
	add("duration", "s", pick(func(f *figures.RunFigures) float64 { return f.Window }))
	add("output_throughput", "tok/s", pick(func(f *figures.RunFigures) float64 { return f.OutputThroughput }))
	add("total_token_throughput", "tok/s", pick(func(f *figures.RunFigures) float64 { return f.TotalTokenThroughput }))
	add("request_throughput", "req/s", pick(func(f *figures.RunFigures) float64 { return f.RequestThroughput }))
	add("achieved_concurrency", "requests", pick(func(f *figures.RunFigures) float64 { return f.AchievedConcurrency }))
	for _, m := range []struct {
		name string
		stat func(*figures.RunFigures) figures.Stat
	}{
		{"ttft", func(f *figures.RunFigures) figures.Stat { return f.TTFT }},
		{"tpot", func(f *figures.RunFigures) figures.Stat { return f.TPOT }},
		{"e2el", func(f *figures.RunFigures) figures.Stat { return f.E2EL }},
	} {
		add(m.name+".mean", "s", pick(func(f *figures.RunFigures) float64 { return m.stat(f).Mean }))
		add(m.name+".median", "s", pick(func(f *figures.RunFigures) float64 { return m.stat(f).Median }))
		for _, p := range []float64{90, 95, 99} {
			pp := p
			add(fmt.Sprintf("%s.p%g", m.name, p), "s", pick(func(f *figures.RunFigures) float64 { return m.stat(f).P[pp] }))
		}
	}
	add("itl.mean", "s", pick(func(f *figures.RunFigures) float64 { return f.ITLMean }))
	return v
}

func valueText(p *float64, unit string) string {
	if p == nil {
		return "-"
	}
	switch unit {
	case "s":
		return secondsText(*p)
	case "tok/s", "req/s":
		return rateText(*p) + " " + unit
	case "requests":
		return groupFloat(*p, 2)
	}
	return groupFloat(*p, 2) + " " + unit
}

func (v *runView) writeText(e env) {
	w := e.stdout
	fmt.Fprintf(w, "Run %s\n", v.ID)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	where := v.File
	if v.Location != "" {
		where += " (" + v.Location + ")"
	}
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

	fmt.Fprintf(w, "\nProvenance (sources: file = the result file itself, manifest = campaign.yaml, cli = --set)\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, g := range groupProvenance(v.Provenance) {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", g.field, g.sources, oneLine(g.value))
	}
	for _, m := range v.Missing {
		if _, ok := provenance.Lookup(m); ok || strings.Contains(m, "|") {
			fmt.Fprintf(tw, "  %s\t-\t(missing)\n", m)
		}
	}
	tw.Flush()
	if len(v.History) > 0 {
		fmt.Fprintf(w, "\nHistory\n")
		for _, h := range v.History {
			fmt.Fprintf(w, "  %s  %s by %s with benchledger %s\n", h.At, h.Action, h.Actor, h.ToolVersion)
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

	fmt.Fprintf(w, "\nFigures (recomputed from per-request records; window: %s; percentiles: linear)\n", v.WindowBasis)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  metric\trecomputed\tstated by %s\n", dash(v.SourceTool))
	for _, f := range v.Figures {
		name := strings.ReplaceAll(f.Metric, "_", " ")
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", name, valueText(f.Recomputed, f.Unit), valueText(f.Stated, f.Unit))
	}
	tw.Flush()
	if len(v.StatedChecks) > 0 {
		bad := 0
		for _, c := range v.StatedChecks {
			if !c.OK {
				bad++
			}
		}
		fmt.Fprintf(w, "\nStated figures checked against the records: %d agree, %d disagree\n", len(v.StatedChecks)-bad, bad)
		for _, c := range v.StatedChecks {
			if !c.OK {
				fmt.Fprintf(w, "  DISAGREES %s: stated %s, recomputed %s (tolerance %s; %s)\n", c.Metric,
					valueText(ptr(c.Stated), c.Unit), valueText(ptr(c.Recomputed), c.Unit), c.ToleranceBasis, c.Reason)
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
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, s)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}
