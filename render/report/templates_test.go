package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/templates"
)

// TestTemplateOverlay: a user's template replaces the embedded one of its
// name, and the page's other template stays the embedded one, for the
// report and the audit page alike.
func TestTemplateOverlay(t *testing.T) {
	t.Parallel()
	embeddedHTML, embeddedMD, err := loadTemplates("")
	if err != nil {
		t.Fatal(err)
	}
	embeddedAuditHTML, embeddedAuditMD, err := loadAuditTemplates("")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, text := range map[string]string{templates.Markdown: "# mine {{md .Lang}}\n", templates.AuditHTML: "<p>mine {{.Lang}}</p>"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ht, mt, err := loadTemplates(dir)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := mt.Execute(&sb, map[string]string{"Lang": "e_n"}); err != nil || sb.String() != "# mine e\\_n\n" {
		t.Errorf("the user's report.md.tmpl gave %q, %v", sb.String(), err)
	}
	if ht.Tree.Root.String() != embeddedHTML.Tree.Root.String() {
		t.Error("report.html.tmpl is not the embedded one beside a user's report.md.tmpl")
	}
	aht, amt, err := loadAuditTemplates(dir)
	if err != nil {
		t.Fatal(err)
	}
	sb.Reset()
	if err := aht.Execute(&sb, map[string]string{"Lang": "<en>"}); err != nil || sb.String() != "<p>mine &lt;en&gt;</p>" {
		t.Errorf("the user's audit.html.tmpl gave %q, %v", sb.String(), err)
	}
	if amt.Tree.Root.String() != embeddedAuditMD.Tree.Root.String() {
		t.Error("audit.md.tmpl is not the embedded one beside a user's audit.html.tmpl")
	}
	if embeddedMD.Tree.Root.String() == mt.Tree.Root.String() || embeddedAuditHTML.Tree.Root.String() == aht.Tree.Root.String() {
		t.Error("the user's templates were not read")
	}
}

// TestTemplateBroken: a user's template that does not parse is refused,
// naming the file.
func TestTemplateBroken(t *testing.T) {
	t.Parallel()
	for _, name := range []string{templates.HTML, templates.Markdown, templates.AuditHTML, templates.AuditMarkdown} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, name), []byte("ok {{.Title"), 0o644); err != nil {
			t.Fatal(err)
		}
		load := loadTemplates
		if strings.HasPrefix(name, "audit.") {
			load = loadAuditTemplates
		}
		if _, _, err := load(dir); err == nil || !strings.Contains(err.Error(), "template "+name+":") {
			t.Errorf("%s: err = %v, want one naming the file", name, err)
		}
	}
}
