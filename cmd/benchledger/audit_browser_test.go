package main

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/internal/browser"
)

// auditPagesInBrowser opens the audit page of each language, rendered into
// out, from disk in headless Chromium: nothing logged as an error, nothing
// fetched, the verdict is the localised one, the link back to the report
// and the language links resolve to files that exist, and (in English) a
// click on the report's audit link lands on the audit page. Screenshots go to
// $BENCHLEDGER_SCREENSHOTS when set. It runs inside TestReportAuditPages,
// which has rendered the demo already.
func auditPagesInBrowser(t *testing.T, out string, verdicts map[string]string) {
	needBrowser(t)
	shots := os.Getenv("BENCHLEDGER_SCREENSHOTS")
	// One browser loads the pages in turn (its start costs more than a page).
	var page *browser.Page
	defer func() {
		if page != nil {
			page.Close()
		}
	}()
	load := func(path string) error {
		ctx, cancel := context.WithTimeout(context.Background(), browser.DefaultTimeout)
		defer cancel()
		if page == nil {
			var err error
			page, err = browser.Open(ctx, path, browser.Options{Height: 1400})
			return err
		}
		return page.Load(ctx, path, "")
	}
	for _, lang := range slices.Sorted(maps.Keys(verdicts)) {
		verdict := verdicts[lang]
		auditPath := filepath.Join(out, "qwen3-batch.audit."+lang+".html")
		reportPath := filepath.Join(out, "qwen3-batch."+lang+".html")
		if err := load(auditPath); err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		if errs := page.ConsoleErrors(); len(errs) > 0 {
			t.Errorf("%s: console errors: %q", lang, errs)
		}
		if reqs := page.NetworkRequests(); len(reqs) > 0 {
			t.Errorf("%s: network requests from an offline page: %q", lang, reqs)
		}
		var shown string
		if err := page.Eval(`document.getElementById('verdict-text').innerText`, &shown); err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(shown) != verdict {
			t.Errorf("%s: verdict shows %q, want %q", lang, shown, verdict)
		}
		var back string
		if err := page.Eval(`document.getElementById('back').href`, &back); err != nil {
			t.Fatal(err)
		}
		if p, ok := browser.LocalPath(back); !ok || filepath.Clean(p) != filepath.Clean(absPath(t, reportPath)) {
			t.Errorf("%s: back link %s, want the report %s", lang, back, reportPath)
		} else if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: back link does not resolve: %v", lang, err)
		}
		links, err := page.Links()
		if err != nil {
			t.Fatal(err)
		}
		siblings := 0
		for _, l := range links {
			p, ok := browser.LocalPath(l)
			if !ok {
				t.Errorf("%s: link %s leaves the page set", lang, l)
				continue
			}
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s: link %s does not resolve", lang, l)
			}
			if strings.Contains(filepath.Base(p), ".audit.") {
				siblings++
			}
		}
		if siblings != len(verdicts)-1 {
			t.Errorf("%s: %d links to other audit pages, want %d", lang, siblings, len(verdicts)-1)
		}
		if shots != "" {
			if err := page.Screenshot(filepath.Join(shots, "audit."+lang+".png"), true); err != nil {
				t.Error(err)
			}
		}

		// The report's audit line opens this page. Each language's link
		// is checked in the HTML by TestReportAuditPages; one click in the
		// browser is enough to show that such a link works from disk.
		if lang != "en" {
			continue
		}
		if err := load(reportPath); err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		rp := page
		var landed struct{ URL, Verdict string }
		if err := rp.Eval(`document.getElementById('audit-link').click()`, nil); err != nil {
			t.Fatalf("%s: clicking the audit link: %v", lang, err)
		}
		// The click navigates asynchronously: wait (within the page's
		// timeout) until a page with a verdict is there, then read it.
		if err := rp.WaitFor(`((document.getElementById('verdict-text') || {}).innerText || '') !== ''`); err != nil {
			t.Fatalf("%s: after clicking the audit link: %v", lang, err)
		}
		if err := rp.Eval(`({URL: location.href, Verdict: (document.getElementById('verdict-text') || {}).innerText || ''})`, &landed); err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		if p, ok := browser.LocalPath(landed.URL); !ok || filepath.Clean(p) != filepath.Clean(absPath(t, auditPath)) || strings.TrimSpace(landed.Verdict) != verdict {
			t.Errorf("%s: the report's audit link led to %s showing %q, want %s showing %q", lang, landed.URL, landed.Verdict, auditPath, verdict)
		}
	}
}

func absPath(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
