package site

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/internal/escape"
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/runview"
	"github.com/benchledger/benchledger/store"
)

// TestRowsEscapeLikeTheTemplate: the rows written in Go escape every value
// as html/template would in the same places, so hostile text stays text.
func TestRowsEscapeLikeTheTemplate(t *testing.T) {
	hostile := "\"><script>alert('x')</script>&amp; a+b \x00"
	fs := []figureView{{Label: hostile, Metric: hostile, Recomputed: "1 < 2", Stated: hostile, SourceKey: hostile, Definition: hostile}}
	ps := []provenanceView{{Field: hostile, Label: hostile, Value: "line1\nline2 " + hostile, Sources: hostile}}
	tpl := htmltemplate.Must(htmltemplate.New("").Parse(`{{range .F}}<tr data-metric="{{.Metric}}"><td>{{.Label}}</td><td class="num">{{.Recomputed}}</td><td class="num">{{.Stated}}</td><td><code>{{.SourceKey}}</code></td><td lang="en" class="def">{{.Definition}}</td></tr>
{{end}}|{{range .P}}<tr data-field="{{.Field}}"><td>{{.Label}}<br><code>{{.Field}}</code></td><td class="value">{{.Value}}</td><td>{{.Sources}}</td></tr>
{{end}}`))
	var want bytes.Buffer
	if err := tpl.Execute(&want, map[string]any{"F": fs, "P": ps}); err != nil {
		t.Fatal(err)
	}
	got := string(figureRows(fs)) + "|" + string(provenanceRows(ps))
	if got != want.String() {
		t.Errorf("rows differ from the template's escaping\ngot  %s\nwant %s", got, want.String())
	}
	if strings.Contains(got, "<script>") {
		t.Error("unescaped script")
	}
}

func TestRunRowsEscapeLikeTheTemplate(t *testing.T) {
	hostile := "\"><img src=x onerror=alert(1)>& +\x00"
	tp := 12345.5
	rows := []runRowView{
		{runRow: runRow{ID: "0123abcd", Campaign: hostile, Role: hostile, Model: hostile, Engine: hostile, Version: hostile, GPU: hostile,
			Date: hostile, Workload: hostile, Group: hostile, Sweep: hostile, Requests: 100, Throughput: &tp, Publishable: true, Fails: 1, Warns: 2},
			Href: "run/0123abcd.html", PublishableText: hostile, ThroughputText: "12,346", ThroughputSort: "12345.500000", RequestsText: "100", AuditText: hostile, AuditClass: "fail",
			ReplicaText: hostile, ReplicaSort: 3, LoadText: hostile, LoadSort: hostile, LatencyText: hostile, LatencySort: hostile},
		{runRow: runRow{ID: "ff00", Requests: -1}, Href: "run/ff00.html", PublishableText: "no", RequestsText: "–", ThroughputText: "–", AuditText: "✓", AuditClass: "pass"},
	}
	tpl := htmltemplate.Must(htmltemplate.New("").Parse(`{{range .Rows}}<tr data-id="{{.ID}}" data-campaign="{{.Campaign}}" data-role="{{.Role}}" data-group="{{.Group}}" data-sweep="{{.Sweep}}" data-replica="{{.ReplicaSort}}" data-load="{{.LoadSort}}" data-model="{{.Model}}" data-engine="{{.Engine}} {{.Version}}" data-gpu="{{.GPU}}" data-date="{{.Date}}" data-workload="{{.Workload}}" data-requests="{{.Requests}}" data-throughput="{{.ThroughputSort}}" data-latency="{{.LatencySort}}" data-publishable="{{if .Publishable}}yes{{else}}no{{end}}" data-audit="{{.Fails}}.{{.Warns}}"><td><input type="checkbox" class="pick" value="{{.ID}}" aria-label="{{.ID}}"></td><td><a href="{{.Href}}"><code>{{.ID}}</code></a></td><td title="{{.Campaign}}">{{.Campaign}}</td><td title="{{.Role}}">{{.Role}}</td><td title="{{.Group}}">{{.Group}}</td><td title="{{.Sweep}}">{{.Sweep}}</td><td>{{.ReplicaText}}</td><td class="num">{{.LoadText}}</td><td title="{{.Model}}">{{.Model}}</td><td title="{{.Engine}} {{.Version}}">{{.Engine}} {{.Version}}</td><td title="{{.GPU}}">{{.GPU}}</td><td>{{.Date}}</td><td title="{{.Workload}}">{{.Workload}}</td><td class="num">{{.RequestsText}}</td><td class="num" title="{{.ThroughputText}}">{{.ThroughputText}}</td><td class="num" title="{{.LatencyText}}">{{.LatencyText}}</td><td>{{.PublishableText}}</td><td class="audit {{.AuditClass}}">{{.AuditText}}</td></tr>
{{end}}`))
	var want bytes.Buffer
	if err := tpl.Execute(&want, struct{ Rows []runRowView }{rows}); err != nil {
		t.Fatal(err)
	}
	if got := string(runRows(rows)); got != want.String() {
		t.Errorf("rows differ from the template's escaping\ngot  %s\nwant %s", got, want.String())
	}
}

