package export

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unicode"

	"github.com/xuri/excelize/v2"

	"github.com/benchledger/benchledger/internal/atomicfile"
)

// XLSXOptions tune the workbook's document properties.
type XLSXOptions struct {
	Title   string    // document title (the case study's, or "benchledger export")
	Created time.Time // document creation time; zero means now
}

// maxColumnWidth caps a column's width (Excel characters); longer text
// wraps in the formula bar, not across the sheet.
const maxColumnWidth = 60

// xlsxStyles are the style ids of one workbook.
type xlsxStyles struct {
	header, link, text, integer, time int
	number                            map[int]int // decimals -> style
	f                                 *excelize.File
}

func newStyles(f *excelize.File) (*xlsxStyles, error) {
	s := &xlsxStyles{number: map[int]int{}, f: f}
	var err error
	add := func(st *excelize.Style) int {
		if err != nil {
			return 0
		}
		var id int
		id, err = f.NewStyle(st)
		return id
	}
	custom := func(code string) *excelize.Style { return &excelize.Style{CustomNumFmt: &code} }
	s.header = add(&excelize.Style{Font: &excelize.Font{Bold: true},
		Fill:      excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"E8EEF4"}},
		Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"},
		Border:    []excelize.Border{{Type: "bottom", Color: "7F8C99", Style: 1}}})
	s.link = add(&excelize.Style{Font: &excelize.Font{Color: "1F5FA8", Underline: "single"}})
	// Text cells are formatted "@" (text): a value typed over them again is
	// text too, never a formula.
	s.text = add(custom("@"))
	s.integer = add(custom("#,##0"))
	s.time = add(custom("yyyy-mm-dd hh:mm:ss"))
	return s, err
}

// numberStyle is "#,##0.00" with the column's decimals: a locale-neutral
// format code that each spreadsheet shows with the reader's separators.
func (s *xlsxStyles) numberStyle(decimals int) (int, error) {
	if id, ok := s.number[decimals]; ok {
		return id, nil
	}
	code := "#,##0"
	if decimals > 0 {
		code += "." + strings.Repeat("0", decimals)
	}
	id, err := s.f.NewStyle(&excelize.Style{CustomNumFmt: &code})
	if err != nil {
		return 0, err
	}
	s.number[decimals] = id
	return id, nil
}

func (s *xlsxStyles) column(c Column) (int, error) {
	switch c.Kind {
	case Number:
		return s.numberStyle(c.Decimals)
	case Integer:
		return s.integer, nil
	case Time:
		return s.time, nil
	case Link:
		return s.link, nil
	case Text:
		return s.text, nil
	}
	return 0, nil
}

// WriteXLSXFile writes the workbook to path, whole or not at all
// (atomicfile): a failed export leaves no half-written workbook, and an
// existing one untouched.
func WriteXLSXFile(path string, wb *Workbook, opt XLSXOptions) error {
	var fillErr error
	err := atomicfile.WriteWith(path, func(w io.Writer) error {
		fillErr = WriteXLSX(w, wb, opt)
		return fillErr
	})
	if err != nil && err != fillErr {
		return fmt.Errorf("export: %s: %w", path, err)
	}
	return err
}

// WriteXLSX writes the workbook: one sheet per table with a bold, frozen
// header row, an autofilter over the table, column widths that fit their
// text (CJK characters count double), typed cells with number formats, and
// the table's chart. A streamed table goes through excelize's StreamWriter
// so its rows are never all in memory.
func WriteXLSX(w io.Writer, wb *Workbook, opt XLSXOptions) error {
	f := excelize.NewFile()
	defer f.Close()
	st, err := newStyles(f)
	if err != nil {
		return fmt.Errorf("export: styles: %w", err)
	}
	created := opt.Created
	if created.IsZero() {
		created = time.Now()
	}
	title := opt.Title
	if title == "" {
		title = "benchledger export"
	}
	if err := f.SetDocProps(&excelize.DocProperties{Title: title, Creator: "benchledger", Language: wb.Lang,
		Created: created.UTC().Format(time.RFC3339)}); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	used := map[string]bool{}
	for i, t := range wb.Tables {
		name := uniqueSheetName(t.Title, used)
		if i == 0 {
			if err := f.SetSheetName("Sheet1", name); err != nil {
				return fmt.Errorf("export: sheet %s: %w", name, err)
			}
		} else if _, err := f.NewSheet(name); err != nil {
			return fmt.Errorf("export: sheet %s: %w", name, err)
		}
		if t.Stream != nil {
			err = writeStreamSheet(f, st, name, t, used)
		} else {
			err = writeSheet(f, st, name, t)
		}
		if err != nil {
			return fmt.Errorf("export: sheet %s (%s): %w", name, t.Name, err)
		}
	}
	if len(wb.Tables) > 0 {
		f.SetActiveSheet(0)
	}
	if _, err := f.WriteTo(w); err != nil {
		return fmt.Errorf("export: writing the workbook: %w", err)
	}
	return nil
}

