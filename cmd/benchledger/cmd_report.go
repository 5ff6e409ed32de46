package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/render/report"
	"github.com/benchledger/benchledger/spec"
)

func reportCommand() *command {
	c := &command{
		name:  "report",
		args:  "SPEC",
		short: "render a case study as HTML and Markdown in each language",
		long: `Evaluates a case-study spec against the archive and renders it: one self-contained HTML
file (ECharts inlined, opens from disk with no network) and one Markdown file with SVG charts
per language, into --out as <id>.<lang>.html, <id>.<lang>.md and charts/<chart>.<lang>.svg.
Narratives name figures as {{name}} (docs/casestudy.md, "Narrative bindings"); an unknown
name is an error listing the known ones. The same archive and spec give the same bytes.
Prints the written paths.`,
	}
	c.run = func(ctx context.Context, e env, args []string) error {
		fs := newFlags(c, e)
		db := dbFlag(fs, e)
		langs := fs.String("lang", "", "comma-separated languages (en, zh, ja, es-419, es); default: the spec's languages")
		formats := fs.String("format", "html,md", "comma-separated formats: html, md")
		out := fs.String("out", "out", "output directory")
		tmpl := fs.String("templates", "", "directory whose report.html.tmpl / report.md.tmpl replace the embedded templates")
		asOf := fs.String("as-of", "", "judge the age of external references on this date (YYYY-MM-DD); without it no staleness is judged")
		rest, err := parseArgs(fs, args)
		if err != nil {
			return err
		}
		if len(rest) != 1 {
			return usageErrorf("report takes one case-study spec")
		}
		var opt casestudy.Options
		if *asOf != "" {
			d, err := time.Parse("2006-01-02", *asOf)
			if err != nil {
				return usageErrorf("--as-of %q is not a date (YYYY-MM-DD)", *asOf)
			}
			opt.Caveats.Now = d
		}
		ropt := report.Options{Langs: splitList(*langs), Formats: splitList(*formats), Out: *out, Templates: *tmpl}
		for _, f := range ropt.Formats {
			switch f {
			case report.FormatHTML, report.FormatMarkdown:
			case "pdf":
				return report.ErrPDF
			default:
				return usageErrorf("--format %q: known formats are html and md", f)
			}
		}
		s, err := spec.Load(rest[0])
		if err != nil {
			return err
		}
		a, err := openForReading(*db, e)
		if err != nil {
			return err
		}
		defer a.Close()
		res, err := casestudy.Evaluate(ctx, s, a, opt)
		if err != nil {
			return err
		}
		paths, err := report.Render(ctx, res, a, ropt)
		for _, p := range paths {
			fmt.Fprintln(e.stdout, p)
		}
		return err
	}
	return c
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
