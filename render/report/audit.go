package report

import (
	"bytes"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"maps"
	"slices"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/benchledger/benchledger/audit"
	"github.com/benchledger/benchledger/locales"
)

// severities are the audit's severities in the order the page groups
// them.
var severities = []string{audit.Fail, audit.Warn, audit.Info}

// AuditName is the file name, without extension, of a case study's audit
// page in one language: <id>.audit.<lang> (a spec id has no dots, so it
// cannot clash with a report's <id>.<lang>).
func AuditName(id, lang string) string { return id + ".audit." + lang }

// check validates what the templates rely on, so a caller's mistake is an
// error rather than a finding silently left off the page.
func checkAudit(v *audit.Report) error {
	for _, f := range v.Findings {
		if !slices.Contains(severities, f.Severity) {
			return fmt.Errorf("report: audit finding %s: unknown severity %q (known: fail, warn, info)", f.Check, f.Severity)
		}
		if f.Check == "" {
			return errors.New("report: audit finding without a check id")
		}
	}
	return nil
}

type auditCount struct {
	Severity, Text string
	N              int
}

type auditParam struct{ Key, Value string }

type auditItem struct {
	Severity, Check, Title, Run, File, Message string
	// Text is the message in the page's language; Original, when set, is
	// the English message shown beside it.
	Text, Original string
	Params         []auditParam
}

type auditGroup struct {
	Severity, Title string
	Findings        []auditItem
}

type auditCheckRow struct {
	ID, Title, Rule string
	// RuleLang is "en" when Rule is the check's English sentence on a page
	// in another language (a check newer than the catalogue).
	RuleLang   string
	Severities []string
	// Status is the worst severity found, or "pass"; Result says it in
	// words.
	Status, Result string
}

// auditBox is the audit line near the top of the main report.
type auditBox struct {
	Label, Verdict, Counts, Link, Href, HrefMD string
	Failed                                     bool
}

// auditPage is the view model of one language's audit page.
type auditPage struct {
	base                     string
	Lang, Title, CaseTitle   string
	HTMLLang                 string
	L                        map[string]string
	Switcher                 []link
	ReportHref, ReportHrefMD string
	Failed                   bool
	Verdict, FailNote, AsOf  string
	Counts                   []auditCount
	CountsText, Sep          string
	Groups                   []auditGroup
	Checks                   []auditCheckRow
	DigestText               string
	Box                      auditBox
}

// checkTitle is the localised title of a check id; an id the catalogue
// does not know (a check newer than the catalogue) is shown as itself.
func checkTitle(l locales.Locale, id string) string {
	if s, err := l.Message("audit.check." + id); err == nil {
		return s
	}
	return id
}

