package export

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Variables, not constants: Go folds the constant 0.1 + 0.2 to exactly 0.3.
var pointOne, pointTwo = 0.1, 0.2

func hostileWorkbook() *Workbook {
	when := time.Date(2025, 6, 1, 15, 4, 5, 0, time.FixedZone("CST", 8*3600))
	return &Workbook{Lang: "zh", Tables: []*Table{{
		Name:  "runs",
		Title: "运行",
		Columns: []Column{
			{Key: "label", Header: "标签", Kind: Text},
			{Key: "value", Header: "Output throughput (tok/s)", Kind: Number, Decimals: 1},
			{Key: "n", Header: "Requests, completed", Kind: Integer},
			{Key: "at", Header: "Date", Kind: Time},
			{Key: "ok", Header: "OK", Kind: Bool},
			{Key: "src", Header: "Source", Kind: Link},
		},
		Rows: [][]Cell{
			{TextCell(`=HYPERLINK("http://x","y")`), NumCell(pointOne + pointTwo), IntCell(1000), TimeCell(when), BoolCell(true), LinkCell("+1+1", "https://example.com")},
			{TextCell("-2+3"), NumCell(-1234567.25), IntCell(-3), NullCell(), BoolCell(false), LinkCell("report", "https://example.com/r")},
			{TextCell("@SUM(A1)"), NumCell(math.NaN()), NullCell(), TimeCell(time.Time{}), NullCell(), NullCell()},
			{TextCell("\tTAB"), NumCell(math.Inf(1)), IntCell(1 << 53), TimeCell(when), BoolCell(true), LinkCell("", "")},
			{TextCell("\rCR"), NumCell(math.Copysign(0, -1)), IntCell(0), TimeCell(when), BoolCell(true), LinkCell("x", "y")},
			{TextCell("a, \"quoted\"\nsecond line"), NumCell(1e21), IntCell(7), TimeCell(when), BoolCell(true), LinkCell("y", "z")},
			{TextCell("吞吐量 1,000 tok/s（日本語テキスト）"), NumCell(1e-7), IntCell(8), TimeCell(when), BoolCell(true), LinkCell("z", "w")},
			{NullCell(), NumCell(3), IntCell(9)}, // a short row: the rest is unknown
		},
	}}}
}

func TestWriteCSVRoundTrip(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteCSV(dir, hostileWorkbook(), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "runs.csv")}; !slices.Equal(paths, want) {
		t.Fatalf("paths = %v, want %v", paths, want)
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasPrefix(data, []byte("\uFEFF")) {
		t.Error("BOM written without opt.BOM")
	}
	rd := csv.NewReader(bytes.NewReader(data)) // strict: LazyQuotes off
	rd.FieldsPerRecord = 6
	got, err := rd.ReadAll()
	if err != nil {
		t.Fatalf("encoding/csv cannot read the file back: %v\n%q", err, data)
	}
	want := [][]string{
		{"标签", "Output throughput (tok/s)", "Requests, completed", "Date", "OK", "Source"},
		{`'=HYPERLINK("http://x","y")`, "0.30000000000000004", "1000", "2025-06-01 07:04:05", "true", "'+1+1"},
		{"'-2+3", "-1234567.25", "-3", "", "false", "report"},
		{"'@SUM(A1)", "", "", "", "", ""},
		{"'\tTAB", "", "9007199254740992", "2025-06-01 07:04:05", "true", ""},
		{"'\rCR", "0", "0", "2025-06-01 07:04:05", "true", "x"},
		{"a, \"quoted\"\nsecond line", "1000000000000000000000", "7", "2025-06-01 07:04:05", "true", "y"},
		{"吞吐量 1,000 tok/s（日本語テキスト）", "0.0000001", "8", "2025-06-01 07:04:05", "true", "z"},
		{"", "3", "9", "", "", ""},
	}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d: %q", len(got), len(want), got)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("record %d:\n got %q\nwant %q", i, got[i], want[i])
		}
	}
	// The shortest round-trip form reads back as the very same float.
	if v, err := strconv.ParseFloat(got[1][1], 64); err != nil || v != pointOne+pointTwo {
		t.Errorf("0.1+0.2 read back as %v (%v)", v, err)
	}
	if bytes.Contains(data, []byte("NaN")) || bytes.Contains(data, []byte("Inf")) {
		t.Errorf("NaN or Inf written: %q", data)
	}
}

