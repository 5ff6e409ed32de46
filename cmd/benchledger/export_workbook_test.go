package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"image"
	"image/png"
	"io"
	"iter"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/benchledger/benchledger/internal/atomicfile"
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/spec"
)

// TestExportCover checks the cover sheet's cells against the evaluation
// (title, id, version, audit verdict with counts, digest, number of runs,
// links) and the document's properties. The workbook tests below use the
// small demo: its runs and spec are the demo's, and the workbook's layout,
// strings and links are the point, not the published numbers.
func TestExportCover(t *testing.T) {
	t.Parallel()
	demo := smallDemo(t)
	db, specPath := demo.db, demo.spec()
	r := bl(t, "figures", "--db", db, "--json", specPath)
	var fig struct {
		Digest string   `json:"archive_digest"`
		RunIDs []string `json:"run_ids"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &fig); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"en", "ja", "es-419"} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			l := locales.MustMatch(lang)
			path := filepath.Join(t.TempDir(), "demo.xlsx")
			before := time.Now().UTC().Add(-time.Second)
			if r := bl(t, "export", "--db", db, "--lang", lang, "--xlsx", path, "--base-url", "https://bench.example/site/", specPath); r.code != 0 {
				t.Fatal(r)
			}
			f := openXLSX(t, path)
			cover := l.T("export.sheet.cover")
			if got := f.GetSheetList()[0]; got != cover {
				t.Fatalf("first sheet %q, want the cover %q", got, cover)
			}
			rows, _ := f.GetRows(cover)
			values := map[string]string{}
			for _, rr := range rows[1:] {
				if len(rr) == 2 {
					values[rr[0]] = rr[1]
				}
			}
			title := rows[0][0]
			if title == "" || title == "qwen3-batch" {
				t.Errorf("cover title %q, want the case study's title", title)
			}
			want := map[string]string{
				"export.cover.case_study": title,
				"export.cover.id":         "qwen3-batch",
				"export.cover.version":    l.T("errata.draft_unpublished"),
				"export.cover.digest":     fig.Digest,
				"export.cover.runs":       l.Integer(len(fig.RunIDs)),
				"export.cover.report":     "https://bench.example/site/reports/qwen3-batch/qwen3-batch." + lang + ".html",
				"export.cover.site":       "https://bench.example/site/" + lang + "/case/qwen3-batch.html",
			}
			for key, v := range want {
				if got := values[l.T(key)]; got != v {
					t.Errorf("cover %s = %q, want %q", l.T(key), got, v)
				}
			}
			audit := values[l.T("export.cover.audit")]
			// The demo's audit has two warnings (a disclosed confounder, a
			// reference no longer shown); zh and ja put no space after "。".
			if !strings.HasPrefix(audit, l.T("audit.verdict.pass")+l.Punct()["sentence_sep"]) || !strings.Contains(audit, l.T("audit.count.warn", "count", 2)) {
				t.Errorf("cover audit %q: want the verdict and the counts of the report's audit", audit)
			}
			// The links are links.
			for i, rr := range rows {
				if len(rr) == 2 && strings.HasPrefix(rr[1], "https://") {
					cell, _ := excelize.CoordinatesToCellName(2, i+1)
					if ok, target, _ := f.GetCellHyperLink(cover, cell); !ok || target != rr[1] {
						t.Errorf("cover %s: link %v %q", cell, ok, target)
					}
				}
			}
			// Document properties: the title, and dates of this export
			// (excelize's default modified date is 2006-09-16).
			p, err := f.GetDocProps()
			if err != nil {
				t.Fatal(err)
			}
			if p.Title != title {
				t.Errorf("document title %q, want %q", p.Title, title)
			}
			for name, v := range map[string]string{"created": p.Created, "modified": p.Modified} {
				at, err := time.Parse(time.RFC3339, v)
				if err != nil || at.Before(before.Truncate(time.Second)) || at.After(time.Now().Add(time.Second)) {
					t.Errorf("document %s date %q, want the export's time (%v)", name, v, err)
				}
			}
		})
	}
}

// TestExportNoRawKeys scans every string of every sheet (names, headers,
// cells) in every language for catalogue keys: a missing message shows as
// [!key], and no cell may be a key itself.
func TestExportNoRawKeys(t *testing.T) {
	t.Parallel()
	demo := smallDemo(t)
	db, specPath := demo.db, demo.spec()
	en := locales.MustMatch("en")
	keys := map[string]bool{}
	for _, k := range en.Keys("") {
		if strings.Contains(k, ".") {
			keys[k] = true
		}
	}
	if !keys["export.col.sha256"] {
		t.Fatal("the catalogue has no export.col.sha256")
	}
	// The Requests sheet's strings (its header, yes/no, error texts) do
	// not depend on which runs it lists: it comes from the small campaign
	// of known mistakes, the other sheets from the demo.
	mdb, mspec := mistakesCampaign(t)
	for _, lang := range locales.Supported() {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "demo.xlsx")
			if r := bl(t, "export", "--db", db, "--lang", lang, "--xlsx", path, "--base-url", "https://bench.example/", specPath); r.code != 0 {
				t.Fatal(r)
			}
			requests := filepath.Join(t.TempDir(), "requests.xlsx")
			if r := bl(t, "export", "--no-audit", "--db", mdb, "--lang", lang, "--xlsx", requests, "--requests", mspec); r.code != 0 {
				t.Fatal(r)
			}
			// Every string the workbooks hold, read from their XML parts:
			// shared and inline cell strings (<t>), sheet names, chart
			// titles and document properties. excelize's row reader
			// takes minutes over request rows; the parts take
			// milliseconds and hold the same strings.
			strings_, requestSheet := 0, false
			for _, p := range []string{path, requests} {
				for part, text := range xlsxStrings(t, p) {
					strings_++
					requestSheet = requestSheet || p == requests && text == locales.MustMatch(lang).T("export.sheet.requests")
					if strings.Contains(text, "[!") || keys[text] {
						t.Errorf("%s: raw catalogue key %q", part, text)
					}
				}
			}
			if !requestSheet {
				t.Error("the small campaign's workbook has no Requests sheet")
			}
			if strings_ < 1000 {
				t.Errorf("only %d strings scanned", strings_)
			}
		})
	}
}

// xlsxStrings yields every text of an xlsx file's XML parts, with the
// part it is in: element text of <t> (cells, rich text, chart titles),
// <dc:title> and the like, and the name= attribute of sheets.
func xlsxStrings(t *testing.T, path string) iter.Seq2[string, string] {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { zr.Close() })
	texts := regexp.MustCompile(`<(?:[a-z]+:)?t(?: [^>]*)?>([^<]*)</(?:[a-z]+:)?t>|<dc:title>([^<]*)</dc:title>|<sheet [^>]*name="([^"]*)"`)
	return func(yield func(string, string) bool) {
		for _, f := range zr.File {
			if !strings.HasSuffix(f.Name, ".xml") {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range texts.FindAllSubmatch(data, -1) {
				text := string(m[1]) + string(m[2]) + string(m[3])
				if !yield(f.Name, html.UnescapeString(text)) {
					return
				}
			}
		}
	}
}

