package main

import (
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSiteTrends: runs of one configuration over engine versions are one
// trend, in version order (0.8.10 after 0.8.9); a run whose median latency
// lies outside the range of the three runs before it is flagged, as the
// rule on the page says (recomputed here from show --json); another
// configuration, and two runs of one date and version, are no trend.
func TestSiteTrends(t *testing.T) {
	t.Parallel()
	db, out, versions := trendSite(t)
	index, err := os.ReadFile(filepath.Join(out, "en", "trends.html"))
	if err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`<a href="(trend/[0-9a-f]{12}\.html)">`).FindAllStringSubmatch(string(index), -1)
	if len(links) != 1 {
		t.Fatalf("trends page lists %d series, want the one configuration run over versions", len(links))
	}
	if !strings.Contains(string(index), "previous 3 runs") {
		t.Error("the trends page does not state its rule")
	}
	page, err := os.ReadFile(filepath.Join(out, "en", filepath.FromSlash(links[0][1])))
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	rows := regexp.MustCompile(`<tr data-run="([0-9a-f]{12})"( class="flagged")?><td>[^<]*</td><td>([^<]*)</td>`).FindAllStringSubmatch(s, -1)
	if len(rows) != len(versions) {
		t.Fatalf("trend page has %d runs, want %d", len(rows), len(versions))
	}
	// The rule, recomputed: median latency outside the min–max of the
	// previous three runs.
	var medians []float64
	for i, r := range rows {
		if r[3] != versions[i] {
			t.Errorf("trend row %d is version %q, want %q", i, r[3], versions[i])
		}
		if m, ok := recomputedFigures(t, db, r[1])["e2el.median"]; ok {
			medians = append(medians, m)
		}
	}
	if len(medians) != len(rows) {
		t.Fatalf("%d medians for %d runs", len(medians), len(rows))
	}
	flagged := 0
	for i, r := range rows {
		want := false
		if i >= 3 {
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, m := range medians[i-3 : i] {
				lo, hi = math.Min(lo, m), math.Max(hi, m)
			}
			want = medians[i] < lo || medians[i] > hi
		}
		if got := r[2] != ""; got != want {
			t.Errorf("run %s (median %v): flagged %t, want %t", r[1], medians[i], got, want)
		}
		if want {
			flagged++
		}
	}
	if flagged != 1 {
		t.Errorf("%d runs flagged, want the one whose latency jumped", flagged)
	}
	if !strings.Contains(s, "outside the previous runs’ range (worse)") && !strings.Contains(html.UnescapeString(s), "outside the previous runs' range (worse)") {
		t.Error("the flagged run is not said to be worse")
	}
	// The charts: one per figure, each with every run in order.
	charts := regexp.MustCompile(`<figure data-chart-kind="trend"><div class="chart" id="chart-trend-(\d)"[^>]*></div><script type="application/json" id="option-trend-\d">([^<]*)</script><figcaption>`).FindAllStringSubmatch(s, -1)
	if len(charts) != 2 {
		t.Fatalf("%d trend charts, want 2", len(charts))
	}
	var opt struct {
		Series []struct {
			Data []any `json:"data"`
		} `json:"series"`
	}
	if err := json.Unmarshal([]byte(charts[1][2]), &opt); err != nil {
		t.Fatal(err)
	}
	if len(opt.Series) != 2 || len(opt.Series[0].Data) != len(rows) || len(opt.Series[1].Data) != 1 {
		t.Fatalf("latency trend chart: %d series, %v", len(opt.Series), opt.Series)
	}
	for i, d := range opt.Series[0].Data {
		if v, ok := d.(float64); !ok || math.Abs(v-medians[i]) > 1e-6 {
			t.Errorf("latency trend point %d is %v, the run's median %v", i, d, medians[i])
		}
	}
	if strings.Contains(s, "<img") || !strings.Contains(s, "H100 &lt;img src=x") {
		t.Error("the hostile GPU model is not text on the trend page")
	}
	ja, err := os.ReadFile(filepath.Join(out, "ja", filepath.FromSlash(links[0][1])))
	if err != nil || !strings.Contains(string(ja), "直前 3 回") {
		t.Errorf("the ja trend page lacks its rule: %v", err)
	}
}

// trendGPU is the GPU model of the trend fixture's runs: hostile text a
// trend page must show as text.
const trendGPU = `H100 <img src=x onerror="window.__pwned=1">`