// uniqueSheetName keeps sheet names distinct (Excel compares them without
// case).
func uniqueSheetName(name string, used map[string]bool) string {
	base, n := name, 2
	for used[strings.ToLower(name)] {
		suffix := fmt.Sprintf(" %d", n)
		r := []rune(base)
		if len(r)+len(suffix) > 31 {
			r = r[:31-len(suffix)]
		}
		name, n = string(r)+suffix, n+1
	}
	used[strings.ToLower(name)] = true
	return name
}

// displayWidth is the width of s in Excel's character units: East Asian
// wide characters take two.
func displayWidth(s string) int {
	w := 0
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r >= 0xFF01 && r <= 0xFF60 || r >= 0x3000 && r <= 0x303F:
			w += 2
		default:
			w++
		}
	}
	return w
}

// cellValue converts a cell for excelize: nil for an empty cell.
func cellValue(c Cell, col Column) any {
	if c.Null {
		return nil
	}
	switch col.Kind {
	case Number:
		if math.IsNaN(c.Num) || math.IsInf(c.Num, 0) {
			return nil
		}
		return c.Num
	case Integer:
		return int64(c.Num)
	case Time:
		return c.Time
	case Bool:
		return c.Bool
	}
	return Neutralise(c.Text)
}

// shownText is roughly what a cell shows, for its column's width.
func shownText(c Cell, col Column) string {
	if c.Null {
		return ""
	}
	switch col.Kind {
	case Number:
		return fmt.Sprintf("%.*f", col.Decimals, c.Num) + strings.Repeat(",", int(math.Log10(math.Abs(c.Num)+1))/3)
	case Integer:
		return fmt.Sprintf("%d", int64(c.Num)) + strings.Repeat(",", int(math.Log10(math.Abs(c.Num)+1))/3)
	case Time:
		return "2006-01-02 15:04:05"
	case Bool:
		return "FALSE"
	}
	return c.Text
}

func columnWidth(header string, widest int) float64 {
	w := max(min(displayWidth(header), 24), widest) + 2
	return float64(min(max(w, 8), maxColumnWidth))
}

func writeSheet(f *excelize.File, st *xlsxStyles, sheet string, t *Table) error {
	ncol := len(t.Columns)
	if ncol == 0 {
		return nil
	}
	widest := make([]int, ncol)
	for j, c := range t.Columns {
		style, err := st.column(c)
		if err != nil {
			return err
		}
		col, _ := excelize.ColumnNumberToName(j + 1)
		if style != 0 && c.Kind != Link {
			if err := f.SetColStyle(sheet, col, style); err != nil {
				return err
			}
		}
	}
	header := make([]any, ncol)
	for j, c := range t.Columns {
		header[j] = c.Header
	}
	if err := f.SetSheetRow(sheet, "A1", &header); err != nil {
		return err
	}
	last, _ := excelize.CoordinatesToCellName(ncol, 1)
	if err := f.SetCellStyle(sheet, "A1", last, st.header); err != nil {
		return err
	}
	row := make([]any, ncol)
	for i, r := range t.Rows {
		if len(r) != ncol {
			return fmt.Errorf("row %d has %d cells for %d columns", i+1, len(r), ncol)
		}
		for j, c := range r {
			row[j] = cellValue(c, t.Columns[j])
			widest[j] = max(widest[j], displayWidth(shownText(c, t.Columns[j])))
		}
		cell, _ := excelize.CoordinatesToCellName(1, i+2)
		if err := f.SetSheetRow(sheet, cell, &row); err != nil {
			return err
		}
		for j, c := range r {
			if t.Columns[j].Kind == Link && !c.Null && c.Link != "" {
				ref, _ := excelize.CoordinatesToCellName(j+1, i+2)
				if err := f.SetCellHyperLink(sheet, ref, c.Link, "External"); err != nil {
					return err
				}
				if err := f.SetCellStyle(sheet, ref, ref, st.link); err != nil {
					return err
				}
			}
		}
	}
	for j, c := range t.Columns {
		col, _ := excelize.ColumnNumberToName(j + 1)
		if err := f.SetColWidth(sheet, col, col, columnWidth(c.Header, widest[j])); err != nil {
			return err
		}
	}
	if err := f.SetPanes(sheet, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	end, _ := excelize.CoordinatesToCellName(ncol, max(len(t.Rows)+1, 2))
	if err := f.AutoFilter(sheet, "A1:"+end, nil); err != nil {
		return err
	}
	if t.Chart != nil && len(t.Rows) > 0 {
		return addChart(f, sheet, t)
	}
	return nil
}

// addChart adds a scatter chart of Y against X (one series per value of
// Series, rows of one series being contiguous) to the right of the table.
func addChart(f *excelize.File, sheet string, t *Table) error {
	ch := t.Chart
	idx := func(key string) int {
		for j, c := range t.Columns {
			if c.Key == key {
				return j
			}
		}
		return -1
	}
	x, y, s := idx(ch.X), idx(ch.Y), idx(ch.Series)
	if x < 0 || y < 0 {
		return fmt.Errorf("chart: no column %q or %q", ch.X, ch.Y)
	}
	quoted := "'" + strings.ReplaceAll(sheet, "'", "''") + "'"
	ref := func(col, from, to int) string {
		c, _ := excelize.ColumnNumberToName(col + 1)
		return fmt.Sprintf("%s!$%s$%d:$%s$%d", quoted, c, from, c, to)
	}
	var series []excelize.ChartSeries
	start := 0
	for i := 1; i <= len(t.Rows); i++ {
		if i < len(t.Rows) && (s < 0 || t.Rows[i][s].Text == t.Rows[start][s].Text) {
			continue
		}
		name := ch.YTitle
		if s >= 0 {
			name = t.Rows[start][s].Text
		}
		series = append(series, excelize.ChartSeries{Name: name, Categories: ref(x, start+2, i+1), Values: ref(y, start+2, i+1),
			Marker: excelize.ChartMarker{Symbol: "circle", Size: 7}})
		start = i
	}
	anchor, _ := excelize.CoordinatesToCellName(len(t.Columns)+2, 2)
	return f.AddChart(sheet, anchor, &excelize.Chart{
		Type:      excelize.Scatter,
		Series:    series,
		Title:     excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: ch.Title}}},
		XAxis:     excelize.ChartAxis{Title: excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: ch.XTitle}}}, MajorGridLines: true},
		YAxis:     excelize.ChartAxis{Title: excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: ch.YTitle}}}, MajorGridLines: true},
		Legend:    excelize.ChartLegend{Position: "bottom"},
		Dimension: excelize.ChartDimension{Width: 640, Height: 400},
	})
}