func shortRun(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// countsText is "0 failures, 27 warnings, 0 notes" in the language.
func countsText(l locales.Locale, counts map[string]int) ([]auditCount, string) {
	var out []auditCount
	var texts []string
	for _, s := range severities {
		t := l.T("audit.count."+s, "count", counts[s])
		out = append(out, auditCount{Severity: s, N: counts[s], Text: t})
		texts = append(texts, t)
	}
	return out, joinList(l, texts)
}

func joinList(l locales.Locale, parts []string) string {
	return strings.Join(parts, l.T("format.list_sep"))
}

// newAuditPage builds the audit page of one language from the report page
// of the same language (title, language links, digest).
func newAuditPage(l locales.Locale, v *audit.Report, id string, p *page) *auditPage {
	tag := l.Tag()
	a := &auditPage{base: AuditName(id, tag), Lang: tag, HTMLLang: p.HTMLLang, CaseTitle: p.Title,
		Title:      l.T("audit.title", "title", p.Title),
		ReportHref: p.base + ".html", ReportHrefMD: p.base + ".md", DigestText: p.DigestText}
	a.L = map[string]string{
		"heading": l.T("audit.heading"), "switcher": l.T("switcher.label"), "back": l.T("audit.back"),
		"original": l.T("audit.original_message"), "message": l.T("audit.field.message"), "checks_run": l.T("audit.checks_run"),
		"checks_note": l.T("audit.checks_note"), "none": l.T("audit.none"), "check": l.T("audit.column.check"),
		"id": l.T("audit.column.id"), "severities": l.T("audit.column.severities"), "result": l.T("audit.column.result"),
		"run": l.T("audit.field.run"), "file": l.T("audit.field.file"), "params": l.T("audit.field.params"),
		"archive": l.T("audit.field.archive"),
	}
	maps.Copy(a.L, l.Punct())
	// The same languages as the report's switcher, so every audit page
	// links the same set whatever --lang rendered.
	for _, s := range p.Switcher {
		a.Switcher = append(a.Switcher, link{Tag: s.Tag, Name: s.Name, Href: AuditName(id, s.Tag) + ".html",
			HrefMD: AuditName(id, s.Tag) + ".md", HTMLLang: s.HTMLLang, Current: s.Current})
	}
	counts := v.Counts()
	a.Counts, a.CountsText = countsText(l, counts)
	a.Sep = l.T("format.list_sep")
	if n := v.FailedChecks(); n > 0 {
		a.Failed = true
		a.Verdict = l.T("audit.verdict.fail", "count", n)
		a.FailNote = l.T("audit.fail_note")
	} else {
		a.Verdict = l.T("audit.verdict.pass")
	}
	if !v.AsOf.IsZero() {
		day := v.AsOf.UTC().Format(time.DateOnly)
		date, err := l.DateString(day)
		if err != nil {
			date = day
		}
		a.AsOf = l.T("audit.as_of", "date", date)
	} else {
		a.AsOf = l.T("audit.as_of_none")
	}
	for _, s := range severities {
		g := auditGroup{Severity: s, Title: l.T("audit.group." + s)}
		for _, f := range v.Findings {
			if f.Severity != s {
				continue
			}
			it := auditItem{Severity: s, Check: f.Check, Title: checkTitle(l, f.Check), Run: shortRun(f.Run), File: f.File, Message: f.Message}
			it.Text, _ = auditMessage(l, f, p.labelOf)
			if l.Tag() != "en" {
				it.Original = f.Message
			}
			for _, k := range slices.Sorted(maps.Keys(f.Params)) {
				it.Params = append(it.Params, auditParam{Key: k, Value: f.Params[k]})
			}
			g.Findings = append(g.Findings, it)
		}
		if len(g.Findings) > 0 {
			a.Groups = append(a.Groups, g)
		}
	}
	// The checks table: every check that ran, then any check id a finding
	// names that the list lacks, so no finding is missing from the table.
	byCheck := map[string]map[string]int{}
	for _, f := range v.Findings {
		if byCheck[f.Check] == nil {
			byCheck[f.Check] = map[string]int{}
		}
		byCheck[f.Check][f.Severity]++
	}
	listed := map[string]bool{}
	rows := slices.Clone(v.Checks)
	for _, c := range v.Checks {
		listed[c.ID] = true
	}
	for _, f := range v.Findings {
		if !listed[f.Check] {
			listed[f.Check] = true
			rows = append(rows, audit.CheckInfo{ID: f.Check})
		}
	}
	for _, c := range rows {
		row := auditCheckRow{ID: c.ID, Title: checkTitle(l, c.ID), Rule: c.Rule, Status: "pass"}
		if r, err := l.Message("audit.rule." + c.ID); err == nil {
			row.Rule = r
		} else if c.Rule != "" && l.Tag() != "en" {
			row.RuleLang = "en"
		}
		for _, s := range c.Severities {
			row.Severities = append(row.Severities, l.T("audit.severity."+s))
		}
		var parts []string
		for _, s := range severities {
			if n := byCheck[c.ID][s]; n > 0 {
				if row.Status == "pass" {
					row.Status = s
				}
				parts = append(parts, l.T("audit.count."+s, "count", n))
			}
		}
		if len(parts) == 0 {
			row.Result = l.T("audit.passed")
		} else {
			row.Result = joinList(l, parts)
		}
		a.Checks = append(a.Checks, row)
	}
	a.Box = auditBox{Label: l.T("audit.label"), Verdict: a.Verdict, Counts: l.T("audit.counts", "counts", a.CountsText), Link: l.T("audit.link"),
		Href: a.base + ".html", HrefMD: a.base + ".md", Failed: a.Failed}
	return a
}

// auditRenderer writes the audit pages of one Render call.
type auditRenderer struct {
	view *audit.Report
	id   string
	html *htmltemplate.Template
	md   *texttemplate.Template
}

func newAuditRenderer(v *audit.Report, id string, dir string) (*auditRenderer, error) {
	if err := checkAudit(v); err != nil {
		return nil, err
	}
	ht, mt, err := loadAuditTemplates(dir)
	if err != nil {
		return nil, err
	}
	return &auditRenderer{view: v, id: id, html: ht, md: mt}, nil
}

// page builds the audit page of a report page and links the report to it.
func (r *auditRenderer) page(p *page) *auditPage {
	a := newAuditPage(locales.MustMatch(p.Lang), r.view, r.id, p)
	p.Audit = &a.Box
	return a
}

func (r *auditRenderer) executeHTML(a *auditPage) ([]byte, error) {
	var buf bytes.Buffer
	if err := r.html.Execute(&buf, a); err != nil {
		return nil, fmt.Errorf("report: %s audit html: %w", a.Lang, err)
	}
	return buf.Bytes(), nil
}

func (r *auditRenderer) executeMD(a *auditPage) ([]byte, error) {
	var buf bytes.Buffer
	if err := r.md.Execute(&buf, a); err != nil {
		return nil, fmt.Errorf("report: %s audit markdown: %w", a.Lang, err)
	}
	return buf.Bytes(), nil
}
