package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/benchledger/benchledger/internal/browser"
)

// summaryOnlyArchive is a fresh archive holding one run (a trtllm-bench
// console report): the cheapest archive a site or report can be built from.
func summaryOnlyArchive(t *testing.T) (dir, db string) {
	t.Helper()
	dir = t.TempDir()
	db = filepath.Join(dir, "a.db")
	if r := bl(t, "ingest", "--db", db, filepath.Join("..", "..", "ingest", "format", "trtllm", "testdata", "console_pytorch_streaming.log")); r.code != 0 {
		t.Fatal(r)
	}
	return dir, db
}

// editSiteManifest rewrites a site's .benchledger-site.json through fn.
func editSiteManifest(t *testing.T, out string, fn func(m map[string]any)) {
	t.Helper()
	path := filepath.Join(out, ".benchledger-site.json")
	var m map[string]any
	if err := json.Unmarshal(readFileT(t, path), &m); err != nil {
		t.Fatal(err)
	}
	fn(m)
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSiteManifestNotTrusted (issue 17, hole 1): a rebuild removes only
// files inside --out that it can prove it wrote, and a forged cached row
// never reaches runs.html.
func TestSiteManifestNotTrusted(t *testing.T) {
	t.Parallel()
	dir, db := summaryOnlyArchive(t)
	out := filepath.Join(dir, "deep", "er", "site")
	build := func() result {
		t.Helper()
		r := bl(t, "site", "--db", db, "--out", out, "--lang", "en", "--raw=false")
		if r.code != 0 {
			t.Fatal(r)
		}
		return r
	}
	build()

	// A forged row: another model, publishable, under the row's old MAC.
	editSiteManifest(t, out, func(m map[string]any) {
		for _, run := range m["runs"].(map[string]any) {
			row := run.(map[string]any)["row"].(map[string]any)
			row["model"] = "FORGED-MODEL"
			row["publishable"] = true
			row["workload"] = "FORGED-WORKLOAD"
		}
	})
	build()
	runs := string(readFileT(t, filepath.Join(out, "en", "runs.html")))
	if strings.Contains(runs, "FORGED") || strings.Contains(runs, `data-publishable="yes"`) {
		t.Error("a row edited in the manifest reached runs.html")
	}

	// Files outside the folder: a victim beside it, and one reached through
	// a symbolic link planted inside it.
	victim := filepath.Join(dir, "victim")
	writeFile(t, filepath.Join(victim, "keep.txt"), "mine")
	if err := os.Symlink(victim, filepath.Join(out, "en", "link")); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{{"../../../victim/keep.txt"}, {"en/link/keep.txt"}, {filepath.Join(victim, "keep.txt")}} {
		editSiteManifest(t, out, func(m map[string]any) {
			m["files"] = append(m["files"].([]any), bad[0])
		})
		r := build()
		if _, err := os.Stat(filepath.Join(victim, "keep.txt")); err != nil {
			t.Fatalf("manifest naming %q: the file outside the site is gone: %v", bad[0], err)
		}
		if strings.HasPrefix(bad[0], "en/") {
			continue // a path inside, through a link: skipped, not refused
		}
		if !strings.Contains(r.stderr, "not a file inside the site's folder") {
			t.Errorf("manifest naming %q: no warning on stderr:\n%s", bad[0], r.stderr)
		}
	}
}

// TestReportNarrativeOutsideSpec (issue 17, hole 2): report and site refuse
// a spec whose narrative is a file outside its folder, and write nothing of
// it.
func TestReportNarrativeOutsideSpec(t *testing.T) {
	t.Parallel()
	d := smallDemo(t)
	for _, target := range []string{"/proc/self/environ", "../../../../../../../../etc/passwd"} {
		specPath := specCopy(t, d)
		data := strings.Replace(string(readFileT(t, specPath)), "en: narrative/en.md", "en: "+target, 1)
		writeFile(t, specPath, data)
		out := t.TempDir()
		for _, args := range [][]string{
			{"report", specPath, "--db", d.db, "--draft", "--no-audit", "--lang", "en", "--format", "md", "--out", out},
			{"site", specPath, "--db", d.db, "--lang", "en", "--raw=false", "--out", filepath.Join(out, "site")},
		} {
			r := bl(t, args...)
			if r.code == 0 || !strings.Contains(r.stderr, "resolves outside the folder") {
				t.Errorf("%s with narrative %s: exit %d, want a refusal:\n%s", args[0], target, r.code, r.stderr)
			}
		}
		ents, _ := os.ReadDir(out)
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".md") {
				t.Errorf("narrative %s: %s written", target, e.Name())
			}
		}
	}
}