// trendSite ingests runs of one configuration over five engine versions,
// the last with a jump in latency, and two runs of another configuration
// and one version, and builds their site in en and ja; it returns the
// archive, the site and the versions in order.
func trendSite(t *testing.T) (db, out string, versions []string) {
	t.Helper()
	dir := t.TempDir()
	db = filepath.Join(dir, "a.db")
	ingest := func(name string, seed float64, sets ...string) string {
		t.Helper()
		path := filepath.Join(dir, name+".json")
		writeVLLM(t, path, vllmSpec{n: 20, seed: seed})
		args := []string{"ingest", "--db", db, "--set", "campaign=trend", "--set", "runtime.engine=vllm", "--set", "hardware.gpu_model=" + trendGPU}
		for _, s := range sets {
			args = append(args, "--set", s)
		}
		if r := bl(t, append(args, path)...); r.code != 0 {
			t.Fatal(r)
		}
		ids := strings.Fields(bl(t, "runs", "--db", db, "-q").stdout)
		return ids[len(ids)-1]
	}
	versions = []string{"0.8.8", "0.8.9", "0.8.10", "0.8.11", "0.8.12"}
	seeds := []float64{0.001, 0.003, 0.002, 0.0025, 0.4}
	for i, v := range versions {
		ingest(fmt.Sprintf("v%d", i), seeds[i], "runtime.version="+v, "hardware.gpu_count=1")
	}
	// Another configuration (two GPUs), two runs of one version: repeats.
	ingest("other-a", 0.01, "runtime.version=0.8.8", "hardware.gpu_count=2")
	ingest("other-b", 0.02, "runtime.version=0.8.8", "hardware.gpu_count=2")
	out = filepath.Join(dir, "site")
	if r := bl(t, "site", "--db", db, "--out", out, "--lang", "en,ja", "--raw=false"); r.code != 0 {
		t.Fatal(r)
	}
	if keep := os.Getenv("BENCHLEDGER_SITE_KEEP"); keep != "" {
		os.RemoveAll(keep)
		if err := copyTree(out, keep); err != nil {
			t.Fatal(err)
		}
	}
	return db, out, versions
}

// TestSiteTrendsInBrowser: a trend page draws both charts in headless
// Chromium in each language, from disk, with no console error and no
// request outside the site; the hostile GPU model runs no script.
func TestSiteTrendsInBrowser(t *testing.T) {
	t.Parallel()
	needBrowser(t)
	_, out, _ := trendSite(t)
	pages, _ := filepath.Glob(filepath.Join(out, "en", "trend", "*.html"))
	if len(pages) != 1 {
		t.Fatalf("%d trend pages", len(pages))
	}
	rel := "trend/" + filepath.Base(pages[0])
	for _, lang := range []string{"en", "ja"} {
		p := openSitePage(t, out, lang+"/"+rel, "window.__chartsReady === true")
		marks := eval[[]int](t, p, `Array.from(document.querySelectorAll('figure[data-chart-kind="trend"] .chart'), el => el.querySelectorAll('svg path').length)`)
		if len(marks) != 2 || marks[0] == 0 || marks[1] == 0 {
			t.Errorf("%s: trend charts drew %v paths", lang, marks)
		}
		if eval[bool](t, p, "window.__pwned === 1") {
			t.Errorf("%s: the hostile GPU model ran a script", lang)
		}
		if n := eval[int](t, p, `document.querySelectorAll('main img').length`); n != 0 {
			t.Errorf("%s: %d img elements injected", lang, n)
		}
		clean(t, lang+" trend page", p)
	}
}

// TestSiteTrendPageRebuild: a rebuild does not make a trend page again
// when none of its runs changed (a page left in its place with other bytes
// stays as it is, as an unchanged run's page does); a new run of the
// series makes it again in every language, and --force makes it again
// whatever the record says.
func TestSiteTrendPageRebuild(t *testing.T) {
	t.Parallel()
	db, out, _ := trendSite(t)
	index := readFileT(t, filepath.Join(out, "en", "trends.html"))
	link := regexp.MustCompile(`<a href="(trend/[0-9a-f]{12}\.html)">`).FindSubmatch(index)
	if link == nil {
		t.Fatal("no trend on the trends page")
	}
	pages := []string{filepath.Join(out, "en", filepath.FromSlash(string(link[1]))), filepath.Join(out, "ja", filepath.FromSlash(string(link[1])))}
	const mark = "<!-- left by the test -->"
	leave := func() {
		t.Helper()
		for _, p := range pages {
			if err := os.WriteFile(p, append(readFileT(t, p), mark...), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	build := func(extra ...string) {
		t.Helper()
		if r := bl(t, append([]string{"site", "--db", db, "--out", out, "--lang", "en,ja", "--raw=false"}, extra...)...); r.code != 0 {
			t.Fatal(r)
		}
	}
	made := func(want bool, when string) {
		t.Helper()
		for _, p := range pages {
			if got := !strings.Contains(string(readFileT(t, p)), mark); got != want {
				t.Errorf("%s: %s made again: %t, want %t", when, p, got, want)
			}
		}
	}
	leave()
	build()
	made(false, "nothing changed")

	// A sixth version of the series.
	path := filepath.Join(t.TempDir(), "v5.json")
	writeVLLM(t, path, vllmSpec{n: 20, seed: 0.0022})
	if r := bl(t, "ingest", "--db", db, "--set", "campaign=trend", "--set", "runtime.engine=vllm", "--set", "hardware.gpu_model="+trendGPU,
		"--set", "runtime.version=0.8.13", "--set", "hardware.gpu_count=1", path); r.code != 0 {
		t.Fatal(r)
	}
	build()
	made(true, "a new run of the series")
	for _, p := range pages {
		if !strings.Contains(string(readFileT(t, p)), "0.8.13") {
			t.Errorf("%s does not show the new run's version", p)
		}
	}

	leave()
	build("--force")
	made(true, "--force")
}
