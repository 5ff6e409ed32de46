package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/locales"
)

// countPublished counts the publication, errata and publish-event rows of
// the archive, read as another tool would.
func countPublished(t *testing.T, db string) (pubs, errata, events int) {
	t.Helper()
	conn := rawArchive(t, db)
	defer conn.Close()
	for _, c := range []struct {
		q string
		n *int
	}{
		{"SELECT count(*) FROM publications", &pubs},
		{"SELECT count(*) FROM errata", &errata},
		{"SELECT count(*) FROM events WHERE action = 'publish'", &events},
	} {
		if err := conn.QueryRow(c.q).Scan(c.n); err != nil {
			t.Fatalf("%s: %v", c.q, err)
		}
	}
	return pubs, errata, events
}

func rawArchive(t *testing.T, db string) *sql.DB {
	t.Helper()
	conn, err := sql.Open("sqlite3", "file:"+db+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

type errataDoc struct {
	CaseID   string `json:"case_id"`
	Versions []struct {
		Version int    `json:"version"`
		Digest  string `json:"archive_digest"`
		Errata  []struct {
			Kind, Name, Old, New string
		} `json:"errata"`
	} `json:"versions"`
}

func errataJSONOf(t *testing.T, db, specPath string) errataDoc {
	t.Helper()
	r := bl(t, "errata", "--db", db, "--json", specPath)
	if r.code != 0 {
		t.Fatal(r)
	}
	var doc errataDoc
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("errata --json: %v\n%s", err, r.stdout)
	}
	return doc
}

var errataSectionRE = regexp.MustCompile(`(?s)<section id="errata">.*?</section>`)

// TestReportVersionsAndErrata publishes the (small) demo case study, publishes it
// again unchanged, renders a draft, then changes a figure of the spec and
// the English narrative and publishes the correction.
func TestReportVersionsAndErrata(t *testing.T) {
	t.Parallel()
	// Versions and errata are the point, not the published numbers: the
	// small demo, whose changed figure is read from figures --json.
	db, specPath := smallDemoArchive(t)
	dir := filepath.Dir(specPath)
	langs := []string{"en", "zh", "ja", "es-419"}
	// The audit pages play no part in versions (TestReportAuditPages tests
	// them); --no-audit spares each render the audit's re-reading of every
	// raw file.
	render := func(out string, args ...string) result {
		t.Helper()
		return bl(t, append([]string{"report", "--db", db, "--out", out, "--no-audit"}, append(args, specPath)...)...)
	}
	publish := func(out string, args ...string) result {
		t.Helper()
		return render(out, append([]string{"--publish"}, args...)...)
	}

	// A report is a draft unless --publish is given: nothing recorded.
	first := t.TempDir()
	if r := render(first, "--lang", "en", "--format", "html"); r.code != 0 {
		t.Fatal(r)
	}
	if p, e, ev := countPublished(t, db); p != 0 || e != 0 || ev != 0 {
		t.Fatalf("a report without --publish recorded %d publications, %d errata, %d publish events", p, e, ev)
	}
	if html, _ := os.ReadFile(filepath.Join(first, "qwen3-batch.en.html")); !bytes.Contains(html, []byte(`class="version draft">Draft, not yet published`)) {
		t.Errorf("a draft before any publication must say so:\n%s", regexp.MustCompile(`<p id="version"[^\n]*`).Find(html))
	}
	if r := render(t.TempDir(), "--publish", "--draft"); r.code != exitUsage {
		t.Errorf("--publish --draft: want a usage error, got %v", r)
	}

	// Version 1: the version line in every language, no errata.
	out1 := t.TempDir()
	if r := publish(out1, "--lang", strings.Join(langs, ","), "--format", "html,md"); r.code != 0 {
		t.Fatal(r)
	}
	versionLine := map[string]string{"en": "Version 1, recorded ", "zh": "第 1 版，记录于", "ja": "バージョン 1（", "es-419": "Versión 1, registrada el "}
	for _, l := range langs {
		html, _ := os.ReadFile(filepath.Join(out1, "qwen3-batch."+l+".html"))
		md, _ := os.ReadFile(filepath.Join(out1, "qwen3-batch."+l+".md"))
		if !bytes.Contains(html, []byte(`<p id="version" class="version">`+versionLine[l])) || !bytes.Contains(md, []byte("*"+versionLine[l])) {
			t.Errorf("%s: version 1 line %q missing from the HTML or Markdown", l, versionLine[l])
		}
		if bytes.Contains(html, []byte(`id="errata"`)) || bytes.Contains(md, []byte(locales.MustMatch(l).T("section.errata"))) {
			t.Errorf("%s: an errata section in version 1", l)
		}
	}
	if p, e, ev := countPublished(t, db); p != 1 || e != 0 || ev != 1 {
		t.Fatalf("after the first report: %d publications, %d errata, %d publish events; want 1, 0, 1", p, e, ev)
	}
	if doc := errataJSONOf(t, db, specPath); doc.CaseID != "qwen3-batch" || len(doc.Versions) != 1 || doc.Versions[0].Version != 1 ||
		len(doc.Versions[0].Errata) != 0 || len(doc.Versions[0].Digest) != 64 {
		t.Errorf("errata --json after version 1: %+v", doc)
	}

	// The same archive and spec again: no new row, the same bytes.
	out2 := t.TempDir()
	if r := publish(out2, "--lang", strings.Join(langs, ","), "--format", "html,md"); r.code != 0 {
		t.Fatal(r)
	}
	if p, e, ev := countPublished(t, db); p != 1 || e != 0 || ev != 1 {
		t.Errorf("after an unchanged report: %d publications, %d errata, %d publish events; want 1, 0, 1", p, e, ev)
	}
	a, b := readTree(t, out1), readTree(t, out2)
	if len(a) != len(b) {
		t.Errorf("renders differ in file count: %d vs %d", len(a), len(b))
	}
	for n, data := range a {
		if !bytes.Equal(data, b[n]) {
			t.Errorf("%s differs between two renders of one version", n)
		}
	}

	// A draft records nothing and says it is one, also from a read-only
	// archive; with --publish a read-only archive is an error saying how to
	// render without recording.
	if err := os.Chmod(db, 0o444); err != nil {
		t.Fatal(err)
	}
	if r := publish(t.TempDir(), "--lang", "en", "--format", "md"); r.code != 1 || !strings.Contains(r.stderr, "without --publish") || !strings.Contains(r.stderr, "read-only") {
		t.Errorf("report --publish on a read-only archive: want exit 1 saying a draft needs no write, got %v", r)
	}
	draft := t.TempDir()
	if r := render(draft, "--draft", "--lang", "en", "--format", "html,md"); r.code != 0 {
		t.Fatal(r)
	}
	if err := os.Chmod(db, 0o644); err != nil {
		t.Fatal(err)
	}
	if html, _ := os.ReadFile(filepath.Join(draft, "qwen3-batch.en.html")); !bytes.Contains(html,
		[]byte(`<p id="version" class="version draft">Draft, not recorded. The latest recorded version is 1, recorded `)) {
		t.Errorf("draft page lacks its draft line:\n%s", regexp.MustCompile(`<p id="version"[^\n]*`).Find(html))
	}
	if p, e, ev := countPublished(t, db); p != 1 || e != 0 || ev != 1 {
		t.Errorf("after a draft: %d publications, %d errata, %d publish events; want 1, 0, 1", p, e, ev)
	}

	// Correct the text and the data: a figure of the spec now reads the
	// median where it read the mean, and the English narrative has one
	// more sentence.
	specText, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	const meanFig, medianFig = "public_single_mean_latency: {of: public_single, metric: e2el.mean}", "public_single_mean_latency: {of: public_single, metric: e2el.median}"
	if !bytes.Contains(specText, []byte(meanFig)) {
		t.Fatalf("the demo spec no longer has %q", meanFig)
	}
	oldValue := figureValue(t, db, specPath, "public_single_mean_latency")
	writeFile(t, specPath, strings.Replace(string(specText), meanFig, medianFig, 1))
	newValue := figureValue(t, db, specPath, "public_single_mean_latency")
	if oldValue == newValue {
		t.Fatalf("the changed figure keeps its value %v", oldValue)
	}
	enLocale := locales.MustMatch("en")
	oldText, newText := enLocale.Quantity(oldValue, 2, "s"), enLocale.Quantity(newValue, 2, "s")
	en := filepath.Join(dir, "narrative", "en.md")
	narr, err := os.ReadFile(en)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, en, string(narr)+"\nThis version corrects one figure.\n")

	all := append(langs, "es")
	out3 := t.TempDir()
	if r := publish(out3, "--lang", strings.Join(all, ","), "--format", "html,md"); r.code != 0 {
		t.Fatal(r)
	}
	if p, e, ev := countPublished(t, db); p != 2 || e != 2 || ev != 2 {
		t.Errorf("after the correction: %d publications, %d errata, %d publish events; want 2, 2 (the figure and the narrative), 2", p, e, ev)
	}
	textChanged := map[string]string{"en": "Narrative (en) changed", "zh": "正文（en）已修改", "ja": "本文（en）を変更",
		"es-419": "Texto modificado: narrativa (en)", "es": "Texto modificado: narrativa (en)"}
	for _, tag := range all {
		l := locales.MustMatch(tag)
		change := l.Quantity(oldValue, 2, "s") + " → " + l.Quantity(newValue, 2, "s")
		v2 := l.T("errata.version", "version", 2, "date", "DATE")
		v2 = v2[:strings.Index(v2, "DATE")]
		html, _ := os.ReadFile(filepath.Join(out3, "qwen3-batch."+tag+".html"))
		md, _ := os.ReadFile(filepath.Join(out3, "qwen3-batch."+tag+".md"))
		section := errataSectionRE.Find(html)
		for _, want := range []string{`<h2>` + capFirstTest(l.T("section.errata")) + `</h2>`, `<h3 id="errata-v2">` + v2,
			`<li><code>public_single_mean_latency</code>`, change, textChanged[tag]} {
			if !bytes.Contains(section, []byte(want)) {
				t.Errorf("%s html: errata section lacks %q:\n%s", tag, want, section)
			}
		}
		if bytes.Contains(section, []byte("errata-v1")) || bytes.Contains(section, []byte(".precise")) {
			t.Errorf("%s html: errata list version 1 or a .precise twin:\n%s", tag, section)
		}
		if !bytes.Contains(html, []byte(`<p id="version" class="version">`+v2)) {
			t.Errorf("%s html: no version 2 line", tag)
		}
		mdErrata := md[max(0, bytes.Index(md, []byte("## "+capFirstTest(l.T("section.errata"))))):]
		for _, want := range []string{"### " + v2, "- `public_single_mean_latency`", change, textChanged[tag]} {
			if !bytes.Contains(mdErrata, []byte(want)) {
				t.Errorf("%s md: errata section lacks %q", tag, want)
			}
		}
		for _, page := range [][]byte{html, md} {
			if bytes.Contains(page, []byte("[!errata.")) || bytes.Contains(page, []byte("[!text.")) {
				t.Errorf("%s: a message is missing from the catalogue", tag)
			}
		}
	}

	doc := errataJSONOf(t, db, specPath)
	if len(doc.Versions) != 2 || doc.Versions[1].Version != 2 || doc.Versions[0].Digest == doc.Versions[1].Digest {
		t.Fatalf("errata --json after the correction: %+v", doc)
	}
	got := doc.Versions[1].Errata
	hash := regexp.MustCompile(`^[0-9a-f]{12}$`)
	if len(got) != 2 || got[0].Kind != "figure" || got[0].Name != "public_single_mean_latency" || got[0].Old != oldText || got[0].New != newText ||
		got[1].Kind != "text" || got[1].Name != "narrative.en" || !hash.MatchString(got[1].Old) || !hash.MatchString(got[1].New) || got[1].Old == got[1].New {
		t.Errorf("version 2 errata = %+v, want the figure %s → %s and the English narrative", got, oldText, newText)
	}
	txt := bl(t, "errata", "--db", db, specPath)
	if txt.code != 0 || !strings.Contains(txt.stdout, "public_single_mean_latency: "+oldText+" → "+newText) ||
		strings.Index(txt.stdout, "Version 2,") > strings.Index(txt.stdout, "Version 1,") {
		t.Errorf("errata text, newest first:\n%v", txt)
	}

	// History is append-only for any client of the file.
	conn := rawArchive(t, db)
	defer conn.Close()
	for _, q := range []string{
		"UPDATE publications SET digest = digest", "DELETE FROM publications WHERE version = 2",
		"UPDATE errata SET new = 'x'", "DELETE FROM errata",
	} {
		if _, err := conn.Exec(q); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: %v, want refused as append-only", q, err)
		}
	}
	if p, e, _ := countPublished(t, db); p != 2 || e != 2 {
		t.Errorf("after the refused statements: %d publications, %d errata", p, e)
	}
}

// figureValue is a figure's value as figures --json computes it.
func figureValue(t *testing.T, db, specPath, name string) float64 {
	t.Helper()
	r := bl(t, "figures", "--db", db, "--json", specPath)
	var doc struct {
		Figures map[string]struct {
			Value *float64 `json:"value"`
		} `json:"figures"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || doc.Figures[name].Value == nil {
		t.Fatalf("figures --json: no value of %s (%v)\n%v", name, err, r)
	}
	return *doc.Figures[name].Value
}

func capFirstTest(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	return strings.ToUpper(string(r[0])) + string(r[1:])
}
