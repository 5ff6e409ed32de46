package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/caveat"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/runview"
	"github.com/benchledger/benchledger/spec"
)

func compareCommand() *command {
	return newCommand(command{
		name:  "compare",
		args:  "BASELINE CANDIDATE",
		short: "compare the figures of two runs, with what changed between them",
		long: `Compares two archived runs (ids or unique prefixes), their figures recomputed from their
per-request records. Without --metric: every metric both runs have, each with both values,
the change (absolute and %) and whether it is better or worse for that metric (higher
throughput, lower latency; --json: better true, false, or null for a metric with no better
way or an unchanged value). With --metric: that figure's absolute change, % change and
ratio (+132% = 2.32x). Then the provenance fields held fixed and those that changed.
--intended names the field(s) the comparison sets out to vary; every other change is
listed as a confounder. Caveat codes (single measurement, fixed output length, ...) follow.`,
	}, runCompare)
}

// compareOptions are compare's flags.
type compareOptions struct {
	db, metric, intended, slo string
	json                      bool
}

func (o *compareOptions) addFlags(fs *flag.FlagSet, e env) {
	dbFlag(fs, e, &o.db)
	fs.BoolVar(&o.json, "json", false, "print one JSON document")
	fs.StringVar(&o.metric, "metric", "", "the one figure to compare (default: every metric both runs have): "+strings.Join(spec.Metrics(), ", "))
	fs.StringVar(&o.slo, "slo", "", "judge each request against this SLO, as vLLM's --goodput takes it (\"ttft:2000 tpot:50\", ms), for the goodput and slo_attainment figures")
	fs.StringVar(&o.intended, "intended", "", "comma-separated provenance fields the comparison means to change (e.g. runtime.server_args)")
}

func runCompare(ctx context.Context, e env, opts compareOptions, args []string) error {
	if len(args) != 2 {
		return usageErrorf("compare takes two run ids: BASELINE CANDIDATE")
	}
	if opts.metric != "" && !spec.KnownMetric(opts.metric) {
		return usageErrorf("unknown --metric %q (known: %s)", opts.metric, strings.Join(spec.Metrics(), ", "))
	}
	if (opts.metric == "goodput" || opts.metric == "slo_attainment") && opts.slo == "" {
		return usageErrorf("--metric %s needs --slo: goodput and SLO attainment judge each request against an SLO", opts.metric)
	}
	var copt casestudy.Options
	if opts.slo != "" {
		slo, err := figures.ParseSLO(opts.slo)
		if err != nil {
			return usageErrorf("--slo: %v", err)
		}
		copt.SLO = slo
	}
	a, err := openForReading(opts.db, e)
	if err != nil {
		return err
	}
	defer a.Close()
	if opts.metric == "" {
		all, err := casestudy.CompareAllRuns(ctx, a, args[0], args[1], splitList(opts.intended), copt)
		if err != nil {
			return err
		}
		if opts.json {
			return writeJSONAs(e.stdout, snakeCaseSchemaVersion, all)
		}
		writeAllComparison(e.stdout, all)
		return nil
	}
	cf, err := casestudy.CompareRuns(ctx, a, args[0], args[1], opts.metric, splitList(opts.intended), copt)
	if err != nil {
		return err
	}
	if opts.json {
		return writeJSONAs(e.stdout, snakeCaseSchemaVersion, cf)
	}
	writeComparison(e.stdout, cf, "")
	return nil
}

// betterText says which way a change went for its metric.
func betterText(b *bool) string {
	switch {
	case b == nil:
		return ""
	case *b:
		return "better"
	}
	return "worse"
}

// writeAllComparison prints every metric two runs have, then what was held
// fixed and what changed, and the caveats.
func writeAllComparison(w io.Writer, c *casestudy.AllComparison) {
	fmt.Fprintf(w, "baseline %s → candidate %s: every metric both runs have\n", c.Baseline, c.Candidate)
	t := &table{header: []string{"metric", "baseline", "candidate", "change", "%", ""}}
	for _, m := range c.Metrics {
		pct := "n/a"
		if m.Pct != nil {
			pct = signedPct(*m.Pct)
		}
		abs := quantity(m.Abs, m.Unit)
		if m.Abs > 0 {
			abs = "+" + abs
		}
		src := ""
		if m.BaselineSource == figures.SourceStated || m.CandidateSource == figures.SourceStated {
			src = " (stated)"
		}
		t.add(m.Metric+src, quantity(m.Baseline, m.Unit), quantity(m.Candidate, m.Unit), abs, pct, betterText(m.Better))
	}
	t.write(w, 0)
	if len(c.Intended) > 0 {
		fmt.Fprintf(w, "  intended: %s\n", strings.Join(c.Intended, ", "))
	}
	if len(c.Fixed) > 0 {
		var names []string
		for _, f := range c.Fixed {
			names = append(names, f.Field)
		}
		fmt.Fprintf(w, "  held fixed: %s\n", strings.Join(names, ", "))
	}
	for _, f := range c.Changed {
		tag := "confounder"
		if slices.Contains(c.Intended, f.Field) {
			tag = "intended"
		}
		fmt.Fprintf(w, "  changed (%s): %s: %s → %s\n", tag, f.Field, oneLine(f.Baseline), oneLine(f.Candidate))
	}
	if len(c.Confounders) == 0 {
		fmt.Fprintf(w, "  confounders: none\n")
	}
	writeCaveats(w, c.Caveats, "  ")
}

