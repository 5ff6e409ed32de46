package export

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/benchledger/benchledger/internal/atomicfile"
	"github.com/benchledger/benchledger/internal/textwidth"
)

// XLSXOptions tune the workbook's document properties.
type XLSXOptions struct {
	Title   string    // document title (the case study's, or "benchledger export")
	Subject string    // document subject (the case study's id)
	Created time.Time // document creation time; zero means now
	// Modified is the document's modified time; zero means Created.
	Modified time.Time
}

// wrapWidth is the widest a text column gets (Excel characters); longer
// text wraps onto more lines of its row.
const wrapWidth = 50

// pageWidthChars is how many characters of columns one landscape page
// takes at a scale still readable on paper (about 55%).
const pageWidthChars = 260

// lineHeight is the height of one line of text in points (Calibri 11).
const lineHeight = 15

// xlsxStyles are the style ids of one workbook.
type xlsxStyles struct {
	header, link, text, wrap, integer, time, boolean, percent, ratio int
	coverTitle, coverLabel, coverValue, coverLink                    int
	number                                                           map[int]int // decimals -> style
	f                                                                *excelize.File
	lcid                                                             string // "[$-2C0A]" or ""
}

// ratioFormat is the number format of a ratio: two decimals and the
// language's sign, quoted (2.32x, 2.32 倍, 2.32×).
func ratioFormat(suffix string) string {
	if suffix == "" {
		suffix = "x"
	}
	return `0.00"` + strings.ReplaceAll(suffix, `"`, "") + `"`
}

func newStyles(f *excelize.File, wb *Workbook) (*xlsxStyles, error) {
	s := &xlsxStyles{number: map[int]int{}, f: f}
	if wb.LCID != 0 {
		s.lcid = fmt.Sprintf("[$-%X]", wb.LCID)
	}
	var err error
	add := func(st *excelize.Style) int {
		if err != nil {
			return 0
		}
		var id int
		id, err = f.NewStyle(st)
		return id
	}
	s.header = add(&excelize.Style{Font: &excelize.Font{Bold: true},
		Fill:      excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"E8EEF4"}},
		Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"},
		Border:    []excelize.Border{{Type: "bottom", Color: "7F8C99", Style: 1}}})
	top := &excelize.Alignment{Vertical: "top"}
	s.link = add(&excelize.Style{Font: &excelize.Font{Color: "1F5FA8", Underline: "single"}, Alignment: top})
	// Text cells are formatted "@" (text): a value typed over them again is
	// text too, never a formula. Long text wraps within its column.
	at := "@"
	s.text = add(&excelize.Style{CustomNumFmt: &at, Alignment: top})
	s.wrap = add(&excelize.Style{CustomNumFmt: &at, Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}})
	s.integer = add(&excelize.Style{CustomNumFmt: strPtr(s.lcid + "#,##0"), Alignment: top})
	s.time = add(&excelize.Style{CustomNumFmt: strPtr("yyyy-mm-dd hh:mm:ss"), Alignment: top})
	// Booleans: one style on every sheet (General), so each spreadsheet
	// shows its own TRUE/FALSE, never 1/0 from a neighbouring number format.
	s.boolean = add(&excelize.Style{NumFmt: 0, Alignment: &excelize.Alignment{Horizontal: "center", Vertical: "top"}})
	// A percent cell holds the fraction (1.319) and shows 131.90%; a ratio
	// shows 2.32x (2.32 倍, 2.32×).
	s.percent = add(&excelize.Style{CustomNumFmt: strPtr(s.lcid + "0.00%"), Alignment: top})
	s.ratio = add(&excelize.Style{CustomNumFmt: strPtr(s.lcid + ratioFormat(wb.Ratio)), Alignment: top})
	s.coverTitle = add(&excelize.Style{Font: &excelize.Font{Bold: true, Size: 16}, Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}})
	s.coverLabel = add(&excelize.Style{Font: &excelize.Font{Bold: true}, Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}})
	s.coverValue = add(&excelize.Style{CustomNumFmt: &at, Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}})
	s.coverLink = add(&excelize.Style{Font: &excelize.Font{Color: "1F5FA8", Underline: "single"}, Alignment: &excelize.Alignment{WrapText: true, Vertical: "top"}})
	return s, err
}

