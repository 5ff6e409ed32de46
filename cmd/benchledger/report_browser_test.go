package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/internal/browser"
)

// needBrowser skips without Chromium, except in CI, which installs it: there
// a missing browser is a broken install step, not a reason to pass.
func needBrowser(t *testing.T) {
	t.Helper()
	if _, ok := browser.Available(); !ok {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must have Debian's chromium (installed by .ci/run)")
		}
		t.Skip("headless Chromium is not installed (apt-get install chromium fonts-noto-cjk): skipping the browser test")
	}
}

// TestReportInBrowser opens every language of the demo report in headless
// Chromium, from disk: every chart draws, nothing is logged as an error,
// nothing is fetched, the language links resolve, and a screenshot is taken
// (kept in $BENCHLEDGER_SCREENSHOTS when set, for a person to look at).
func TestReportInBrowser(t *testing.T) {
	t.Parallel()
	needBrowser(t)
	// A draft report only reads the archive. What the test checks does not
	// depend on the numbers: the small demo, unless screenshots are kept.
	demo := viewedDemo(t)
	out := t.TempDir()
	// The audit pages have their own browser test (audit_browser_test.go).
	if r := bl(t, "report", "--db", demo.db, "--out", out, "--format", "html,pdf", "--no-audit", demo.spec()); r.code != 0 {
		t.Fatal(r)
	}
	shots := os.Getenv("BENCHLEDGER_SCREENSHOTS")
	const ready = "window.__chartsReady === true"
	var page *browser.Page
	defer func() {
		if page != nil {
			page.Close()
		}
	}()
	// One browser loads the four pages in turn.
	for _, lang := range []string{"en", "zh", "ja", "es-419"} {
		path := filepath.Join(out, "qwen3-batch."+lang+".html")
		ctx, cancel := context.WithTimeout(context.Background(), browser.DefaultTimeout)
		var err error
		if page == nil {
			page, err = browser.Open(ctx, path, browser.Options{ReadyExpr: ready, Height: 1400})
		} else {
			err = page.Load(ctx, path, ready)
		}
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		if errs := page.ConsoleErrors(); len(errs) > 0 {
			t.Errorf("%s: console errors: %q", lang, errs)
		}
		if reqs := page.NetworkRequests(); len(reqs) > 0 {
			t.Errorf("%s: network requests from an offline report: %q", lang, reqs)
		}
		// Every chart container holds a drawn SVG with marks and text.
		var drawn []int
		if err := page.Eval(`Array.from(document.querySelectorAll('script[type="application/json"][id^="option-"]')).map(function (s) {
			var el = document.getElementById('chart-' + s.id.slice(7));
			return el ? el.querySelectorAll('svg path, svg text').length : -1; })`, &drawn); err != nil {
			t.Fatal(err)
		}
		if len(drawn) < 4 {
			t.Errorf("%s: %d charts, want the comparison, sweep, timeline and latency charts", lang, len(drawn))
		}
		for i, n := range drawn {
			if n <= 0 {
				t.Errorf("%s: chart %d did not draw (%d marks)", lang, i, n)
			}
		}
		// The charts are SVG drawn when the report was written, with no
		// charting library in the page: hovering a mark of each chart
		// shows a tooltip with its series and value (the last one stays
		// open for the screenshot).
		if html, err := os.ReadFile(path); err != nil || bytes.Contains(html, []byte("echarts.init")) {
			t.Errorf("%s: the report still carries ECharts", lang)
		}
		var tips []string
		if err := page.Eval(`Array.from(document.querySelectorAll('.chart')).map(function (el) {
			var marks = el.querySelectorAll('svg [ecmeta_ssr_type="chart"]'), tip = document.querySelector('.chart-tip');
			for (var i = 0; i < marks.length; i++) {
				var r = marks[i].getBoundingClientRect();
				marks[i].dispatchEvent(new MouseEvent('mouseover', {bubbles: true, clientX: r.x + r.width / 2, clientY: r.y + r.height / 2}));
				if (tip && !tip.hidden && tip.innerText.trim() !== '') { return tip.innerText; }
			}
			return ''; })`, &tips); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: tooltips %q", lang, tips)
		if len(tips) != len(drawn) {
			t.Errorf("%s: %d charts with a tooltip check, want %d", lang, len(tips), len(drawn))
		}
		for i, tip := range tips {
			if !strings.ContainsAny(tip, "0123456789") || len(strings.Fields(tip)) < 2 {
				t.Errorf("%s: chart %d: hovering its marks shows the tooltip %q, want what a mark is and its value", lang, i, tip)
			}
		}
		// The charts of issue 20 are there and drew, found by their kind.
		var kinds map[string]int
		if err := page.Eval(`(function () { var k = {}; document.querySelectorAll('figure[data-chart-kind]').forEach(function (f) {
			var n = f.querySelectorAll('.chart svg path').length; k[f.dataset.chartKind] = Math.max(k[f.dataset.chartKind] || 0, n); }); return k; })()`, &kinds); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"comparison", "sweep", "pareto", "cdf", "timeline", "replica-timeline"} {
			if kinds[k] <= 0 {
				t.Errorf("%s: no drawn chart of kind %s (kinds: %v)", lang, k, kinds)
			}
		}
		links, err := page.Links()
		if err != nil {
			t.Fatal(err)
		}
		siblings := 0
		for _, l := range links {
			if p, ok := browser.LocalPath(l); ok && strings.HasSuffix(p, ".html") {
				if _, err := os.Stat(p); err != nil {
					t.Errorf("%s: language link %s does not resolve", lang, l)
				}
				siblings++
			}
		}
		if siblings < 3 {
			t.Errorf("%s: %d links to the other language versions, want 3", lang, siblings)
		}
		// A full-page screenshot of a report costs Chromium seconds; it is
		// taken for a person to look at, as in the other browser tests
		// (internal/browser tests Screenshot itself).
		if shots != "" {
			if err := page.Screenshot(filepath.Join(shots, "report."+lang+".png"), true); err != nil {
				t.Error(err)
			}
		}
		pdf, err := os.ReadFile(filepath.Join(out, "qwen3-batch."+lang+".pdf"))
		if err != nil || !strings.HasPrefix(string(pdf), "%PDF") {
			t.Errorf("%s: no PDF printed (%v)", lang, err)
		}
	}
}

