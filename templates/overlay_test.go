package templates

import (
	"errors"
	htmltemplate "html/template"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestOverlay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, AuditHTML), []byte(`<p>mine {{.}}</p>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "extra.tmpl"), []byte(`extra`), 0o644); err != nil {
		t.Fatal(err)
	}
	o := Report(dir)

	// The user's file replaces the embedded one; the others are embedded.
	for name, wantUser := range map[string]bool{AuditHTML: true, HTML: false, Markdown: false, AuditMarkdown: false, "extra.tmpl": true} {
		got, err := fs.ReadFile(o, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := os.ReadFile(filepath.Join(dir, name))
		if !wantUser {
			want, err = fs.ReadFile(FS, name)
		}
		if err != nil || string(got) != string(want) {
			t.Errorf("%s: read %d bytes, want the %s file's %d (%v)", name, len(got), map[bool]string{true: "user's", false: "embedded"}[wantUser], len(want), err)
		}
	}
	// ParseFS reads it like any fs.FS.
	tpl, err := htmltemplate.New(AuditHTML).ParseFS(o, AuditHTML)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := tpl.Execute(&sb, "<x>"); err != nil || sb.String() != "<p>mine &lt;x&gt;</p>" {
		t.Errorf("executed %q, %v", sb.String(), err)
	}
	// A well-behaved fs.FS: the folder lists both sets once.
	if err := fstest.TestFS(o, HTML, Markdown, AuditHTML, AuditMarkdown, "extra.tmpl"); err != nil {
		t.Error(err)
	}
	if err := fstest.TestFS(SiteFiles(dir), "layout.html.tmpl", "run.html.tmpl", "site.css", "site.js", "extra.tmpl", AuditHTML); err != nil {
		t.Error(err)
	}
	if Report("") != fs.FS(FS) {
		t.Error(`Report("") is not the embedded set`)
	}
}

// TestOverlayUnreadable: a user's file that is there but cannot be read is
// an error naming its path, not a quiet fall back to the embedded one.
func TestOverlayUnreadable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A folder where the template should be: there, but not a file.
	if err := os.Mkdir(filepath.Join(dir, HTML), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := fs.ReadFile(Report(dir), HTML)
	if err == nil || errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), filepath.Join(dir, HTML)) {
		t.Errorf("err = %v, want one naming %s", err, filepath.Join(dir, HTML))
	}
	if _, err := htmltemplate.ParseFS(Report(dir), HTML); err == nil || !strings.Contains(err.Error(), HTML) {
		t.Errorf("ParseFS: err = %v, want one naming %s", err, HTML)
	}
}
