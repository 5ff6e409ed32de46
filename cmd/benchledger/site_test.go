package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/locales"
)

var siteLangs = []string{"en", "zh", "ja", "es-419"}

// runsJSON lists the archive's runs as `runs --json` prints them.
func runsJSON(t *testing.T, db string) []map[string]any {
	t.Helper()
	r := bl(t, "runs", "--db", db, "--json")
	if r.code != 0 {
		t.Fatal(r)
	}
	var runs []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &runs); err != nil {
		t.Fatal(err)
	}
	return runs
}

// siteRunData reads a run's data file, as diff.html loads it.
func siteRunData(t *testing.T, out, id string) map[string]any {
	t.Helper()
	shard := filepath.Join(out, "data", "runs-"+id[:2]+".js")
	data, err := os.ReadFile(shard)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		s, ok := strings.CutPrefix(line, "benchledgerRun(")
		if !ok {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(strings.TrimSuffix(s, ");")), &v); err != nil {
			t.Fatalf("%s: %v", shard, err)
		}
		if v["id"] == id {
			return v
		}
	}
	t.Fatalf("%s has no line for run %s", shard, id)
	return nil
}

// fileStates records every file of a site with its modification time and
// content hash.
func fileStates(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = info.ModTime().Format(time.RFC3339Nano) + " " + hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func changedFiles(before, after map[string]string) []string {
	var out []string
	for f, s := range after {
		if before[f] != s {
			out = append(out, f)
		}
	}
	for f := range before {
		if _, ok := after[f]; !ok {
			out = append(out, "-"+f)
		}
	}
	sort.Strings(out)
	return out
}

// TestSiteDemo builds the site of the demo campaign with its case study
// (the small demo: the same runs and spec, a sixteenth of the requests):
// every run has a page in every language, the figures are the archive's,
// the raw bytes are the archived ones, the case study links its reports;
// a second build writes nothing, and after one new ingest exactly the new
// run's files and the pages listing runs change.
func TestSiteDemo(t *testing.T) {
	t.Parallel()
	db, specPath := smallDemoArchive(t)
	out := filepath.Join(t.TempDir(), "site")
	r := bl(t, "site", "--db", db, "--out", out, specPath)
	if r.code != 0 {
		t.Fatal(r)
	}
	if got := strings.TrimSpace(r.stdout); got != filepath.Join(out, "index.html") {
		t.Errorf("stdout %q, want the index path", got)
	}
	runs := runsJSON(t, db)
	if len(runs) < 30 {
		t.Fatalf("%d demo runs", len(runs))
	}
	for _, run := range runs {
		id := run["id"].(string)
		for _, lang := range siteLangs {
			page, err := os.ReadFile(filepath.Join(out, lang, "run", id+".html"))
			if err != nil {
				t.Fatalf("run %s, %s: %v", id, lang, err)
			}
			// zh pages say zh-Hans, as the report does (issue 18).
			if want := locales.MustMatch(lang).HTMLLang(); !strings.Contains(string(page), `<html lang="`+want+`">`) {
				t.Errorf("run %s: %s page not marked lang=%s", id, lang, want)
			}
			// The language switch leads to the same run in every language.
			for _, other := range siteLangs {
				if other != lang && !strings.Contains(string(page), `href="../../`+other+`/run/`+id+`.html"`) {
					t.Errorf("run %s, %s: no link to its %s page", id, lang, other)
				}
			}
		}
	}

	// The baseline's page: figures as show computes them, raw bytes as
	// archived.
	base := bl(t, "runs", "--db", db, "--campaign", "qwen3-batch", "--role", "baseline", "-q")
	baseID := strings.TrimSpace(base.stdout)
	sr := bl(t, "show", "--db", db, "--json", baseID)
	var show struct {
		SHA256  string `json:"sha256"`
		File    string `json:"file"`
		Figures []struct {
			Metric     string   `json:"metric"`
			Recomputed *float64 `json:"recomputed"`
		} `json:"figures"`
	}
	if err := json.Unmarshal([]byte(sr.stdout), &show); err != nil {
		t.Fatal(err, sr)
	}
	data := siteRunData(t, out, baseID)
	figs := map[string]float64{}
	for _, f := range data["figures"].([]any) {
		m := f.(map[string]any)
		if v, ok := m["recomputed"].(float64); ok {
			figs[m["metric"].(string)] = v
		}
	}
	checked := 0
	for _, f := range show.Figures {
		if f.Recomputed == nil {
			continue
		}
		if got, ok := figs[f.Metric]; !ok || got != *f.Recomputed {
			t.Errorf("%s: site data %v, show --json %v", f.Metric, got, *f.Recomputed)
		}
		checked++
	}
	if checked < 10 {
		t.Errorf("only %d figures compared", checked)
	}
	enPage, err := os.ReadFile(filepath.Join(out, "en", "run", baseID+".html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{show.SHA256, "Download the original bytes", "Output throughput", "End-to-end latency distribution", "Latency over the run",
		`<script type="application/json" id="option-latency">`, `<script type="application/json" id="option-timeline">`, "../../assets/echarts.min.js", "Audit findings"} {
		if !strings.Contains(string(enPage), want) && !strings.Contains(strings.ToLower(string(enPage)), strings.ToLower(want)) {
			t.Errorf("baseline page lacks %q", want)
		}
	}
	href := regexp.MustCompile(`href="\.\./\.\./(raw/[0-9a-f]{64})" download="[^"]+"`).FindStringSubmatch(string(enPage))
	if href == nil {
		t.Fatal("no download link on the baseline page")
	}
	raw, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(href[1])))
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(raw); hex.EncodeToString(sum[:]) != show.SHA256 {
		t.Errorf("downloaded bytes hash to %x, the run's file is %s", sum, show.SHA256)
	}
	orig, err := os.ReadFile(show.File)
	if err == nil && string(orig) != string(raw) {
		t.Error("the downloaded bytes differ from the ingested file")
	}
	zhPage, _ := os.ReadFile(filepath.Join(out, "zh", "run", baseID+".html"))
	if !strings.Contains(string(zhPage), "汇总指标") && !strings.Contains(string(zhPage), "指标") {
		t.Error("the zh run page has no Chinese headings")
	}

	// The case study: its reports in every language, its comparison pages.
	casePage, err := os.ReadFile(filepath.Join(out, "en", "case", "qwen3-batch.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range siteLangs {
		rep := "reports/qwen3-batch/qwen3-batch." + lang + ".html"
		if !strings.Contains(string(casePage), `href="../../`+rep+`"`) {
			t.Errorf("case page does not link the %s report", lang)
		}
		if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(rep))); err != nil {
			t.Errorf("%s report: %v", lang, err)
		}
		if _, err := os.Stat(filepath.Join(out, "reports", "qwen3-batch", "qwen3-batch.audit."+lang+".html")); err != nil {
			t.Errorf("%s audit page: %v", lang, err)
		}
	}
	cmps, _ := filepath.Glob(filepath.Join(out, "en", "compare", "qwen3-batch--*.html"))
	if len(cmps) == 0 {
		t.Error("no comparison pages for the case study's comparisons")
	}
	checkSiteComparison(t, db, out)
	checkSiteComparisonReads(t, db, specPath, out)
	// A run page in zh and ja: the window named in the language, and the
	// completion sentences joined without an ASCII space after 。.
	for _, lang := range []string{"zh", "ja"} {
		l := locales.MustMatch(lang)
		pages, _ := filepath.Glob(filepath.Join(out, lang, "run", "*.html"))
		if len(pages) == 0 {
			t.Fatalf("%s: no run pages", lang)
		}
		page, _ := os.ReadFile(pages[0])
		note := regexp.MustCompile(`<p class="note">([^<]*` + regexp.QuoteMeta(l.Word("window_basis", figures.BasisRecords)) + `[^<]*)</p>`).FindStringSubmatch(string(page))
		if note == nil || strings.Contains(string(page), figures.BasisRecords) {
			t.Errorf("%s run page: the figures' window is not named in the language (%s)", lang, pages[0])
		}
		done := regexp.MustCompile(`<p class="completion">([^<]*)</p>`).FindStringSubmatch(string(page))
		if done == nil || strings.Contains(done[1], "。 ") || strings.Count(done[1], "。") < 2 {
			t.Errorf("%s run page: completion %q", lang, done)
		}
	}
	checkSiteComparisonNames(t, out)
	// zh and ja labels take the full-width colon (issue 18), also on the
	// site: the intended change of the scheduler comparison.
	for _, lang := range []string{"zh", "ja"} {
		cmp, _ := os.ReadFile(filepath.Join(out, lang, "compare", "qwen3-batch--scheduler_tuning.html"))
		if !regexp.MustCompile(`<p>[^<]+：[^<]+</p>`).Match(cmp) || regexp.MustCompile(`<p>\p{Han}[^<]*: `).Match(cmp) {
			t.Errorf("%s comparison page: the intended change is not written with the full-width colon", lang)
		}
	}
	index, _ := os.ReadFile(filepath.Join(out, "en", "index.html"))
	if !strings.Contains(string(index), `href="runs.html#campaign=qwen3-batch"`) || !strings.Contains(string(index), `href="case/qwen3-batch.html"`) {
		t.Error("index lacks the campaign or the case study")
	}

	// Rebuild: nothing to write.
	before := fileStates(t, out)
	r = bl(t, "site", "--db", db, "--out", out, specPath)
	if r.code != 0 {
		t.Fatal(r)
	}
	if !strings.Contains(r.stderr, "(0 made again), 0 files written") {
		t.Errorf("rebuild did work: %s", r.stderr)
	}
	if ch := changedFiles(before, fileStates(t, out)); len(ch) > 0 {
		t.Errorf("an unchanged archive rewrote %v", ch)
	}

	// One new run: its pages, data and raw file, and the pages that list
	// runs; nothing else.
	dir := t.TempDir()
	writeVLLM(t, filepath.Join(dir, "extra.json"), vllmSpec{n: 20, seed: 7})
	if r := bl(t, "ingest", "--db", db, "--set", "campaign=extra", filepath.Join(dir, "extra.json")); r.code != 0 {
		t.Fatal(r)
	}
	newID := strings.TrimSpace(bl(t, "runs", "--db", db, "--campaign", "extra", "-q").stdout)
	before = fileStates(t, out)
	r = bl(t, "site", "--db", db, "--out", out, specPath)
	if r.code != 0 {
		t.Fatal(r)
	}
	if !strings.Contains(r.stderr, "(1 made again)") {
		t.Errorf("after one ingest: %s", r.stderr)
	}
	ch := changedFiles(before, fileStates(t, out))
	var want []string
	for _, lang := range siteLangs {
		want = append(want, lang+"/index.html", lang+"/runs.html", lang+"/run/"+newID+".html")
	}
	want = append(want, ".benchledger-site.json", "data/runs-"+newID[:2]+".js")
	var rawNew string
	for _, f := range ch {
		if strings.HasPrefix(f, "raw/") {
			rawNew = f
		}
	}
	if rawNew == "" {
		t.Error("the new run's raw file was not written")
	} else {
		want = append(want, rawNew)
	}
	sort.Strings(want)
	if !slices.Equal(ch, want) {
		t.Errorf("after one new run the build changed\n%v\nwant\n%v", ch, want)
	}

	// Every run, old and new, still has its line for the diff page (a
	// shard rewritten for the new run keeps the others').
	for _, run := range runsJSON(t, db) {
		if d := siteRunData(t, out, run["id"].(string)); d["sha256"] == "" {
			t.Errorf("run %s: data line without its digest", run["id"])
		}
	}

	// A language no longer asked for is removed with its pages.
	r = bl(t, "site", "--db", db, "--out", out, "--lang", "en,ja", specPath)
	if r.code != 0 {
		t.Fatal(r)
	}
	if _, err := os.Stat(filepath.Join(out, "zh", "run", baseID+".html")); err == nil {
		t.Error("zh pages left behind after a build without zh")
	}
	if _, err := os.Stat(filepath.Join(out, "ja", "run", baseID+".html")); err != nil {
		t.Error(err)
	}
}

