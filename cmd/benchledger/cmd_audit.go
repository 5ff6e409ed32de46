package main

import (
	"context"
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

// runList is a repeatable string flag (--run ID --run ID).
type runList []string

func (r *runList) String() string     { return strings.Join(*r, ",") }
func (r *runList) Set(v string) error { *r = append(*r, v); return nil }

func auditCommand() *command {
	c := &command{
		name:  "audit",
		args:  "[SPEC...]",
		short: "check the archive and the runs behind case studies: integrity, recomputation, plausibility",
		long: `Audits runs the way a reviewer would before a number is published. With case-study
specs it audits the runs each spec uses, and the numbers in the specs' texts and their
declared claims; with --run, those runs; with neither, every run in the archive. SQLite's
integrity_check and foreign_key_check run on the archive file in every case.

Checks (severity; docs/audit.md has the exact rules):
  integrity.sqlite              fail  PRAGMA integrity_check reports a problem
  integrity.foreign_keys        fail  PRAGMA foreign_key_check reports a dangling row
  integrity.blob_hash           fail  a raw file's bytes no longer match their SHA-256
  integrity.records             fail  the stored records differ from the raw file parsed again
  recompute.stated              fail  a figure the tool stated disagrees with its records
  plausibility.tpot             fail  stated mean TPOT != mean of (E2E - TTFT) / (output tokens - 1)
  plausibility.duration         fail  stated duration shorter than the records' window (> 1 ms),
                                      or output_throughput != total_output_tokens / duration
  plausibility.peak_throughput  fail  stated peak output throughput below the mean, or above
                                      every output token of the run
  plausibility.zero_series      fail  a series is all zero although requests completed
  plausibility.nonfinite        fail  a stated figure is NaN or infinite
  plausibility.success_rate     warn  under 99% of requests completed (fail under 50%)
  plausibility.offered_rate     warn  under 80% of a finite offered request rate achieved
  plausibility.non_streamed     warn  TTFT equals latency for most multi-token requests
  plausibility.output_length    warn  outputs shorter than a fixed requested length
  provenance.engine             fail  launch command or image names another engine or version
                                      than the run's provenance; a title or summary names an
                                      engine or version no run used (warn in a narrative)
  provenance.incomplete         info  the run cannot be published: provenance missing
  comparison.confounded         fail  a comparison changed a field neither intended nor
                                      disclosed (warn when disclosed)
  comparison.load_bound         warn  throughput compared at a fixed offered load both runs met
  reference.not_visible         warn  an external reference was gone at its last re-check
  reference.stale               warn  an external reference not re-checked for --max-reference-age
  claims.stated                 fail  a claim the spec declares names no figure, or disagrees
                                      with the computed figure at its displayed precision
  claims.text                   fail  a number with %, x or a unit in a text matches no figure
                                      of that kind at its precision
  claims.unbound                warn  a number in a title, summary or narrative is not a
                                      {{name}} binding

Output is grouped by severity (fail, warn, info), each line with its check id and run.
--json prints one document {schema_version, findings, counts}. The exit status is 0 when
no check fails and 3 when one does; warnings and notes do not change it.`,
	}
	c.run = func(ctx context.Context, e env, args []string) error {
		fs := newFlags(c, e)
		db := dbFlag(fs, e)
		asJSON := fs.Bool("json", false, "print one JSON document")
		asOf := fs.String("as-of", "", "judge dates (reference age, caveats) as of this day, YYYY-MM-DD; default today")
		maxAge := fs.Int("max-reference-age", int(audit.DefaultMaxReferenceAge/(24*time.Hour)), "days since an external reference's last re-check before reference.stale warns")
		var runs runList
		fs.Var(&runs, "run", "audit this run (id or unique prefix); repeatable")
		specs, err := parseArgs(fs, args)
		if err != nil {
			return err
		}
		a, err := openForReading(*db, e)
		if err != nil {
			return err
		}
		defer a.Close()
		opt := audit.Options{MaxReferenceAge: time.Duration(*maxAge) * 24 * time.Hour}
		if *asOf != "" {
			d, err := time.Parse(time.DateOnly, *asOf)
			if err != nil {
				return usageErrorf("--as-of %q is not a date (YYYY-MM-DD)", *asOf)
			}
			opt.AsOf = d
		}
		if *maxAge < 1 {
			return usageErrorf("--max-reference-age %d: give a number of days, at least 1", *maxAge)
		}
		var findings []audit.Finding
		for _, p := range specs {
			s, err := spec.Load(p)
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
		if len(runs) > 0 || len(specs) == 0 {
			rf, err := audit.Run(ctx, a, runs)
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
		if *asJSON {
			if err := writeJSON(e.stdout, map[string]any{"schema_version": auditSchemaVersion, "findings": findings, "counts": counts}); err != nil {
				return err
			}
		} else {
			writeFindings(e.stdout, findings, counts)
		}
		if audit.Failed(findings) {
			return errProblems
		}
		return nil
	}
	return c
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