func TestFindingAndHistoryRowsEscapeLikeTheTemplate(t *testing.T) {
	hostile := "\"><b onclick='x'>&amp;</b> 1+1\x00"
	fs := []findingView{{Check: hostile, Title: hostile, Severity: "fail", SeverityText: hostile, Message: hostile}, {Check: "a.b", Severity: "warn"},
		{Check: "c", Severity: "info", Text: "traduit " + hostile, Message: "english " + hostile}, {Check: "d", Text: "same", Message: "same"}}
	hs := []runview.HistoryRow{{At: hostile, Action: hostile, Actor: hostile, ToolVersion: hostile}, {At: "2026-01-01T00:00:00Z", Action: "ingest"}}
	tpl := htmltemplate.Must(htmltemplate.New("").Parse(`{{range .F}}<tr class="{{.Severity}}" data-check="{{.Check}}"><td>{{.Title}}<br><code>{{.Check}}</code></td><td>{{.SeverityText}}</td>{{if or (not .Text) (eq .Text .Message)}}<td lang="en">{{.Message}}</td></tr>{{else}}<td>{{.Text}}<br><span class="original" lang="en">{{.Message}}</span></td></tr>{{end}}
{{end}}|{{range .H}}<tr><td>{{.At}}</td><td>{{.Action}} · {{.Actor}} · benchledger {{.ToolVersion}}</td></tr>{{end}}`))
	var want bytes.Buffer
	if err := tpl.Execute(&want, map[string]any{"F": fs, "H": hs}); err != nil {
		t.Fatal(err)
	}
	if got := string(findingRows(fs)) + "|" + string(historyRows(hs)); got != want.String() {
		t.Errorf("rows differ from the template's escaping\ngot  %s\nwant %s", got, want.String())
	}
}

