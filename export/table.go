// Package export turns archived runs and evaluated case studies into plain
// tables (Workbook) for spreadsheets, and writes them as an xlsx workbook
// (WriteXLSX) or RFC 4180 CSV files (WriteCSV). The tables are built once,
// localised for one language, with every text cell already redacted when a
// redaction profile is given; the writers only lay them out. Numbers stay
// numbers: locale-neutral values with a number format, so that Excel,
// LibreOffice and Numbers show them in the reader's locale.
package export

import (
	"strings"
	"time"
)

// Kind says what a column holds and how a writer stores it.
type Kind int

// Column kinds.
const (
	Text    Kind = iota // a string, neutralised against formula injection
	Number              // a float with Column.Decimals in its number format
	Integer             // a whole number
	Time                // a UTC date-time (yyyy-mm-dd hh:mm:ss)
	Link                // a string shown as text with Cell.Link as its hyperlink
	Bool                // true/false
	Percent             // a percentage in percent units (131.9 is +131.9 %); xlsx stores the fraction with a % format
	Ratio               // a ratio shown as 2.32x
)

// Column is one column of a table.
type Column struct {
	Key      string // stable, language-neutral id (CSV header comment, tests)
	Header   string // localised header, with the unit: "Output throughput (tok/s)"
	Kind     Kind
	Decimals int // Number: decimals of the number format
	// Wrap, when not zero, is the widest (in characters) a text column
	// gets before its text wraps, narrower than the default: the names of
	// a sheet that should print on one page.
	Wrap int
}

// Cell is one value. Null cells are left empty (an unknown value is never
// written as 0).
type Cell struct {
	Null bool
	Text string    // Text, Link
	Num  float64   // Number, Integer
	Time time.Time // Time
	Bool bool      // Bool
	Link string    // Link: the hyperlink target
	// Raw, when set, is a Text cell's value as recorded, which CSV writes
	// for scripts (2048, inf, sweep-point) where the workbook shows Text
	// in the reader's language (2,048, unlimited, sweep point), as CSV
	// keeps true/false where the workbook says yes/no.
	Raw string
}

// Cells of each kind.
func TextCell(s string) Cell            { return Cell{Text: s} }
func NumCell(v float64) Cell            { return Cell{Num: v} }
func IntCell(v int64) Cell              { return Cell{Num: float64(v)} }
func TimeCell(t time.Time) Cell         { return Cell{Time: t.UTC(), Null: t.IsZero()} }
func BoolCell(b bool) Cell              { return Cell{Bool: b} }
func LinkCell(text, target string) Cell { return Cell{Text: text, Link: target} }
func NullCell() Cell                    { return Cell{Null: true} }

// WordCell is a recorded value shown in words (Text), with its recorded
// form for CSV (Raw).
func WordCell(text, raw string) Cell { return Cell{Text: text, Raw: raw} }

// Chart is a native chart a writer adds to a table's sheet: Y against X,
// one series per distinct value of Series (or one series when empty).
type Chart struct {
	Title          string
	X, Y           string // column keys
	XTitle, YTitle string
	Series         string // column key whose value names the series; "" for one
}

// Table is one sheet (xlsx) or one file (CSV).
type Table struct {
	Name    string // stable key: summary, runs, comparisons, sweeps, node, caveats, provenance, requests
	Title   string // localised sheet name (at most 31 characters, no []:*?/\)
	Columns []Column
	Rows    [][]Cell
	// Stream, when set, yields the rows instead of Rows (the requests
	// table): a writer calls it once and writes each row as it comes, so
	// memory does not grow with the row count.
	Stream func(yield func([]Cell) error) error
	Chart  *Chart
	// Cover lays the table out as a form (the cover sheet): a title line,
	// then one labelled value a row, no header row or filter. Its value
	// cells may carry a Link.
	Cover   bool
	Heading string // Cover: the title line
}

// Each calls fn for every row, from Rows or Stream.
func (t *Table) Each(fn func([]Cell) error) error {
	if t.Stream != nil {
		return t.Stream(fn)
	}
	for _, r := range t.Rows {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// Workbook is the tables of one export, in sheet order.
type Workbook struct {
	Lang   string
	Tables []*Table
	// Yes and No are how the xlsx writer shows a Bool cell: words in the
	// workbook's language, the same on every sheet (a spreadsheet's own
	// TRUE/FALSE is English in some and 1/0 in others, LibreOffice
	// included). CSV keeps true/false.
	Yes, No string
	// Ratio is what follows a ratio's digits in the language ("x", " 倍",
	// "×"), for the ratio cells' number format.
	Ratio string
	// LCID, when not zero, is the Windows locale id of the country the
	// export's language tag names (es-AR: 0x2C0A): the number formats
	// carry it ([$-2C0A]#,##0.00), so a spreadsheet that honours it
	// (LibreOffice) shows that country's separators whatever its own
	// locale; zero leaves them to the reader's locale.
	LCID int
}

// Neutralise makes a text cell safe to open in a spreadsheet: a value that
// starts with a character a spreadsheet reads as the start of a formula
// (=, +, -, @, a tab or a carriage return) gets a leading apostrophe, the
// convention spreadsheets show as "text as typed". Writers call it on every
// text cell; other values pass unchanged.
func Neutralise(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	// Full-width forms some spreadsheets also take as formula starts.
	if strings.HasPrefix(s, "＝") || strings.HasPrefix(s, "＋") || strings.HasPrefix(s, "－") || strings.HasPrefix(s, "＠") {
		return "'" + s
	}
	return s
}