// quantity prints a value in its unit, the console way.
func quantity(v float64, unit string) string {
	return valueText(runview.FinitePtr(v), unit)
}

func signedPct(p float64) string {
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return "n/a"
	}
	s := groupFloat(p, 2)
	if p >= 0 {
		s = "+" + s
	}
	return s + "%"
}

// writeComparison prints a comparison with its confounders and caveats.
func writeComparison(w io.Writer, cf *casestudy.ComparisonFigure, indent string) {
	c := cf.Comparison
	fmt.Fprintf(w, "%s%s: %s → %s  %s (%sx)\n", indent, strings.ReplaceAll(c.Metric, "_", " "),
		quantity(c.Baseline.Value, c.Unit), quantity(c.Candidate.Value, c.Unit), signedPct(c.Change.Pct), groupFloat(c.Change.Ratio, 2))
	fmt.Fprintf(w, "%s  baseline  %s\n", indent, sideText(cf.Baseline, c.Baseline))
	fmt.Fprintf(w, "%s  candidate %s\n", indent, sideText(cf.Candidate, c.Candidate))
	if len(c.Intended) > 0 {
		fmt.Fprintf(w, "%s  intended: %s\n", indent, strings.Join(c.Intended, ", "))
	}
	if len(c.Fixed) > 0 {
		var names []string
		for _, f := range c.Fixed {
			names = append(names, f.Field)
		}
		fmt.Fprintf(w, "%s  held fixed: %s\n", indent, strings.Join(names, ", "))
	}
	for _, f := range c.Changed {
		tag := "confounder"
		for _, i := range c.Intended {
			if i == f.Field {
				tag = "intended"
			}
		}
		fmt.Fprintf(w, "%s  changed (%s): %s: %s → %s\n", indent, tag, f.Field, oneLine(f.Baseline), oneLine(f.Candidate))
	}
	if len(c.Confounders) == 0 {
		fmt.Fprintf(w, "%s  confounders: none\n", indent)
	}
	writeCaveats(w, cf.Caveats, indent+"  ")
}

func sideText(v casestudy.Value, s figures.Side) string {
	switch {
	case v.Reference != "":
		r := s.Reference
		vis := "still visible"
		if !r.Visible {
			vis = "no longer visible"
		}
		return fmt.Sprintf("external reference %s (captured %s, last checked %s: %s) %s", v.Reference,
			r.Captured.Format("2006-01-02"), r.Checked.Format("2006-01-02"), vis, r.Source)
	default:
		return fmt.Sprintf("%s, %s: %s; %s", quantity(v.Value, v.Unit), v.Basis, strings.Join(v.Runs, " "), sourcesText(v))
	}
}

// sourcesText says where a value comes from: "recomputed from 200
// records", "stated by guidellm (…), not recomputable", or per run when
// there are several.
func sourcesText(v casestudy.Value) string {
	if len(v.Sources) == 1 {
		return v.Sources[0].String()
	}
	var parts []string
	for _, o := range v.Sources {
		parts = append(parts, o.RunID+" "+o.String())
	}
	return strings.Join(parts, "; ")
}

func writeCaveats(w io.Writer, cs []caveat.Caveat, indent string) {
	if len(cs) == 0 {
		return
	}
	fmt.Fprintf(w, "%scaveats:\n", indent)
	for _, c := range cs {
		fmt.Fprintf(w, "%s  %s\n", indent, caveatText(c))
	}
}

func caveatText(c caveat.Caveat) string {
	params := caveat.Params[c.Code]
	var parts []string
	seen := map[string]bool{}
	for _, p := range params {
		if v, ok := c.Params[p]; ok {
			parts = append(parts, p+"="+oneLine(v))
			seen[p] = true
		}
	}
	var rest []string
	for k := range c.Params {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		parts = append(parts, k+"="+oneLine(c.Params[k]))
	}
	return c.Code + "(" + strings.Join(parts, ", ") + ")"
}