func TestWriteCSVBytes(t *testing.T) {
	wb := &Workbook{Tables: []*Table{{
		Name:    "summary",
		Columns: []Column{{Header: "a", Kind: Text}, {Header: "b", Kind: Text}},
		Rows: [][]Cell{
			{TextCell("x"), TextCell("line1\nline2")},
			{TextCell(`say "hi"`), TextCell("")},
		},
	}, {
		// One column with an empty value: "" keeps the record from
		// being an empty line that readers skip.
		Name:    "caveats",
		Columns: []Column{{Header: "c", Kind: Text}},
		Rows:    [][]Cell{{NullCell()}, {TextCell("z")}},
	}}}
	for _, bom := range []bool{false, true} {
		dir := t.TempDir()
		paths, err := WriteCSV(dir, wb, CSVOptions{BOM: bom})
		if err != nil {
			t.Fatal(err)
		}
		prefix := ""
		if bom {
			prefix = "\xEF\xBB\xBF"
		}
		want := []string{
			prefix + "a,b\r\nx,\"line1\nline2\"\r\n\"say \"\"hi\"\"\",\r\n",
			prefix + "c\r\n\"\"\r\nz\r\n",
		}
		for i, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != want[i] {
				t.Errorf("BOM=%v %s:\n got %q\nwant %q", bom, filepath.Base(p), data, want[i])
			}
			// Every record ends in CRLF; no bare LF outside quotes.
			if !bytes.HasSuffix(data, []byte("\r\n")) {
				t.Errorf("%s does not end in CRLF", p)
			}
			rd := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte(prefix))))
			recs, err := rd.ReadAll()
			if err != nil {
				t.Errorf("%s: %v", p, err)
			}
			if i == 1 && len(recs) != 3 {
				t.Errorf("caveats: %d records, want 3 (header, empty, z)", len(recs))
			}
		}
	}
}

