package site

import (
	"bytes"
	htmltemplate "html/template"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/internal/escape"
	"github.com/benchledger/benchledger/runview"
	"github.com/benchledger/benchledger/store"
)

// The run page's repetitive parts, written here rather than by the
// template: html/template calls its escaper through reflection for every
// value, and these parts hold most of a page's values. Every value goes
// through esc (package escape), which escapes for element content and
// quoted attributes alike, with the bytes html/template writes
// (rows_test.go compares them). Links are made of run ids, language tags,
// SHA-256s and safeName file names, which need no URL escaping; the one
// link that carries archive text (a campaign) escapes it with
// escape.URLComponent, as html/template does.

// esc is escape.HTML under a short name: the rows call it for every value.
var esc = escape.HTML

// campaignLink is the runs page filtered to a campaign, from a language's
// folder: the index's campaign list and a run page's overview link to it
// (with the bytes a template's runs.html#campaign={{.}} writes).
func campaignLink(name string) string { return "runs.html#campaign=" + escape.URLComponent(name) }

// htmlBuilder writes markup and escaped text into one buffer, with no
// string made per value: a buffer of its own (newHTML), or the page's
// when writeRunHTML writes a part straight into it.
type htmlBuilder struct{ *bytes.Buffer }

// newHTML is an htmlBuilder with room for n bytes.
func newHTML(n int) htmlBuilder {
	h := htmlBuilder{new(bytes.Buffer)}
	h.Grow(n)
	return h
}

// m writes markup as it is.
func (h htmlBuilder) m(parts ...string) {
	for _, p := range parts {
		h.WriteString(p)
	}
}

// t writes text, escaped.
func (h htmlBuilder) t(s string) { escape.WriteHTMLTo(h.Buffer, s) }

func (h htmlBuilder) html() htmltemplate.HTML { return htmltemplate.HTML(h.String()) }

func figureRows(fs []figureView) htmltemplate.HTML {
	n := 0
	for _, f := range fs {
		n += 140 + len(f.Metric) + len(f.Label) + len(f.Recomputed) + len(f.Stated) + len(f.SourceKey) + len(f.Definition)
	}
	h := newHTML(n + n/16) // the markup and the values, with room for escapes: no regrowing
	writeFigureRows(h, fs)
	return h.html()
}

// writeFigureRows writes a run page's figures table rows.
func writeFigureRows(h htmlBuilder, fs []figureView) {
	for _, f := range fs {
		h.m(`<tr data-metric="`)
		h.t(f.Metric)
		h.m(`"><td>`)
		h.t(f.Label)
		h.m(`</td><td class="num">`)
		h.t(f.Recomputed)
		h.m(`</td><td class="num">`)
		h.t(f.Stated)
		h.m(`</td><td><code>`)
		h.t(f.SourceKey)
		h.m(`</code></td><td lang="en" class="def">`)
		h.t(f.Definition)
		h.m("</td></tr>\n")
	}
}

func provenanceRows(ps []provenanceView) htmltemplate.HTML {
	n := 0
	for _, p := range ps {
		n += 100 + 2*len(p.Field) + len(p.Label) + len(p.Value) + len(p.Sources)
	}
	h := newHTML(n + n/16)
	writeProvenanceRows(h, ps)
	return h.html()
}

// writeProvenanceRows writes a run page's provenance table rows.
func writeProvenanceRows(h htmlBuilder, ps []provenanceView) {
	for _, p := range ps {
		h.m(`<tr data-field="`)
		h.t(p.Field)
		h.m(`"><td>`)
		h.t(p.Label)
		h.m(`<br><code>`)
		h.t(p.Field)
		h.m(`</code></td><td class="value">`)
		h.t(p.Value)
		h.m(`</td><td>`)
		h.t(p.Sources)
		h.m("</td></tr>\n")
	}
}

// runRows are the runs table's rows (the same markup the template would
// write; rows_test.go compares them). Every part is written into one
// builder as it comes: the table of 10,000 runs is 10 MB, and a rebuild
// after one new run writes it again.
func runRows(rows []runRowView) htmltemplate.HTML {
	h := newHTML(len(rows) * runRowSize)
	for i := range rows {
		writeRunRow(h, &rows[i])
	}
	return h.html()
}