// streamDefaultWidth is the width of a streamed column by kind, its rows
// being unknown when the widths are set.
var streamDefaultWidth = map[Kind]int{Text: 14, Number: 12, Integer: 10, Time: 20, Bool: 8, Link: 14}

// maxSheetRows is Excel's row limit; a streamed table longer than that
// continues on a new sheet ("Requests 2", ...) with the same header.
var maxSheetRows = 1_048_576

// streamSheet is one sheet a streamed table is being written to.
type streamSheet struct {
	sw   *excelize.StreamWriter
	name string
	rows int // rows written, header included
	seq  int // 1 for the table's first sheet
}

func openStreamSheet(f *excelize.File, st *xlsxStyles, name string, t *Table, seq int) (*streamSheet, error) {
	sw, err := f.NewStreamWriter(name)
	if err != nil {
		return nil, err
	}
	for j, c := range t.Columns {
		// The stream writer gives each cell its column's style (the
		// number format), so rows carry plain values.
		style, err := st.column(c)
		if err != nil {
			return nil, err
		}
		if style != 0 {
			if err := sw.SetColStyle(j+1, j+1, style); err != nil {
				return nil, err
			}
		}
		if err := sw.SetColWidth(j+1, j+1, columnWidth(c.Header, streamDefaultWidth[c.Kind])); err != nil {
			return nil, err
		}
	}
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return nil, err
	}
	header := make([]any, len(t.Columns))
	for j, c := range t.Columns {
		header[j] = excelize.Cell{StyleID: st.header, Value: c.Header}
	}
	if err := sw.SetRow("A1", header); err != nil {
		return nil, err
	}
	return &streamSheet{sw: sw, name: name, rows: 1, seq: seq}, nil
}

// close adds the sheet's filter (a table: the stream writer has no plain
// autofilter) and flushes it.
func (s *streamSheet) close(t *Table) error {
	end, _ := excelize.CoordinatesToCellName(len(t.Columns), max(s.rows, 2))
	name := fmt.Sprintf("%s_%d", t.Name, s.seq)
	if err := s.sw.AddTable(&excelize.Table{Range: "A1:" + end, Name: name, StyleName: "TableStyleLight1", ShowRowStripes: boolPtr(false)}); err != nil {
		return err
	}
	return s.sw.Flush()
}

func writeStreamSheet(f *excelize.File, st *xlsxStyles, sheet string, t *Table, used map[string]bool) error {
	ncol := len(t.Columns)
	cur, err := openStreamSheet(f, st, sheet, t, 1)
	if err != nil {
		return err
	}
	// One row of values, reused.
	row := make([]any, ncol)
	n := 0
	err = t.Stream(func(r []Cell) error {
		n++
		if len(r) != ncol {
			return fmt.Errorf("row %d has %d cells for %d columns", n, len(r), ncol)
		}
		if cur.rows == maxSheetRows {
			if err := cur.close(t); err != nil {
				return err
			}
			next := uniqueSheetName(sheetName(fmt.Sprintf("%s %d", t.Title, cur.seq+1)), used)
			if _, err := f.NewSheet(next); err != nil {
				return err
			}
			c, err := openStreamSheet(f, st, next, t, cur.seq+1)
			if err != nil {
				return err
			}
			cur = c
		}
		for j, c := range r {
			row[j] = cellValue(c, t.Columns[j])
		}
		cur.rows++
		cell, err := excelize.CoordinatesToCellName(1, cur.rows)
		if err != nil {
			return err
		}
		return cur.sw.SetRow(cell, row)
	})
	if err != nil {
		return err
	}
	return cur.close(t)
}

func boolPtr(b bool) *bool { return &b }
