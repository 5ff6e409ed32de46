package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/audit"
	"github.com/benchledger/benchledger/locales"
)

var (
	auditCountRE = regexp.MustCompile(`data-severity="(fail|warn|info)" data-count="(\d+)"`)
	auditCheckRE = regexp.MustCompile(`<li class="finding (fail|warn|info)" data-check="([^"]+)">`)
	verdictRE    = regexp.MustCompile(`id="verdict-text">([^<]*)<`)
)

// auditPageCounts reads the counts and the findings' check ids (with their
// severity) off an audit page.
func auditPageCounts(t *testing.T, html []byte) (counts map[string]int, checks []string) {
	t.Helper()
	counts = map[string]int{}
	for _, m := range auditCountRE.FindAllSubmatch(html, -1) {
		n, _ := strconv.Atoi(string(m[2]))
		counts[string(m[1])] = n
	}
	for _, m := range auditCheckRE.FindAllSubmatch(html, -1) {
		checks = append(checks, string(m[1])+" "+string(m[2]))
	}
	slices.Sort(checks)
	return counts, checks
}

// wantVerdict is the verdict the page must show for an audit --json
// document, in the language: how many distinct checks failed.
func wantVerdict(tag string, d auditDoc) string {
	failed := map[string]bool{}
	for _, f := range d.Findings {
		if f.Severity == audit.Fail {
			failed[f.Check] = true
		}
	}
	l := locales.MustMatch(tag)
	if len(failed) == 0 {
		return l.T("audit.verdict.pass")
	}
	return l.T("audit.verdict.fail", "count", len(failed))
}