// numberStyle is "#,##0.00" with the column's decimals: a locale-neutral
// format code that each spreadsheet shows with the reader's separators,
// or, for a country's tag (es-AR), with that country's locale id.
func (s *xlsxStyles) numberStyle(decimals int) (int, error) {
	if id, ok := s.number[decimals]; ok {
		return id, nil
	}
	code := s.lcid + "#,##0"
	if decimals > 0 {
		code += "." + strings.Repeat("0", decimals)
	}
	id, err := s.f.NewStyle(&excelize.Style{CustomNumFmt: &code, Alignment: &excelize.Alignment{Vertical: "top"}})
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
	case Bool:
		return s.boolean, nil
	case Percent:
		return s.percent, nil
	case Ratio:
		return s.ratio, nil
	}
	return 0, nil
}

func strPtr(s string) *string { return &s }

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
	st, err := newStyles(f, wb)
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
	modified := opt.Modified
	if modified.IsZero() {
		modified = created
	}
	if err := f.SetDocProps(&excelize.DocProperties{Title: title, Subject: opt.Subject, Creator: "benchledger", LastModifiedBy: "benchledger",
		Language: wb.Lang, Created: created.UTC().Format(time.RFC3339), Modified: modified.UTC().Format(time.RFC3339)}); err != nil {
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
		switch {
		case t.Cover:
			err = writeCover(f, st, name, t)
		case t.Stream != nil:
			err = writeStreamSheet(f, st, name, t, used, wb)
		default:
			err = writeSheet(f, st, name, t, wb)
		}
		if err != nil {
			return fmt.Errorf("export: sheet %s (%s): %w", name, t.Name, err)
		}
	}
	numericXValues(f)
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

// cellValue converts a cell for excelize: nil for an empty cell.
func cellValue(c Cell, col Column, wb *Workbook) any {
	if c.Null {
		return nil
	}
	switch col.Kind {
	case Number:
		if math.IsNaN(c.Num) || math.IsInf(c.Num, 0) {
			return nil
		}
		return c.Num
	case Percent:
		if math.IsNaN(c.Num) || math.IsInf(c.Num, 0) {
			return nil
		}
		return c.Num / 100
	case Ratio:
		if math.IsNaN(c.Num) || math.IsInf(c.Num, 0) {
			return nil
		}
		return c.Num
	case Integer:
		return int64(c.Num)
	case Time:
		return c.Time
	case Bool:
		if wb.Yes == "" {
			return c.Bool
		}
		if c.Bool {
			return wb.Yes
		}
		return wb.No
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
	case Percent:
		return fmt.Sprintf("%.2f%%", c.Num)
	case Ratio:
		return fmt.Sprintf("%.2fx", c.Num)
	case Time:
		return "2006-01-02 15:04:05"
	case Bool:
		return "FALSE"
	}
	return c.Text
}

// longestWord is the width of a header's longest word (plus room for the
// bold font), the least its column can be without breaking a word; CJK
// text, which breaks anywhere, is one "word" but asks for no more than 16.
func longestWord(s string) int {
	w := 0
	for _, f := range strings.Fields(s) {
		n := textwidth.Of(f)*11/10 + 1
		if textwidth.Of(f) > len([]rune(f)) {
			n = min(n, 16)
		}
		w = max(w, n)
	}
	return w
}

// columnWidth fits a column to its widest value, at least 8 characters;
// a header wider than its values wraps (up to 16 characters a line), and
// text wider than wrapWidth wraps too.
func columnWidth(header string, widest int) float64 {
	w := max(min(textwidth.Of(header), 16), longestWord(header), widest) + 2
	return float64(min(max(w, 8), wrapWidth+2))
}

// lines is how many lines s takes in a column of width w when it wraps.
func lines(s string, w float64) int {
	n := 0
	for _, part := range strings.Split(s, "\n") {
		n += max(1, int(math.Ceil(float64(textwidth.Of(part))/max(w-1.5, 1))))
	}
	return n
}

