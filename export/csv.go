package export

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/benchledger/benchledger/internal/atomicfile"
	"github.com/benchledger/benchledger/locales"
)

// CSVOptions configure WriteCSV.
type CSVOptions struct {
	// BOM writes the UTF-8 byte order mark first. Excel reads a CSV file
	// without it in the system's legacy code page, which garbles CJK text
	// and accents ("ComparaciÃ³n").
	BOM bool
	// Sep is the field separator (',' when zero) and Decimal the decimal
	// separator of numbers ('.' when zero): a spreadsheet in a locale
	// with a decimal comma (es, es-AR, de, fr) reads "17961.2" as text and
	// splits fields at ';' (CSVDialect).
	Sep, Decimal rune
}

// CSVDialect is the separators a dialect name stands for: "rfc4180" (or
// "") is ',' and '.'; "excel-<locale>" is what Excel and LibreOffice in
// that locale read: its CLDR decimal separator, and ';' between fields
// where the decimal separator is a comma (excel-es, excel-es-AR,
// excel-de: ';' and ','; excel-en, excel-es-MX: ',' and '.').
func CSVDialect(name string) (sep, decimal rune, err error) {
	switch {
	case name == "" || name == "rfc4180":
		return ',', '.', nil
	case strings.HasPrefix(name, "excel-"):
		d, err := locales.DecimalSeparator(strings.TrimPrefix(name, "excel-"))
		if err != nil {
			return 0, 0, fmt.Errorf("csv dialect %q: %w", name, err)
		}
		if d == "," {
			return ';', ',', nil
		}
		return ',', '.', nil
	}
	return 0, 0, fmt.Errorf("csv dialect %q: want rfc4180 or excel-<locale> (excel-es, excel-en, excel-de-DE)", name)
}

func (o CSVOptions) sep() rune {
	if o.Sep == 0 {
		return ','
	}
	return o.Sep
}

func (o CSVOptions) decimal() rune {
	if o.Decimal == 0 {
		return '.'
	}
	return o.Decimal
}

// Check refuses separators a reader could not tell apart.
func (o CSVOptions) Check() error {
	sep, dec := o.sep(), o.decimal()
	switch {
	case sep == dec:
		return fmt.Errorf("csv: the field and decimal separators are both %q", sep)
	case sep == '"' || sep == '\r' || sep == '\n' || dec == '"' || dec == '\r' || dec == '\n':
		return fmt.Errorf("csv: a quote or a line end cannot separate")
	case dec != '.' && dec != ',':
		return fmt.Errorf("csv: decimal separator %q: want . or ,", dec)
	}
	return nil
}

// csvTimeLayout is the Time cell format: what spreadsheets parse as a
// date-time in every locale.
const csvTimeLayout = "2006-01-02 15:04:05"