// runRowSize is about the markup of a run's row (1 KB and a little).
const runRowSize = 1100

// writeRunRow writes a run's row of the runs table. A cell whose text may
// be cut to fit its column carries the whole text in its title.
func writeRunRow(h htmlBuilder, r *runRowView) {
	// titled writes a cell whose text may be cut: <td title="x">x</td>.
	titled := func(s string) {
		h.m(`<td title="`)
		h.t(s)
		h.m(`">`)
		h.t(s)
		h.m(`</td>`)
	}
	attr := func(name, v string) {
		h.m(`" data-`, name, `="`)
		h.t(v)
	}
	pub := "no"
	if r.Publishable {
		pub = "yes"
	}
	engine := esc(r.Engine) + " " + esc(r.Version) // escaped once, written four times
	h.m(`<tr data-id="`)
	h.t(r.ID)
	attr("campaign", r.Campaign)
	attr("role", r.Role)
	attr("group", r.Group)
	attr("sweep", r.Sweep)
	h.m(`" data-replica="`, strconv.Itoa(r.ReplicaSort))
	attr("load", r.LoadSort)
	attr("model", r.Model)
	h.m(`" data-engine="`, engine)
	attr("gpu", r.GPU)
	attr("date", r.Date)
	attr("workload", r.Workload)
	h.m(`" data-requests="`, strconv.FormatInt(r.Requests, 10))
	attr("throughput", r.ThroughputSort)
	attr("latency", r.LatencySort)
	h.m(`" data-publishable="`, pub, `" data-audit="`, strconv.Itoa(r.Fails), ".", strconv.Itoa(r.Warns))
	h.m(`"><td><input type="checkbox" class="pick" value="`)
	h.t(r.ID)
	h.m(`" aria-label="`)
	h.t(r.ID)
	h.m(`"></td><td><a href="`)
	h.t(r.Href)
	h.m(`"><code>`)
	h.t(r.ID)
	h.m(`</code></a></td>`)
	titled(r.Campaign)
	titled(r.Role)
	titled(r.Group)
	titled(r.Sweep)
	h.m(`<td>`)
	h.t(r.ReplicaText)
	h.m(`</td><td class="num">`)
	h.t(r.LoadText)
	h.m(`</td>`)
	titled(r.Model)
	h.m(`<td title="`, engine, `">`, engine, `</td>`)
	titled(r.GPU)
	h.m(`<td>`)
	h.t(r.Date)
	h.m(`</td>`)
	titled(r.Workload)
	h.m(`<td class="num">`)
	h.t(r.RequestsText)
	h.m(`</td><td class="num" title="`)
	h.t(r.ThroughputText)
	h.m(`">`)
	h.t(r.ThroughputText)
	h.m(`</td><td class="num" title="`)
	h.t(r.LatencyText)
	h.m(`">`)
	h.t(r.LatencyText)
	h.m(`</td><td>`)
	h.t(r.PublishableText)
	h.m(`</td><td class="audit `)
	h.t(r.AuditClass)
	h.m(`">`)
	h.t(r.AuditText)
	h.m("</td></tr>\n")
}

// trendRows are a trend page's rows, a run each (the markup the template
// would write; rows_test.go compares them).
func trendRows(rows []trendRow) htmltemplate.HTML {
	h := newHTML(len(rows) * 400)
	for _, r := range rows {
		h.m(`<tr data-run="`)
		h.t(r.ID)
		h.m(`"`)
		if r.Flagged {
			h.m(` class="flagged"`)
		}
		h.m(`><td>`)
		h.t(r.Date)
		h.m(`</td><td>`)
		h.t(r.Version)
		h.m(`</td><td><a href="`)
		h.t(r.Href)
		h.m(`"><code>`)
		h.t(r.ID)
		h.m(`</code></a></td><td class="num">`)
		h.t(r.Throughput)
		h.m(`</td><td class="num">`)
		h.t(r.Latency)
		h.m(`</td><td>`)
		h.t(r.Range)
		h.m(`</td><td>`)
		h.t(r.Flag)
		h.m("</td></tr>\n")
	}
	return h.html()
}