// TestRunPagePartsEscapeLikeTheTemplate: the overview, files, charts,
// caveats, heading line and language switch written in Go are the bytes the
// template markup they replace writes, for hostile archive text.
func TestRunPagePartsEscapeLikeTheTemplate(t *testing.T) {
	hostile := "\"><script>alert('x')</script>&amp; a+b \x00 ✓"
	for _, tc := range []struct {
		name string
		p    *runPageView
	}{
		{"hostile", &runPageView{
			P:   &Page{Home: "../", L: map[string]string{"col_campaign": hostile, "col_role": hostile, "run_format": hostile, "run_client": hostile, "run_ingested": hostile, "col_publishable": hostile, "run_download": hostile, "run_no_raw": "no `raw` " + hostile}},
			Sum: store.RunSummary{Campaign: hostile + " /?#&=", Role: hostile, Model: hostile, Engine: hostile, EngineVersion: hostile, GPU: hostile, Date: hostile},
			V:   &runview.View{Format: hostile, FormatVariant: hostile, SourceTool: hostile, IngestedAt: hostile}, Publishable: hostile,
			Files:   []rawFileView{{Name: hostile, SHA256: "ab12", Href: "../raw/ab12/a_b.json", Size: hostile}, {Name: hostile, Size: "1 B", Corrupt: true}, {Name: hostile, Size: hostile}},
			Charts:  []chartView{{ID: "latency", Kind: "histogram", Title: hostile, Option: `{"a":"\u003c/script\u003e"}`}, {ID: "cdf", Kind: hostile, Title: "t", Caption: hostile, Option: `{}`}},
			Caveats: []caveatView{{Code: hostile, Text: hostile}, {Code: "x", Text: "y"}},
		}},
		{"sparse", &runPageView{P: &Page{Home: "", L: map[string]string{"run_format": "Format", "run_ingested": "In", "col_publishable": "P", "run_no_raw": "none"}},
			Sum: store.RunSummary{GPU: "H100"}, V: &runview.View{Format: "f"}}},
	} {
		tpl := htmltemplate.Must(htmltemplate.New("").Funcs(htmltemplate.FuncMap{"code": codeSpans, "safeName": safeName}).Parse(
			`{{with .Sum.Model}}{{.}}{{end}}{{with .Sum.Engine}} · {{.}}{{end}}{{with .Sum.EngineVersion}} {{.}}{{end}}{{with .Sum.GPU}} · {{.}}{{end}}{{with .Sum.Date}} · {{.}}{{end}}|` +
				`{{with .Sum.Campaign}}<dt>{{$.P.L.col_campaign}}</dt><dd><a class="campaign" href="{{$.P.Home}}runs.html#campaign={{.}}">{{.}}</a></dd>{{end}}
{{with .Sum.Role}}<dt>{{$.P.L.col_role}}</dt><dd>{{.}}</dd>{{end}}
<dt>{{.P.L.run_format}}</dt><dd><code>{{.V.Format}}</code>{{with .V.FormatVariant}} — {{.}}{{end}}</dd>
{{with .V.SourceTool}}<dt>{{$.P.L.run_client}}</dt><dd>{{.}}</dd>{{end}}
<dt>{{.P.L.run_ingested}}</dt><dd>{{.V.IngestedAt}}</dd>
<dt>{{.P.L.col_publishable}}</dt><dd class="publishable">{{.Publishable}}</dd>
|{{range .Files}}<li><span class="filename">{{.Name}}</span> ({{.Size}})<br>SHA-256 <code class="sha">{{.SHA256}}</code>{{if .Corrupt}} <strong class="fail">✗</strong>{{else if .Href}}<br><a class="download" href="{{.Href}}" download="{{safeName .Name}}">{{$.P.L.run_download}}</a>{{else}}<br><span class="note">{{code ($.P.L.run_no_raw)}}</span>{{end}}</li>
{{end}}|{{range .Charts}}<figure data-chart-kind="{{.Kind}}"><div class="chart" id="chart-{{.ID}}" role="img" aria-label="{{.Title}}"></div><script type="application/json" id="option-{{.ID}}">{{.Option}}</script>{{with .Caption}}<figcaption>{{.}}</figcaption>{{end}}</figure>
{{end}}|{{range .Caveats}}<li><code>{{.Code}}</code> {{.Text}}</li>{{end}}`))
		var want bytes.Buffer
		if err := tpl.Execute(&want, tc.p); err != nil {
			t.Fatal(err)
		}
		got := subtitle(tc.p.Sum)
		// The heading line is text the template escapes where it is used.
		got = esc(got)
		got += "|" + string(overviewRows(tc.p)) + "|" + string(fileItems(tc.p)) + "|" + string(chartFigures(tc.p.Charts)) + "|" + string(caveatItems(tc.p.Caveats))
		if got != want.String() {
			t.Errorf("%s: parts differ from the template's\ngot  %s\nwant %s", tc.name, got, want.String())
		}
	}

	langs := []LangLink{{Tag: "en", Name: "English", Href: "../en/run/ab.html", Current: true}, {Tag: "zh", Name: "中文 <b>+", Href: "../zh/run/ab.html"}}
	tpl := htmltemplate.Must(htmltemplate.New("").Parse(`{{range .}}{{if .Current}}<span aria-current="page" lang="{{.Tag}}">{{.Name}}</span>{{else}}<a href="{{.Href}}" hreflang="{{.Tag}}" lang="{{.Tag}}">{{.Name}}</a>{{end}} {{end}}`))
	var want bytes.Buffer
	if err := tpl.Execute(&want, langs); err != nil {
		t.Fatal(err)
	}
	if got := string(langNav(langs)); got != want.String() {
		t.Errorf("language switch differs from the template's\ngot  %s\nwant %s", got, want.String())
	}
}

// TestTrendRowsEscapeLikeTheTemplate: a trend page's rows written in Go
// are the bytes its template's range wrote, hostile text escaped alike.
func TestTrendRowsEscapeLikeTheTemplate(t *testing.T) {
	hostile := "\"><img src=x onerror=alert(1)>& +\x00"
	rows := []trendRow{
		{ID: hostile, Href: "../run/ff00.html", Date: hostile, Version: hostile, Throughput: hostile, Latency: hostile, Range: hostile, Flag: hostile, Flagged: true},
		{ID: "0123abcd", Href: "../run/0123abcd.html", Date: "2026-01-02", Version: "0.10.1", Throughput: "1,234", Latency: "–"},
	}
	tpl := htmltemplate.Must(htmltemplate.New("").Parse(`{{range .Rows}}<tr data-run="{{.ID}}"{{if .Flagged}} class="flagged"{{end}}><td>{{.Date}}</td><td>{{.Version}}</td><td><a href="{{.Href}}"><code>{{.ID}}</code></a></td><td class="num">{{.Throughput}}</td><td class="num">{{.Latency}}</td><td>{{.Range}}</td><td>{{.Flag}}</td></tr>
{{end}}`))
	var want bytes.Buffer
	if err := tpl.Execute(&want, struct{ Rows []trendRow }{rows}); err != nil {
		t.Fatal(err)
	}
	if got := string(trendRows(rows)); got != want.String() {
		t.Errorf("rows differ from the template's escaping\ngot  %s\nwant %s", got, want.String())
	}
}