// TestSiteHostileStrings: provenance values and file names a tool or a
// person could write are text on every page, never markup or script.
func TestSiteHostileStrings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	file := filepath.Join(dir, `x"><img src=y onerror=alert(1)>.json`)
	writeVLLM(t, file, vllmSpec{n: 10, seed: 3})
	hostile := `<script>alert("pwned")</script>`
	if r := bl(t, "ingest", "--db", db, "--set", "campaign="+hostile, "--set", `runtime.image="><img src=x onerror=alert(2)>`,
		"--set", "hardware.gpu_model=H100 </td></tr><tr><td>", "--set", "role=baseline", file); r.code != 0 {
		t.Fatal(r)
	}
	out := filepath.Join(dir, "site")
	if r := bl(t, "site", "--db", db, "--out", out); r.code != 0 {
		t.Fatal(r)
	}
	id := strings.TrimSpace(bl(t, "runs", "--db", db, "-q").stdout)
	for _, page := range []string{"en/index.html", "en/runs.html", "en/run/" + id + ".html", "ja/run/" + id + ".html", "data/runs-" + id[:2] + ".js"} {
		data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(page)))
		if err != nil {
			t.Fatal(err)
		}
		s := string(data)
		for _, bad := range []string{"<script>alert", "<img src=x", "<img src=y", "</td></tr><tr><td>"} {
			if strings.Contains(s, bad) {
				t.Errorf("%s carries %q unescaped", page, bad)
			}
		}
	}
	page, _ := os.ReadFile(filepath.Join(out, "en", "run", id+".html"))
	if !strings.Contains(string(page), "&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt;") {
		t.Error("the hostile campaign is not shown as escaped text")
	}
	// The raw file is stored under its digest alone; its name is only the
	// download attribute's value, made safe.
	raws, _ := filepath.Glob(filepath.Join(out, "raw", "*"))
	if len(raws) != 1 || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(filepath.Base(raws[0])) {
		t.Errorf("raw file names %q", raws)
	}
	if !regexp.MustCompile(`download="x_+img_src_y_onerror_alert_1_+\.json"`).Match(page) {
		t.Error("the download attribute does not carry the original name, made safe")
	}
}

