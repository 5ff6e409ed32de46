package site

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/benchledger/benchledger/internal/csp"
	"github.com/benchledger/benchledger/internal/escape"
)

// A run page written in Go: the bytes layout.html.tmpl with run.html.tmpl
// write for the page, without html/template's reflection and contextual
// escaper per value (a tenth of a full build's time for 10,000 runs). It
// is used only when the two templates are the ones it was written from
// (runTemplatesDigest); a site built with --templates that replaces
// either, or a page with a value the writer does not know how to escape
// for its place (a link that is not a plain relative path), is made by
// the template. runhtml_test.go compares the two on every branch of the
// template, with hostile text in every value.

// runTemplatesDigest is the SHA-256 of the layout and run templates
// writeRunHTML writes: runTemplatesSum of the embedded files when it was
// written. A change to either template turns the writer off (and fails
// TestRunHTMLForTheEmbeddedTemplates) until the writer follows it.
const runTemplatesDigest = "eee56be59212fc47eb8851dfcfe1511599f311bb70f50155b7d955303dd50421"

// sitePolicy is the Content-Security-Policy element of a site page without
// an inline script.
var sitePolicy = csp.NoInlineScripts(csp.Site)

// runTemplatesSum is the digest of a layout and a run template.
func runTemplatesSum(layout, run string) string {
	h := sha256.New()
	h.Write([]byte(layout))
	h.Write([]byte{0})
	h.Write([]byte(run))
	return hex.EncodeToString(h.Sum(nil))
}

// runLabels are the labels a run page names, escaped as parse puts them
// into the template: escape.HTML with { as &#123;.
var runLabels = []string{"title", "nav_home", "nav_runs", "nav_diff", "nav_trends", "nav_language",
	"run_overview", "run_files", "run_file", "run_digest_note", "run_completion", "run_figures", "run_no_records",
	"col_metric", "col_recomputed", "col_source_key", "col_definition", "run_charts", "run_caveats", "run_no_caveats",
	"run_audit", "col_check", "col_severity", "col_finding", "run_audit_clean", "run_comparisons", "run_provenance",
	"run_provenance_note", "col_field", "col_value", "col_source", "run_history", "col_when", "col_action"}

// labelText is a label as parse writes it into a template's source.
func labelText(s string) string { return strings.ReplaceAll(escape.HTML(s), "{", "&#123;") }

// escapedLabels are a language's run labels (labels, of the language
// tagged lang) as labelText writes them, made once per language and build;
// nil when one is missing (the template then reports it).
func (b *builder) escapedLabels(lang string, labels map[string]string) map[string]string {
	if v, ok := b.runLabelCache.Load(lang); ok {
		m, _ := v.(map[string]string)
		return m
	}
	m := make(map[string]string, len(runLabels))
	for _, k := range runLabels {
		text, ok := labels[k]
		if !ok {
			m = nil
			break
		}
		m[k] = labelText(text)
	}
	v, _ := b.runLabelCache.LoadOrStore(lang, m)
	m, _ = v.(map[string]string)
	return m
}

// goWritable says whether writeRunHTML writes p as the template would:
// the page's links up are plain relative paths (what parse expands in
// place), and so is every comparison link (the template's URL escaping
// leaves such a path as it is).
func goWritable(p *runPageView) bool {
	if !safeToken.MatchString(p.P.Root) || !safeToken.MatchString(p.P.Home) || !safeToken.MatchString(p.P.Lang) {
		return false
	}
	for _, l := range p.Links {
		if !safeToken.MatchString(l.Href) {
			return false
		}
	}
	return true
}

