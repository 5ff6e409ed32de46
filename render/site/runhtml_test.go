package site

import (
	"bytes"
	htmltemplate "html/template"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/internal/csp"
	"github.com/benchledger/benchledger/runview"
	"github.com/benchledger/benchledger/store"
)

// TestRunHTMLLikeTheTemplate: a run page written in Go is the bytes the
// embedded layout and run templates write for it (with templateParts'
// markup), its Content-Security-Policy included, on every branch of the
// template (one page with every optional
// part, one with none, one file or several), with hostile text in every
// value and label.
func TestRunHTMLLikeTheTemplate(t *testing.T) {
	ts, err := loadTemplates("")
	if err != nil {
		t.Fatal(err)
	}
	if !ts.goRun {
		t.Fatal("layout.html.tmpl or run.html.tmpl is not the template writeRunHTML writes: make writeRunHTML write what the template now writes, then set runTemplatesDigest to runTemplatesSum of the two")
	}
	hostile := "\"><script>alert('x')</script>&amp; a+b \x00 ✓ {{.P}} \xff"
	labels := map[string]string{}
	for _, k := range append(runLabels, "col_campaign", "col_role", "run_format", "run_client", "run_ingested", "col_publishable", "run_download") {
		labels[k] = k + " " + hostile
	}
	labels["run_no_raw"] = "no `raw` " + hostile
	page := func(root, home string) *Page {
		return &Page{Lang: "en", HTMLLang: "en" + hostile, Title: "Run " + hostile, Root: root, Home: home, L: labels,
			LangNav: "<span>English</span> ", Footer: "Built by {x} " + hostile}
	}
	html := func(s string) htmltemplate.HTML { return htmltemplate.HTML("<b>" + s + "</b>\n") }
	full := &runPageView{P: page("../../", "../"), Subtitle: hostile, Completion: hostile, HasRecords: true, FiguresNote: hostile,
		StatedBy: hostile, Checks: hostile, Disagree: []string{hostile, "x ≠ y"},
		V: &runview.View{Format: hostile, FormatVariant: hostile, SourceTool: hostile, IngestedAt: hostile}, Publishable: hostile,
		Files: []rawFileView{{Name: hostile, SHA256: "ab12", Href: "../../raw/ab12", Size: hostile}, {Name: hostile, Size: "1 B", Corrupt: true},
			{Name: hostile, Size: hostile}},
		Charts:     []chartView{{ID: "latency", Kind: "histogram", Title: hostile, raw: []byte(`{"a":"\u003c/script\u003e"}`)}, {ID: "t", Kind: hostile, Caption: hostile, raw: []byte(`{}`)}},
		Figures:    []figureView{{Label: hostile, Metric: hostile, Recomputed: hostile, Stated: hostile, SourceKey: hostile, Definition: hostile}, {Metric: "m"}},
		Provenance: []provenanceView{{Field: hostile, Label: hostile, Value: hostile, Sources: hostile}, {Field: "f"}},
		Caveats:    []caveatView{{Code: hostile, Text: hostile}, {Code: "c"}},
		Findings: []findingView{{Check: hostile, Title: hostile, Severity: hostile, SeverityText: hostile, Text: hostile, Message: hostile},
			{Check: "k", Text: "same", Message: "same"}, {Check: "k", Message: "english"}},
		Links:      []linkView{{Text: hostile, Href: "../case/x/compare-1.html"}, {Text: "b", Href: "../case/y/compare-2.html"}},
		History:    []runview.HistoryRow{{At: hostile, Action: hostile, Actor: hostile, ToolVersion: hostile, Detail: hostile}, {At: "t"}},
		AuditScope: html("scope"),
		Sum:        store.RunSummary{ID: "ab12", Campaign: hostile + " /?#&=", Role: hostile, Model: hostile, Engine: hostile, EngineVersion: hostile, GPU: hostile, Date: hostile}}
	sparse := &runPageView{P: page("../", ""), V: &runview.View{Format: "f"}, Files: []rawFileView{{Name: "a"}}, Sum: store.RunSummary{ID: "cd34"}}
	none := &runPageView{P: page("", ""), V: &runview.View{}, Sum: store.RunSummary{ID: "ef56"}, Checks: "", HasRecords: true, FiguresNote: "n"}
	var b builder
	for name, p := range map[string]*runPageView{"full": full, "sparse": sparse, "none": none} {
		if !goWritable(p) {
			t.Fatalf("%s: not written in Go", name)
		}
		var want, got bytes.Buffer
		L := b.escapedLabels("en", labels)
		if L == nil {
			t.Fatal("no labels")
		}
		writeRunHTML(&got, L, p)
		p.templateParts()
		if err := ts.execute(&want, "en", labels, p.P, "run", p); err != nil {
			t.Fatal(err)
		}
		// Both as written: the template's page gets its policy here, the Go
		// writer's carries it already (and ApplyBuffer leaves it).
		csp.ApplyBuffer(&want, csp.Site)
		before := got.String()
		if csp.ApplyBuffer(&got, csp.Site); got.String() != before {
			t.Errorf("%s: the policy was inserted into the Go writer's page again", name)
		}
		if got.String() != want.String() {
			g, w := got.String(), want.String()
			i := 0
			for i < len(g) && i < len(w) && g[i] == w[i] {
				i++
			}
			t.Errorf("%s: the Go writer differs from the template at byte %d\ngot  …%s\nwant …%s", name, i, g[max(i-80, 0):min(i+80, len(g))], w[max(i-80, 0):min(i+80, len(w))])
		}
	}
}

// TestRunHTMLOnlyWhereItKnows: the Go writer is not used for templates it
// was not written from (site --templates) nor for a page whose links it
// would have to escape as URLs, and not when a label is missing.
func TestRunHTMLOnlyWhereItKnows(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "templates", "site", "run.html.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "run.html.tmpl"), []byte(strings.Replace(string(src), "<h1>", "<h1 class=\"x\">", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	ts, err := loadTemplates(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ts.goRun {
		t.Error("a run template of --templates is written by the Go writer")
	}
	p := &runPageView{P: &Page{Root: "../../", Home: "../", Lang: "en"}, Links: []linkView{{Href: "../case/a b/x.html"}}}
	if goWritable(p) {
		t.Error("a link with a space is written by the Go writer")
	}
	p.Links = nil
	p.P.Home = "javascript:"
	if goWritable(p) {
		t.Error("a page with an odd link up is written by the Go writer")
	}
	var b builder
	if b.escapedLabels("xx", map[string]string{"title": "T"}) != nil {
		t.Error("labels without the run page's are used by the Go writer")
	}
}
