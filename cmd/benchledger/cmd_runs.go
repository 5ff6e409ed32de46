package main

import (
	"context"
	"flag"
	"fmt"
	"text/tabwriter"

	"github.com/benchledger/benchledger/store"
)

func runsCommand() *command {
	return newCommand(command{
		name:  "runs",
		short: "list archived runs",
		long: `Lists the archived runs with their campaign, role, model, engine, GPU and date.
Filters match case-insensitive substrings; dates are YYYY-MM-DD and inclusive.
--json prints a JSON array with one object per run.`,
	}, runRuns)
}

// runsOptions are runs' flags.
type runsOptions struct {
	db            string
	json, idsOnly bool
	filter        store.Filter
}

func (o *runsOptions) addFlags(fs *flag.FlagSet, e env) {
	dbFlag(fs, e, &o.db)
	fs.BoolVar(&o.json, "json", false, "print a JSON array")
	fs.BoolVar(&o.idsOnly, "q", false, "print only the run ids, one per line")
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
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCAMPAIGN\tROLE\tMODEL\tENGINE\tGPU\tDATE\tREQUESTS\tPUBLISHABLE\tFILE")
	for _, r := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, dash(r.Campaign), dash(r.Role), dash(r.Model),
			dash(joinNonEmpty(r.Engine, r.EngineVersion)), dash(r.GPU), dash(r.Date), countText(r.RequestCount), yesNo(r.Publishable), r.FileName)
	}
	return tw.Flush()
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