// TestReportAuditPages renders the demo case study (the small demo unless
// screenshots are kept: the pages are the point, not the published
// numbers) and checks its audit
// pages against benchledger audit --json for the same spec and --as-of: the
// counts per severity, every finding's check id, the localised verdict, the
// links between the report and its audit page. A second spec with a wrong
// declared claim fails a check: the report still exits 0 and says so.
func TestReportAuditPages(t *testing.T) {
	t.Parallel()
	d := viewedDemo(t)
	db, specPath := copyArchive(t, d.db), specCopy(t, d)
	// A date past the reference's allowed age, so that --as-of reaches the
	// audit (reference.stale) and not only the caveats.
	const asOf = "2027-06-01"
	doc, ar := auditJSON(t, "--db", db, "--as-of", asOf, specPath)
	if ar.code != 0 {
		t.Fatalf("the demo audit must pass: %v", ar)
	}
	if !doc.has(audit.CheckReferenceStale, audit.Warn, "") {
		t.Errorf("audit --as-of %s does not report the reference as stale: the test date no longer exercises --as-of", asOf)
	}
	out := t.TempDir()
	r := bl(t, "report", "--db", db, "--out", out, "--as-of", asOf, specPath)
	if r.code != 0 {
		t.Fatal(r)
	}
	var wantChecks []string
	for _, f := range doc.Findings {
		wantChecks = append(wantChecks, f.Severity+" "+f.Check)
	}
	slices.Sort(wantChecks)
	printed := strings.Fields(r.stdout)
	for _, lang := range []string{"en", "zh", "ja", "es-419"} {
		page := filepath.Join(out, "qwen3-batch.audit."+lang+".html")
		mdPage := filepath.Join(out, "qwen3-batch.audit."+lang+".md")
		for _, p := range []string{page, mdPage} {
			if !slices.Contains(printed, p) {
				t.Errorf("%s not printed on stdout", p)
			}
		}
		html, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		counts, checks := auditPageCounts(t, html)
		for _, sev := range []string{"fail", "warn", "info"} {
			if counts[sev] != doc.Counts[sev] {
				t.Errorf("%s: page counts %d %s findings, audit --json %d", lang, counts[sev], sev, doc.Counts[sev])
			}
		}
		if !slices.Equal(checks, wantChecks) {
			t.Errorf("%s: page lists the findings\n%v\naudit --json has\n%v", lang, checks, wantChecks)
		}
		for _, c := range audit.Checks() {
			if !strings.Contains(string(html), `<tr id="check-`+c.ID+`"`) {
				t.Errorf("%s: checks table lacks %s", lang, c.ID)
			}
		}
		if m := verdictRE.FindSubmatch(html); m == nil || string(m[1]) != wantVerdict(lang, doc) {
			t.Errorf("%s: verdict %q, want %q", lang, m, wantVerdict(lang, doc))
		}
		if !strings.Contains(string(html), `href="qwen3-batch.`+lang+`.html"`) {
			t.Errorf("%s: the audit page does not link back to its report", lang)
		}
		report, _ := os.ReadFile(filepath.Join(out, "qwen3-batch."+lang+".html"))
		if !strings.Contains(string(report), `id="audit-link" href="qwen3-batch.audit.`+lang+`.html"`) {
			t.Errorf("%s: the report does not link its audit page", lang)
		}
		reportMD, _ := os.ReadFile(filepath.Join(out, "qwen3-batch."+lang+".md"))
		md, _ := os.ReadFile(mdPage)
		if !strings.Contains(string(reportMD), "](qwen3-batch.audit."+lang+".md)") || !strings.Contains(string(md), "](qwen3-batch."+lang+".md)") {
			t.Errorf("%s: the Markdown report and its audit page do not link each other", lang)
		}
		for _, f := range doc.Findings {
			if !strings.Contains(string(md), "`"+f.Check+"`") {
				t.Errorf("%s: the Markdown audit page lacks %s", lang, f.Check)
			}
		}
	}

	t.Run("browser", func(t *testing.T) {
		verdicts := map[string]string{}
		for _, lang := range []string{"en", "zh", "ja", "es-419"} {
			verdicts[lang] = wantVerdict(lang, doc)
		}
		auditPagesInBrowser(t, out, verdicts)
	})

	t.Run("failed check", func(t *testing.T) {
		// A declared claim the data contradict: +135% where the figure is
		// +131.9%.
		spec, err := os.ReadFile(specPath)
		if err != nil {
			t.Fatal(err)
		}
		bad := filepath.Join(filepath.Dir(specPath), "wrong-claim.yaml")
		writeFile(t, bad, string(spec)+"\nclaims:\n  - {text: \"headline\", value: 135, unit: \"%\", figure: scheduler_tuning.pct}\n")
		doc, ar := auditJSON(t, "--db", db, "--as-of", asOf, bad)
		if ar.code != exitProblems || !doc.has(audit.CheckClaimsStated, audit.Fail, "") {
			t.Fatalf("the wrong claim does not fail the audit: %v", ar)
		}
		out := t.TempDir()
		r := bl(t, "report", "--db", db, "--out", out, "--as-of", asOf, "--lang", "en,ja", "--format", "html", bad)
		if r.code != 0 {
			t.Fatalf("a failed audit check must not fail the report: %v", r)
		}
		if !strings.Contains(r.stderr, "audit") || !strings.Contains(r.stderr, strconv.Itoa(doc.Counts["fail"])+" failure") {
			t.Errorf("stderr does not mention the failed check: %q", r.stderr)
		}
		for _, lang := range []string{"en", "ja"} {
			html, err := os.ReadFile(filepath.Join(out, "qwen3-batch.audit."+lang+".html"))
			if err != nil {
				t.Fatal(err)
			}
			counts, _ := auditPageCounts(t, html)
			if counts["fail"] != doc.Counts["fail"] || counts["warn"] != doc.Counts["warn"] {
				t.Errorf("%s: page counts %v, audit --json %v", lang, counts, doc.Counts)
			}
			l := locales.MustMatch(lang)
			if m := verdictRE.FindSubmatch(html); m == nil || string(m[1]) != wantVerdict(lang, doc) || !strings.Contains(string(m[1]), "1") {
				t.Errorf("%s: verdict %q, want %q", lang, m, wantVerdict(lang, doc))
			}
			if !strings.Contains(string(html), `data-check="claims.stated"`) || !strings.Contains(string(html), l.T("audit.check.claims.stated")) {
				t.Errorf("%s: the failed check is not shown with its title", lang)
			}
			report, _ := os.ReadFile(filepath.Join(out, "qwen3-batch."+lang+".html"))
			if !strings.Contains(string(report), `<aside id="audit" class="audit fail">`) || !strings.Contains(string(report), wantVerdict(lang, doc)) {
				t.Errorf("%s: the report's audit line does not say the audit failed", lang)
			}
		}
	})

	t.Run("no-audit", func(t *testing.T) {
		out := t.TempDir()
		r := bl(t, "report", "--db", db, "--out", out, "--no-audit", "--lang", "en", specPath)
		if r.code != 0 {
			t.Fatal(r)
		}
		if strings.Contains(r.stdout, ".audit.") {
			t.Errorf("--no-audit wrote audit pages: %s", r.stdout)
		}
		report, _ := os.ReadFile(filepath.Join(out, "qwen3-batch.en.html"))
		md, _ := os.ReadFile(filepath.Join(out, "qwen3-batch.en.md"))
		if strings.Contains(string(report), `id="audit"`) || strings.Contains(string(md), ".audit.") {
			t.Error("--no-audit left an audit line in the report")
		}
	})

	t.Run("templates", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "audit.html.tmpl"), `<p>custom {{.Lang}} {{len .Checks}}</p>`)
		out := t.TempDir()
		if r := bl(t, "report", "--db", db, "--out", out, "--templates", dir, "--lang", "en", "--format", "html,md", specPath); r.code != 0 {
			t.Fatal(r)
		}
		html, _ := os.ReadFile(filepath.Join(out, "qwen3-batch.audit.en.html"))
		if want := "<p>custom en " + strconv.Itoa(len(audit.Checks())) + "</p>"; string(html) != want {
			t.Errorf("--templates audit.html.tmpl: page is %q, want %q", html, want)
		}
		// The Markdown page keeps the embedded template.
		if md, _ := os.ReadFile(filepath.Join(out, "qwen3-batch.audit.en.md")); !strings.Contains(string(md), "`claims.unbound`") {
			t.Error("the embedded audit.md.tmpl was not used beside an overridden audit.html.tmpl")
		}
	})
}
