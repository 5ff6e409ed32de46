package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/caveat"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/spec"
	"github.com/benchledger/benchledger/store"
)

func figuresCommand() *command {
	return newCommand(command{
		name:  "figures",
		args:  "SPEC",
		short: "compute a case study's figures, with confounders and caveat codes",
		long: `Evaluates a case-study spec (casestudy.yaml) against the archive: selects its runs by
provenance, recomputes every figure from the per-request records, and prints the headline
figures first, then the rest — each with the runs behind it, what was held fixed, the
confounders, and the caveat codes the data raises. A summary-only run's figures are the
ones its tool stated, and every value says where it came from ("recomputed from N
records" or "stated by TOOL (key, precision), not recomputable"; --json: value_source).
Runs that are not publishable are listed (docs/provenance.md). --json prints everything
as one document.`,
	}, runFigures)
}

// figuresOptions are figures' flags.
type figuresOptions struct {
	allowDirs runList
	db        string
	json      bool
	asOf      asOfDate
}

func (o *figuresOptions) addFlags(fs *flag.FlagSet, e env) {
	allowDirFlag(fs, &o.allowDirs)
	dbFlag(fs, e, &o.db)
	fs.BoolVar(&o.json, "json", false, "print one JSON document")
	asOfFlag(fs, &o.asOf, false)
}

func runFigures(ctx context.Context, e env, opts figuresOptions, args []string) error {
	if len(args) != 1 {
		return usageErrorf("figures takes one case-study spec")
	}
	res, a, err := evaluateSpec(ctx, e, opts.db, args[0], opts.asOf, opts.allowDirs)
	if err != nil {
		return err
	}
	defer a.Close()
	if opts.json {
		return writeJSONAs(e.stdout, snakeCaseSchemaVersion, res)
	}
	writeResult(e.stdout, res)
	return nil
}

// evaluateSpec loads a case-study spec and evaluates it against the archive
// (opened for reading; the caller closes it).
func evaluateSpec(ctx context.Context, e env, dbPath, specPath string, asOf asOfDate, allow []string) (*casestudy.Result, *store.Archive, error) {
	return evaluateSpecIn(ctx, specPath, asOf, allow, func() (*store.Archive, error) { return openForReading(dbPath, e) })
}

// evaluateSpecIn is evaluateSpec on the archive open returns (report opens
// it for writing, to record the publication). The caveats judge the age of
// external references as of --as-of, and none without it.
func evaluateSpecIn(ctx context.Context, specPath string, asOf asOfDate, allow []string, open func() (*store.Archive, error)) (*casestudy.Result, *store.Archive, error) {
	opt := casestudy.Options{Caveats: caveat.Options{Now: asOf.Day()}}
	s, err := spec.LoadWith(specPath, spec.LoadOptions{AllowDirs: allow})
	if err != nil {
		return nil, nil, err
	}
	a, err := open()
	if err != nil {
		return nil, nil, err
	}
	res, err := casestudy.Evaluate(ctx, s, a, opt)
	if err != nil {
		a.Close()
		return nil, nil, err
	}
	return res, a, nil
}

// writeResult prints the headline names in their order, then every other
// named figure, then the case study's caveats.
func writeResult(w io.Writer, r *casestudy.Result) {
	fmt.Fprintf(w, "Case study %s: %d runs, archive digest %s\n", r.Spec.ID, len(r.RunIDs), r.Digest)
	done := map[string]bool{}
	var order []string
	order = append(order, r.Spec.Headline...)
	var others []string
	for n := range r.Figures {
		others = append(others, n)
	}
	for n := range r.Comparisons {
		others = append(others, n)
	}
	for n := range r.Sweeps {
		others = append(others, n)
	}
	for n := range r.Nodes {
		others = append(others, n)
	}
	sort.Strings(others)
	order = append(order, others...)
	for i, n := range order {
		if done[n] {
			continue
		}
		done[n] = true
		if i == len(r.Spec.Headline) {
			fmt.Fprintf(w, "\nOther figures\n")
		} else if i == 0 {
			fmt.Fprintf(w, "\nHeadline\n")
		}
		fmt.Fprintln(w)
		switch {
		case r.Comparisons[n] != nil:
			fmt.Fprintf(w, "%s\n", n)
			writeComparison(w, r.Comparisons[n], "  ")
		case r.Nodes[n] != nil:
			writeNode(w, r.Nodes[n])
		case r.Sweeps[n] != nil:
			writeSweep(w, r.Sweeps[n])
		default:
			v := r.Figures[n]
			fmt.Fprintf(w, "%s\n  %s: %s (%s: %s; %s)\n", n, strings.ReplaceAll(v.Metric, "_", " "), quantity(v.Value, v.Unit), v.Basis, strings.Join(v.Runs, " "), sourcesText(v))
		}
	}
	if !r.Publishable() {
		fmt.Fprintf(w, "\nNot publishable (docs/provenance.md, \"Publishable\")\n")
		for _, id := range slices.Sorted(maps.Keys(r.Unpublishable)) {
			fmt.Fprintf(w, "  run %s: missing %s\n", id, strings.Join(r.Unpublishable[id], ", "))
		}
	}
	fmt.Fprintf(w, "\nCaveats of the case study\n")
	for _, c := range r.Caveats {
		fmt.Fprintf(w, "  %s\n", caveatText(c))
	}
}

