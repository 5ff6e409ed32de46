package site

import (
	htmltemplate "html/template"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/runview"
)

// The run page's two long tables, written here rather than by the template:
// html/template calls its escaper through reflection for every value, and
// these rows are most of a page's values. Every value goes through esc,
// which escapes for element content and double-quoted attributes alike.

var esc = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;", `"`, "&#34;", `'`, "&#39;").Replace

func figureRows(fs []figureView) htmltemplate.HTML {
	var sb strings.Builder
	sb.Grow(len(fs) * 256)
	for _, f := range fs {
		sb.WriteString(`<tr data-metric="` + esc(f.Metric) + `"><td>` + esc(f.Label) + `</td><td class="num">` + esc(f.Recomputed) +
			`</td><td class="num">` + esc(f.Stated) + `</td><td><code>` + esc(f.SourceKey) + `</code></td><td lang="en" class="def">` +
			esc(f.Definition) + "</td></tr>\n")
	}
	return htmltemplate.HTML(sb.String())
}

func provenanceRows(ps []provenanceView) htmltemplate.HTML {
	var sb strings.Builder
	sb.Grow(len(ps) * 160)
	for _, p := range ps {
		sb.WriteString(`<tr data-field="` + esc(p.Field) + `"><td>` + esc(p.Label) + `<br><code>` + esc(p.Field) + `</code></td><td class="value">` +
			esc(p.Value) + `</td><td>` + esc(p.Sources) + "</td></tr>\n")
	}
	return htmltemplate.HTML(sb.String())
}

// runRows are the runs table's rows (the same markup the template would
// write; rows_test.go compares them).
func runRows(rows []runRowView) htmltemplate.HTML {
	var sb strings.Builder
	sb.Grow(len(rows) * 700)
	for _, r := range rows {
		pub := "no"
		if r.Publishable {
			pub = "yes"
		}
		id := esc(r.ID)
		sb.WriteString(`<tr data-id="` + id + `" data-campaign="` + esc(r.Campaign) + `" data-role="` + esc(r.Role) + `" data-model="` + esc(r.Model) +
			`" data-engine="` + esc(r.Engine) + " " + esc(r.Version) + `" data-gpu="` + esc(r.GPU) + `" data-date="` + esc(r.Date) +
			`" data-workload="` + esc(r.Workload) + `" data-requests="` + strconv.FormatInt(r.Requests, 10) + `" data-throughput="` + esc(r.ThroughputSort) +
			`" data-publishable="` + pub + `" data-audit="` + strconv.Itoa(r.Fails) + "." + strconv.Itoa(r.Warns) +
			`"><td><input type="checkbox" class="pick" value="` + id + `" aria-label="` + id + `"></td><td><a href="` + esc(r.Href) + `"><code>` + id +
			`</code></a></td><td>` + esc(r.Campaign) + `</td><td>` + esc(r.Role) + `</td><td>` + esc(r.Model) + `</td><td>` + esc(r.Engine) + " " + esc(r.Version) +
			`</td><td>` + esc(r.GPU) + `</td><td>` + esc(r.Date) + `</td><td>` + esc(r.Workload) + `</td><td class="num">` + esc(r.RequestsText) +
			`</td><td class="num">` + esc(r.ThroughputText) + `</td><td>` + esc(r.PublishableText) + `</td><td class="audit ` + esc(r.AuditClass) + `">` +
			esc(r.AuditText) + "</td></tr>\n")
	}
	return htmltemplate.HTML(sb.String())
}

func findingRows(fs []findingView) htmltemplate.HTML {
	var sb strings.Builder
	for _, f := range fs {
		sb.WriteString(`<tr class="` + esc(f.Severity) + `" data-check="` + esc(f.Check) + `"><td>` + esc(f.Title) + `<br><code>` + esc(f.Check) +
			`</code></td><td>` + esc(f.SeverityText) + `</td><td lang="en">` + esc(f.Message) + "</td></tr>\n")
	}
	return htmltemplate.HTML(sb.String())
}

func historyRows(hs []runview.HistoryRow) htmltemplate.HTML {
	var sb strings.Builder
	for _, h := range hs {
		sb.WriteString(`<tr><td>` + esc(h.At) + `</td><td>` + esc(h.Action) + ` · ` + esc(h.Actor) + ` · benchledger ` + esc(h.ToolVersion) + `</td></tr>`)
	}
	return htmltemplate.HTML(sb.String())
}
