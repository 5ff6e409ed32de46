package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/internal/browser"
)

// openSitePage opens a page of the site in headless Chromium; the site's own
// files (style, scripts, data) may load, anything else counts as network.
func openSitePage(t *testing.T, site, rel, ready string) *browser.Page {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), browser.DefaultTimeout)
	defer cancel()
	p, err := browser.Open(ctx, filepath.Join(site, filepath.FromSlash(rel)), browser.Options{ReadyExpr: ready, LocalDir: site, Height: 1200})
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	t.Cleanup(p.Close)
	return p
}

// loadSitePage loads another page of the site into p's browser, as
// openSitePage opens one (a browser's start costs more than a page).
func loadSitePage(t *testing.T, p *browser.Page, site, rel, ready string) *browser.Page {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), browser.DefaultTimeout)
	defer cancel()
	if err := p.Load(ctx, filepath.Join(site, filepath.FromSlash(rel)), ready); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return p
}

// clean fails the test on console errors and network requests.
func clean(t *testing.T, what string, p *browser.Page) {
	t.Helper()
	if errs := p.ConsoleErrors(); len(errs) > 0 {
		t.Errorf("%s: console errors %q", what, errs)
	}
	if reqs := p.NetworkRequests(); len(reqs) > 0 {
		t.Errorf("%s: network requests %q", what, reqs)
	}
}