func findingRows(fs []findingView) htmltemplate.HTML {
	h := newHTML(0)
	writeFindingRows(h, fs)
	return h.html()
}

// writeFindingRows writes a run page's audit findings.
func writeFindingRows(h htmlBuilder, fs []findingView) {
	for _, f := range fs {
		h.m(`<tr class="`)
		h.t(f.Severity)
		h.m(`" data-check="`)
		h.t(f.Check)
		h.m(`"><td>`)
		h.t(f.Title)
		h.m(`<br><code>`)
		h.t(f.Check)
		h.m(`</code></td><td>`)
		h.t(f.SeverityText)
		h.m(`</td>`)
		if f.Text == "" || f.Text == f.Message {
			h.m(`<td lang="en">`)
			h.t(f.Message)
			h.m("</td></tr>\n")
			continue
		}
		h.m(`<td>`)
		h.t(f.Text)
		h.m(`<br><span class="original" lang="en">`)
		h.t(f.Message)
		h.m("</span></td></tr>\n")
	}
}

func historyRows(hs []runview.HistoryRow) htmltemplate.HTML {
	h := newHTML(0)
	writeHistoryRows(h, hs)
	return h.html()
}

// writeHistoryRows writes a run page's history.
func writeHistoryRows(h htmlBuilder, hs []runview.HistoryRow) {
	for _, r := range hs {
		h.m(`<tr><td>`)
		h.t(r.At)
		h.m(`</td><td>`)
		h.t(r.Action)
		h.m(` · `)
		h.t(r.Actor)
		h.m(` · benchledger `)
		h.t(r.ToolVersion)
		h.m(`</td></tr>`)
	}
}

// langAttr is a link's lang attribute: its HTMLLang, else its tag.
func langAttr(l LangLink) string {
	if l.HTMLLang != "" {
		return l.HTMLLang
	}
	return l.Tag
}

// langNav is the language switch: the page in every language of the site.
func langNav(langs []LangLink) htmltemplate.HTML {
	var sb strings.Builder
	for _, l := range langs {
		if l.Current {
			sb.WriteString(`<span aria-current="page" lang="` + esc(langAttr(l)) + `">` + esc(l.Name) + `</span> `)
		} else {
			sb.WriteString(`<a href="` + esc(l.Href) + `" hreflang="` + esc(langAttr(l)) + `" lang="` + esc(langAttr(l)) + `">` + esc(l.Name) + `</a> `)
		}
	}
	return htmltemplate.HTML(sb.String())
}

// subtitle is the line under a run page's heading: model · engine version
// · GPU · date, leaving out what the run does not say.
func subtitle(s store.RunSummary) string {
	var sb strings.Builder
	sb.WriteString(s.Model)
	for _, part := range []struct{ sep, text string }{{" · ", s.Engine}, {" ", s.EngineVersion}, {" · ", s.GPU}, {" · ", s.Date}} {
		if part.text != "" {
			sb.WriteString(part.sep + part.text)
		}
	}
	return sb.String()
}

// overviewRows are the terms of a run page's overview.
func overviewRows(p *runPageView) htmltemplate.HTML {
	h := newHTML(512)
	writeOverviewRows(h, p)
	return h.html()
}