// TestExportLinksResolve builds the site and the workbook from one archive
// and follows every hyperlink of every sheet to a file of the site.
func TestExportLinksResolve(t *testing.T) {
	t.Parallel()
	demo := smallDemo(t)
	db, specPath := demo.db, demo.spec()
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	// The links are the subject, not the audit (the workbooks are not audited either).
	if r := bl(t, "site", "--no-audit", "--db", db, "--out", site, "--lang", "en,ja", "--raw=false", specPath); r.code != 0 {
		t.Fatal(r)
	}
	if audits, _ := filepath.Glob(filepath.Join(site, "reports", "*", "*.audit.*")); len(audits) != 0 {
		t.Errorf("site --no-audit wrote audit pages: %v", audits)
	}
	base := (&url.URL{Scheme: "file", Path: filepath.ToSlash(site) + "/"}).String()
	for _, lang := range []string{"en", "ja"} {
		path := filepath.Join(dir, lang+".xlsx")
		if r := bl(t, "export", "--no-audit", "--db", db, "--lang", lang, "--xlsx", path, "--base-url", base, specPath); r.code != 0 {
			t.Fatal(r)
		}
		f := openXLSX(t, path)
		links := 0
		for _, sheet := range f.GetSheetList() {
			rows, _ := f.GetRows(sheet)
			for i, rr := range rows {
				for j := range rr {
					cell, _ := excelize.CoordinatesToCellName(j+1, i+1)
					ok, target, err := f.GetCellHyperLink(sheet, cell)
					if err != nil || !ok {
						continue
					}
					links++
					u, err := url.Parse(target)
					if err != nil || u.Scheme != "file" {
						t.Errorf("%s %s %s: link %q", lang, sheet, cell, target)
						continue
					}
					if _, err := os.Stat(u.Path); err != nil {
						t.Errorf("%s %s %s: link %q does not resolve: %v", lang, sheet, cell, target, err)
					}
				}
			}
		}
		// Every run of Runs and Provenance, and the cover's two.
		if links < 2*len(demoRunIDs(t, db, specPath))+2 {
			t.Errorf("%s: only %d links", lang, links)
		}
	}
}