func writeNode(w io.Writer, n *casestudy.NodeFigure) {
	cons := n.Runs[n.Conservative]
	fmt.Fprintf(w, "%s\n  node output throughput: %s over a common %s window (%s)\n", n.Name,
		quantity(n.Throughput.Value, "tok/s"), secondsText(cons.Window), n.Throughput.Basis)
	for i, run := range n.Runs {
		mark := ""
		if i == n.Conservative {
			mark = "  ← used"
		}
		fmt.Fprintf(w, "  %s: %d replicas, %s requests sent, %s completed, %s failed, %s output tokens; %s over %s%s\n",
			n.Groups[i], run.Replicas, groupInt(int64(run.Sent)), groupInt(int64(run.Completed)), groupInt(int64(run.Failed)),
			groupInt(run.OutputTokens), quantity(run.OutputThroughput, "tok/s"), secondsText(run.Window), mark)
		fmt.Fprintf(w, "    adding the replicas' separately timed rates would claim %s (%s)\n",
			quantity(run.SumOfRates, "tok/s"), signedPct(run.Overstatement))
	}
	if n.ThroughputPerGPU != nil {
		fmt.Fprintf(w, "  per GPU: %s over %g GPUs\n", quantity(*n.ThroughputPerGPU, "tok/s/GPU"), n.GPUs)
	}
	if c := n.Cost; c != nil {
		fmt.Fprintf(w, "  %s\n", costText(c))
	}
	if n.Scaling != nil {
		s := n.Scaling
		fmt.Fprintf(w, "  scaling efficiency: %s = %s / (%d x %s of single-replica run %s)\n", groupFloat(s.Pct, 2)+"%",
			rateText(s.Node), s.Replicas, groupFloat(s.Single, 2), s.SingleRun)
	}
	writeCaveats(w, n.Caveats, "  ")
}

func writeSweep(w io.Writer, s *casestudy.SweepFigure) {
	r := s.Result
	fmt.Fprintf(w, "%s (by %s)\n", s.Name, s.Parameter)
	for i, l := range r.Levels {
		mark := ""
		switch {
		case i == r.Saturation && i == r.Recommended:
			mark = "  ← saturation point, recommended"
		case i == r.Recommended:
			mark = "  ← recommended"
		}
		line := fmt.Sprintf("  %s = %g: %s, median latency %s (n=%d)", s.Parameter, l.Param, quantity(l.Throughput, "tok/s"), secondsText(l.MedianLatency), l.N())
		if i > 0 {
			st := r.Steps[i-1]
			line += fmt.Sprintf("; step: throughput %s, median latency %s", signedPct(st.ThroughputGainPct), signedPct(st.LatencyGrowthPct))
		}
		if l.SLOAttainment != nil {
			line += fmt.Sprintf("; SLO attainment %s%%, goodput %s", groupFloat(*l.SLOAttainment, 1), quantity(*l.Goodput, "req/s"))
		}
		if l.ThroughputPerGPU != nil {
			line += fmt.Sprintf("; %s", quantity(*l.ThroughputPerGPU, "tok/s/GPU"))
		}
		if c := l.Cost; c != nil {
			line += "; " + costText(c)
		}
		if r.SLOPointFound && i == r.SLOPoint {
			mark += "  ← SLO operating point"
		}
		fmt.Fprintln(w, line+mark)
	}
	if !r.SaturationFound {
		fmt.Fprintf(w, "  no saturation point found under the rule (max gain %g%%, min latency growth %g%%)\n", r.Rule.MaxGainPct, r.Rule.MinLatencyGrowthPct)
	}
	if r.Rule.SLOAttainmentPct > 0 && !r.SLOPointFound {
		fmt.Fprintf(w, "  no SLO operating point: the lowest level has an SLO attainment below %g%%\n", r.Rule.SLOAttainmentPct)
	}
	writeCaveats(w, s.Caveats, "  ")
}

// costText says a cost estimate with its inputs: "estimated 0.0150 USD per
// million output tokens (2.49 USD/GPU-hour of 2026-08-01 × 1 GPUs)".
func costText(c *figures.CostEstimate) string {
	return fmt.Sprintf("estimated %s %s per million output tokens (%s %s/GPU-hour of %s × %g GPUs)", strconv.FormatFloat(c.PerMillionOutputTokens, 'g', 3, 64),
		c.Price.Currency, groupFloat(c.Price.PerGPUHour, 2), c.Price.Currency, c.Price.Date, c.GPUs)
}