// writeOverviewRows writes overviewRows' markup.
func writeOverviewRows(h htmlBuilder, p *runPageView) {
	L := p.P.L
	if c := p.Sum.Campaign; c != "" {
		h.m(`<dt>`)
		h.t(L["col_campaign"])
		h.m(`</dt><dd><a class="campaign" href="`)
		h.t(p.P.Home)
		h.m(campaignLink(c), `">`)
		h.t(c)
		h.m(`</a></dd>`)
	}
	h.m("\n")
	// term writes <dt>label</dt><dd>value</dd>.
	term := func(label, value string) {
		h.m(`<dt>`)
		h.t(label)
		h.m(`</dt><dd>`)
		h.t(value)
		h.m(`</dd>`)
	}
	if r := p.Sum.Role; r != "" {
		term(L["col_role"], r)
	}
	h.m("\n<dt>")
	h.t(L["run_format"])
	h.m(`</dt><dd><code>`)
	h.t(p.V.Format)
	h.m(`</code>`)
	if fv := p.V.FormatVariant; fv != "" {
		h.m(` — `)
		h.t(fv)
	}
	h.m("</dd>\n")
	if t := p.V.SourceTool; t != "" {
		term(L["run_client"], t)
	}
	h.m("\n<dt>")
	h.t(L["run_ingested"])
	h.m(`</dt><dd>`)
	h.t(p.V.IngestedAt)
	h.m("</dd>\n<dt>")
	h.t(L["col_publishable"])
	h.m(`</dt><dd class="publishable">`)
	h.t(p.Publishable)
	h.m("</dd>\n")
}

// fileItems are a run page's raw files with their digests and downloads.
func fileItems(p *runPageView) htmltemplate.HTML {
	h := newHTML(0)
	writeFileItems(h, p)
	return h.html()
}

// writeFileItems writes fileItems' markup.
func writeFileItems(h htmlBuilder, p *runPageView) {
	for _, f := range p.Files {
		h.m(`<li><span class="filename">`)
		h.t(f.Name)
		h.m(`</span> (`)
		h.t(f.Size)
		h.m(`)<br>SHA-256 <code class="sha">`)
		h.t(f.SHA256)
		h.m(`</code>`)
		switch {
		case f.Corrupt:
			h.m(` <strong class="fail">✗</strong>`)
		case f.Href != "":
			h.m(`<br><a class="download" href="`)
			h.t(f.Href)
			h.m(`" download="`)
			h.t(safeName(f.Name))
			h.m(`">`)
			h.t(p.P.L["run_download"])
			h.m(`</a>`)
		default:
			h.m(`<br><span class="note">`, string(codeSpans(p.P.L["run_no_raw"])), `</span>`)
		}
		h.m("</li>\n")
	}
}

// chartFigures are a page's charts: a box for each, marked with its kind
// (data-chart-kind: histogram, timeline, cdf, trend) for tests and
// readers' tools, its ECharts option as JSON in a script element
// (json.Marshal's escaping of <, > and & keeps it from ending the element)
// and its caption when it has one.
//
// The options are most of a run page's bytes: they are written once, into
// a builder grown to hold them all, not joined to their markup first.
func chartFigures(cs []chartView) htmltemplate.HTML {
	n := 0
	for _, c := range cs {
		n += len(c.Option) + len(c.raw) + len(c.Caption) + 256
	}
	h := newHTML(n)
	writeChartFigures(h, cs)
	return h.html()
}

// writeChartFigures writes chartFigures' markup.
func writeChartFigures(h htmlBuilder, cs []chartView) {
	for _, c := range cs {
		h.m(`<figure data-chart-kind="`)
		h.t(c.Kind)
		h.m(`"><div class="chart" id="chart-`)
		h.t(c.ID)
		h.m(`" role="img" aria-label="`)
		h.t(c.Title)
		h.m(`"></div><script type="application/json" id="option-`)
		h.t(c.ID)
		h.m(`">`)
		if c.raw != nil {
			h.Write(c.raw)
		} else {
			h.m(string(c.Option))
		}
		h.m("</script>")
		if c.Caption != "" {
			h.m(`<figcaption>`)
			h.t(c.Caption)
			h.m(`</figcaption>`)
		}
		h.m("</figure>\n")
	}
}

// caveatItems are the caveats that apply to a run, code and sentence.
func caveatItems(cs []caveatView) htmltemplate.HTML {
	h := newHTML(0)
	writeCaveatItems(h, cs)
	return h.html()
}

// writeCaveatItems writes caveatItems' markup.
func writeCaveatItems(h htmlBuilder, cs []caveatView) {
	for _, c := range cs {
		h.m(`<li><code>`)
		h.t(c.Code)
		h.m(`</code> `)
		h.t(c.Text)
		h.m(`</li>`)
	}
}
