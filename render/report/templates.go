package report

import (
	"fmt"
	htmltemplate "html/template"
	"io/fs"
	texttemplate "text/template"

	"github.com/benchledger/benchledger/templates"
)

// loadTemplates parses the report's templates: the embedded ones, each
// replaced by the file of the same name in dir when dir has one.
func loadTemplates(dir string) (*htmltemplate.Template, *texttemplate.Template, error) {
	return parsePair(templates.Report(dir), templates.HTML, templates.Markdown)
}

// loadAuditTemplates parses the audit page's templates, from the same
// overlay as the report's.
func loadAuditTemplates(dir string) (*htmltemplate.Template, *texttemplate.Template, error) {
	return parsePair(templates.Report(dir), templates.AuditHTML, templates.AuditMarkdown)
}

// parsePair parses a page's HTML template (html/template) and Markdown
// template (text/template, with the Markdown escapers) from fsys. A
// mistake in either is an error naming the file.
func parsePair(fsys fs.FS, htmlName, mdName string) (*htmltemplate.Template, *texttemplate.Template, error) {
	ht, err := htmltemplate.New(htmlName).Option("missingkey=error").ParseFS(fsys, htmlName)
	if err != nil {
		return nil, nil, fmt.Errorf("report: template %s: %w", htmlName, err)
	}
	mt, err := texttemplate.New(mdName).Option("missingkey=error").Funcs(texttemplate.FuncMap{
		"md": mdEscape, "cell": mdCell, "code": mdCode,
	}).ParseFS(fsys, mdName)
	if err != nil {
		return nil, nil, fmt.Errorf("report: template %s: %w", mdName, err)
	}
	return ht, mt, nil
}