func demoRunIDs(t *testing.T, db, specPath string) []string {
	t.Helper()
	r := bl(t, "figures", "--db", db, "--json", specPath)
	var fig struct {
		RunIDs []string `json:"run_ids"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &fig); err != nil {
		t.Fatal(err)
	}
	return fig.RunIDs
}

// TestExportRunOrder: the Runs sheet reads baseline, tuned, then the sweep
// by its value, ..., replicas by their index, not by hex id.
func TestExportRunOrder(t *testing.T) {
	t.Parallel()
	demo := smallDemo(t)
	path := filepath.Join(t.TempDir(), "demo.xlsx")
	// The order is the point; --no-audit spares the audit's re-reading of
	// every raw file, and the cover then says the case study was not audited.
	if r := bl(t, "export", "--db", demo.db, "--xlsx", path, "--no-audit", demo.spec()); r.code != 0 {
		t.Fatal(r)
	}
	f := openXLSX(t, path)
	notAudited := false
	for _, text := range xlsxStrings(t, path) {
		notAudited = notAudited || text == locales.MustMatch("en").T("export.cover.not_audited")
	}
	if !notAudited {
		t.Error("export --no-audit: the cover does not say the case study was not audited")
	}
	rows, _ := f.GetRows("Runs")
	role, group := column(t, f, "Runs", "Role")-1, column(t, f, "Runs", "Group")-1
	var seq []string
	for _, rr := range rows[1:] {
		k := rr[role]
		if len(seq) == 0 || seq[len(seq)-1] != k {
			seq = append(seq, k)
		}
	}
	// Roles are in words (role.*: "sweep point").
	en := locales.MustMatch("en")
	if got := strings.Join(seq, " "); !strings.HasPrefix(got, en.T("role.baseline")+" "+en.T("role.tuned")+" "+en.T("role.sweep-point")) {
		t.Errorf("roles in order %q", got)
	}
	// Within a group, the replicas count up; the sweep values rise.
	prev := map[string]float64{}
	sweep := column(t, f, "Runs", "Sweep value") - 1
	for _, rr := range rows[1:] {
		if sweep < len(rr) && rr[sweep] != "" {
			v, _ := strconv.ParseFloat(strings.ReplaceAll(rr[sweep], ",", ""), 64)
			if v < prev[rr[group]] {
				t.Errorf("group %s: sweep value %v after %v", rr[group], v, prev[rr[group]])
			}
			prev[rr[group]] = v
		}
	}
}

// umask is the process's file-mode mask (Linux /proc), read without
// changing it.
func umask(t *testing.T) os.FileMode {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Umask:"); ok {
			m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32)
			if err == nil {
				return os.FileMode(m)
			}
		}
	}
	t.Skip("no umask in /proc/self/status")
	return 0
}

// TestExportFileMode: the workbook and the CSV files are 0644 under the
// umask, as every output (atomicfile.Perm), not a temporary file's 0600.
func TestExportFileMode(t *testing.T) {
	t.Parallel()
	demo := smallDemo(t)
	dir := t.TempDir()
	if r := bl(t, "export", "--no-audit", "--db", demo.db, "--xlsx", filepath.Join(dir, "d.xlsx"), "--csv", filepath.Join(dir, "csv"), demo.spec()); r.code != 0 {
		t.Fatal(r)
	}
	want := atomicfile.Perm &^ umask(t)
	paths, _ := filepath.Glob(filepath.Join(dir, "csv", "*.csv"))
	for _, p := range append(paths, filepath.Join(dir, "d.xlsx")) {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, st.Mode().Perm(), want)
		}
	}
}

// soffice is LibreOffice's command, or the test skips (CI installs it).
func soffice(t *testing.T, also ...string) string {
	t.Helper()
	p, err := exec.LookPath("soffice")
	for _, tool := range also {
		if err == nil {
			_, err = exec.LookPath(tool)
		}
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must have LibreOffice and poppler-utils (installed by .ci/run): %v", err)
		}
		t.Skipf("skipping: %v (apt-get install libreoffice-calc-nogui poppler-utils)", err)
	}
	return p
}

// runSoffice runs LibreOffice headless with a private profile.
func runSoffice(t *testing.T, env []string, args ...string) {
	t.Helper()
	soffice(t)
	if err := sofficeRun(filepath.Join(t.TempDir(), "profile"), env, args...); err != nil {
		t.Fatal(err)
	}
}

// sofficeRun runs LibreOffice headless with the profile folder given.
func sofficeRun(profile string, env []string, args ...string) error {
	cmd := exec.Command("soffice", append([]string{"--headless", "--norestore", "-env:UserInstallation=file://" + profile}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("LibreOffice: %w\n%s", err, b)
	}
	return nil
}

// printedWorkbooks is the small demo's workbook in each of printLangs,
// exported and printed to PDF by one LibreOffice (its start costs more than
// a print), and the baseline those workbooks show. Printing takes about
// half a minute of one core: TestMain starts it with the demos when every
// test runs, so that it does not start last and hold up the whole package.
type printedWorkbooks struct {
	pdfs     []string // one per printLangs
	baseline float64  // the scheduler comparison's baseline throughput
}

// es-AR: the es-419 texts with Argentina's numbers (17.961,20), which the
// number formats carry whatever LibreOffice's own locale.
var printLangs = []string{"en", "ja", "es-419", "es-AR"}

var printedWorkbooksOnce = sync.OnceValues(func() (*printedWorkbooks, error) {
	for _, tool := range []string{"soffice", "pdftoppm", "pdftotext"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, err
		}
	}
	demo, err := smallDemoOnce()
	if err != nil {
		return nil, err
	}
	dir, err := sharedDir("printed-workbooks")
	if err != nil {
		return nil, err
	}
	var fig struct {
		Comparisons map[string]struct {
			Comparison struct{ Change struct{ Baseline float64 } }
		}
	}
	if err := json.Unmarshal([]byte(runCommand("figures", "--db", demo.db, "--json", demo.spec()).stdout), &fig); err != nil {
		return nil, err
	}
	pw := &printedWorkbooks{baseline: fig.Comparisons["scheduler_tuning"].Comparison.Change.Baseline}
	var workbooks []string
	for _, lang := range printLangs {
		path := filepath.Join(dir, "demo-"+lang+".xlsx")
		if r := runCommand("export", "--no-audit", "--db", demo.db, "--lang", lang, "--xlsx", path, demo.spec()); r.code != 0 {
			return nil, fmt.Errorf("export %s: %v", lang, r)
		}
		workbooks = append(workbooks, path)
		pw.pdfs = append(pw.pdfs, strings.TrimSuffix(path, ".xlsx")+".pdf")
	}
	if err := sofficeRun(filepath.Join(dir, "profile"), nil, append([]string{"--convert-to", "pdf", "--outdir", dir}, workbooks...)...); err != nil {
		return nil, err
	}
	return pw, nil
})

// TestExportPrintsInLibreOffice prints the (small) demo workbook to PDF with
// LibreOffice in en, ja, es-419 and es-AR (printedWorkbooks): the whole
// workbook takes a bounded number of pages (171 before the page setup), the
// Summary one, and the Sweeps chart is on one page and drawn: the page
// rendered to PNG has coloured pixels (series markers and lines; the table
// is black and grey).
func TestExportPrintsInLibreOffice(t *testing.T) {
	t.Parallel()
	soffice(t, "pdftoppm", "pdftotext")
	printed, err := printedWorkbooksOnce()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i, lang := range printLangs {
		l := locales.MustMatch(lang)
		pdf := printed.pdfs[i]
		text, err := exec.Command("pdftotext", "-layout", pdf, "-").Output()
		if err != nil {
			t.Fatal(err)
		}
		pages := strings.Split(strings.TrimSuffix(string(text), "\f"), "\f")
		perSheet := map[string]int{}
		chartPages := []int{}
		for i, p := range pages {
			lines := strings.Split(strings.TrimRight(p, "\n "), "\n")
			footer := strings.Fields(lines[len(lines)-1])
			if len(footer) > 0 {
				perSheet[footer[0]]++
			}
			if strings.Contains(p, l.T("export.chart.sweep")) {
				chartPages = append(chartPages, i+1)
			}
		}
		t.Logf("%s: %d pages: %v", lang, len(pages), perSheet)
		if len(pages) > 80 {
			t.Errorf("%s: the workbook prints on %d pages", lang, len(pages))
		}
		for _, s := range []string{"cover", "summary", "sweeps"} {
			if n := perSheet[l.T("export.sheet."+s)]; n != 1 {
				t.Errorf("%s: sheet %s prints on %d pages, want 1", lang, s, n)
			}
		}
		if len(chartPages) != 1 {
			t.Fatalf("%s: the chart title is on pages %v, want one", lang, chartPages)
		}
		render := func(page int) int {
			p := strconv.Itoa(page)
			out := filepath.Join(dir, lang+"-page-"+p)
			if b, err := exec.Command("pdftoppm", "-r", "100", "-png", "-f", p, "-l", p, "-singlefile", pdf, out).CombinedOutput(); err != nil {
				t.Fatalf("pdftoppm: %v\n%s", err, b)
			}
			return colouredPixels(t, out+".png")
		}
		// The Summary page shows the baseline in the language's digits
		// (17,961.20; es-AR 17.961,20).
		if want := l.Number(printed.baseline, 2); !strings.Contains(pages[1], want) {
			t.Errorf("%s: the Summary page does not show the baseline as %q:\n%s", lang, want, pages[1])
		}
		// The chart's throughput axis groups its thousands as the cells
		// do (es-AR 34.000).
		group := string([]rune(l.Number(10000, 0))[2]) // "," or "."
		tick := regexp.MustCompile(`\b\d{2}` + regexp.QuoteMeta(group) + `000\b`)
		if !tick.MatchString(pages[chartPages[0]-1]) {
			t.Errorf("%s: the chart's axis does not write thousands as %s:\n%s", lang, l.Number(34000, 0), pages[chartPages[0]-1])
		}
		// The Summary page (2) is the control: text and rules only.
		chart, control := render(chartPages[0]), render(2)
		t.Logf("%s: %d coloured pixels on the chart's page, %d on the Summary's", lang, chart, control)
		if chart < 200 || chart < 10*control {
			t.Errorf("%s: the Sweeps page has %d coloured pixels (Summary %d): the chart is blank", lang, chart, control)
		}
	}
}

// colouredPixels counts saturated pixels: the series' colours, not the
// text (black, grey), the background (white) or the header fill (E8EEF4).
func colouredPixels(t *testing.T, path string) int {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	img, err := png.Decode(fh)
	if err != nil {
		t.Fatal(err)
	}
	return countSaturated(img)
}

func countSaturated(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			hi, lo := max(r, g, bl)>>8, min(r, g, bl)>>8
			if hi-lo > 80 {
				n++
			}
		}
	}
	return n
}

// TestExportCSVInSpanishSpreadsheet reads the CSV back with LibreOffice in
// an es-ES locale: with --csv-dialect excel-es the fields split at ';' and
// the numbers (decimal comma) are numbers equal to the workbook's. The same
// file read in en-US does not give them, so the locale was applied (the
// test can fail).
func TestExportCSVInSpanishSpreadsheet(t *testing.T) {
	t.Parallel()
	soffice(t)
	demo := sharedDemo(t)
	dir := t.TempDir()
	csvDir := filepath.Join(dir, "csv")
	if r := bl(t, "export", "--no-audit", "--db", demo.db, "--lang", "es", "--csv", csvDir, "--csv-dialect", "excel-es", demo.spec()); r.code != 0 {
		t.Fatal(r)
	}
	b, _ := os.ReadFile(filepath.Join(csvDir, "summary.csv"))
	if !bytes.HasPrefix(b, []byte("\ufeff")) {
		t.Error("no byte-order mark by default")
	}
	// Filter options: separator ';' (59), quote '"' (34), UTF-8 (76), from
	// line 1, standard column types, then the language: es-ES is 3082,
	// en-US 1033.
	read := func(language string) *excelize.File {
		out := filepath.Join(dir, "out-"+language)
		runSoffice(t, nil, "--infilter=Text - txt - csv (StarCalc):59,34,76,1,,"+language,
			"--convert-to", "xlsx", "--outdir", out, filepath.Join(csvDir, "summary.csv"))
		f, err := excelize.OpenFile(filepath.Join(out, "summary.xlsx"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	l := locales.MustMatch("es")
	f := read("3082")
	sheet := f.GetSheetList()[0]
	rows, _ := f.GetRows(sheet)
	if len(rows) < 2 || rows[0][0] != l.T("export.col.comparison") {
		t.Fatalf("the CSV read back: %q", rows)
	}
	baseCol := -1
	for j, h := range rows[0] {
		if h == l.T("table.baseline") {
			baseCol = j + 1
		}
	}
	if baseCol < 0 {
		t.Fatalf("no baseline column in %q", rows[0])
	}
	cell, _ := excelize.CoordinatesToCellName(baseCol, 2)
	number := func(f *excelize.File) (float64, bool) {
		v, _ := f.GetCellValue(sheet, cell, excelize.Options{RawCellValue: true})
		typ, _ := f.GetCellType(sheet, cell)
		x, err := strconv.ParseFloat(v, 64)
		return x, err == nil && (typ == excelize.CellTypeNumber || typ == excelize.CellTypeUnset)
	}
	if x, ok := number(f); !ok || x < 17961.2 || x > 17961.21 {
		t.Errorf("es-ES: baseline %s read back as %v (number %v), want 17961.2", cell, x, ok)
	}
	if x, ok := number(read("1033")); ok && x > 17961.2 && x < 17961.21 {
		t.Errorf("en-US read the decimal comma as 17961.2 too: the locale was not applied, the test proves nothing")
	}
}

// TestExportReadsInTheLanguage reads the zh, ja and es-419 workbooks as a
// reader of the language does (issue 18): units in the headers and the
// Unit column as the language writes them in a table (token/s,
// トークン/秒, 秒), ratios with the language's sign (2.32 倍, 2.32×),
// comparisons, sweeps and nodes by the spec's labels (never its keys),
// recorded values in words (no inf, true or false; engines by name;
// English free text the spec translates in the language), "label：value"
// pairs with the language's colon, roles, provenance sources and
// percentile methods in words.
func TestExportReadsInTheLanguage(t *testing.T) {
	t.Parallel()
	demo := smallDemo(t)
	// A price, for the cost estimate's columns.
	specPath := specCopy(t, demo)
	fh, err := os.OpenFile(specPath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fh.WriteString("\nprice: {per_gpu_hour: 2.49, currency: USD, date: 2026-08-01}\n"); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	sp, err := spec.Load(specPath)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for k := range sp.Comparisons {
		keys[k] = true
	}
	for k := range sp.Sweeps {
		keys[k] = true
	}
	for k := range sp.Nodes {
		keys[k] = true
	}
	for _, lang := range []string{"zh", "ja", "es-419"} {
		t.Run(lang, func(t *testing.T) {
			t.Parallel()
			l := locales.MustMatch(lang)
			path := filepath.Join(t.TempDir(), "demo.xlsx")
			if r := bl(t, "export", "--no-audit", "--db", demo.db, "--lang", lang, "--xlsx", path, specPath); r.code != 0 {
				t.Fatal(r)
			}
			f := openXLSX(t, path)
			sheet := func(name string) [][]string {
				rows, err := f.GetRows(l.T("export.sheet." + name))
				if err != nil || len(rows) < 2 {
					t.Fatalf("sheet %s: %v %q", name, err, rows)
				}
				return rows
			}
			// Units: the runs sheet's throughput and latency headers.
			runs := sheet("runs")
			for _, want := range []string{
				l.T("export.header_unit", "name", capital(l.Figure("output_throughput")), "unit", l.Cells().UnitLabel("tok/s")),
				l.T("export.header_unit", "name", capital(l.Figure("e2el.median")), "unit", l.Cells().UnitLabel("s")),
			} {
				if !slices.Contains(runs[0], want) {
					t.Errorf("Runs: no header %q in %q", want, runs[0])
				}
			}
			for _, h := range runs[0] {
				if strings.Contains(h, "tok/s") || strings.Contains(h, "(x)") || strings.Contains(h, "（x）") {
					t.Errorf("Runs: header %q has the English unit", h)
				}
			}
			sign := strings.TrimSpace(strings.TrimPrefix(l.RatioN(1, 2), l.Number(1, 2)))
			for _, name := range []string{"summary", "comparisons"} {
				rows := sheet(name)
				unit := slices.Index(rows[0], l.T("table.unit"))
				ratio := slices.Index(rows[0], l.T("table.ratio")) // 倍数, 倍率: the name says it
				if ratio < 0 {
					ratio = slices.Index(rows[0], l.T("export.header_unit", "name", l.T("table.ratio"), "unit", sign))
				}
				if unit < 0 || ratio < 0 {
					t.Fatalf("%s: no unit or ratio column in %q", name, rows[0])
				}
				for _, r := range rows[1:] {
					if keys[r[0]] {
						t.Errorf("%s: a row named by the spec's key %q", name, r[0])
					}
					if u := r[unit]; u != l.Cells().UnitLabel("tok/s") && u != l.Cells().UnitLabel("s") {
						t.Errorf("%s: unit %q", name, u)
					}
					if v := r[ratio]; !strings.HasSuffix(v, sign) || strings.HasSuffix(v, "x") {
						t.Errorf("%s: ratio shown as %q, want the language's %q", name, v, sign)
					}
				}
			}
			colon := strings.TrimSpace(l.T("format.colon"))
			for _, name := range []string{"runs", "comparisons", "sweeps", "node", "operating_points"} {
				rows := sheet(name)
				for i, r := range rows[1:] {
					for j, c := range r {
						switch {
						case c == "inf" || c == "true" || c == "false" || c == "vllm" || keys[c]:
							t.Errorf("%s row %d, %s: raw value %q", name, i+2, rows[0][j], c)
						case lang != "en" && colon != ":" && strings.Contains(c, ": "):
							t.Errorf("%s row %d, %s: ASCII colon in %q", name, i+2, rows[0][j], c)
						}
						for _, v := range sp.ValueLabels() {
							if c == v || strings.Contains(c, l.Colon("", v)) {
								t.Errorf("%s row %d: %q as recorded, not the spec's label %q", name, i+2, v, sp.Label(spec.ValueLabel+v, l.Texts()))
							}
						}
					}
				}
			}
			// The cost estimate: its unit inside the term's own parenthesis
			// (估算、USD), never two parentheses side by side, and three
			// significant digits of a cost below one cent.
			ops := sheet("operating_points")
			cost := -1
			for j, h := range ops[0] {
				if strings.Contains(h, ") (") || strings.Contains(h, "）（") {
					t.Errorf("Operating points: header %q", h)
				}
				if strings.HasPrefix(h, capital(strings.TrimRight(l.Term("cost_per_million_output_tokens"), ")）"))) && strings.Contains(h, "USD") {
					cost = j
				}
			}
			if cost < 0 {
				t.Fatalf("Operating points: no cost column in %q", ops[0])
			}
			for i := 2; i <= len(ops); i++ {
				cell, _ := excelize.CoordinatesToCellName(cost+1, i)
				shown, _ := f.GetCellValue(l.T("export.sheet.operating_points"), cell)
				v := rawFloat(t, f, l.T("export.sheet.operating_points"), cost+1, i)
				got, err := strconv.ParseFloat(strings.ReplaceAll(shown, ",", ""), 64)
				if err != nil || math.Abs(got-v) > 0.005*v {
					t.Errorf("Operating points row %d: cost %v shown as %q", i, v, shown)
				}
			}
			// Roles in the language (基线, not baseline).
			role := slices.Index(runs[0], capital(l.FieldLabel("role")))
			for _, r := range runs[1:] {
				if role < 0 || slices.Contains(provenance.Roles, r[role]) {
					t.Fatalf("Runs: role column %d, role %q in English", role, r[max(role, 0)])
				}
			}
			// The percentile method in words (线性插值, not linear).
			method := slices.Index(runs[0], l.T("export.col.percentile_method"))
			for _, r := range runs[1:] {
				if method < 0 || method >= len(r) || r[method] != l.T("percentile_method.linear") {
					t.Fatalf("Runs: percentile method %q, want %q", r[min(max(method, 0), len(r)-1)], l.T("percentile_method.linear"))
				}
			}
			// CSV, for scripts, keeps the values as recorded (2048, inf,
			// vllm, baseline, linear), as it keeps true/false.
			csvDir := filepath.Join(t.TempDir(), "csv")
			if r := bl(t, "export", "--no-audit", "--db", demo.db, "--lang", lang, "--csv", csvDir, specPath); r.code != 0 {
				t.Fatal(r)
			}
			data, err := os.ReadFile(filepath.Join(csvDir, "runs.csv"))
			if err != nil {
				t.Fatal(err)
			}
			recs, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff")))).ReadAll()
			if err != nil || len(recs) < 2 {
				t.Fatalf("runs.csv: %v %q", err, recs)
			}
			digits := regexp.MustCompile(`^[0-9]+$`)
			for field, want := range map[string]func(string) bool{
				"role":                  func(v string) bool { return v == "baseline" },
				"runtime.engine":        func(v string) bool { return v == "vllm" },
				"workload.request_rate": func(v string) bool { return v == "inf" },
				"workload.concurrency":  digits.MatchString, // 2048, not 2,048
				"percentile_method":     func(v string) bool { return v == "linear" },
			} {
				h := capital(l.FieldLabel(field))
				if field == "percentile_method" {
					h = l.T("export.col.percentile_method")
				}
				j := slices.Index(recs[0], h)
				if j < 0 || !slices.ContainsFunc(recs[1:], func(r []string) bool { return want(r[j]) }) {
					t.Errorf("runs.csv: column %q (%d) has no value as recorded", h, j)
				}
			}
			// ... and the spec's names and the units' symbols, by which a
			// script finds a comparison (scheduler_tuning, tok/s).
			data, err = os.ReadFile(filepath.Join(csvDir, "summary.csv"))
			if err != nil {
				t.Fatal(err)
			}
			recs, err = csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff")))).ReadAll()
			if err != nil || len(recs) < 2 {
				t.Fatalf("summary.csv: %v %q", err, recs)
			}
			unitCol := slices.Index(recs[0], l.T("table.unit"))
			for _, r := range recs[1:] {
				if !keys[r[0]] || unitCol < 0 || (r[unitCol] != "tok/s" && r[unitCol] != "s") {
					t.Errorf("summary.csv: row %q, want the spec's name and the unit's symbol", r)
				}
			}
			prov := sheet("provenance")
			src := slices.Index(prov[0], l.T("export.col.source"))
			for _, r := range prov[1:] {
				if s := r[src]; s == "file" || s == "manifest" || s == "cli" || s == "amend" {
					t.Fatalf("Provenance: source %q in English", s)
				}
			}
		})
	}
}
