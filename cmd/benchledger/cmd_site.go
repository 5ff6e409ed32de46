package main

import (
	"context"
	"fmt"

	"github.com/benchledger/benchledger/publish"
	"github.com/benchledger/benchledger/render/site"
	"github.com/benchledger/benchledger/store"
)

func siteCommand() *command {
	c := &command{
		name:  "site",
		args:  "--out DIR [SPEC...]",
		short: "write a static, multilingual site of the whole archive (opens from disk)",
		long: `Writes the archive browser into DIR: an index of campaigns and case studies, a table
of every run (filter by model, engine and version, GPU, date, workload, role,
publishable; sort by any column; tick two runs to compare them), a page per run
(provenance, summary figures with their definitions, completion, latency distribution
and timeline charts, caveats, audit findings, the raw file's SHA-256 and its original
bytes to download), a page per case study (its reports in every language, versions and
errata) and a page per comparison a case study names. Every page is in each --lang
language with a switch between them. The site needs no server and no network: open
DIR/index.html from disk or put DIR on any file server.

Each SPEC (a case-study spec, as for report) is evaluated and audited, and its reports
are rendered into DIR/reports/<id>/; the site records nothing in the archive (a report
that differs from the latest recorded version is marked as a draft). Case studies
recorded in the archive without a SPEC here get a page with their versions and errata.

A rebuild is incremental: DIR/.benchledger-site.json records what each run's pages were
made from, so only the pages of new or changed runs are made again, and a file is
rewritten only when its bytes change. --force makes everything again.`,
	}
	c.run = func(ctx context.Context, e env, args []string) error {
		fs := newFlags(c, e)
		db := dbFlag(fs, e)
		out := fs.String("out", "", "the site's folder (required)")
		langs := fs.String("lang", "en,zh,ja,es-419", "comma-separated languages (en, zh, ja, es-419, es)")
		tmpl := fs.String("templates", "", "folder whose files replace the embedded site templates of the same name (templates/site)")
		asOf := asOfFlag(fs)
		force := fs.Bool("force", false, "make every page again, ignoring the previous build's record")
		quiet := fs.Bool("q", false, "print only the path of the site's index")
		raw := fs.Bool("raw", true, "copy each raw file's original bytes into the site for download (-raw=false: digests only)")
		rest, err := parseArgs(fs, args)
		if err != nil {
			return err
		}
		if *out == "" {
			return usageErrorf("site needs --out DIR")
		}
		a, err := openForReading(*db, e)
		if err != nil {
			return err
		}
		defer a.Close()
		opt := site.Options{Out: *out, Langs: splitList(*langs), Templates: *tmpl, Force: *force, NoRaw: !*raw, ToolVersion: toolVersion()}
		for _, specPath := range rest {
			res, _, err := evaluateSpecIn(ctx, specPath, *asOf, func() (*store.Archive, error) { return a, nil })
			if err != nil {
				return fmt.Errorf("%s: %w", specPath, err)
			}
			sc := site.Case{Result: res}
			if sc.Audit, err = reportAudit(ctx, a, res, *asOf); err != nil {
				return fmt.Errorf("%s: %w", specPath, err)
			}
			if sc.Publication, err = publish.Current(a, res); err != nil {
				return fmt.Errorf("%s: %w", specPath, err)
			}
			opt.Cases = append(opt.Cases, sc)
		}
		prog := newProgress(e.stderr, !*quiet)
		opt.Progress = func(done, total int) { prog.status(fmt.Sprintf("site: %d/%d runs", done, total)) }
		st, err := site.Build(ctx, a, opt)
		prog.done()
		if err != nil {
			return err
		}
		if !*quiet {
			fmt.Fprintf(e.stderr, "site: %d runs (%d made again), %d files written, %d unchanged, %d removed\n",
				st.Runs, st.RunsRebuilt, st.Written, st.Unchanged, st.Removed)
		}
		fmt.Fprintln(e.stdout, st.Index)
		return nil
	}
	return c
}
