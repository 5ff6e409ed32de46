package export

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// hostile are labels a run may carry that a spreadsheet must show as text.
var hostile = []string{`=HYPERLINK("http://evil.example/x","click")`, "+1+1", "-2+3", "@SUM(A1:A2)", "\tTAB", "\rCR",
	`=cmd|' /C calc'!A0`, "＝1+1", `<script>alert(1)</script>`, "普通のラベル"}

func sampleWorkbook() *Workbook {
	runs := &Table{Name: SheetRuns, Title: "実行", Columns: []Column{
		{Key: "run", Header: "Run", Kind: Link},
		{Key: "label", Header: "ラベルの説明（長い見出し）", Kind: Text},
		{Key: "tput", Header: "Output throughput (tok/s)", Kind: Number, Decimals: 0},
		{Key: "ttft", Header: "TTFT (ms)", Kind: Number, Decimals: 2},
		{Key: "n", Header: "Completed", Kind: Integer},
		{Key: "at", Header: "Ingested (UTC)", Kind: Time},
		{Key: "ok", Header: "Publishable", Kind: Bool},
	}}
	at := time.Date(2026, 8, 18, 10, 15, 0, 0, time.UTC)
	for i, h := range hostile {
		runs.Rows = append(runs.Rows, []Cell{LinkCell(fmt.Sprintf("run%02d", i), "https://site.example/runs/run"+fmt.Sprint(i)+".html"),
			TextCell(h), NumCell(17961.4 + float64(i)), NumCell(0.1 + 0.2), IntCell(int64(2048 + i)), TimeCell(at), BoolCell(i%2 == 0)})
	}
	runs.Rows = append(runs.Rows, []Cell{TextCell("nulls"), NullCell(), NullCell(), NumCell(0), NullCell(), NullCell(), NullCell()})
	sweep := &Table{Name: SheetSweeps, Title: "Sweeps", Columns: []Column{
		{Key: "sweep", Header: "Sweep", Kind: Text},
		{Key: "x", Header: "Throughput (tok/s)", Kind: Number},
		{Key: "y", Header: "Median latency (s)", Kind: Number, Decimals: 2},
	}, Chart: &Chart{Title: "T", X: "x", Y: "y", Series: "sweep", XTitle: "x", YTitle: "y"}}
	for i := 0; i < 5; i++ {
		sweep.Rows = append(sweep.Rows, []Cell{TextCell("a"), NumCell(float64(1000 * (i + 1))), NumCell(float64(i) + 0.5)})
	}
	for i := 0; i < 3; i++ {
		sweep.Rows = append(sweep.Rows, []Cell{TextCell("b"), NumCell(float64(900 * (i + 1))), NumCell(float64(i) + 0.7)})
	}
	const streamed = 5000
	reqs := &Table{Name: SheetRequests, Title: "Requests", Columns: []Column{
		{Key: "run", Header: "Run", Kind: Text}, {Key: "i", Header: "Index", Kind: Integer}, {Key: "ttft", Header: "TTFT (ms)", Kind: Number, Decimals: 2},
		{Key: "err", Header: "Error", Kind: Text},
	}}
	reqs.Stream = func(yield func([]Cell) error) error {
		row := make([]Cell, 4)
		for i := 0; i < streamed; i++ {
			row[0], row[1], row[2], row[3] = TextCell("r1"), IntCell(int64(i)), NumCell(float64(i)/7), NullCell()
			if i == 3 {
				row[3] = TextCell("=1+2")
			}
			if err := yield(row); err != nil {
				return err
			}
		}
		return nil
	}
	return &Workbook{Lang: "ja", Tables: []*Table{runs, sweep, reqs}}
}