// TestSiteRawHTMLFileInert (issue 17, hole 3): a raw file that is HTML with
// a script around a valid vLLM console block is stored in the site under
// its digest alone, offered for download under its name, and opened in
// headless Chromium runs no script.
func TestSiteRawHTMLFileInert(t *testing.T) {
	t.Parallel()
	needBrowser(t)
	dir := t.TempDir()
	block := string(readFileT(t, filepath.Join("..", "..", "ingest", "format", "vllmconsole", "testdata", "current_failed_rate.txt")))
	evil := filepath.Join(dir, "evil.htm")
	writeFile(t, evil, "<html><body><script>document.title='PWNED';document.body.setAttribute('data-pwned','1')</script><pre>\n"+block+"\n</pre></body></html>\n")
	db := filepath.Join(dir, "a.db")
	if r := bl(t, "ingest", "--db", db, evil); r.code != 0 {
		t.Fatal(r)
	}
	out := filepath.Join(dir, "site")
	if r := bl(t, "site", "--db", db, "--out", out, "--lang", "en"); r.code != 0 {
		t.Fatal(r)
	}
	id := strings.TrimSpace(bl(t, "runs", "--db", db, "-q").stdout)
	page := string(readFileT(t, filepath.Join(out, "en", "run", id+".html")))
	m := regexp.MustCompile(`href="\.\./\.\./(raw/[0-9a-f]{64})" download="evil\.htm"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal(`the run page does not offer raw/<sha256> with download="evil.htm"`)
	}
	if htm, _ := filepath.Glob(filepath.Join(out, "raw", "*", "*")); len(htm) != 0 {
		t.Errorf("raw files under a name: %q", htm)
	}
	ctx, cancel := context.WithTimeout(context.Background(), browser.DefaultTimeout)
	defer cancel()
	p, err := browser.Open(ctx, filepath.Join(out, filepath.FromSlash(m[1])), browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var state struct {
		Title  string `json:"title"`
		Pwned  bool   `json:"pwned"`
		Script int    `json:"scripts"`
	}
	if err := p.Eval(`({title: document.title, pwned: !!document.querySelector('[data-pwned]'), scripts: document.scripts.length})`, &state); err != nil {
		t.Fatal(err)
	}
	if state.Title == "PWNED" || state.Pwned || state.Script != 0 {
		t.Errorf("the raw file ran as a page in Chromium: %+v", state)
	}
}

// countingServer is an HTTP server on 127.0.0.1 that counts the requests
// it gets.
func countingServer(t *testing.T) (url string, count func() int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "image/png")
	}))
	t.Cleanup(srv.Close)
	return srv.URL, n.Load
}

// TestNarrativeRemoteRefused (issue 17, hole 6): a narrative's remote image,
// link or raw HTML URL is refused at render, naming the file and line, and
// no request reaches the server (the PDF step included); the report that
// does render carries a strict Content-Security-Policy.
func TestNarrativeRemoteRefused(t *testing.T) {
	t.Parallel()
	d := smallDemo(t)
	url, count := countingServer(t)
	formats := "html,md"
	if _, ok := browser.Available(); ok {
		formats += ",pdf"
	}
	for _, md := range []string{
		"![chart](" + url + "/p.png)",
		"![chart](//" + strings.TrimPrefix(url, "http://") + "/p.png)",
		"See [the source](" + url + "/page).",
		"<" + url + "/auto>",
		`<img src="` + url + `/raw.png">`,
		"![ref][r]\n\n[r]: " + url + "/ref.png",
	} {
		specPath := specCopy(t, d)
		nar := filepath.Join(filepath.Dir(specPath), "narrative", "en.md")
		writeFile(t, nar, string(readFileT(t, nar))+"\n\n"+md+"\n")
		out := t.TempDir()
		r := bl(t, "report", specPath, "--db", d.db, "--draft", "--no-audit", "--lang", "en", "--format", formats, "--out", out)
		if r.code == 0 || !strings.Contains(r.stderr, "on another host") || !strings.Contains(r.stderr, "en.md:") {
			t.Errorf("narrative with %q: exit %d, want a refusal naming the file:\n%s", md, r.code, r.stderr)
		}
	}
	if n := count(); n != 0 {
		t.Errorf("the server got %d requests", n)
	}

	// Every page a report writes carries the policy; the small campaign of
	// known mistakes has a report and an audit page like the demo's.
	mdb, mspec := mistakesCampaign(t)
	out := t.TempDir()
	if r := bl(t, "report", mspec, "--db", mdb, "--draft", "--lang", "en", "--format", "html", "--out", out); r.code != 0 {
		t.Fatal(r)
	}
	for _, f := range []string{"known-mistakes.en.html", "known-mistakes.audit.en.html"} {
		page := string(readFileT(t, filepath.Join(out, f)))
		if !strings.Contains(page, `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src `) {
			t.Errorf("%s has no strict Content-Security-Policy", f)
		}
	}
}

// TestNarrativeLinkAllowed: a link to a host the spec's link_hosts names is
// rendered as a link in the Markdown and HTML report, the PDF and the site,
// and opening the HTML pages in Chromium makes no request (a link fetches
// only when followed); an image on the same host stays refused.
func TestNarrativeLinkAllowed(t *testing.T) {
	t.Parallel()
	d := smallDemo(t)
	url, count := countingServer(t)
	specPath := specCopy(t, d)
	writeFile(t, specPath, string(readFileT(t, specPath))+"link_hosts: [127.0.0.1]\n")
	nar := filepath.Join(filepath.Dir(specPath), "narrative", "en.md")
	orig := string(readFileT(t, nar))
	writeFile(t, nar, orig+"\n\nThe reference's source: [its page]("+url+"/page), also <"+url+"/auto>.\n")
	formats := "html,md"
	browserOK := false
	if _, ok := browser.Available(); ok {
		formats, browserOK = formats+",pdf", true
	}
	out := t.TempDir()
	if r := bl(t, "report", specPath, "--db", d.db, "--draft", "--no-audit", "--lang", "en", "--format", formats, "--out", out); r.code != 0 {
		t.Fatal(r)
	}
	page := filepath.Join(out, "qwen3-batch.en.html")
	if html := string(readFileT(t, page)); !strings.Contains(html, `<a href="`+url+`/page">its page</a>`) || !strings.Contains(html, `<a href="`+url+`/auto">`) {
		t.Errorf("the HTML report does not link to the allowed host")
	}
	if md := string(readFileT(t, filepath.Join(out, "qwen3-batch.en.md"))); !strings.Contains(md, "[its page]("+url+"/page)") {
		t.Errorf("the Markdown report does not keep the link")
	}
	site := filepath.Join(t.TempDir(), "site")
	if r := bl(t, "site", "--db", d.db, "--out", site, "--lang", "en", specPath); r.code != 0 {
		t.Fatal(r)
	}
	sitePages, _ := filepath.Glob(filepath.Join(site, "reports", "qwen3-batch", "qwen3-batch.en.html"))
	if len(sitePages) != 1 || !strings.Contains(string(readFileT(t, sitePages[0])), `<a href="`+url+`/page">`) {
		t.Fatalf("the site's report does not link to the allowed host: %q", sitePages)
	}
	if browserOK {
		// One browser loads both pages in turn.
		var pg *browser.Page
		defer func() {
			if pg != nil {
				pg.Close()
			}
		}()
		for _, p := range []string{page, sitePages[0]} {
			ctx, cancel := context.WithTimeout(context.Background(), browser.DefaultTimeout)
			var err error
			if pg == nil {
				pg, err = browser.Open(ctx, p, browser.Options{ReadyExpr: "window.__chartsReady === true"})
			} else {
				err = pg.Load(ctx, p, "window.__chartsReady === true")
			}
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			var links int
			if err := pg.Eval(`document.querySelectorAll('a[href^="`+url+`"]').length`, &links); err != nil || links != 2 {
				t.Errorf("%s in Chromium: %d links to the host (%v), want 2", p, links, err)
			}
		}
		pg.Close() // before the requests are counted
	}
	if n := count(); n != 0 {
		t.Errorf("opening and printing the reports made %d requests to the linked host", n)
	}

	writeFile(t, nar, orig+"\n\n![chart]("+url+"/p.png)\n")
	if r := bl(t, "report", specPath, "--db", d.db, "--draft", "--no-audit", "--lang", "en", "--format", "html", "--out", t.TempDir()); r.code == 0 || !strings.Contains(r.stderr, "image") {
		t.Errorf("an image on an allowed link host: exit %d, want a refusal:\n%s", r.code, r.stderr)
	}
}
