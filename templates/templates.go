// Package templates holds the default report templates, embedded so a
// binary needs no files at run time: report.html.tmpl (html/template, one
// self-contained page per language) and report.md.tmpl (text/template,
// GitHub-flavoured Markdown with SVG charts beside it), and the audit page
// of a case study, audit.html.tmpl and audit.md.tmpl. Package
// render/report executes them on its view model; a directory of files with
// the same names overrides them (report --templates DIR).
package templates

import "embed"

// FS holds the default templates.
//
//go:embed *.tmpl
var FS embed.FS

// Names of the templates.
const (
	HTML     = "report.html.tmpl"
	Markdown = "report.md.tmpl"
	// The audit page of a case study, beside its report.
	AuditHTML     = "audit.html.tmpl"
	AuditMarkdown = "audit.md.tmpl"
)

// Site holds the archive browser's templates (package render/site): a
// layout shared by every page, one template per kind of page, and the
// stylesheet and script every page links. site --templates DIR replaces
// any of them by a file of the same name.
//
//go:embed site
var Site embed.FS