func writeSample(t *testing.T) (*excelize.File, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteXLSX(&buf, sampleWorkbook(), XLSXOptions{Title: "test", Created: time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, buf.Bytes()
}

func numFmt(t *testing.T, f *excelize.File, sheet, cell string) string {
	t.Helper()
	id, err := f.GetCellStyle(sheet, cell)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.GetStyle(id)
	if err != nil {
		t.Fatal(err)
	}
	if st.CustomNumFmt == nil {
		return fmt.Sprint(st.NumFmt)
	}
	return *st.CustomNumFmt
}

func TestXLSXCells(t *testing.T) {
	f, _ := writeSample(t)
	if got := f.GetSheetList(); strings.Join(got, "|") != "実行|Sweeps|Requests" {
		t.Fatalf("sheets %q", got)
	}
	const s = "実行"
	// Header row, frozen.
	if v, _ := f.GetCellValue(s, "C1"); v != "Output throughput (tok/s)" {
		t.Errorf("header C1 = %q", v)
	}
	panes, err := f.GetPanes(s)
	if err != nil || !panes.Freeze || panes.YSplit != 1 {
		t.Errorf("header row not frozen: %+v %v", panes, err)
	}
	// Numbers are numbers with locale-neutral formats; the stored value is
	// the full-precision one.
	for _, c := range []struct{ cell, typ, format, raw string }{
		{"C2", "n", "#,##0", "17961.4"},
		{"D2", "n", "#,##0.00", "0.3"}, // 0.1+0.2 at Excel's 15 significant digits
		{"E2", "n", "#,##0", "2048"},
		{"F2", "n", "yyyy-mm-dd hh:mm:ss", "46252.427083333336"},
		{"G2", "b", "", "1"},
	} {
		typ, _ := f.GetCellType(s, c.cell)
		raw, _ := f.GetCellValue(s, c.cell, excelize.Options{RawCellValue: true})
		want := map[string]excelize.CellType{"n": excelize.CellTypeUnset, "b": excelize.CellTypeBool}[c.typ]
		if typ != want && !(c.typ == "n" && typ == excelize.CellTypeNumber) {
			t.Errorf("%s: type %v", c.cell, typ)
		}
		if raw != c.raw {
			t.Errorf("%s: raw value %q, want %q", c.cell, raw, c.raw)
		}
		if c.format != "" {
			if got := numFmt(t, f, s, c.cell); got != c.format {
				t.Errorf("%s: number format %q, want %q", c.cell, got, c.format)
			}
		}
	}
	// Hostile labels are text, neutralised; none is a formula.
	for i, h := range hostile {
		cell := fmt.Sprintf("B%d", i+2)
		v, _ := f.GetCellValue(s, cell)
		if v != Neutralise(h) {
			t.Errorf("%s = %q, want %q", cell, v, Neutralise(h))
		}
		if formula, _ := f.GetCellFormula(s, cell); formula != "" {
			t.Errorf("%s holds a formula %q", cell, formula)
		}
		if typ, _ := f.GetCellType(s, cell); typ != excelize.CellTypeInlineString && typ != excelize.CellTypeSharedString {
			t.Errorf("%s: type %v, want a string", cell, typ)
		}
		if strings.ContainsAny(h[:1], "=+-@\t\r") && !strings.HasPrefix(v, "'") {
			t.Errorf("%s: %q not neutralised", cell, v)
		}
	}
	// Links.
	if ok, target, _ := f.GetCellHyperLink(s, "A3"); !ok || target != "https://site.example/runs/run1.html" {
		t.Errorf("A3 link %v %q", ok, target)
	}
	// Nulls stay empty, a 0 stays 0.
	last := len(hostile) + 2
	if v, _ := f.GetCellValue(s, fmt.Sprintf("C%d", last)); v != "" {
		t.Errorf("a null cell holds %q", v)
	}
	if v, _ := f.GetCellValue(s, fmt.Sprintf("D%d", last), excelize.Options{RawCellValue: true}); v != "0" {
		t.Errorf("a zero cell holds %q", v)
	}
	// A CJK header is wider than a Latin one of as many characters.
	wCJK, _ := f.GetColWidth(s, "B")
	wRun, _ := f.GetColWidth(s, "A")
	if wCJK < 2*float64(len([]rune("ラベルの説明（長い見出し）"))) || wRun >= wCJK {
		t.Errorf("column widths: CJK header %.1f, run %.1f", wCJK, wRun)
	}
	// Streamed sheet: every row, typed, neutralised.
	rows, err := f.Rows("Requests")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	rows.Close()
	if n != 5001 {
		t.Errorf("Requests has %d rows, want 5,001", n)
	}
	if v, _ := f.GetCellValue("Requests", "C9", excelize.Options{RawCellValue: true}); v != fmt.Sprint(7.0/7) {
		t.Errorf("Requests C9 = %q", v)
	}
	if got := numFmt(t, f, "Requests", "C9"); got != "#,##0.00" {
		t.Errorf("Requests C9 format %q", got)
	}
	if v, _ := f.GetCellValue("Requests", "D5"); v != "'=1+2" {
		t.Errorf("Requests D5 = %q", v)
	}
}

func TestXLSXFiltersAndChart(t *testing.T) {
	_, data := writeSample(t)
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		files[f.Name] = string(b)
	}
	if !strings.Contains(files["xl/worksheets/sheet1.xml"], `<autoFilter ref="$A$1:$G$12"`) {
		t.Error("Runs sheet: no autofilter over the table")
	}
	if !strings.Contains(files["xl/worksheets/sheet2.xml"], "<drawing ") || files["xl/charts/chart1.xml"] == "" {
		t.Error("Sweeps sheet: no chart")
	}
	chart := files["xl/charts/chart1.xml"]
	if strings.Count(chart, "<ser>") != 2 || !strings.Contains(chart, "scatterChart") || !strings.Contains(chart, "$B$2:$B$6") || !strings.Contains(chart, "$C$7:$C$9") {
		t.Errorf("chart: want two scatter series over B2:B6 and C7:C9: %.600s", chart)
	}
	// Each series is named by a cell (the sheet's series value: a literal
	// there is read as a reference and shows as "Column E"), with coloured
	// markers and a line in explicit RGB (LibreOffice draws scheme colours
	// it cannot resolve as white), and axis titles.
	for _, ref := range []string{"<tx><strRef><f>&#39;Sweeps&#39;!$A$2</f>", "<tx><strRef><f>&#39;Sweeps&#39;!$A$7</f>"} {
		if !strings.Contains(chart, ref) {
			t.Errorf("chart: no series named by %s: %.2000s", ref, chart)
		}
	}
	if !strings.Contains(chart, `<marker><symbol val="circle"></symbol><size val="7"></size><spPr><a:solidFill><a:srgbClr val="1F77B4">`) || !strings.Contains(chart, `srgbClr val="1F77B4"`) || !strings.Contains(chart, `srgbClr val="D62728"`) {
		t.Errorf("chart: markers not filled in explicit colours: %.3000s", chart)
	}
	if !strings.Contains(chart, "<xVal><numRef><f>&#39;Sweeps&#39;!$B$2:$B$6</f></numRef></xVal>") || strings.Contains(chart, "<xVal><strRef>") {
		t.Errorf("chart: x values must be a number reference (a string one plots 1, 2, 3 in Excel)")
	}
	if strings.Count(chart, "<title>") < 3 {
		t.Errorf("chart: want a title and two axis titles")
	}
	// Print setup: fit to width, the header row repeated.
	if !strings.Contains(files["xl/worksheets/sheet1.xml"], `fitToPage="true"`) || !strings.Contains(files["xl/worksheets/sheet1.xml"], `fitToHeight="0"`) {
		t.Errorf("Runs sheet: not fitted to the page's width: %.1500s", files["xl/worksheets/sheet1.xml"])
	}
	if !strings.Contains(files["xl/workbook.xml"], `name="_xlnm.Print_Titles">&#39;実行&#39;!$1:$1<`) {
		t.Errorf("Runs sheet: header row not repeated on printed pages: %s", files["xl/workbook.xml"])
	}
	if !strings.Contains(files["xl/worksheets/sheet3.xml"], "<tableParts") {
		t.Error("Requests sheet: no table (its filter)")
	}
	// No formula anywhere: every value is computed and written.
	for name, body := range files {
		if strings.HasPrefix(name, "xl/worksheets/") && strings.Contains(body, "<f>") {
			t.Errorf("%s holds a formula", name)
		}
	}
}

func TestXLSXFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.xlsx")
	os.WriteFile(path, []byte("old"), 0o644)
	wb := sampleWorkbook()
	boom := errors.New("archive went away")
	wb.Tables[2].Stream = func(yield func([]Cell) error) error {
		if err := yield([]Cell{TextCell("r"), IntCell(1), NumCell(1), NullCell()}); err != nil {
			return err
		}
		return boom
	}
	if err := WriteXLSXFile(path, wb, XLSXOptions{}); !errors.Is(err, boom) {
		t.Fatalf("want the stream's error, got %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Error("a failed export replaced the existing file")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*")); len(m) != 1 {
		t.Errorf("a failed export left files behind: %v", m)
	}
}

