package main

import (
	"os"

	"context"
	"fmt"
	"github.com/benchledger/benchledger/internal/browser"
	"strings"

	"github.com/benchledger/benchledger/render/report"
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
		formats := fs.String("format", "html,md", "comma-separated formats: html, md, pdf (printed from the HTML by headless Chromium)")
		out := fs.String("out", "out", "output directory")
		tmpl := fs.String("templates", "", "directory whose report.html.tmpl / report.md.tmpl replace the embedded templates")
		asOf := asOfFlag(fs)
		rest, err := parseArgs(fs, args)
		if err != nil {
			return err
		}
		if len(rest) != 1 {
			return usageErrorf("report takes one case-study spec")
		}
		ropt := report.Options{Langs: splitList(*langs), Out: *out, Templates: *tmpl}
		wantPDF, wantHTML := false, false
		for _, f := range splitList(*formats) {
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
		res, a, err := evaluateSpec(ctx, e, *db, rest[0], *asOf)
		if err != nil {
			return err
		}
		defer a.Close()
		paths, err := report.Render(ctx, res, a, ropt)
		if err != nil {
			return err
		}
		for _, p := range paths {
			if !strings.HasSuffix(p, ".html") || !wantPDF {
				fmt.Fprintln(e.stdout, p)
				continue
			}
			pdf := strings.TrimSuffix(p, ".html") + ".pdf"
			if err := browser.PrintPDF(ctx, p, pdf); err != nil {
				return fmt.Errorf("printing %s: %w", p, err)
			}
			if wantHTML {
				fmt.Fprintln(e.stdout, p)
			} else if err := os.Remove(p); err != nil {
				return err
			}
			fmt.Fprintln(e.stdout, pdf)
		}
		return nil
	}
	return c
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
