package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/benchledger/benchledger/audit"
	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/caveat"
	"github.com/benchledger/benchledger/spec"
)

// auditSchemaVersion is the version of audit --json's document.
const auditSchemaVersion = 1

func auditCommand() *command {
	return newCommand(command{
		name:  "audit",
		args:  "[SPEC...]",
		short: "check the archive and the runs behind case studies: integrity, recomputation, plausibility",
		long: `Audits runs the way a reviewer would before a number is published. With case-study
specs it audits the runs each spec uses, and the numbers in the specs' texts and their
declared claims; with --run, those runs; with neither, every run in the archive. SQLite's
integrity_check and foreign_key_check run on the archive file in every case
that --check does not leave out.

` + checkTable(audit.Checks()) + `
Output is grouped by severity (fail, warn, info), each line with its check id and run.
--json prints one document {schema_version, findings, counts}. The exit status is 0 when
no check fails and 3 when one does; warnings and notes do not change it. --check limits
the audit to some checks (--check claims after editing a narrative: the raw files are not
read again unless a selected check needs them).`,
	}, runAudit)
}

// auditOptions are audit's flags.
type auditOptions struct {
	allowDirs runList
	db        string
	json      bool
	asOf      asOfDate
	maxAge    int // days
	runs      runList
	checks    string
}

func (o *auditOptions) addFlags(fs *flag.FlagSet, e env) {
	allowDirFlag(fs, &o.allowDirs)
	dbFlag(fs, e, &o.db)
	fs.BoolVar(&o.json, "json", false, "print one JSON document")
	asOfFlag(fs, &o.asOf, true)
	fs.IntVar(&o.maxAge, "max-reference-age", int(audit.DefaultMaxReferenceAge/(24*time.Hour)), "days since an external reference's last re-check before reference.stale warns")
	fs.Var(&o.runs, "run", "audit this run (id or unique prefix); repeatable")
	fs.StringVar(&o.checks, "check", "", "run only these checks: comma-separated ids or groups (claims, integrity, ...); all when empty")
}

func runAudit(ctx context.Context, e env, opts auditOptions, specs []string) error {
	checks, err := audit.ParseSelection(opts.checks)
	if err != nil {
		return usageErrorf("--check: %v", err)
	}
	a, err := openForReading(opts.db, e)
	if err != nil {
		return err
	}
	defer a.Close()
	// Without --as-of the audit judges as of today (a zero AsOf).
	opt := audit.Options{AsOf: opts.asOf.Day(), MaxReferenceAge: time.Duration(opts.maxAge) * 24 * time.Hour, Checks: checks}
	if e.gc != nil {
		opt.ReserveMemory = e.gc.reserveMemory
	}
	if opts.maxAge < 1 {
		return usageErrorf("--max-reference-age %d: give a number of days, at least 1", opts.maxAge)
	}
	var findings []audit.Finding
	for _, p := range specs {
		s, err := spec.LoadWith(p, spec.LoadOptions{AllowDirs: opts.allowDirs})
		if err != nil {
			return err
		}
		res, err := casestudy.Evaluate(ctx, s, a, casestudy.Options{Caveats: caveat.Options{Now: opt.AsOf}})
		if err != nil {
			return err
		}
		if len(res.RunIDs) == 0 {
			return fmt.Errorf("%s: the case study uses no runs: nothing to audit", p)
		}
		cf, err := audit.CaseStudy(ctx, a, res, s, opt)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		findings = append(findings, cf...)
	}
	if len(opts.runs) > 0 || len(specs) == 0 {
		rf, err := audit.RunSelected(ctx, a, opts.runs, opt)
		if err != nil {
			return err
		}
		findings = append(findings, rf...)
	}
	findings = audit.Dedupe(findings)
	audit.SortFindings(findings)
	if findings == nil {
		findings = []audit.Finding{}
	}
	counts := audit.Counts(findings)
	if opts.json {
		doc := map[string]any{"schema_version": auditSchemaVersion, "findings": findings, "counts": counts}
		if len(opt.Checks) > 0 {
			doc["checks"] = opt.Checks
		}
		if err := writeJSON(e.stdout, doc); err != nil {
			return err
		}
	} else {
		writeFindings(e.stdout, findings, counts)
		if len(opt.Checks) > 0 {
			fmt.Fprintf(e.stdout, "Only these checks ran: %s\n", strings.Join(opt.Checks, ", "))
		}
	}
	if audit.Failed(findings) {
		return errProblems
	}
	return nil
}

// writeFindings prints the findings grouped by severity, failures first.
func writeFindings(w io.Writer, fs []audit.Finding, counts map[string]int) {
	for _, sev := range []string{audit.Fail, audit.Warn, audit.Info} {
		var group []audit.Finding
		for _, f := range fs {
			if f.Severity == sev {
				group = append(group, f)
			}
		}
		if len(group) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s (%d)\n", strings.ToUpper(sev), len(group))
		for _, f := range group {
			where := "archive"
			switch {
			case f.Run != "":
				where = "run " + f.Run
			case f.File != "":
				where = f.File
			}
			fmt.Fprintf(w, "  %s  %s: %s\n", f.Check, where, f.Message)
		}
		fmt.Fprintln(w)
	}
	verdict := "no check failed"
	if counts[audit.Fail] > 0 {
		verdict = "checks failed"
	}
	fmt.Fprintf(w, "Audit: %d failed, %d warnings, %d notes: %s\n", counts[audit.Fail], counts[audit.Warn], counts[audit.Info], verdict)
}

// checkTable is the help's list of checks, made from audit.Checks so that
// it cannot drift from what the audit runs: id, severities, rule, the rule
// wrapped under itself.
func checkTable(checks []audit.CheckInfo) string {
	const width = 100
	idW, sevW := 0, 0
	for _, c := range checks {
		idW = max(idW, len(c.ID))
		sevW = max(sevW, len(strings.Join(c.Severities, "/")))
	}
	var b strings.Builder
	b.WriteString("Checks (severity; docs/audit.md has the exact rules):\n")
	indent := 2 + idW + 2 + sevW + 2
	for _, c := range checks {
		line := fmt.Sprintf("  %-*s  %-*s  ", idW, c.ID, sevW, strings.Join(c.Severities, "/"))
		col := indent
		for i, w := range strings.Fields(c.Rule) {
			if i > 0 && col+1+len(w) > width {
				b.WriteString(strings.TrimRight(line, " ") + "\n")
				line, col = strings.Repeat(" ", indent), indent
			} else if i > 0 {
				line += " "
				col++
			}
			line += w
			col += len(w)
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