func TestNeutralise(t *testing.T) {
	for in, want := range map[string]string{"=1": "'=1", "+1": "'+1", "-1": "'-1", "@x": "'@x", "\tx": "'\tx", "\rx": "'\rx",
		"x=1": "x=1", "": "", "1.5": "1.5", "＝1": "'＝1", "'=1": "'=1"} {
		if got := Neutralise(in); got != want {
			t.Errorf("Neutralise(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSheetName(t *testing.T) {
	if got := sheetName("a/b:c*d?e[f]g\\h"); got != "a_b_c_d_e_f_g_h" {
		t.Errorf("sheetName = %q", got)
	}
	if got := sheetName(strings.Repeat("長", 40)); len([]rune(got)) != 31 {
		t.Errorf("sheetName not cut to 31: %d", len([]rune(got)))
	}
	used := map[string]bool{}
	if a, b := uniqueSheetName("Runs", used), uniqueSheetName("runs", used); a == b || b != "runs 2" {
		t.Errorf("unique names %q %q", a, b)
	}
}

// TestXLSXSpillsPastRowLimit: a streamed table longer than a sheet can hold
// continues on further sheets, each with the header, no row lost.
func TestXLSXSpillsPastRowLimit(t *testing.T) {
	defer func(n int) { maxSheetRows = n }(maxSheetRows)
	maxSheetRows = 1000
	wb := sampleWorkbook()
	wb.Tables = wb.Tables[2:] // Requests: 5,000 rows
	var buf bytes.Buffer
	if err := WriteXLSX(&buf, wb, XLSXOptions{}); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := []string{"Requests", "Requests 2", "Requests 3", "Requests 4", "Requests 5", "Requests 6"}
	if got := f.GetSheetList(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("sheets %q, want %q", got, want)
	}
	total := 0
	for i, s := range want {
		rows, _ := f.GetRows(s)
		if h := rows[0][1]; h != "Index" {
			t.Errorf("%s: header %q", s, h)
		}
		total += len(rows) - 1
		if i < len(want)-1 && len(rows) != 1000 {
			t.Errorf("%s has %d rows, want 1,000", s, len(rows))
		}
		if i == 1 {
			if v := rows[1][1]; v != "999" {
				t.Errorf("Requests 2 starts at index %s, want 999", v)
			}
		}
	}
	if total != 5000 {
		t.Errorf("%d data rows, want 5,000", total)
	}
}