// TestHostileTextInBrowser renders hostile narrative and provenance text and
// checks, in the browser, that it shows as text and runs nothing.
func TestHostileTextInBrowser(t *testing.T) {
	t.Parallel()
	needBrowser(t)
	specPath := specCopy(t, smallDemo(t))
	dir := filepath.Dir(specPath)
	hostile := `</script><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">`
	writeFile(t, filepath.Join(dir, "narrative", "en.md"), "# Note\n\n"+hostile+"\n\n{{node}}\n")
	db2 := hostileDemoArchive(t, hostile)
	out := t.TempDir()
	if r := bl(t, "report", "--db", db2, "--out", out, "--lang", "en", "--format", "html", "--no-audit", specPath); r.code != 0 {
		t.Fatal(r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), browser.DefaultTimeout)
	defer cancel()
	page, err := browser.Open(ctx, filepath.Join(out, "qwen3-batch.en.html"), browser.Options{ReadyExpr: "window.__chartsReady === true"})
	if err != nil {
		t.Fatal(err)
	}
	defer page.Close()
	var pwned any
	if err := page.Eval("window.__pwned === undefined ? null : window.__pwned", &pwned); err != nil {
		t.Fatal(err)
	}
	if pwned != nil {
		t.Fatalf("hostile text ran as code (window.__pwned = %v)", pwned)
	}
	var text string
	if err := page.Eval("document.body.innerText", &text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "<img src=x onerror=") {
		t.Errorf("the hostile provenance or narrative text is not shown as text")
	}
	if reqs := page.NetworkRequests(); len(reqs) > 0 {
		t.Errorf("the hostile <img> was fetched: %q", reqs)
	}
}
