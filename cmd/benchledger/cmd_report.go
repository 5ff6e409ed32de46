package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/benchledger/benchledger/audit"
	"github.com/benchledger/benchledger/internal/browser"
	"github.com/benchledger/benchledger/publish"
	"github.com/benchledger/benchledger/render/report"
	"github.com/benchledger/benchledger/store"
)

func reportCommand() *command {
	return newCommand(command{
		name:  "report",
		args:  "SPEC",
		short: "render a case study as HTML and Markdown in each language",
		long: `Evaluates a case-study spec against the archive and renders it: one self-contained HTML
file (ECharts inlined, opens from disk with no network) and one Markdown file with SVG charts
per language, into --out as <id>.<lang>.html, <id>.<lang>.md and charts/<chart>.<lang>.svg.
Narratives name figures as {{name}} (docs/casestudy.md, "Narrative bindings"); an unknown
name is an error listing the known ones. The same archive and spec give the same bytes.
Prints the written paths.

A report is a draft unless --publish is given: it records nothing (the archive may be
read-only) and the page says it is a draft of the latest recorded version, so wording can be
tuned as often as needed. --publish records the rendering as a version of the case study
before rendering it (docs/casestudy.md, "Versions and errata"): the first is version 1;
publishing again when a figure's displayed value, a title, summary or narrative, the runs or
the caveats changed records the next version with its errata (what changed, old and new
value, when), and the report shows "Version N, recorded DATE" and its errata list. Otherwise
nothing is written and the page keeps its version. History is append-only.

The case study is also audited (the checks of benchledger audit SPEC, with the same
--as-of; without it the age of external references is not judged) and each language gets
an audit page beside its report, <id>.audit.<lang>.html and .md, which the report links
near its top. A failed check does not change the exit status: the audit page and the
report's audit line say so. --no-audit skips the audit and its pages.`,
	}, runReport)
}

// reportOptions are report's flags.
type reportOptions struct {
	redact                             redactOptions
	allowDirs                          runList
	db, langs, formats, out, templates string
	asOf                               asOfDate
	publish, draft, noAudit            bool
}

func (o *reportOptions) addFlags(fs *flag.FlagSet, e env) {
	o.redact.addFlags(fs)
	allowDirFlag(fs, &o.allowDirs)
	dbFlag(fs, e, &o.db)
	fs.StringVar(&o.langs, "lang", "", "comma-separated languages (en, zh, ja, es-419, es); default: the spec's languages")
	fs.StringVar(&o.formats, "format", "html,md", "comma-separated formats: html, md, pdf (printed from the HTML by headless Chromium)")
	fs.StringVar(&o.out, "out", "out", "output directory")
	fs.StringVar(&o.templates, "templates", "", "directory whose report.html.tmpl / report.md.tmpl / audit.html.tmpl / audit.md.tmpl replace the embedded templates")
	asOfFlag(fs, &o.asOf, false)
	fs.BoolVar(&o.publish, "publish", false, "record this rendering as a version of the case study, with its errata (the archive must be writable)")
	fs.BoolVar(&o.draft, "draft", false, "render a draft, recording nothing (the default; kept for scripts that say so)")
	fs.BoolVar(&o.noAudit, "no-audit", false, "do not audit the case study: no audit pages, no audit line in the report")
}

func runReport(ctx context.Context, e env, opts reportOptions, args []string) error {
	if err := opts.redact.check(); err != nil {
		return err
	}
	if len(args) != 1 {
		return usageErrorf("report takes one case-study spec")
	}
	if opts.publish && opts.draft {
		return usageErrorf("--publish and --draft: choose one (a report is a draft unless --publish is given)")
	}
	ropt := report.Options{Langs: splitList(opts.langs), Out: opts.out, Templates: opts.templates}
	wantPDF, wantHTML := false, false
	for _, f := range splitList(opts.formats) {
		switch f {
		case report.FormatHTML, report.FormatMarkdown:
			ropt.Formats = append(ropt.Formats, f)
			wantHTML = wantHTML || f == report.FormatHTML
		case formatPDF:
			wantPDF = true
		default:
			return usageErrorf("--format %q: known formats are html, md and pdf", f)
		}
	}
	if wantPDF {
		// The PDF is the HTML report printed by headless Chromium, so
		// say at once when there is none rather than after rendering.
		if _, ok := browser.Available(); !ok {
			return fmt.Errorf("--format pdf: %w", browser.ErrNoChromium)
		}
		if !wantHTML {
			ropt.Formats = append(ropt.Formats, report.FormatHTML)
		}
	}
	open := func() (*store.Archive, error) { return openForReading(opts.db, e) }
	if opts.publish {
		open = func() (*store.Archive, error) { return openForPublishing(opts.db, e) }
	}
	res, a, err := evaluateSpecIn(ctx, args[0], opts.asOf, opts.allowDirs, open)
	if err != nil {
		return err
	}
	defer a.Close()
	// Audit before a version is recorded, so that an audit that cannot
	// run leaves no version behind without its report.
	if !opts.noAudit {
		if ropt.Audit, err = audit.CaseStudyReport(ctx, a, res, opts.asOf.Day()); err != nil {
			return err
		}
		if ropt.Audit == nil {
			fmt.Fprintln(e.stderr, "note: the case study uses no runs: no audit page")
		}
	}
	publishing := opts.publish
	if !res.Publishable() {
		// The one publishable rule (figures.Blockers): a run that breaks
		// it never stands behind a recorded version.
		for _, id := range slices.Sorted(maps.Keys(res.Unpublishable)) {
			fmt.Fprintf(e.stderr, "warning: run %s is not publishable (missing %s): the report is rendered as a draft and no version is recorded\n",
				id, strings.Join(res.Unpublishable[id], ", "))
		}
		publishing = false
	}
	if publishing {
		ropt.Publication, err = recordPublication(ctx, a, res)
	} else {
		// The latest recorded version, if any, marked as a draft.
		ropt.Publication, err = publish.Draft(a, res.Spec.ID)
	}
	if err != nil {
		return err
	}
	red, err := opts.redact.redactor(a)
	if err != nil {
		return err
	}
	if red != nil {
		ropt.Redact = red
	}
	paths, err := report.Render(ctx, res, a, ropt)
	if err != nil {
		return err
	}
	// Every page is printed in one browser before anything is listed.
	var jobs []browser.PDFJob
	for _, p := range paths {
		if strings.HasSuffix(p, ".html") && wantPDF {
			jobs = append(jobs, browser.PDFJob{HTML: p, PDF: strings.TrimSuffix(p, ".html") + ".pdf"})
		}
	}
	if err := browser.PrintPDFs(ctx, jobs...); err != nil {
		return fmt.Errorf("printing the report: %w", err)
	}
	for _, p := range paths {
		if !strings.HasSuffix(p, ".html") || !wantPDF {
			fmt.Fprintln(e.stdout, p)
			continue
		}
		if wantHTML {
			fmt.Fprintln(e.stdout, p)
		} else if err := os.Remove(p); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, strings.TrimSuffix(p, ".html")+".pdf")
	}
	// The report is still the product (exit 0); a failed check is said
	// on stderr so that it is not only in a file nobody opens.
	if ropt.Audit != nil {
		if n := ropt.Audit.Counts()[audit.Fail]; n > 0 {
			fmt.Fprintf(e.stderr, "warning: the audit of the case study found %d failures; its audit pages list them\n", n)
		}
	}
	return nil
}

// formatPDF is the HTML report printed to PDF by headless Chromium.
const formatPDF = "pdf"

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
