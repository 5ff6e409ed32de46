package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/benchledger/benchledger/audit"
	"github.com/benchledger/benchledger/publish"
	"github.com/benchledger/benchledger/render/site"
	"github.com/benchledger/benchledger/store"
)

func siteCommand() *command {
	return newCommand(command{
		name:  "site",
		args:  "--out DIR [SPEC...]",
		short: "write a static, multilingual site of the whole archive (opens from disk)",
		long: `Writes the archive browser into DIR: an index of campaigns and case studies, a table
of every run, one line each, listed by date then role (group, sweep value, replica,
concurrency or rate, output throughput, median latency; filter by campaign, group,
model, engine and version, GPU, date, workload, role, publishable; sort by any column;
choose the columns; tick two runs to compare them), a page per run (provenance, summary
figures with their definitions naming the client that produced the run, completion,
latency distribution and timeline charts, caveats, audit findings, the raw file's
SHA-256 and its original bytes to download), a page per case study (its reports in every
language, versions and errata), a page per comparison a case study names (what changed
and what was held fixed, every figure with its change and whether it is better or worse,
the latency distributions of both runs), the diff of any two runs, and the trends of
configurations run on several dates or engine versions (a run outside the range of the
runs before it is flagged). Every page is in each --lang language with a switch between
them. The site needs no server and no network: open
DIR/index.html from disk or put DIR on any file server.

Each SPEC (a case-study spec, as for report) is evaluated and audited, and its reports
are rendered into DIR/reports/<id>/; the site records nothing in the archive (a report
that differs from the latest recorded version is marked as a draft). Case studies
recorded in the archive without a SPEC here get a page with their versions and errata.
--no-audit skips the case studies' audit: their reports then have no audit pages and no
audit line (the runs' pages keep their own findings, which need no raw file read again).

A rebuild is incremental: DIR/.benchledger-site.json records what each run's pages were
made from, so only the pages of new or changed runs are made again, and a file is
rewritten only when its bytes change. --force makes everything again.`,
	}, runSite)
}

// siteOptions are site's flags.
type siteOptions struct {
	redact                    redactOptions
	allowDirs                 runList
	db, out, langs, templates string
	asOf                      asOfDate
	force, quiet, raw         bool
	noAudit                   bool
}

func (o *siteOptions) addFlags(fs *flag.FlagSet, e env) {
	o.redact.addFlags(fs)
	allowDirFlag(fs, &o.allowDirs)
	dbFlag(fs, e, &o.db)
	fs.StringVar(&o.out, "out", "", "the site's folder (required)")
	fs.StringVar(&o.langs, "lang", "en,zh,ja,es-419", "comma-separated languages (en, zh, ja, es-419, es)")
	fs.StringVar(&o.templates, "templates", "", "folder whose files replace the embedded site templates of the same name (templates/site)")
	asOfFlag(fs, &o.asOf, false)
	fs.BoolVar(&o.force, "force", false, "make every page again, ignoring the previous build's record")
	fs.BoolVar(&o.quiet, "q", false, "print only the path of the site's index")
	fs.BoolVar(&o.noAudit, "no-audit", false, "do not audit the case studies: their reports have no audit pages")
	fs.BoolVar(&o.raw, "raw", true, "copy each raw file's original bytes into the site for download (-raw=false: digests only)")
}

func runSite(ctx context.Context, e env, opts siteOptions, specs []string) error {
	if err := opts.redact.check(); err != nil {
		return err
	}
	if opts.out == "" {
		return usageErrorf("site needs --out DIR")
	}
	a, err := openForReading(opts.db, e)
	if err != nil {
		return err
	}
	defer a.Close()
	opt := site.Options{Out: opts.out, Langs: splitList(opts.langs), Templates: opts.templates, Force: opts.force, NoRaw: !opts.raw, ToolVersion: toolVersion()}
	if e.gc != nil {
		opt.GC = e.gc.site
	}
	for _, specPath := range specs {
		res, _, err := evaluateSpecIn(ctx, specPath, opts.asOf, opts.allowDirs, func() (*store.Archive, error) { return a, nil })
		if err != nil {
			return fmt.Errorf("%s: %w", specPath, err)
		}
		sc := site.Case{Result: res}
		if !opts.noAudit {
			if sc.Audit, err = audit.CaseStudyReport(ctx, a, res, opts.asOf.Day()); err != nil {
				return fmt.Errorf("%s: %w", specPath, err)
			}
		}
		if sc.Publication, err = publish.Current(a, res); err != nil {
			return fmt.Errorf("%s: %w", specPath, err)
		}
		opt.Cases = append(opt.Cases, sc)
	}
	prog := newProgress(e.stderr, !opts.quiet)
	opt.Progress = func(done, total int) { prog.status(fmt.Sprintf("site: %d/%d runs", done, total)) }
	red, err := opts.redact.redactor(a)
	if err != nil {
		return err
	}
	if red != nil {
		opt.Redact = red
		if !opt.NoRaw {
			// Raw bytes are evidence and are never rewritten, so a
			// redacted site cannot carry them.
			opt.NoRaw = true
			fmt.Fprintln(e.stderr, "note: --redact leaves the raw files out of the site (their bytes are never rewritten)")
		}
	}
	st, err := site.Build(ctx, a, opt)
	prog.done()
	if err != nil {
		return err
	}
	if st.Distrusted != "" {
		fmt.Fprintf(e.stderr, "site: warning: %s\n", st.Distrusted)
	}
	if !opts.quiet {
		fmt.Fprintf(e.stderr, "site: %d runs (%d made again), %d files written, %d unchanged, %d removed\n",
			st.Runs, st.RunsRebuilt, st.Written, st.Unchanged, st.Removed)
	}
	fmt.Fprintln(e.stdout, st.Index)
	return nil
}