// TestSiteDamagedRawFile: a raw file whose archived bytes no longer match
// their SHA-256 is not offered for download; its run page shows the
// integrity failure, and the runs table counts it.
func TestSiteDamagedRawFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	writeVLLM(t, filepath.Join(dir, "r.json"), vllmSpec{n: 30, seed: 2})
	if r := bl(t, "ingest", "--db", db, filepath.Join(dir, "r.json")); r.code != 0 {
		t.Fatal(r)
	}
	id := strings.TrimSpace(bl(t, "runs", "--db", db, "-q").stdout)
	corruptFirstChunk(t, openRaw(t, db), id)
	out := filepath.Join(dir, "site")
	if r := bl(t, "site", "--db", db, "--out", out, "--lang", "en"); r.code != 0 {
		t.Fatal(r)
	}
	page, err := os.ReadFile(filepath.Join(out, "en", "run", id+".html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `data-check="integrity.blob_hash"`) || strings.Contains(string(page), " download>") {
		t.Error("the damaged raw file is offered, or its failure not shown")
	}
	if raws, _ := filepath.Glob(filepath.Join(out, "raw", "*", "*")); len(raws) != 0 {
		t.Errorf("damaged bytes written: %v", raws)
	}
	// The table's count is the page's failures, this one among them.
	runs, _ := os.ReadFile(filepath.Join(out, "en", "runs.html"))
	fails := strings.Count(string(page), `<tr class="fail"`)
	if want := `data-audit="` + strconv.Itoa(fails) + "."; fails == 0 || !strings.Contains(string(runs), want) {
		t.Errorf("the page lists %d failures, the runs table %s", fails, regexp.MustCompile(`data-audit="[^"]*"`).FindAllString(string(runs), -1))
	}
}

