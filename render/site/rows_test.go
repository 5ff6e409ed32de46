package site

import (
	"bytes"
	htmltemplate "html/template"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/runview"
)

// TestRowsEscapeLikeTheTemplate: the rows written in Go escape every value
// as html/template would in the same places, so hostile text stays text.
func TestRowsEscapeLikeTheTemplate(t *testing.T) {
	hostile := `"><script>alert('x')</script>&amp;`
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
	hostile := `"><img src=x onerror=alert(1)>&`
	tp := 12345.5
	rows := []runRowView{
		{runRow: runRow{ID: "0123abcd", Campaign: hostile, Role: hostile, Model: hostile, Engine: hostile, Version: hostile, GPU: hostile,
			Date: hostile, Workload: hostile, Requests: 100, Throughput: &tp, Publishable: true, Fails: 1, Warns: 2},
			Href: "run/0123abcd.html", PublishableText: hostile, ThroughputText: "12,346", ThroughputSort: "12345.500000", RequestsText: "100", AuditText: hostile, AuditClass: "fail"},
		{runRow: runRow{ID: "ff00", Requests: -1}, Href: "run/ff00.html", PublishableText: "no", RequestsText: "–", ThroughputText: "–", AuditText: "✓", AuditClass: "pass"},
	}
	tpl := htmltemplate.Must(htmltemplate.New("").Parse(`{{range .Rows}}<tr data-id="{{.ID}}" data-campaign="{{.Campaign}}" data-role="{{.Role}}" data-model="{{.Model}}" data-engine="{{.Engine}} {{.Version}}" data-gpu="{{.GPU}}" data-date="{{.Date}}" data-workload="{{.Workload}}" data-requests="{{.Requests}}" data-throughput="{{.ThroughputSort}}" data-publishable="{{if .Publishable}}yes{{else}}no{{end}}" data-audit="{{.Fails}}.{{.Warns}}"><td><input type="checkbox" class="pick" value="{{.ID}}" aria-label="{{.ID}}"></td><td><a href="{{.Href}}"><code>{{.ID}}</code></a></td><td>{{.Campaign}}</td><td>{{.Role}}</td><td>{{.Model}}</td><td>{{.Engine}} {{.Version}}</td><td>{{.GPU}}</td><td>{{.Date}}</td><td>{{.Workload}}</td><td class="num">{{.RequestsText}}</td><td class="num">{{.ThroughputText}}</td><td>{{.PublishableText}}</td><td class="audit {{.AuditClass}}">{{.AuditText}}</td></tr>
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
	hostile := `"><b onclick='x'>&amp;</b>`
	fs := []findingView{{Check: hostile, Title: hostile, Severity: "fail", SeverityText: hostile, Message: hostile}, {Check: "a.b", Severity: "warn"}}
	hs := []runview.HistoryRow{{At: hostile, Action: hostile, Actor: hostile, ToolVersion: hostile}, {At: "2026-01-01T00:00:00Z", Action: "ingest"}}
	tpl := htmltemplate.Must(htmltemplate.New("").Parse(`{{range .F}}<tr class="{{.Severity}}" data-check="{{.Check}}"><td>{{.Title}}<br><code>{{.Check}}</code></td><td>{{.SeverityText}}</td><td lang="en">{{.Message}}</td></tr>
{{end}}|{{range .H}}<tr><td>{{.At}}</td><td>{{.Action}} · {{.Actor}} · benchledger {{.ToolVersion}}</td></tr>{{end}}`))
	var want bytes.Buffer
	if err := tpl.Execute(&want, map[string]any{"F": fs, "H": hs}); err != nil {
		t.Fatal(err)
	}
	if got := string(findingRows(fs)) + "|" + string(historyRows(hs)); got != want.String() {
		t.Errorf("rows differ from the template's escaping\ngot  %s\nwant %s", got, want.String())
	}
}