// pageSetup makes a sheet print as a reader expects: every column on the
// page's width (as many pages down as it takes), landscape when the
// columns are wider than a portrait page, the header row repeated on each
// page, the sheet's name and the page number in the footer. A4, or Letter
// for en.
func pageSetup(f *excelize.File, sheet string, totalWidth float64, lang string, header bool) error {
	orient := "portrait"
	if totalWidth > 95 {
		orient = "landscape"
	}
	size := 9 // A4
	if lang == "en" {
		size = 1 // Letter
	}
	// A sheet wider than two landscape pages at a readable scale (the
	// Runs sheet's 40 columns) is fitted to as many pages across as keep
	// it readable, its first column repeated on each.
	across := max(1, int(math.Ceil(totalWidth/pageWidthChars)))
	zero, yes := 0, true
	if err := f.SetPageLayout(sheet, &excelize.PageLayoutOptions{Size: &size, Orientation: &orient, FitToWidth: &across, FitToHeight: &zero}); err != nil {
		return err
	}
	if err := f.SetSheetProps(sheet, &excelize.SheetPropsOptions{FitToPage: &yes}); err != nil {
		return err
	}
	margin := 0.5
	if err := f.SetPageMargins(sheet, &excelize.PageLayoutMarginsOptions{Left: &margin, Right: &margin, Top: &margin, Bottom: &margin}); err != nil {
		return err
	}
	if err := f.SetHeaderFooter(sheet, &excelize.HeaderFooterOptions{OddFooter: "&L&A&R&P / &N"}); err != nil {
		return err
	}
	if !header {
		return nil
	}
	titles := quoteSheet(sheet) + "!$1:$1"
	if across > 1 {
		titles = quoteSheet(sheet) + "!$A:$A," + titles
	}
	return f.SetDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Titles", RefersTo: titles, Scope: sheet})
}

// quoteSheet is a sheet name as a formula reference writes it.
func quoteSheet(sheet string) string { return "'" + strings.ReplaceAll(sheet, "'", "''") + "'" }

// writeCover writes the cover sheet: the heading, then a label and a value
// a row (values wrap; links are links).
func writeCover(f *excelize.File, st *xlsxStyles, sheet string, t *Table) error {
	const labelWidth, valueWidth = 30.0, 80.0
	if err := f.SetColWidth(sheet, "A", "A", labelWidth); err != nil {
		return err
	}
	if err := f.SetColWidth(sheet, "B", "B", valueWidth); err != nil {
		return err
	}
	if err := f.SetCellValue(sheet, "A1", Neutralise(t.Heading)); err != nil {
		return err
	}
	if err := f.MergeCell(sheet, "A1", "B1"); err != nil {
		return err
	}
	if err := f.SetCellStyle(sheet, "A1", "B1", st.coverTitle); err != nil {
		return err
	}
	if err := f.SetRowHeight(sheet, 1, float64(lines(t.Heading, (labelWidth+valueWidth)/1.4))*22); err != nil {
		return err
	}
	for i, r := range t.Rows {
		if len(r) != 2 {
			return fmt.Errorf("cover row %d has %d cells", i+1, len(r))
		}
		row := i + 3
		a, _ := excelize.CoordinatesToCellName(1, row)
		b, _ := excelize.CoordinatesToCellName(2, row)
		if err := f.SetCellValue(sheet, a, Neutralise(r[0].Text)); err != nil {
			return err
		}
		if err := f.SetCellStyle(sheet, a, a, st.coverLabel); err != nil {
			return err
		}
		if err := f.SetCellValue(sheet, b, Neutralise(r[1].Text)); err != nil {
			return err
		}
		style := st.coverValue
		if r[1].Link != "" {
			if err := f.SetCellHyperLink(sheet, b, r[1].Link, "External"); err != nil {
				return err
			}
			style = st.coverLink
		}
		if err := f.SetCellStyle(sheet, b, b, style); err != nil {
			return err
		}
		n := max(lines(r[0].Text, labelWidth), lines(r[1].Text, valueWidth))
		if err := f.SetRowHeight(sheet, row, float64(n*lineHeight+3)); err != nil {
			return err
		}
	}
	return pageSetup(f, sheet, labelWidth+valueWidth, "", false)
}