// TestSiteSummaryOnlyRun: a run without per-request records (a
// trtllm-bench console report) gets a page with the client's figures, says
// it has no records, and draws no chart.
func TestSiteSummaryOnlyRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	if r := bl(t, "ingest", "--db", db, filepath.Join("..", "..", "ingest", "format", "trtllm", "testdata", "console_pytorch_streaming.log")); r.code != 0 {
		t.Fatal(r)
	}
	out := filepath.Join(dir, "site")
	if r := bl(t, "site", "--db", db, "--out", out, "--lang", "en,ja"); r.code != 0 {
		t.Fatal(r)
	}
	id := strings.TrimSpace(bl(t, "runs", "--db", db, "-q").stdout)
	page, err := os.ReadFile(filepath.Join(out, "en", "run", id+".html"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	if !strings.Contains(s, "no per-request records") || strings.Contains(s, `id="option-`) || strings.Contains(s, "echarts.min.js") {
		t.Error("a summary-only run page does not say it has no records, or loads charts")
	}
	if !strings.Contains(s, `data-metric="output_throughput"`) {
		t.Error("the client's stated output throughput is not shown")
	}
	// Its definitions name its client, not vLLM.
	if !strings.Contains(s, "<th>Stated by trtllm-bench</th>") || !strings.Contains(s, "trtllm-bench&#39;s own timed span") || strings.Contains(s, "vLLM") {
		t.Error("the trtllm-bench run's page does not name its client in its definitions, or speaks of vLLM")
	}
}

// TestSiteUsage: the output folder is required; unknown languages are
// refused by name.
func TestSiteUsage(t *testing.T) {
	t.Parallel()
	if r := bl(t, "site"); r.code != 2 || !strings.Contains(r.stderr, "--out") {
		t.Errorf("no --out: %v", r)
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	writeVLLM(t, filepath.Join(dir, "r.json"), vllmSpec{n: 5})
	if r := bl(t, "ingest", "--db", db, filepath.Join(dir, "r.json")); r.code != 0 {
		t.Fatal(r)
	}
	if r := bl(t, "site", "--db", db, "--out", filepath.Join(dir, "s"), "--lang", "en,xx"); r.code == 0 || !strings.Contains(r.stderr, "xx") {
		t.Errorf("unknown language: %v", r)
	}
	// --raw=false: the digest without the bytes, said on the page.
	out := filepath.Join(dir, "noraw")
	if r := bl(t, "site", "--db", db, "--out", out, "--lang", "en", "--raw=false"); r.code != 0 {
		t.Fatal(r)
	}
	id := strings.TrimSpace(bl(t, "runs", "--db", db, "-q").stdout)
	page, err := os.ReadFile(filepath.Join(out, "en", "run", id+".html"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(page), " download>") || !strings.Contains(string(page), "<code>--raw=false</code>") {
		t.Error("a site without raw files offers a download or does not say why there is none")
	}
	if _, err := os.Stat(filepath.Join(out, "raw")); err == nil {
		t.Error("raw files written with --raw=false")
	}
	if r := bl(t, "site", "--db", filepath.Join(dir, "none.db"), "--out", filepath.Join(dir, "s")); r.code != 4 && r.code != 1 {
		t.Errorf("missing archive: %v", r)
	}
}

// TestSiteTemplateOverride: --templates replaces a page kind's template;
// the replacement can use the page's fixed parts (expanded when the
// template is parsed, or evaluated when written with trim markers), its
// labels and the lists the default template's parts are made of; changing
// it rebuilds the pages, and a broken one is an error naming the file.
func TestSiteTemplateOverride(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	file := filepath.Join(dir, "run.json")
	writeVLLM(t, file, vllmSpec{n: 10, seed: 5})
	if r := bl(t, "ingest", "--db", db, "--set", "campaign=<c&d>", file); r.code != 0 {
		t.Fatal(r)
	}
	id := strings.TrimSpace(bl(t, "runs", "--db", db, "-q").stdout)
	tpl := filepath.Join(dir, "tpl")
	if err := os.MkdirAll(tpl, 0o755); err != nil {
		t.Fatal(err)
	}
	custom := `{{define "content"}}<h1 id="custom">{{.P.Title}}</h1>
<p id="root">{{.P.Root}}|{{- .P.Home -}}|{{.P.Lang}}|{{.P.L.run_overview}}</p>
<ul id="figs">{{range .Figures}}<li data-metric="{{.Metric}}">{{.Label}}: {{.Recomputed}}</li>{{end}}</ul>
<p id="campaign">{{.Sum.Campaign}}</p>
{{end}}`
	writeFile(t, filepath.Join(tpl, "run.html.tmpl"), custom)
	out := filepath.Join(dir, "site")
	if r := bl(t, "site", "--db", db, "--out", out, "--lang", "en", "--templates", tpl, "--raw=false"); r.code != 0 {
		t.Fatal(r)
	}
	page := string(readFileT(t, filepath.Join(out, "en", "run", id+".html")))
	for _, want := range []string{`<h1 id="custom">`, `<p id="root">../../|../|en|Overview</p>`,
		`<li data-metric="output_throughput">`, `<p id="campaign">&lt;c&amp;d&gt;</p>`, `<footer>`} {
		if !strings.Contains(page, want) {
			t.Errorf("run page from the custom template lacks %q:\n%s", want, page)
		}
	}
	// The other kinds keep the embedded templates.
	if index := string(readFileT(t, filepath.Join(out, "en", "runs.html"))); !strings.Contains(index, `id="runs"`) {
		t.Error("the runs page lost its embedded template")
	}

	// A changed template makes the run pages again.
	writeFile(t, filepath.Join(tpl, "run.html.tmpl"), strings.Replace(custom, `id="custom"`, `id="custom2"`, 1))
	if r := bl(t, "site", "--db", db, "--out", out, "--lang", "en", "--templates", tpl, "--raw=false"); r.code != 0 {
		t.Fatal(r)
	}
	if page := string(readFileT(t, filepath.Join(out, "en", "run", id+".html"))); !strings.Contains(page, `id="custom2"`) {
		t.Error("the run page was not made again after its template changed")
	}

	// A template that does not parse is refused, naming it.
	writeFile(t, filepath.Join(tpl, "run.html.tmpl"), `{{define "content"}}{{.P.Title}`)
	r := bl(t, "site", "--db", db, "--out", out, "--lang", "en", "--templates", tpl, "--raw=false")
	if r.code == 0 || !strings.Contains(r.stderr, "run.html.tmpl") {
		t.Errorf("a broken template: exit %d, stderr %q", r.code, r.stderr)
	}
}

func readFileT(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestSiteRunPageUnwritable: a run page that cannot be written fails the
// build, naming the page, and no build record is written: the writer of
// the run pages finishes after the listing pages are made, and its error
// still stops the build before the record. With many runs (read in bulk)
// the first page fails and the page makers stop short of the others: the
// writer's error, not the count of runs made, is what the build reports.
func TestSiteRunPageUnwritable(t *testing.T) {
	t.Parallel()
	for _, runs := range []int{1, 40} {
		t.Run(strconv.Itoa(runs)+" runs", func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			db := filepath.Join(dir, "a.db")
			files := filepath.Join(dir, "files")
			if err := os.Mkdir(files, 0o755); err != nil {
				t.Fatal(err)
			}
			for i := range runs {
				writeVLLM(t, filepath.Join(files, fmt.Sprintf("r%02d.json", i)), vllmSpec{n: 30, seed: float64(3 + i)})
			}
			if r := bl(t, "ingest", "--db", db, files); r.code != 0 {
				t.Fatal(r)
			}
			ids := strings.Fields(bl(t, "runs", "--db", db, "-q").stdout)
			if len(ids) != runs {
				t.Fatalf("%d runs archived, want %d", len(ids), runs)
			}
			id := slices.Min(ids) // read first
			out := filepath.Join(dir, "site")
			// A folder where the page goes, with a file in it.
			page := filepath.Join(out, "en", "run", id+".html")
			if err := os.MkdirAll(page, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(page, "keep"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			r := bl(t, "site", "--db", db, "--out", out, "--lang", "en")
			if r.code == 0 || !strings.Contains(r.stderr, id+".html") {
				t.Fatalf("site with a run page's path taken by a folder: %v, want a failure naming %s.html", r, id)
			}
			if _, err := os.Stat(filepath.Join(out, ".benchledger-site.json")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a failed build wrote its record (%v)", err)
			}
		})
	}
}