func TestWriteCSVStream(t *testing.T) {
	const n = 100_000
	dir := filepath.Join(t.TempDir(), "new", "dir") // created by WriteCSV
	yielded := 0
	sawPartial := false
	tbl := &Table{
		Name: "requests",
		Columns: []Column{
			{Key: "i", Header: "Request", Kind: Integer},
			{Key: "ttft", Header: "TTFT (ms)", Kind: Number},
			{Key: "err", Header: "Error", Kind: Text},
		},
		Stream: func(yield func([]Cell) error) error {
			row := make([]Cell, 3)
			for i := range n {
				row[0] = IntCell(int64(i))
				row[1] = NumCell(float64(i) / 8)
				row[2] = TextCell("")
				if i%1000 == 0 {
					row[2] = TextCell("-timeout, retried")
				}
				if err := yield(row); err != nil {
					return err
				}
				yielded++
				if i == n/2 {
					// Half way, the rows so far are already on
					// disk: the writer does not collect them.
					sawPartial = tempSize(t, dir) > 256<<10
				}
			}
			return nil
		},
	}
	paths, err := WriteCSV(dir, &Workbook{Tables: []*Table{tbl}}, CSVOptions{BOM: true})
	if err != nil {
		t.Fatal(err)
	}
	if tbl.Rows != nil {
		t.Error("the writer filled Rows")
	}
	if yielded != n {
		t.Errorf("Stream yielded %d rows, want %d", yielded, n)
	}
	if !sawPartial {
		t.Error("half way through the stream, less than 256 KiB was on disk: rows are being held back")
	}
	f, err := os.Open(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bom := make([]byte, 3)
	if _, err := f.Read(bom); err != nil || string(bom) != "\uFEFF" {
		t.Fatalf("no BOM: %q %v", bom, err)
	}
	rd := csv.NewReader(f)
	rd.ReuseRecord = true
	count := 0
	for {
		rec, err := rd.Read()
		if err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
		if count > 0 {
			i := count - 1
			if rec[0] != strconv.Itoa(i) || rec[1] != strconv.FormatFloat(float64(i)/8, 'f', -1, 64) {
				t.Fatalf("row %d = %q", i, rec)
			}
			if i%1000 == 0 && rec[2] != "'-timeout, retried" {
				t.Fatalf("row %d error = %q", i, rec[2])
			}
		}
		count++
	}
	if count != n+1 {
		t.Errorf("%d records, want %d rows and a header", count, n+1)
	}
}

// tempSize is the size of the one temporary file in dir.
func tempSize(t *testing.T, dir string) int64 {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*"))
	if len(m) != 1 {
		t.Errorf("temporary files: %v", m)
		return 0
	}
	fi, err := os.Stat(m[0])
	if err != nil {
		t.Error(err)
		return 0
	}
	return fi.Size()
}

func TestWriteCSVFailure(t *testing.T) {
	boom := errors.New("archive read failed")
	dir := t.TempDir()
	wb := &Workbook{Tables: []*Table{
		{Name: "summary", Columns: []Column{{Header: "x"}}, Rows: [][]Cell{{TextCell("ok")}}},
		{Name: "requests", Columns: []Column{{Header: "i", Kind: Integer}}, Stream: func(yield func([]Cell) error) error {
			for i := range 5000 {
				if err := yield([]Cell{IntCell(int64(i))}); err != nil {
					return err
				}
			}
			return boom
		}},
		{Name: "caveats", Columns: []Column{{Header: "x"}}, Rows: [][]Cell{{TextCell("never")}}},
	}}
	paths, err := WriteCSV(dir, wb, CSVOptions{})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the stream's error", err)
	}
	if !strings.Contains(err.Error(), "requests.csv") {
		t.Errorf("error %q does not name the file", err)
	}
	if want := []string{filepath.Join(dir, "summary.csv")}; !slices.Equal(paths, want) {
		t.Errorf("paths = %v, want the completed %v", paths, want)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	// No half requests.csv, no temporary file, nothing after the failure.
	if !slices.Equal(names, []string{"summary.csv"}) {
		t.Errorf("files left: %v, want only summary.csv", names)
	}
}

func TestWriteCSVBadTables(t *testing.T) {
	tests := []struct {
		name string
		wb   *Workbook
	}{
		{"path in name", &Workbook{Tables: []*Table{{Name: "../x", Columns: []Column{{Header: "a"}}}}}},
		{"empty name", &Workbook{Tables: []*Table{{Name: "", Columns: []Column{{Header: "a"}}}}}},
		{"duplicate", &Workbook{Tables: []*Table{{Name: "runs"}, {Name: "runs"}}}},
		{"long row", &Workbook{Tables: []*Table{{Name: "runs", Columns: []Column{{Header: "a"}}, Rows: [][]Cell{{TextCell("1"), TextCell("2")}}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := WriteCSV(dir, tt.wb, CSVOptions{}); err == nil {
				t.Error("no error")
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("files left: %v", entries)
			}
		})
	}
}

func TestCSVValue(t *testing.T) {
	tests := []struct {
		kind Kind
		cell Cell
		want string
	}{
		{Number, NumCell(0.1), "0.1"},
		{Number, NumCell(1234567.5), "1234567.5"}, // no grouping
		{Number, NumCell(1e-300), "0." + strings.Repeat("0", 299) + "1"},
		{Number, NumCell(math.Inf(-1)), ""},
		{Integer, IntCell(42), "42"}, // no ".0"
		{Integer, IntCell(-7), "-7"},
		{Integer, NumCell(math.NaN()), ""},
		{Number, NullCell(), ""},
		{Text, TextCell("＝1+1"), "'＝1+1"}, // full-width equals sign
		{Text, TextCell("plain"), "plain"},
		{Time, TimeCell(time.Date(2025, 1, 2, 3, 4, 5, 600, time.UTC)), "2025-01-02 03:04:05"},
		{Bool, BoolCell(false), "false"},
		{Link, LinkCell("-x", "https://example.com"), "'-x"},
	}
	for _, tt := range tests {
		if got := csvValue(tt.kind, tt.cell, '.'); got != tt.want {
			t.Errorf("csvValue(%v, %+v) = %q, want %q", tt.kind, tt.cell, got, tt.want)
		}
	}
}

func TestCSVDialect(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		sep, dec rune
		bad      bool
	}{
		{"", ',', '.', false}, {"rfc4180", ',', '.', false},
		{"excel-es", ';', ',', false}, {"excel-es-AR", ';', ',', false}, {"excel-es-ES", ';', ',', false},
		{"excel-de", ';', ',', false}, {"excel-fr", ';', ',', false}, {"excel-pt-BR", ';', ',', false},
		{"excel-en", ',', '.', false}, {"excel-es-MX", ',', '.', false}, {"excel-es-419", ',', '.', false},
		{"excel-ja", ',', '.', false}, {"excel-zh", ',', '.', false},
		{"excel-", 0, 0, true}, {"excel-!!", 0, 0, true}, {"tsv", 0, 0, true},
	} {
		sep, dec, err := CSVDialect(tt.name)
		if (err != nil) != tt.bad || sep != tt.sep || dec != tt.dec {
			t.Errorf("CSVDialect(%q) = %q %q %v", tt.name, sep, dec, err)
		}
	}
}

// TestWriteCSVDecimalComma: with ';' and ',' a number keeps its digits
// with a comma, a text field holding ';' is quoted, one holding ',' is not.
func TestWriteCSVDecimalComma(t *testing.T) {
	t.Parallel()
	tb := &Table{Name: "t", Columns: []Column{{Header: "a", Kind: Number}, {Header: "b", Kind: Text}, {Header: "c", Kind: Percent}, {Header: "d", Kind: Text}}}
	tb.Rows = [][]Cell{{NumCell(17961.2), TextCell("x;y"), NumCell(-26.5), TextCell("1,5")}}
	dir := t.TempDir()
	if _, err := WriteCSV(dir, &Workbook{Tables: []*Table{tb}}, CSVOptions{BOM: true, Sep: ';', Decimal: ','}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "t.csv"))
	if want := "\ufeffa;b;c;d\r\n17961,2;\"x;y\";-26,5;1,5\r\n"; string(b) != want {
		t.Errorf("got %q, want %q", b, want)
	}
	if _, err := WriteCSV(dir, &Workbook{Tables: []*Table{tb}}, CSVOptions{Sep: ',', Decimal: ','}); err == nil {
		t.Error("the same separator for fields and decimals was accepted")
	}
}