func writeSheet(f *excelize.File, st *xlsxStyles, sheet string, t *Table, wb *Workbook) error {
	lang := wb.Lang
	ncol := len(t.Columns)
	if ncol == 0 {
		return nil
	}
	widest := make([]int, ncol)
	for i, r := range t.Rows {
		if len(r) != ncol {
			return fmt.Errorf("row %d has %d cells for %d columns", i+1, len(r), ncol)
		}
		for j, c := range r {
			widest[j] = max(widest[j], textwidth.Of(shownText(c, t.Columns[j])))
		}
	}
	widths := make([]float64, ncol)
	total := 0.0
	for j, c := range t.Columns {
		widths[j] = columnWidth(c.Header, widest[j])
		if c.Wrap > 0 && widths[j] > float64(c.Wrap+2) {
			widths[j] = float64(max(c.Wrap, longestWord(c.Header)) + 2)
		}
		total += widths[j]
		col, _ := excelize.ColumnNumberToName(j + 1)
		if err := f.SetColWidth(sheet, col, col, widths[j]); err != nil {
			return err
		}
		style, err := st.column(c)
		if err != nil {
			return err
		}
		if c.Kind == Text && widest[j]+2 > int(widths[j]) {
			style = st.wrap
		}
		if style != 0 && c.Kind != Link {
			if err := f.SetColStyle(sheet, col, style); err != nil {
				return err
			}
		}
	}
	header := make([]any, ncol)
	headerLines := 1
	for j, c := range t.Columns {
		header[j] = c.Header
		headerLines = max(headerLines, lines(c.Header, widths[j]))
	}
	if err := f.SetSheetRow(sheet, "A1", &header); err != nil {
		return err
	}
	last, _ := excelize.CoordinatesToCellName(ncol, 1)
	if err := f.SetCellStyle(sheet, "A1", last, st.header); err != nil {
		return err
	}
	if err := f.SetRowHeight(sheet, 1, float64(headerLines*lineHeight+3)); err != nil {
		return err
	}
	row := make([]any, ncol)
	for i, r := range t.Rows {
		n := 1
		for j, c := range r {
			row[j] = cellValue(c, t.Columns[j], wb)
			if k := t.Columns[j].Kind; (k == Text || k == Link) && !c.Null {
				n = max(n, lines(c.Text, widths[j]))
			}
		}
		cell, _ := excelize.CoordinatesToCellName(1, i+2)
		if err := f.SetSheetRow(sheet, cell, &row); err != nil {
			return err
		}
		if n > 1 {
			if err := f.SetRowHeight(sheet, i+2, float64(n*lineHeight+2)); err != nil {
				return err
			}
		}
		for j, c := range r {
			if !c.Null && c.Link != "" {
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
	if err := freeze(f, sheet, wideSheet(ncol)); err != nil {
		return err
	}
	end, _ := excelize.CoordinatesToCellName(ncol, max(len(t.Rows)+1, 2))
	if err := f.AutoFilter(sheet, "A1:"+end, nil); err != nil {
		return err
	}
	if t.Chart != nil && len(t.Rows) > 0 {
		if err := addChart(f, sheet, t, st.lcid); err != nil {
			return err
		}
		total += chartWidthChars
	}
	return pageSetup(f, sheet, total, lang, true)
}

// wideSheet: a sheet of more columns than a screen shows keeps its first
// column (the run or comparison) in view.
func wideSheet(ncol int) bool { return ncol > 6 }

// freeze keeps the header row, and on a wide sheet the first column, in
// view.
func freeze(f *excelize.File, sheet string, firstColumn bool) error {
	if firstColumn {
		return f.SetPanes(sheet, &excelize.Panes{Freeze: true, XSplit: 1, YSplit: 1, TopLeftCell: "B2", ActivePane: "bottomRight",
			Selection: []excelize.Selection{{SQRef: "B2", ActiveCell: "B2", Pane: "bottomRight"}}})
	}
	return f.SetPanes(sheet, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"})
}

// The chart's size in pixels, and its width in column characters (about 7
// pixels each) for the page setup.
const (
	chartWidth, chartHeight = 640, 400
	chartWidthChars         = chartWidth/7 + 2
)

// seriesColors are the series' colours (explicit RGB: LibreOffice draws a
// scheme colour it cannot resolve as white).
var seriesColors = []string{"1F77B4", "D62728", "2CA02C", "FF7F0E", "9467BD", "8C564B", "E377C2", "7F7F7F"}

// addChart adds a scatter chart of Y against X with lines and markers (one
// series per value of Series, rows of one series being contiguous) to the
// right of the table; its axes' number formats carry the workbook's locale
// id, as its cells do. Each series is named by a cell (its Series value, or
// the Y column's header), as the chart format wants a reference there.
func addChart(f *excelize.File, sheet string, t *Table, lcid string) error {
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
	quoted := quoteSheet(sheet)
	ref := func(col, from, to int) string {
		c, _ := excelize.ColumnNumberToName(col + 1)
		return fmt.Sprintf("%s!$%s$%d:$%s$%d", quoted, c, from, c, to)
	}
	cellRef := func(col, row int) string {
		c, _ := excelize.ColumnNumberToName(col + 1)
		return fmt.Sprintf("%s!$%s$%d", quoted, c, row)
	}
	var series []excelize.ChartSeries
	start := 0
	for i := 1; i <= len(t.Rows); i++ {
		if i < len(t.Rows) && (s < 0 || t.Rows[i][s].Text == t.Rows[start][s].Text) {
			continue
		}
		name := cellRef(y, 1)
		if s >= 0 {
			name = cellRef(s, start+2)
		}
		color := seriesColors[len(series)%len(seriesColors)]
		fill := excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{color}}
		series = append(series, excelize.ChartSeries{Name: name, Categories: ref(x, start+2, i+1), Values: ref(y, start+2, i+1),
			Fill:   fill,
			Line:   excelize.LineOptions{Type: excelize.LineSolid, Width: 1.5, Fill: fill},
			Marker: excelize.ChartMarker{Symbol: "circle", Size: 7, Fill: fill, Border: excelize.LineOptions{Type: excelize.LineSolid, Width: 0.75, Fill: fill}}})
		start = i
	}
	axisTitle := func(text string) excelize.ChartTitle {
		return excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: text, Font: &excelize.Font{Bold: false, Size: 10, Color: "333333"}}}}
	}
	anchor, _ := excelize.CoordinatesToCellName(len(t.Columns)+2, 2)
	legend := "bottom"
	if len(series) == 1 {
		legend = "none"
	}
	return f.AddChart(sheet, anchor, &excelize.Chart{
		Type:   excelize.Scatter,
		Series: series,
		Title:  excelize.ChartTitle{Paragraph: []excelize.RichTextRun{{Text: ch.Title, Font: &excelize.Font{Bold: true, Size: 12, Color: "222222"}}}},
		XAxis: excelize.ChartAxis{Title: axisTitle(ch.XTitle), MajorGridLines: true, NumFmt: excelize.ChartNumFmt{CustomNumFmt: lcid + "#,##0"},
			Font: excelize.Font{Size: 9, Color: "333333"}},
		YAxis: excelize.ChartAxis{Title: axisTitle(ch.YTitle), MajorGridLines: true, NumFmt: excelize.ChartNumFmt{CustomNumFmt: lcid + "0.0"},
			Font: excelize.Font{Size: 9, Color: "333333"}},
		Legend:    excelize.ChartLegend{Position: legend},
		Dimension: excelize.ChartDimension{Width: chartWidth, Height: chartHeight},
		Format:    excelize.GraphicOptions{PrintObject: boolPtr(true), Positioning: "oneCell"},
	})
}