// writeRunHTML writes the run page p with the escaped labels L
// (escapedLabels) into buf: its parts straight from the view
// (templateParts makes their markup for a template).
func writeRunHTML(buf *bytes.Buffer, L map[string]string, p *runPageView) {
	P := p.P
	h := htmlBuilder{buf}
	// Closures called where they are, not method values: the compiler
	// inlines them and sees that m's parts do not escape (through a method
	// value each call's list of parts was an allocation).
	m := func(parts ...string) { h.m(parts...) }
	t := func(s string) { h.t(s) }
	m("<!DOCTYPE html>\n<html lang=\"")
	t(P.HTMLLang)
	// The page's Content-Security-Policy, as csp.ApplyBuffer would insert
	// it: the page has no inline script (every script it writes has a src
	// or is a JSON data block, and every value is escaped), so it is the
	// policy of a page without one, and writeRunFile finds it at the top.
	m("\">\n<head>\n<meta charset=\"utf-8\">", sitePolicy, "\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"generator\" content=\"benchledger\">\n<title>")
	t(P.Title)
	m(" · ", L["title"], "</title>\n<link rel=\"stylesheet\" href=\"", P.Root, "assets/site.css\">\n</head>\n<body>\n<header class=\"top\">\n<nav class=\"main\"><a href=\"",
		P.Home, "index.html\">", L["nav_home"], "</a> <a href=\"", P.Home, "runs.html\">", L["nav_runs"], "</a> <a href=\"",
		P.Home, "diff.html\">", L["nav_diff"], "</a> <a href=\"", P.Home, "trends.html\">", L["nav_trends"], "</a></nav>\n<nav class=\"langs\" aria-label=\"",
		L["nav_language"], "\">", string(P.LangNav), "</nav>\n</header>\n<main>\n")

	// run.html.tmpl's content.
	m("\n<h1>")
	t(P.Title)
	m("</h1>\n<p class=\"sub\">")
	t(p.Subtitle)
	m("</p>\n<h2>", L["run_overview"], "</h2>\n<dl class=\"kv\">\n")
	writeOverviewRows(h, p)
	m("</dl>\n<h2>")
	if len(p.Files) > 1 {
		m(L["run_files"])
	} else {
		m(L["run_file"])
	}
	m("</h2>\n<ul class=\"files\">\n")
	writeFileItems(h, p)
	m("</ul>\n<p class=\"note\">", L["run_digest_note"], "</p>\n<h2>", L["run_completion"],
		"</h2>\n<p class=\"completion\">")
	t(p.Completion)
	m("</p>\n<h2>", L["run_figures"], "</h2>\n")
	if p.HasRecords {
		m("<p class=\"note\">")
		t(p.FiguresNote)
		m("</p>")
	} else {
		m("<p class=\"note\">", L["run_no_records"], "</p>")
	}
	m("\n<table class=\"figures\">\n<thead><tr><th>", L["col_metric"], "</th><th>", L["col_recomputed"], "</th><th>")
	t(p.StatedBy)
	m("</th><th>", L["col_source_key"], "</th><th>", L["col_definition"], "</th></tr></thead>\n<tbody>")
	writeFigureRows(h, p.Figures)
	m("</tbody></table>\n")
	if p.Checks != "" {
		m("<p>")
		t(p.Checks)
		m("</p>")
	}
	m("\n")
	if len(p.Disagree) > 0 {
		m("<ul class=\"disagree\">")
		for _, d := range p.Disagree {
			m("<li lang=\"en\">")
			t(d)
			m("</li>")
		}
		m("</ul>")
	}
	m("\n")
	if len(p.Charts) > 0 {
		m("<h2>", L["run_charts"], "</h2>\n")
		writeChartFigures(h, p.Charts)
	}
	m("\n<h2>", L["run_caveats"], "</h2>\n")
	if len(p.Caveats) > 0 {
		m("<ul class=\"caveats\">")
		writeCaveatItems(h, p.Caveats)
		m("</ul>")
	} else {
		m("<p>", L["run_no_caveats"], "</p>")
	}
	m("\n<h2>", L["run_audit"], "</h2>\n<p class=\"note\">", string(p.AuditScope), "</p>\n")
	if len(p.Findings) > 0 {
		m("<table class=\"findings\">\n<thead><tr><th>", L["col_check"], "</th><th>", L["col_severity"], "</th><th>", L["col_finding"],
			"</th></tr></thead>\n<tbody>")
		writeFindingRows(h, p.Findings)
		m("</tbody></table>")
	} else {
		m("<p class=\"audit-clean\">", L["run_audit_clean"], "</p>")
	}
	m("\n")
	if len(p.Links) > 0 {
		m("<h2>", L["run_comparisons"], "</h2><ul>")
		for _, l := range p.Links {
			m("<li><a href=\"", l.Href, "\">")
			t(l.Text)
			m("</a></li>")
		}
		m("</ul>")
	}
	m("\n<h2>", L["run_provenance"], "</h2>\n<p class=\"note\">", L["run_provenance_note"], "</p>\n<table class=\"provenance\">\n<thead><tr><th>",
		L["col_field"], "</th><th>", L["col_value"], "</th><th>", L["col_source"], "</th></tr></thead>\n<tbody>")
	writeProvenanceRows(h, p.Provenance)
	m("</tbody></table>\n")
	if len(p.History) > 0 {
		m("<h2>", L["run_history"], "</h2>\n<table class=\"history\"><thead><tr><th>", L["col_when"], "</th><th>", L["col_action"],
			"</th></tr></thead>\n<tbody>")
		writeHistoryRows(h, p.History)
		m("</tbody></table>")
	}
	m("\n")

	// The layout's end, with run.html.tmpl's scripts.
	m("\n</main>\n<footer>", labelText(P.Footer), "</footer>\n")
	if len(p.Charts) > 0 {
		m("<script src=\"", P.Root, "assets/echarts.min.js\"></script>")
	}
	m("<script src=\"", P.Root, "assets/site.js\"></script>\n</body>\n</html>\n")
}
