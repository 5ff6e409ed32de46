package browser

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestShare: with Share on, pages opened at the same time are tabs of one
// Chromium (one profile dir under TMPDIR), each recording only its own
// console messages, each with its own storage (what one page keeps in
// localStorage the next does not see, as with a fresh browser); printing
// goes through it too; a browser that has gone is started again; stop
// ends the browser (its profile dir goes) and
// Open starts a browser of its own again.
func TestShare(t *testing.T) {
	needChromium(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	stop := Share()
	defer stop()

	var wg sync.WaitGroup
	pages := map[string]*Page{}
	var mu sync.Mutex
	for _, name := range []string{"console_error.html", "report.html"} {
		wg.Go(func() {
			p := open(t, name, Options{})
			mu.Lock()
			pages[name] = p
			mu.Unlock()
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if n := countProfiles(t, tmp); n != 1 {
		t.Errorf("two pages open: %d profile dirs under TMPDIR, want the shared browser's one", n)
	}
	if errs := pages["console_error.html"].ConsoleErrors(); !slices.ContainsFunc(errs, func(s string) bool { return strings.Contains(s, "boom: series missing") }) {
		t.Errorf("console.error not recorded in its tab; errors = %q", errs)
	}
	if errs := pages["report.html"].ConsoleErrors(); len(errs) > 0 {
		t.Errorf("the report's tab has another tab's errors: %q", errs)
	}

	// Storage: a page of the same file:// origin in a new tab starts empty.
	dir := t.TempDir()
	html := filepath.Join(dir, "store.html")
	if err := os.WriteFile(html, []byte(`<!doctype html><title>s</title><script>window.__before = localStorage.getItem("k"); localStorage.setItem("k", "kept")</script>`), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		p, err := Open(context.Background(), html, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var before any
		err = p.Eval("window.__before", &before)
		p.Close()
		if err != nil || before != nil {
			t.Errorf("page %d: localStorage held %v before the page set it (err %v), want a fresh browser's nothing", i+1, before, err)
		}
	}

	// A shared browser that has gone (killed here) is started again.
	for _, p := range pages {
		p.Close()
	}
	sh := sharing()
	sh.mu.Lock()
	proc := chromedp.FromContext(sh.ctx).Browser.Process()
	sh.mu.Unlock()
	if err := proc.Kill(); err != nil {
		t.Fatal(err)
	}
	proc.Wait()
	pages["report.html"] = open(t, "report.html", Options{})

	pdf := filepath.Join(dir, "report.pdf")
	if err := PrintPDF(context.Background(), testdata(t, "report.html"), pdf); err != nil {
		t.Fatal(err)
	}
	if n := countProfiles(t, tmp); n != 1 {
		t.Errorf("after a print: %d profile dirs, want the shared browser's one", n)
	}

	for _, p := range pages {
		p.Close()
	}
	stop()
	if n := countProfiles(t, tmp); n != 0 {
		t.Errorf("stopped: %d profile dirs left under TMPDIR", n)
	}
	p := open(t, "report.html", Options{})
	if n := countProfiles(t, tmp); n != 1 {
		t.Errorf("sharing off: %d profile dirs with a page open, want its own browser's one", n)
	}
	p.Close()
}