// WriteCSV writes each table of wb as an RFC 4180 file <Table.Name>.csv in
// dir (created when missing): a header row of the localised column
// headers, CRLF line ends, UTF-8. The file names are the stable English
// table keys, so scripts find them in every language. Each file is written
// whole or not at all (atomicfile): a failure never leaves a half file. It returns the paths written, in table order; on an error, the
// paths of the tables completed before it.
func WriteCSV(dir string, wb *Workbook, opt CSVOptions) ([]string, error) {
	if err := opt.Check(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("csv: %w", err)
	}
	seen := map[string]bool{}
	for _, t := range wb.Tables {
		if err := checkCSVName(t.Name); err != nil {
			return nil, err
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("csv: two tables named %q", t.Name)
		}
		seen[t.Name] = true
	}
	var paths []string
	for _, t := range wb.Tables {
		p := filepath.Join(dir, t.Name+".csv")
		if err := writeCSVFile(p, t, opt); err != nil {
			return paths, fmt.Errorf("csv %s: %w", p, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// checkCSVName refuses a table name that is not a plain file name.
func checkCSVName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\:`) || strings.ContainsRune(name, 0) {
		return fmt.Errorf("csv: table name %q is not a file name", name)
	}
	return nil
}

func writeCSVFile(path string, t *Table, opt CSVOptions) error {
	return atomicfile.WriteWith(path, func(f io.Writer) error { return writeCSVTable(f, t, opt) })
}

func writeCSVTable(f io.Writer, t *Table, opt CSVOptions) error {
	// Rows are written as they come (the streamed requests table has no
	// Rows slice): memory stays at one row and the buffer.
	w := bufio.NewWriterSize(f, 64<<10)
	if opt.BOM {
		if _, err := w.WriteString("\uFEFF"); err != nil {
			return err
		}
	}
	var line []byte
	fields := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		// Headers are our own text, but a translation could still start
		// with "-" or "+": a header is a text cell like any other.
		fields[i] = Neutralise(c.Header)
	}
	line = appendCSVRecord(line[:0], fields, opt.sep())
	if _, err := w.Write(line); err != nil {
		return err
	}
	n := 0
	err := t.Each(func(row []Cell) error {
		n++
		if len(row) > len(t.Columns) {
			return fmt.Errorf("row %d has %d cells for %d columns", n, len(row), len(t.Columns))
		}
		for i, col := range t.Columns {
			if i < len(row) {
				fields[i] = csvValue(col.Kind, row[i], opt.decimal())
			} else {
				fields[i] = "" // a short row: the missing cells are unknown
			}
		}
		line = appendCSVRecord(line[:0], fields, opt.sep())
		_, err := w.Write(line)
		return err
	})
	if err != nil {
		return err
	}
	return w.Flush()
}

// csvValue is one cell as CSV text. Numbers have no grouping and no
// exponent, in the shortest form that reads back as the same float64, with
// the dialect's decimal separator ('.' by default). A percent is in
// percent units (131.9), as its header says.
func csvValue(k Kind, c Cell, decimal rune) string {
	if c.Null {
		return ""
	}
	switch k {
	case Text, Link:
		// A Link's target cannot be represented in CSV; the text is
		// what a reader sees in the workbook too. A value in words is
		// written as recorded.
		if c.Raw != "" {
			return Neutralise(c.Raw)
		}
		return Neutralise(c.Text)
	case Number, Integer, Percent, Ratio:
		v := c.Num
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "" // not a value: never "NaN" or "+Inf"
		}
		if v == 0 {
			v = 0 // -0 would be written "-0"
		}
		s := strconv.FormatFloat(v, 'f', -1, 64)
		if decimal != '.' {
			s = strings.Replace(s, ".", string(decimal), 1)
		}
		return s
	case Time:
		if c.Time.IsZero() {
			return ""
		}
		return c.Time.UTC().Format(csvTimeLayout)
	case Bool:
		return strconv.FormatBool(c.Bool)
	}
	return Neutralise(c.Text)
}

// appendCSVRecord appends one RFC 4180 record and its CRLF. A field is
// quoted when it holds a comma, a quote, CR or LF, with quotes doubled;
// inside quotes CR and LF are written as they are (encoding/csv with
// UseCRLF would turn a lone CR into nothing and LF into CRLF). A record of
// one empty field is written as "" so that it is not an empty line, which
// readers skip.
func appendCSVRecord(b []byte, fields []string, sep rune) []byte {
	if len(fields) == 1 && fields[0] == "" {
		return append(b, `""`+"\r\n"...)
	}
	for i, f := range fields {
		if i > 0 {
			b = utf8.AppendRune(b, sep)
		}
		if !strings.ContainsAny(f, "\"\r\n") && !strings.ContainsRune(f, sep) {
			b = append(b, f...)
			continue
		}
		b = append(b, '"')
		for j := 0; j < len(f); j++ {
			if f[j] == '"' {
				b = append(b, '"')
			}
			b = append(b, f[j])
		}
		b = append(b, '"')
	}
	return append(b, '\r', '\n')
}