func eval[T any](t *testing.T, p *browser.Page, expr string) T {
	t.Helper()
	var v T
	if err := p.Eval(expr, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSiteInBrowser uses the site as a person would, in headless Chromium
// from disk: filter and sort the runs table, open a run page (charts drawn),
// switch its language, pick two runs and compare them, follow the case
// study to its report; no console error and no network request anywhere.
func TestSiteInBrowser(t *testing.T) {
	t.Parallel()
	needBrowser(t)
	// The site only reads the archive; the case study's audit pages are
	// TestReportAuditPages' (in a browser too). The site's behaviour is the
	// point, not the published numbers: the small demo, unless screenshots
	// are kept for a person to look at.
	demo := viewedDemo(t)
	db, specPath := demo.db, demo.spec()
	site := filepath.Join(t.TempDir(), "site")
	if r := bl(t, "site", "--no-audit", "--db", db, "--out", site, specPath); r.code != 0 {
		t.Fatal(r)
	}
	runs := runsJSON(t, db)
	baselines, sweeps := 0, 0
	var sweepIDs []string
	for _, r := range runs {
		switch r["role"] {
		case "baseline":
			baselines++
		case "sweep-point":
			sweeps++
			sweepIDs = append(sweepIDs, r["id"].(string))
		}
	}
	if baselines == 0 || len(sweepIDs) < 2 {
		t.Fatalf("demo has %d baselines, %d sweep points", baselines, len(sweepIDs))
	}

	// The runs table: every run, then filtered by role and by a text field,
	// with the filter kept in the address; then sorted by throughput.
	p := openSitePage(t, site, "en/runs.html", "document.readyState === 'complete'")
	visible := `document.querySelectorAll('#runs tbody tr:not([hidden])').length`
	if n := eval[int](t, p, visible); n != len(runs) {
		t.Errorf("runs table shows %d rows, archive has %d", n, len(runs))
	}
	set := func(name, value string) {
		t.Helper()
		js := `(function(){var el=document.querySelector('#filters [name="` + name + `"]'); el.value=` + jsString(value) + `; el.dispatchEvent(new Event('input', {bubbles:true})); el.dispatchEvent(new Event('change', {bubbles:true})); return true})()`
		if !eval[bool](t, p, js) {
			t.Fatal("filter not set")
		}
	}
	set("role", "sweep-point")
	if n := eval[int](t, p, visible); n != sweeps {
		t.Errorf("role=sweep-point shows %d rows, want %d", n, sweeps)
	}
	if h := eval[string](t, p, "location.hash"); h != "#role=sweep-point" {
		t.Errorf("hash %q after filtering", h)
	}
	if s := eval[string](t, p, "document.getElementById('shown').textContent"); !strings.HasPrefix(s, strconv.Itoa(sweeps)+" of ") {
		t.Errorf("count line %q", s)
	}
	set("model", "no-such-model")
	if n := eval[int](t, p, visible); n != 0 {
		t.Errorf("a model nobody ran shows %d rows", n)
	}
	set("model", "")
	eval[bool](t, p, `(document.querySelector('th[data-key="throughput"]').click(), true)`)
	tp := eval[[]float64](t, p, `Array.from(document.querySelectorAll('#runs tbody tr:not([hidden])'), tr => parseFloat(tr.dataset.throughput))`)
	for i := 1; i < len(tp); i++ {
		if tp[i] < tp[i-1] {
			t.Errorf("sorted by throughput, row %d (%v) comes after %v", i, tp[i], tp[i-1])
		}
	}
	// A pair the case study compares opens its comparison page, built
	// with the site.
	pair := eval[[]string](t, p, `(function(){var m=JSON.parse(document.getElementById('built-comparisons').textContent); var k=Object.keys(m).sort()[0]; return k ? k.split(' ').concat([m[k]]) : []})()`)
	if len(pair) != 3 {
		t.Fatal("the runs page knows no comparison of the case study")
	}
	tick := func(a, b string) {
		t.Helper()
		js := `(function(){document.querySelectorAll('input.pick:checked').forEach(function(c){c.checked=false;}); ['` + a + `','` + b + `'].forEach(function(id){var c=document.querySelector('input.pick[value="'+id+'"]'); c.checked=true; c.dispatchEvent(new Event('change',{bubbles:true}));}); return !document.getElementById('compare').disabled})()`
		if !eval[bool](t, p, js) {
			t.Fatal("compare button stays disabled with two runs ticked")
		}
	}
	set("role", "")
	tick(pair[0], pair[1])
	eval[bool](t, p, `(document.getElementById('compare').click(), true)`)
	if err := p.WaitFor(`location.pathname.endsWith('/en/` + pair[2] + `') && document.readyState === 'complete'`); err != nil {
		t.Fatal(err)
	}
	if n := eval[int](t, p, `document.querySelectorAll('table.comparison tbody tr').length`); n != 1 {
		t.Errorf("comparison page has %d figure rows", n)
	}
	// Its distributions draw.
	if err := p.WaitFor(`window.__chartsReady === true`); err != nil {
		t.Fatal(err)
	}
	if cdf := eval[[]int](t, p, `Array.from(document.querySelectorAll('figure[data-chart-kind="cdf"] .chart'), el => el.querySelectorAll('svg path').length)`); len(cdf) != 2 || cdf[0] == 0 || cdf[1] == 0 {
		t.Errorf("comparison page CDF charts drew %v paths", cdf)
	}
	// In Japanese, its labels, marks and verdicts break between phrases
	// only (意図した変/更), on a screen and printed on A4.
	for _, w := range []int{1280, browser.PrintWidth} {
		ctx, cancel := context.WithTimeout(context.Background(), browser.DefaultTimeout)
		jp, err := browser.Open(ctx, filepath.Join(site, "ja", filepath.FromSlash(pair[2])), browser.Options{ReadyExpr: "document.readyState === 'complete'", LocalDir: site, Width: w, Height: 1000})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if w == browser.PrintWidth {
			if err := jp.EmulateMedia("print"); err != nil {
				t.Fatal(err)
			}
		}
		for _, b := range eval[[]string](t, jp, wordBreaksJS+"('th, td:first-child, td:last-child')") {
			t.Errorf("ja comparison page at %d px: %s", w, b)
		}
		if over := eval[float64](t, jp, `document.documentElement.scrollWidth - window.innerWidth`); over > 0 {
			t.Errorf("ja comparison page at %d px: %.0f px wider than the page", w, over)
		}
		jp.Close()
	}
	if err := p.Eval(`(setTimeout(function(){ history.back(); }, 0), true)`, nil); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitFor(`location.pathname.endsWith('/runs.html') && document.readyState === 'complete' && document.getElementById('compare') !== null`); err != nil {
		t.Fatal(err)
	}

	// Two sweep points are no pair a spec names: the compare button opens
	// the client-side diff.
	tick(sweepIDs[0], sweepIDs[1])
	eval[bool](t, p, `(document.getElementById('compare').click(), true)`)
	if err := p.WaitFor(`location.pathname.endsWith('/diff.html') && window.__diffReady === true`); err != nil {
		t.Fatal(err)
	}
	rows := eval[int](t, p, `document.querySelectorAll('#diff tbody tr').length`)
	differ := eval[[]string](t, p, `Array.from(document.querySelectorAll('#diff tbody tr.differs'), tr => tr.cells[0].textContent)`)
	if rows < 20 || len(differ) == 0 {
		t.Errorf("diff of two sweep points: %d rows, differing %q", rows, differ)
	}
	if !containsFold(differ, "concurrency") {
		t.Errorf("the two sweep points' differing rows %q name neither the concurrency nor the throughput", differ)
	}
	if e := eval[bool](t, p, `document.getElementById('diff-error').hidden`); !e {
		t.Error("diff shows an error")
	}
	siteDiffDeltas(t, p, site)
	clean(t, "runs table and diff", p)

	// A diff of a run the site does not have says so, without an error
	// in the console.
	dp := loadSitePage(t, p, site, "en/diff.html", "document.readyState === 'complete'")
	if err := dp.Eval(`location.hash = '#a=`+sweepIDs[0]+`&b=zz0000000000'; setTimeout(function(){ location.reload(); }, 0); true`, nil); err != nil {
		t.Fatal(err)
	}
	if err := dp.WaitFor(`window.__diffReady === true && !document.getElementById('diff-error').hidden`); err != nil {
		t.Fatal(err)
	}
	if msg := eval[string](t, dp, "document.getElementById('diff-error').textContent"); !strings.Contains(msg, "zz0000000000") {
		t.Errorf("missing run message %q", msg)
	}

	// A run page: charts drawn, figures shown; the language switch and a
	// campaign link.
	id := sweepIDs[0]
	rp := loadSitePage(t, p, site, "en/run/"+id+".html", "window.__chartsReady === true")
	marks := eval[[]int](t, rp, `Array.from(document.querySelectorAll('.chart'), el => el.querySelectorAll('svg path, svg text').length)`)
	if len(marks) != 2 || marks[0] == 0 || marks[1] == 0 {
		t.Errorf("run page charts drew %v marks", marks)
	}
	// The request timeline's points are one table of rows (send, E2E
	// latency, TTFT): the tooltip of a point of each series shows the
	// series, the point's send time and its own value, not the row's other.
	tips := eval[[]string](t, rp, `(function () {
		var el = document.getElementById('chart-timeline'), chart = echarts.getInstanceByDom(el);
		var opt = JSON.parse(document.getElementById('option-timeline').textContent), out = [];
		opt.series.forEach(function (s, i) {
			var k = opt.dataset.source.findIndex(function (r) { return r[s.encode.y] !== null; });
			chart.dispatchAction({type: 'showTip', seriesIndex: i, dataIndex: k});
			var tip = Array.from(el.querySelectorAll('div')).filter(function (d) { return d.style.zIndex === '9999999'; })[0];
			var row = opt.dataset.source[k], other = s.encode.y === 1 ? 2 : 1;
			out.push([s.name, String(row[0]), String(row[s.encode.y]), row.length > 2 ? String(row[other]) : '', tip ? tip.innerText : ''].join('\u0001'));
		});
		return out; })()`)
	if len(tips) != 2 {
		t.Errorf("timeline tooltips %q, want one for each of its two series", tips)
	}
	for _, tip := range tips {
		f := strings.Split(tip, "\x01")
		name, send, value, other, text := f[0], f[1], f[2], f[3], f[4]
		t.Logf("timeline tooltip of %s: %q", name, text)
		if !strings.Contains(text, name) || !strings.Contains(text, send) || !strings.Contains(text, value) || other != "" && other != value && strings.Contains(text, other) {
			t.Errorf("timeline tooltip %q, want %s with %s and %s only (not %s)", text, name, send, value, other)
		}
	}
	if n := eval[int](t, rp, `document.querySelectorAll('table.figures tbody tr').length`); n < 10 {
		t.Errorf("%d figure rows", n)
	}
	eval[bool](t, rp, `(document.querySelector('nav.langs a[hreflang="ja"]').click(), true)`)
	if err := rp.WaitFor(`location.pathname.endsWith('/ja/run/` + id + `.html') && document.readyState === 'complete' && window.__chartsReady === true`); err != nil {
		t.Fatal(err)
	}
	if lang := eval[string](t, rp, "document.documentElement.lang"); lang != "ja" {
		t.Errorf("after the switch the page is %q", lang)
	}
	// The report's locale rules: Japanese fonts first on a ja page (a
	// Chinese font would draw Chinese glyph forms).
	if font := eval[string](t, rp, "getComputedStyle(document.body).fontFamily"); !strings.HasPrefix(font, `"Noto Sans CJK JP"`) {
		t.Errorf("ja run page fonts %s, want Japanese ones first", font)
	}
	// Its figure labels break between phrases only (合計トークンスループッ/ト).
	for _, b := range eval[[]string](t, rp, wordBreaksJS+"('table.figures td:first-child, table.figures th')") {
		t.Errorf("ja run page at 1280 px: %s", b)
	}
	if h := eval[string](t, rp, "document.querySelector('h2').textContent"); !containsCJK(h) {
		t.Errorf("ja run page heading %q", h)
	}
	clean(t, "run page", rp)

	// The case study page leads to its report, which opens and draws.
	cp := loadSitePage(t, p, site, "zh/case/qwen3-batch.html", "document.readyState === 'complete'")
	if lang, font := eval[string](t, cp, "document.documentElement.lang"), eval[string](t, cp, "getComputedStyle(document.body).fontFamily"); lang != "zh-Hans" || !strings.HasPrefix(font, `"Noto Sans CJK SC"`) {
		t.Errorf("zh site page: lang %q, fonts %s; want zh-Hans and Chinese fonts first", lang, font)
	}
	eval[bool](t, cp, `(document.querySelector('a.report[href$="qwen3-batch.zh.html"]').click(), true)`)
	if err := cp.WaitFor(`location.pathname.endsWith('/reports/qwen3-batch/qwen3-batch.zh.html') && window.__chartsReady === true`); err != nil {
		t.Fatal(err)
	}
	if title := eval[string](t, cp, "document.querySelector('h1').textContent"); title == "" {
		t.Error("the report has no title")
	}
	clean(t, "case study and report", cp)

	siteRunsTableFits(t, site, len(runs))

	if shots := os.Getenv("BENCHLEDGER_SCREENSHOTS"); shots != "" {
		for _, rel := range []string{"en/runs.html", "en/run/" + id + ".html", "zh/index.html"} {
			sp := openSitePage(t, site, rel, "document.readyState === 'complete' && (window.__chartsReady !== false)")
			if err := sp.Screenshot(filepath.Join(shots, "site-"+strings.NewReplacer("/", "-").Replace(rel)+".png"), true); err != nil {
				t.Error(err)
			}
		}
	}
}

// siteDiffDeltas checks the diff page open in p: each figure row is in one
// unit, and a row that differs has its change from the first run to the
// second, better or worse by the figure's direction, against the runs'
// data.
func siteDiffDeltas(t *testing.T, p *browser.Page, site string) {
	t.Helper()
	a, b := eval[string](t, p, `document.getElementById('diff-a').textContent`), eval[string](t, p, `document.getElementById('diff-b').textContent`)
	type row struct {
		Metric string   `json:"metric"`
		Cells  []string `json:"cells"`
		Way    string   `json:"way"`
	}
	rows := eval[[]row](t, p, `Array.from(document.querySelectorAll('#diff tbody tr[data-metric]'), tr => ({metric: tr.dataset.metric, cells: Array.from(tr.cells, c => c.textContent), way: tr.cells[3].classList.contains('better') ? 'better' : tr.cells[3].classList.contains('worse') ? 'worse' : ''}))`)
	if len(rows) < 10 {
		t.Fatalf("diff: %d figure rows", len(rows))
	}
	value := func(id, metric string) float64 {
		for _, f := range siteRunData(t, site, id)["figures"].([]any) {
			if m := f.(map[string]any); m["metric"] == metric {
				if v, ok := m["recomputed"].(float64); ok {
					return v
				}
			}
		}
		return math.NaN()
	}
	unit := func(s string) string { return s[strings.LastIndex(s, " ")+1:] }
	judged := 0
	for _, r := range rows {
		if len(r.Cells) != 4 {
			t.Fatalf("diff row %s: %d cells", r.Metric, len(r.Cells))
		}
		if r.Cells[1] != "–" && r.Cells[2] != "–" && unit(r.Cells[1]) != unit(r.Cells[2]) {
			t.Errorf("diff row %s in two units: %q, %q", r.Metric, r.Cells[1], r.Cells[2])
		}
		va, vb := value(a, r.Metric), value(b, r.Metric)
		if math.IsNaN(va) || math.IsNaN(vb) || va == vb {
			continue
		}
		if r.Cells[3] == "" {
			t.Errorf("diff row %s differs without its change", r.Metric)
		}
		want := ""
		switch d := figures.DirectionOf(r.Metric); {
		case d == figures.HigherIsBetter && vb > va, d == figures.LowerIsBetter && vb < va:
			want = "better"
		case d == figures.HigherIsBetter && vb < va, d == figures.LowerIsBetter && vb > va:
			want = "worse"
		}
		if r.Way != want {
			t.Errorf("diff row %s from %v to %v marked %q, want %q (%q)", r.Metric, va, vb, r.Way, want, r.Cells[3])
		}
		if want != "" {
			judged++
		}
	}
	if judged < 5 {
		t.Errorf("diff: only %d changes judged better or worse", judged)
	}
}

// siteRunsTableFits opens the runs table at 1280×800 in each language: one
// line per run (every row as high as the first, at least 15 runs on the
// first screen of the demo), headers wrapped between words only (there and
// printed on A4, where the table fits the page), a cut cell's whole text in
// its title, the
// runs listed by date then role; the column chooser hides a column and the
// page remembers it when opened again.
func siteRunsTableFits(t *testing.T, site string, runs int) {
	t.Helper()
	// One browser loads the languages in turn; each leaves its storage
	// cleared, as the next one needs it.
	var p, pp *browser.Page
	defer func() {
		for _, page := range []*browser.Page{p, pp} {
			if page != nil {
				page.Close()
			}
		}
	}()
	for _, lang := range siteLangs {
		ctx, cancel := context.WithTimeout(context.Background(), browser.DefaultTimeout)
		path, ready := filepath.Join(site, lang, "runs.html"), "document.readyState === 'complete'"
		var err error
		if p == nil {
			p, err = browser.Open(ctx, path, browser.Options{ReadyExpr: ready, LocalDir: site, Width: 1280, Height: 800})
		} else {
			err = p.Load(ctx, path, ready)
		}
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		heights := eval[[]float64](t, p, `Array.from(document.querySelectorAll('#runs tbody tr'), tr => tr.getBoundingClientRect().height)`)
		if len(heights) != runs {
			t.Fatalf("%s: %d rows, want %d", lang, len(heights), runs)
		}
		line := eval[float64](t, p, `parseFloat(getComputedStyle(document.querySelector('#runs tbody td:nth-child(3)')).lineHeight) || 20`)
		for i, h := range heights {
			if h != heights[0] || h > 2*line {
				t.Errorf("%s: row %d is %.1f px high (first %.1f, line %.1f): wrapped", lang, i, h, heights[0], line)
				break
			}
		}
		if n := eval[int](t, p, `Array.from(document.querySelectorAll('#runs tbody tr')).filter(tr => tr.getBoundingClientRect().bottom <= window.innerHeight).length`); n < 15 {
			t.Errorf("%s: %d runs on the first screen at 1280×800, want ≥ 15", lang, n)
		}
		if w := eval[float64](t, p, `document.documentElement.scrollWidth - window.innerWidth`); w > 0 {
			t.Errorf("%s: the page is %.0f px wider than the window", lang, w)
		}
		// Headers wrap between words only (no "Concurren/cia", "レプリ/カ").
		for _, b := range eval[[]string](t, p, wordBreaksJS+"('#runs th')") {
			t.Errorf("%s (1280 px): header %s", lang, b)
		}
		// Every cut cell has its whole text in its title.
		cut := eval[[]string](t, p, `Array.from(document.querySelectorAll('#runs tbody td')).filter(td => td.offsetParent !== null && td.scrollWidth > td.clientWidth && td.title !== td.textContent).map(td => td.textContent)`)
		if len(cut) > 0 {
			t.Errorf("%s: cells cut without their text in a title: %q", lang, cut)
		}
		if n := eval[int](t, p, `Array.from(document.querySelectorAll('#runs tbody td')).filter(td => td.offsetParent !== null && td.scrollWidth > td.clientWidth).length`); lang == "en" && n == 0 {
			t.Errorf("%s: no cell is cut: the check above checked nothing", lang)
		}
		// Listed by date, then role in the order a case study reads them.
		order := eval[[]string](t, p, `Array.from(document.querySelectorAll('#runs tbody tr'), tr => tr.dataset.date + ' ' + tr.dataset.role)`)
		if len(order) > 1 && !(strings.HasSuffix(order[0], " baseline") && strings.HasSuffix(order[1], " tuned")) {
			t.Errorf("%s: the table starts %q, want the baseline then the tuned run", lang, order[:2])
		}
		// The chooser: hide the campaign, open the page again.
		visibleCampaign := `getComputedStyle(document.querySelector('#runs tbody td:nth-child(3)')).display !== 'none'`
		if !eval[bool](t, p, visibleCampaign) {
			t.Fatalf("%s: the campaign column is hidden at first", lang)
		}
		eval[bool](t, p, `(function(){var b=document.querySelector('#columns input[value="campaign"]'); b.checked=false; b.dispatchEvent(new Event('change',{bubbles:true})); return true})()`)
		if eval[bool](t, p, visibleCampaign) {
			t.Errorf("%s: unticking the campaign leaves its column shown", lang)
		}
		if err := p.Eval(`(setTimeout(function(){ location.reload(); }, 0), true)`, nil); err != nil {
			t.Fatal(err)
		}
		if err := p.WaitFor(`document.readyState === 'complete' && document.querySelector('#columns input[value="campaign"]') !== null && performance.getEntriesByType('navigation')[0].type === 'reload'`); err != nil {
			t.Fatal(err)
		}
		if eval[bool](t, p, visibleCampaign) || eval[bool](t, p, `document.querySelector('#columns input[value="campaign"]').checked`) {
			t.Errorf("%s: the hidden campaign column is back after a reload", lang)
		}
		eval[bool](t, p, `(localStorage.clear(), true)`)
		clean(t, lang+" runs table", p)
		// Printed on A4, the headers still wrap between words only; one
		// print-sized page loads the languages in turn.
		ctx, cancel = context.WithTimeout(context.Background(), browser.DefaultTimeout)
		if pp == nil {
			pp, err = browser.Open(ctx, path, browser.Options{ReadyExpr: ready, LocalDir: site, Width: browser.PrintWidth, Height: 1000})
			if err == nil {
				err = pp.EmulateMedia("print")
			}
		} else {
			err = pp.Load(ctx, path, ready)
		}
		cancel()
		if err != nil {
			t.Fatalf("%s (A4 print): %v", lang, err)
		}
		if m := eval[bool](t, pp, `matchMedia('print').matches`); !m {
			t.Fatalf("%s: the A4 page is not laid out for print", lang)
		}
		for _, b := range eval[[]string](t, pp, wordBreaksJS+"('#runs th')") {
			t.Errorf("%s (A4 print): header %s", lang, b)
		}
		if w := eval[float64](t, pp, `document.documentElement.scrollWidth - window.innerWidth`); w > 0 {
			t.Errorf("%s (A4 print): the runs table is %.0f px wider than the page", lang, w)
		}
	}
}

// TestSiteHostileInBrowser: a hostile campaign name and image shows as the
// text it is, runs no script, adds no element.
func TestSiteHostileInBrowser(t *testing.T) {
	t.Parallel()
	needBrowser(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	writeVLLM(t, filepath.Join(dir, "r.json"), vllmSpec{n: 10, seed: 5})
	hostile := `<img src=x onerror="document.title='pwned'">`
	if r := bl(t, "ingest", "--db", db, "--set", "campaign="+hostile, "--set", "runtime.image=<script>document.title='pwned'</script>", filepath.Join(dir, "r.json")); r.code != 0 {
		t.Fatal(r)
	}
	site := filepath.Join(dir, "site")
	if r := bl(t, "site", "--db", db, "--out", site, "--lang", "en"); r.code != 0 {
		t.Fatal(r)
	}
	id := strings.TrimSpace(bl(t, "runs", "--db", db, "-q").stdout)
	var p *browser.Page
	for i, rel := range []string{"en/run/" + id + ".html", "en/runs.html", "en/index.html"} {
		if i == 0 {
			p = openSitePage(t, site, rel, "document.readyState === 'complete'")
		} else {
			loadSitePage(t, p, site, rel, "document.readyState === 'complete'")
		}
		if title := eval[string](t, p, "document.title"); strings.Contains(title, "pwned") {
			t.Errorf("%s: hostile script ran", rel)
		}
		if n := eval[int](t, p, `document.querySelectorAll('main img, main script:not([type])').length`); n != 0 {
			t.Errorf("%s: %d elements injected", rel, n)
		}
		if !eval[bool](t, p, `document.body.textContent.includes(`+jsString(hostile)+`)`) {
			t.Errorf("%s: the hostile value is not shown as text", rel)
		}
		clean(t, rel, p)
	}
}

func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`)
	return "'" + r.Replace(s) + "'"
}

func containsFold(xs []string, sub string) bool {
	for _, x := range xs {
		if strings.Contains(strings.ToLower(x), strings.ToLower(sub)) {
			return true
		}
	}
	return false
}

func containsCJK(s string) bool {
	for _, r := range s {
		if r >= 0x3040 && r <= 0x9fff {
			return true
		}
	}
	return false
}