// numericXValues makes each scatter chart's x values a number reference:
// excelize writes them as a string reference (categories), which Excel
// plots as 1, 2, 3 ... rather than the cells' throughputs.
func numericXValues(f *excelize.File) {
	f.Pkg.Range(func(k, v any) bool {
		name, _ := k.(string)
		data, ok := v.([]byte)
		if !ok || !strings.HasPrefix(name, "xl/charts/chart") {
			return true
		}
		data = bytes.ReplaceAll(data, []byte("<xVal><strRef>"), []byte("<xVal><numRef>"))
		data = bytes.ReplaceAll(data, []byte("</strRef></xVal>"), []byte("</numRef></xVal>"))
		f.Pkg.Store(name, data)
		return true
	})
}

// streamDefaultWidth is the width of a streamed column by kind, its rows
// being unknown when the widths are set.
var streamDefaultWidth = map[Kind]int{Text: 14, Number: 12, Integer: 10, Time: 20, Bool: 8, Link: 14, Percent: 10, Ratio: 8}

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

func openStreamSheet(f *excelize.File, st *xlsxStyles, name string, t *Table, seq int, lang string) (*streamSheet, error) {
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
	total := 0.0
	for _, c := range t.Columns {
		total += columnWidth(c.Header, streamDefaultWidth[c.Kind])
	}
	// The page setup is the sheet's own XML, not its rows: it can be set
	// before they are streamed.
	if err := pageSetup(f, name, total, lang, true); err != nil {
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

func writeStreamSheet(f *excelize.File, st *xlsxStyles, sheet string, t *Table, used map[string]bool, wb *Workbook) error {
	lang := wb.Lang
	ncol := len(t.Columns)
	cur, err := openStreamSheet(f, st, sheet, t, 1, lang)
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
			c, err := openStreamSheet(f, st, next, t, cur.seq+1, lang)
			if err != nil {
				return err
			}
			cur = c
		}
		for j, c := range r {
			row[j] = cellValue(c, t.Columns[j], wb)
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
