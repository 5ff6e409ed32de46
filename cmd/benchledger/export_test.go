package main

import (
	"archive/zip"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/spec"
)

// openXLSX opens a workbook the test wrote.
func openXLSX(t *testing.T, path string) *excelize.File {
	t.Helper()
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatalf("the exported workbook does not open: %v", err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// column returns the 1-based index of the column whose header is h.
func column(t *testing.T, f *excelize.File, sheet, h string) int {
	t.Helper()
	rows, err := f.GetRows(sheet)
	if err != nil || len(rows) == 0 {
		t.Fatalf("sheet %s: %v", sheet, err)
	}
	for j, v := range rows[0] {
		if v == h {
			return j + 1
		}
	}
	t.Fatalf("sheet %s: no column %q in %q", sheet, h, rows[0])
	return 0
}

func rawFloat(t *testing.T, f *excelize.File, sheet string, col, row int) float64 {
	t.Helper()
	cell, _ := excelize.CoordinatesToCellName(col, row)
	v, err := f.GetCellValue(sheet, cell, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("%s!%s = %q, not a number", sheet, cell, v)
	}
	if typ, _ := f.GetCellType(sheet, cell); typ != excelize.CellTypeUnset && typ != excelize.CellTypeNumber {
		t.Errorf("%s!%s: type %v, want a number", sheet, cell, typ)
	}
	return x
}

// near: the workbook keeps Excel's 15 significant digits.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) }

// TestExportDemo exports the demo case study in each language and checks
// the workbook against the archive: sheet names and headers in the
// language, the headline comparison and every run's figures as numbers
// equal to what `figures --json` computes, the sweep chart, the caveats
// with their sentences. It exports the small demo (the demo's runs and
// spec): the workbook's agreement with the evaluation is the point, not the
// published numbers (TestExportCSVInSpanishSpreadsheet reads one of those).
func TestExportDemo(t *testing.T) {
	t.Parallel()
	demo := smallDemo(t)
	db, specPath := demo.db, demo.spec()
	r := bl(t, "figures", "--db", db, "--json", specPath)
	var fig struct {
		Figures     map[string]struct{ Value float64 }
		Comparisons map[string]struct {
			Comparison struct {
				Change struct{ Baseline, Candidate, Pct, Ratio float64 }
			}
		}
		RunIDs []string `json:"run_ids"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &fig); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, lang := range []string{"en", "zh", "ja", "es"} {
		t.Run(lang, func(t *testing.T) {
			l := locales.MustMatch(lang)
			path := filepath.Join(dir, "demo."+lang+".xlsx")
			// The audit's cover line is TestExportCover's subject.
			res := bl(t, "export", "--no-audit", "--db", db, "--lang", lang, "--xlsx", path, specPath)
			if res.code != 0 || strings.TrimSpace(res.stdout) != path {
				t.Fatalf("export: %v", res)
			}
			f := openXLSX(t, path)
			var want []string
			for _, s := range []string{"cover", "summary", "runs", "comparisons", "sweeps", "operating_points", "node", "caveats", "provenance"} {
				want = append(want, l.T("export.sheet."+s))
			}
			if got := f.GetSheetList(); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("sheets %q, want %q", got, want)
			}
			summary, runs := want[1], want[2]

			// Summary: the headline comparison, typed and equal to the
			// evaluation. It is named by the spec's label in the language
			// (the latency comparison shares it: the figure tells them apart).
			rows, _ := f.GetRows(summary)
			row := 0
			for i, rr := range rows {
				if len(rr) > 1 && rr[0] == demoLabel(t, specPath, "scheduler_tuning", l) && rr[1] == capital(l.Figure("output_throughput")) {
					row = i + 1
				}
			}
			if row == 0 {
				t.Fatalf("Summary has no scheduler_tuning row: %q", rows)
			}
			ch := fig.Comparisons["scheduler_tuning"].Comparison.Change
			// A ratio's header carries the language's sign unless its name
			// says it (倍数, 倍率).
			ratio, sign := l.T("table.ratio"), strings.TrimSpace(strings.TrimPrefix(l.RatioN(1, 2), l.Number(1, 2)))
			if !strings.Contains(ratio, sign) {
				ratio = l.T("export.header_unit", "name", ratio, "unit", sign)
			}
			// A percent cell holds the fraction (131.9 % is 1.319).
			for h, v := range map[string]float64{l.T("table.baseline"): ch.Baseline, l.T("table.candidate"): ch.Candidate,
				l.T("export.header_unit", "name", l.T("table.change"), "unit", "%"): ch.Pct / 100,
				ratio: ch.Ratio} {
				if got := rawFloat(t, f, summary, column(t, f, summary, h), row); !near(got, v) {
					t.Errorf("Summary %s = %v, want %v", h, got, v)
				}
			}

			// Runs: one row per run of the case study; the baseline's
			// output throughput is the figure's value.
			rows, _ = f.GetRows(runs)
			if len(rows)-1 != len(fig.RunIDs) {
				t.Errorf("Runs has %d rows, the case study %d runs", len(rows)-1, len(fig.RunIDs))
			}
			tputCol := column(t, f, runs, l.T("export.header_unit", "name", capital(l.Figure("output_throughput")), "unit", l.Cells().UnitLabel("tok/s")))
			base := fig.Figures["baseline_throughput"].Value
			found := false
			for i := 1; i < len(rows); i++ {
				if v := rawFloat(t, f, runs, tputCol, i+1); near(v, base) {
					found = true
				}
			}
			if !found {
				t.Errorf("no run of the Runs sheet has the baseline's output throughput %v", base)
			}
			// Frozen header and widths that fit the header text.
			if p, _ := f.GetPanes(runs); !p.Freeze || p.YSplit != 1 {
				t.Errorf("Runs: header not frozen: %+v", p)
			}

			// Caveats: codes with sentences in the language.
			rows, _ = f.GetRows(l.T("export.sheet.caveats"))
			ok := false
			for _, rr := range rows[1:] {
				if len(rr) >= 3 && rr[0] == "external_reference_not_visible" && rr[2] != "" && rr[2] != rr[0] {
					ok = true
				}
			}
			if !ok {
				t.Errorf("Caveats: no external_reference_not_visible sentence")
			}
		})
	}
	// The Sweeps sheet carries a native scatter chart.
	zr, err := zip.OpenReader(filepath.Join(dir, "demo.en.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	charts := 0
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, "xl/charts/chart") {
			charts++
		}
	}
	if charts != 1 {
		t.Errorf("want one chart (Sweeps), got %d", charts)
	}
}

// TestExportHostileAndRedacted exports runs (no spec) whose provenance
// carries formula-like strings, a host, an internal IP, a token and an
// internal path: the workbook and the CSV files show the formulas as
// text, and the redacted values appear nowhere.
func TestExportHostileAndRedacted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	files := []string{filepath.Join(dir, "=1+1.json"), filepath.Join(dir, "plain.json")}
	writeVLLM(t, files[0], vllmSpec{n: 30})
	writeVLLM(t, files[1], vllmSpec{n: 20, seed: 0.01})
	secret := "hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
	for _, f := range files {
		r := bl(t, "ingest", "--db", db,
			"--set", `labels.note==HYPERLINK("http://evil.example/x","click")`,
			"--set", "labels.owner=@admin",
			"--set", "hardware.node=gpu-node-7.cluster.local",
			"--set", "measurement.client_host=10.20.30.40",
			"--set", "runtime.server_args=vllm serve /mnt/models/Qwen3-8B --host 0.0.0.0 HF_TOKEN="+secret,
			f)
		if r.code != 0 {
			t.Fatalf("ingest: %v", r)
		}
	}
	xlsx := filepath.Join(dir, "out", "runs.xlsx")
	csvDir := filepath.Join(dir, "csv")
	r := bl(t, "export", "--db", db, "--xlsx", xlsx, "--csv", csvDir, "--redact", "--redact-salt", "k1",
		"--base-url", "https://bench.example/site/")
	if r.code != 0 {
		t.Fatalf("export: %v", r)
	}
	if !strings.Contains(r.stderr, "redacted:") {
		t.Errorf("no redaction summary on stderr: %q", r.stderr)
	}
	f := openXLSX(t, xlsx)
	if got := f.GetSheetList(); strings.Join(got, "|") != "Cover|Runs|Caveats|Provenance|Requests" {
		t.Fatalf("sheets %q", got)
	}
	// Run ids link to their pages of the site.
	id, _ := f.GetCellValue("Runs", "A2")
	if ok, target, _ := f.GetCellHyperLink("Runs", "A2"); !ok || target != "https://bench.example/site/en/run/"+id+".html" {
		t.Errorf("Runs A2 (%s): link %v %q", id, ok, target)
	}
	// Requests: every record, typed.
	rows, _ := f.GetRows("Requests")
	if len(rows) != 1+30+20 {
		t.Errorf("Requests has %d rows, want 51", len(rows))
	}
	// The hostile label is text, neutralised, never a formula.
	rows, _ = f.GetRows("Provenance")
	seen := map[string]bool{}
	for i, rr := range rows {
		if len(rr) < 4 {
			continue
		}
		seen[rr[3]] = true
		cell, _ := excelize.CoordinatesToCellName(4, i+1)
		if fm, _ := f.GetCellFormula("Provenance", cell); fm != "" {
			t.Errorf("Provenance %s holds a formula %q", cell, fm)
		}
	}
	for _, v := range []string{`'=HYPERLINK("http://evil.example/x","click")`, "'@admin"} {
		if !seen[v] {
			t.Errorf("Provenance does not show %q as text", v)
		}
	}
	// Nothing redacted is left in any file.
	var all strings.Builder
	zr, err := zip.OpenReader(xlsx)
	if err != nil {
		t.Fatal(err)
	}
	for _, zf := range zr.File {
		rc, _ := zf.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		all.Write(b)
	}
	zr.Close()
	csvs, _ := filepath.Glob(filepath.Join(csvDir, "*.csv"))
	if len(csvs) != 5 {
		t.Errorf("csv files: %v", csvs)
	}
	for _, p := range csvs {
		b, _ := os.ReadFile(p)
		if !strings.HasPrefix(string(b), "\ufeff") {
			t.Errorf("%s: no byte-order mark", p)
		}
		all.Write(b)
		rd := csv.NewReader(strings.NewReader(strings.TrimPrefix(string(b), "\ufeff")))
		recs, err := rd.ReadAll()
		if err != nil {
			t.Errorf("%s is not valid CSV: %v", p, err)
		}
		for _, rec := range recs {
			for _, v := range rec {
				if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) && !isNumberText(v) {
					t.Errorf("%s: a cell starts like a formula: %q", p, v)
				}
			}
		}
	}
	for _, leak := range []string{secret, "gpu-node-7.cluster.local", "10.20.30.40", "/mnt/models"} {
		if strings.Contains(all.String(), leak) {
			t.Errorf("%q leaked into the export", leak)
		}
	}
	// Without --redact the same values are there (the test can fail).
	plain := filepath.Join(dir, "plain.xlsx")
	if r := bl(t, "export", "--db", db, "--xlsx", plain, "--requests=false"); r.code != 0 {
		t.Fatal(r)
	}
	g := openXLSX(t, plain)
	if got := g.GetSheetList(); strings.Join(got, "|") != "Cover|Runs|Caveats|Provenance" {
		t.Errorf("--requests=false: sheets %q", got)
	}
	rows, _ = g.GetRows("Provenance")
	found := false
	for _, rr := range rows {
		found = found || len(rr) > 3 && rr[3] == "10.20.30.40"
	}
	if !found {
		t.Error("without --redact the client host should be exported as it is")
	}
}

// capital is s with a capital first letter, as headers start.
// demoLabel is the name a workbook gives a comparison, sweep or node of
// the spec: its label in the language's texts, else the name.
func demoLabel(t *testing.T, specPath, name string, l locales.Locale) string {
	t.Helper()
	sp, err := spec.Load(specPath)
	if err != nil {
		t.Fatal(err)
	}
	if s := sp.Label(name, l.Texts()); s != "" {
		return s
	}
	return name
}

func capital(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

func isNumberText(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// TestExportOpensInLibreOffice converts the (small) demo workbook with LibreOffice
// headless (Debian's libreoffice-calc-nogui, installed by .ci/run): it must
// open, its cover name the case study, and its second sheet (Summary)
// convert with the headline values.
func TestExportOpensInLibreOffice(t *testing.T) {
	t.Parallel()
	soffice, err := exec.LookPath("soffice")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must have LibreOffice (installed by .ci/run)")
		}
		t.Skip("LibreOffice is not installed (apt-get install libreoffice-calc-nogui): skipping the conversion test")
	}
	demo := smallDemo(t)
	db, specPath := demo.db, demo.spec()
	dir := t.TempDir()
	path := filepath.Join(dir, "demo.xlsx")
	// The cover's audit line is TestExportCover's subject; here, that the
	// cover converts with its line.
	if r := bl(t, "export", "--no-audit", "--db", db, "--lang", "ja", "--xlsx", path, specPath); r.code != 0 {
		t.Fatal(r)
	}
	out := filepath.Join(dir, "converted")
	cmd := exec.Command(soffice, "--headless", "--norestore", "-env:UserInstallation=file://"+filepath.Join(dir, "profile"),
		"--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1", "--outdir", out, path)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("LibreOffice could not convert the workbook: %v\n%s", err, b)
	}
	// Sheet -1: one file per sheet, demo-<sheet name>.csv.
	l := locales.MustMatch("ja")
	cover, err := os.ReadFile(filepath.Join(out, "demo-"+l.T("export.sheet.cover")+".csv"))
	if err != nil {
		entries, _ := os.ReadDir(out)
		t.Fatalf("no converted cover: %v (%v)\n%s", err, entries, b)
	}
	if !strings.Contains(string(cover), "qwen3-batch") || !strings.Contains(string(cover), l.T("export.cover.not_audited")) {
		t.Errorf("the converted cover lacks the case study or its verdict: %.500s", cover)
	}
	data, err := os.ReadFile(filepath.Join(out, "demo-"+l.T("export.sheet.summary")+".csv"))
	if err != nil {
		t.Fatalf("no converted Summary: %v\n%s", err, b)
	}
	text := string(data)
	// The headline comparison is named by the spec's label in ja.
	if !strings.Contains(text, demoLabel(t, specPath, "scheduler_tuning", l)) || !strings.Contains(text, l.T("table.baseline")) {
		t.Errorf("the converted Summary sheet lacks its rows: %.500s", text)
	}
	fmt.Fprintln(io.Discard, text)
}

