package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/runview"
	"github.com/benchledger/benchledger/store"
)

func runsCommand() *command {
	return newCommand(command{
		name:  "runs",
		short: "list archived runs",
		long: `Lists the archived runs with their campaign, role, offered load (concurrency or request
rate), output throughput recomputed from the records, model, engine, GPU and date, ordered
by date, campaign, role (baseline, tuned, candidate, sweep points, replicas, repeats, references),
group, load, and replica or repeat.
Filters match case-insensitive substrings; dates are YYYY-MM-DD and inclusive.
On a terminal the table is cut to its width ($COLUMNS when set); --wide never cuts, and
output to a file or a pipe is never cut. --json prints a JSON array with one object per run.`,
	}, runRuns)
}

// runsOptions are runs' flags.
type runsOptions struct {
	db            string
	json, idsOnly bool
	wide          bool
	filter        store.Filter
}

func (o *runsOptions) addFlags(fs *flag.FlagSet, e env) {
	dbFlag(fs, e, &o.db)
	fs.BoolVar(&o.json, "json", false, "print a JSON array")
	fs.BoolVar(&o.idsOnly, "q", false, "print only the run ids, one per line")
	fs.BoolVar(&o.wide, "wide", false, "print every column in full, whatever the terminal's width")
	filterFlags(fs, &o.filter)
}

func runRuns(ctx context.Context, e env, opts runsOptions, args []string) error {
	if len(args) > 0 {
		return usageErrorf("unexpected argument %q (runs takes only flags)", args[0])
	}
	if err := checkFilter(opts.filter); err != nil {
		return err
	}
	a, err := openForReading(opts.db, e)
	if err != nil {
		return err
	}
	defer a.Close()
	list, err := a.ListRuns(opts.filter)
	if err != nil {
		return err
	}
	if opts.json {
		// store.RunSummary's JSON form is the settled `runs --json` shape.
		out := list
		if out == nil {
			out = []store.RunSummary{}
		}
		return writeJSON(e.stdout, out)
	}
	if opts.idsOnly {
		for _, r := range list {
			fmt.Fprintln(e.stdout, r.ID)
		}
		return nil
	}
	if len(list) == 0 {
		fmt.Fprintln(e.stderr, "no runs match")
		return nil
	}
	rows, err := listedRuns(ctx, a, list)
	if err != nil {
		return err
	}
	// Cut to fit: the file keeps its name, the others their start; the
	// file, engine, GPU, campaign and model go, in that order, when even
	// cut they do not fit.
	tab := &table{
		header:   []string{"ID", "CAMPAIGN", "ROLE", "LOAD", "OUT TOK/S", "MODEL", "ENGINE", "GPU", "DATE", "REQUESTS", "PUBLISHABLE", "FILE"},
		minWidth: map[int]int{1: 10, 5: 14, 6: 12, 7: 12, 11: 16},
		keepEnd:  map[int]bool{11: true},
		dropped:  []int{11, 6, 7, 1, 5},
	}
	for _, r := range rows {
		s := r.summary
		tab.add(s.ID, dash(s.Campaign), dash(s.Role), dash(r.load), dash(r.throughput), dash(s.Model),
			dash(joinNonEmpty(s.Engine, s.EngineVersion)), dash(s.GPU), dash(s.Date), countText(s.RequestCount), yesNo(s.Publishable), s.FileName)
	}
	width := 0
	if !opts.wide {
		width = terminalWidth(e.stdout, e.getenv)
	}
	if hidden := tab.write(e.stdout, width); len(hidden) > 0 {
		fmt.Fprintf(e.stderr, "note: %s not shown to fit %d columns; --wide shows every column\n", strings.Join(hidden, ", "), width)
	}
	return nil
}

// listedRun is one line of the runs table.
type listedRun struct {
	summary          store.RunSummary
	load, throughput string
	// key orders the lines (runview.CompareListed); seq keeps the
	// archive's order where keys tie.
	key runview.ListKey
	seq int
}

// listedRuns adds what tells runs of one campaign apart — the offered load
// and the output throughput recomputed from the records (the figure's one
// definition, figures.RunFigures) — and orders them by date, role, load,
// replica (runview.ListKey).
func listedRuns(ctx context.Context, a *store.Archive, list []store.RunSummary) ([]listedRun, error) {
	out := make([]listedRun, 0, len(list))
	for i, s := range list {
		r := listedRun{summary: s, seq: i}
		rec, f, _, err := casestudy.RunFigures(ctx, a, s.ID)
		if rec == nil {
			return nil, err
		}
		if err == nil && f != nil && f.Completed > 0 {
			r.throughput = groupInt(int64(math.Round(f.OutputThroughput)))
		}
		r.key = runview.ListKeyOf(s.Date, s.Campaign, s.Role, provenance.Record(rec.Provenance).Effective())
		r.load = r.key.Load
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(x, y listedRun) int {
		return cmp.Or(runview.CompareListed(x.key, y.key), cmp.Compare(x.seq, y.seq))
	})
	return out, nil
}

func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i, ch := range s {
		if i != 4 && i != 7 && (ch < '0' || ch > '9') {
			return false
		}
	}
	return true
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " " + b
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func countText(n int64) string {
	if n < 0 {
		return "?"
	}
	return groupInt(n)
}

// filterFlags binds the run filters runs and export share.
func filterFlags(fs *flag.FlagSet, f *store.Filter) {
	fs.StringVar(&f.Campaign, "campaign", "", "only runs of this campaign")
	fs.StringVar(&f.Model, "model", "", "only runs whose model contains this")
	fs.StringVar(&f.Engine, "engine", "", "only runs whose engine contains this")
	fs.StringVar(&f.GPU, "gpu", "", "only runs whose GPU contains this")
	fs.StringVar(&f.Role, "role", "", "only runs with this role")
	fs.StringVar(&f.Since, "since", "", "only runs measured on or after this date (YYYY-MM-DD)")
	fs.StringVar(&f.Until, "until", "", "only runs measured on or before this date (YYYY-MM-DD)")
}

// checkFilter refuses a filter date that is not a date.
func checkFilter(f store.Filter) error {
	for _, d := range []string{f.Since, f.Until} {
		if d != "" && !isDate(d) {
			return usageErrorf("%q is not a date (YYYY-MM-DD)", d)
		}
	}
	return nil
}

// filtered reports whether any run filter is set.
func filtered(f store.Filter) bool { return f != store.Filter{} }