// TestCodeSpansMatchesSplit: codeSpans, which cuts its text in place,
// writes what splitting it at every backtick and escaping each part
// wrote, for texts with no, paired, unpaired, empty and adjacent spans
// and escaped bytes inside and outside them.
func TestCodeSpansMatchesSplit(t *testing.T) {
	ref := func(s string) string {
		var sb strings.Builder
		for i, part := range strings.Split(s, "`") {
			if i%2 == 1 {
				sb.WriteString("<code>" + escape.HTML(part) + "</code>")
			} else {
				sb.WriteString(escape.HTML(part))
			}
		}
		return sb.String()
	}
	for _, s := range []string{"", "plain", "`", "``", "```", "a `b` c", "run `r-1` <all> `x&y` +", "`<b>`", "tail `open", "`a``b`", "\x00`\x00`"} {
		if got, want := string(codeSpans(s)), ref(s); got != want {
			t.Errorf("%q: %q, want %q", s, got, want)
		}
	}
}

// TestRunsPageSplicedLikeTheTemplate: the runs page written around its
// rows (the embedded templates) is the page the template writes with the
// rows' markup in it (a template of the user's), byte for byte, for rows
// with hostile text (the marker's own text among it) in every field; and
// only the embedded templates are written so.
func TestRunsPageSplicedLikeTheTemplate(t *testing.T) {
	t.Parallel()
	ts, err := loadTemplates("")
	if err != nil {
		t.Fatal(err)
	}
	if !ts.embedded["runs"] || !ts.embedded["trend"] {
		t.Fatal("the embedded templates are not marked embedded")
	}
	l := locales.MustMatch("ja")
	hostile := "\"><script>alert(1)</script>& " + partMarker + " \x00"
	rows := trendTestRows(40)
	for i := range rows {
		if i%3 == 0 {
			r := &rows[i]
			r.Campaign, r.Role, r.Model, r.Workload, r.Group, r.Rate, r.Version = hostile, hostile, hostile, hostile, hostile, "2.5", hostile
			r.ThroughputSource, r.Fails = figures.SourceStated, 2
		}
	}
	pages := map[bool]string{}
	for _, embedded := range []bool{true, false} {
		out := t.TempDir()
		tpl, err := loadTemplates("")
		if err != nil {
			t.Fatal(err)
		}
		tpl.embedded["runs"] = embedded
		b := &builder{opt: Options{ToolVersion: "test"}, locs: []locales.Locale{l}, tpl: tpl, out: out, keep: map[string]bool{}}
		rv := &runsView{P: b.page(l, "runs.html", "t"), Roles: []string{hostile}, Shown: hostile}
		if err := b.runsPage(l, rv, rows); err != nil {
			t.Fatal(err)
		}
		if (rv.Rows == nil) != embedded {
			t.Errorf("embedded %v: the rows' views made: %v", embedded, rv.Rows != nil)
		}
		data, err := os.ReadFile(filepath.Join(out, l.Tag(), "runs.html"))
		if err != nil {
			t.Fatal(err)
		}
		pages[embedded] = string(data)
	}
	if pages[true] != pages[false] {
		t.Errorf("the spliced page differs from the template's:\n%s\n\n%s", pages[true], pages[false])
	}
	if strings.Contains(pages[true], partMarker) || strings.Count(pages[true], "<tr data-id=") != len(rows) {
		t.Errorf("the page has the marker or not a row for each run:\n%s", pages[true])
	}
	over := t.TempDir()
	if err := os.WriteFile(filepath.Join(over, "runs.html.tmpl"), []byte(`{{define "content"}}{{.RowsHTML}}{{.RowsHTML}}{{end}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	user, err := loadTemplates(over)
	if err != nil {
		t.Fatal(err)
	}
	if user.embedded["runs"] || !user.embedded["trend"] {
		t.Errorf("with runs.html.tmpl replaced: embedded %v", user.embedded)
	}
}

// TestSortTextLikeSprintf: a figure's sort text is fmt's %.6f, for
// values of every size and sign, and those that are not numbers.
func TestSortTextLikeSprintf(t *testing.T) {
	vs := []float64{0, math.Copysign(0, -1), 1, -1, 0.1234565, 1234.5678, 1e-7, 1e21, -3.5e300, math.MaxFloat64,
		math.SmallestNonzeroFloat64, math.NaN(), math.Inf(1), math.Inf(-1)}
	rng := rand.New(rand.NewPCG(15, 16))
	for range 10000 {
		vs = append(vs, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(20)-8)))
	}
	for _, v := range vs {
		if got, want := sortText(v), fmt.Sprintf("%.6f", v); got != want {
			t.Errorf("%v: %q, want %q", v, got, want)
		}
	}
}