func TestExportUsage(t *testing.T) {
	t.Parallel()
	demo := smallDemo(t)
	db, specPath := demo.db, demo.spec()
	x := filepath.Join(t.TempDir(), "x.xlsx")
	for _, args := range [][]string{
		{"export", "--db", db, specPath},
		{"export", "--db", db, "--xlsx", x, "--campaign", "qwen3-batch", specPath},
		{"export", "--db", db, "--xlsx", x, "--lang", "tlh", specPath},
		{"export", "--db", db, "--xlsx", x, "--redact-salt", "k"},
		{"export", "--db", db, "--xlsx", x, "--base-url", "not a url"},
		{"export", "--db", db, "--xlsx", x, specPath, specPath},
		{"export", "--db", db, "--csv", x, "--csv-dialect", "tsv", specPath},
		{"export", "--db", db, "--csv", x, "--sep", ";;", specPath},
		{"export", "--db", db, "--csv", x, "--csv-dialect", "excel-es", "--sep", ",", specPath},
		{"export", "--db", db, "--csv", x, "--decimal", ":", specPath},
	} {
		if r := bl(t, args...); r.code != exitUsage {
			t.Errorf("%q: exit %d, want %d: %v", args[1:], r.code, exitUsage, r)
		}
	}
	if _, err := os.Stat(x); err == nil {
		t.Error("a refused export wrote a file")
	}
	// es-MX is served by es-419.
	if r := bl(t, "export", "--no-audit", "--db", db, "--xlsx", x, "--lang", "es-MX", specPath); r.code != 0 {
		t.Errorf("--lang es-MX: %v", r)
	}
	if r := bl(t, "export", "--db", db, "--xlsx", filepath.Join(t.TempDir(), "x.xlsx"), "--campaign", "no-such-campaign"); r.code != exitError || !strings.Contains(r.stderr, "no runs") {
		t.Errorf("no runs selected: %v", r)
	}
}
