// Package textread holds what the parsers of console reports (vllm bench
// serve blocks, trtllm-bench reports, GPUStack pages) share: bounded line
// reading, the "line N" place of an InputError, and the walk over a
// console block's labelled lines with the readers of their values.
package textread

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/ingest/format"
)

// MaxLine bounds how much of one line is kept: report lines are short, and
// a log may hold huge lines (progress bars redrawn with \r).
const MaxLine = 64 << 10

// Line is one line of a report with its place.
type Line struct {
	N    int // 1-based line number in the file
	Text string
}

// ReadLine returns the next line without its newline, at most MaxLine bytes
// of it; nil and io.EOF at the end.
func ReadLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(out) < MaxLine {
			room := MaxLine - len(out)
			out = append(out, frag[:min(len(frag), room)]...)
		}
		switch {
		case err == nil:
			return bytes.TrimSuffix(out, []byte("\n")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if len(out) == 0 {
				return nil, io.EOF
			}
			return out, io.EOF
		default:
			return nil, err
		}
	}
}

// At is the place "line n".
func At(n int) string { return "line " + strconv.Itoa(n) }

// Section returns the title of a "----Title----" rule, the way console
// reports (vLLM, SGLang, GPUStack) head the groups of a result block.
func Section(t string) (string, bool) {
	if len(t) < 3 || !strings.HasPrefix(t, "-") || !strings.HasSuffix(t, "-") {
		return "", false
	}
	return strings.TrimSpace(strings.Trim(t, "-")), true
}

// A Labelled is a "label: value" line of a console block: the label with
// its runs of spaces made one, the value trimmed.
type Labelled struct {
	N          int
	Label, Val string
}

// Block walks the lines of a console block (the vLLM, SGLang and GPUStack
// layouts): a blank line is skipped, a "----Title----" rule is given to
// section, a "label: value" line to label, and any other line to other
// with its trimmed text (NotLabelled says so). The walk stops at label's
// first error.
func Block(lines []Line, section func(title string), label func(l Labelled) *format.InputError, other func(n int, text string)) *format.InputError {
	for _, ln := range lines {
		t := strings.TrimSpace(ln.Text)
		if t == "" {
			continue
		}
		if title, ok := Section(t); ok {
			section(title)
			continue
		}
		l, v, ok := strings.Cut(t, ":")
		if !ok {
			other(ln.N, t)
			continue
		}
		if err := label(Labelled{N: ln.N, Label: strings.Join(strings.Fields(l), " "), Val: strings.TrimSpace(v)}); err != nil {
			return err
		}
	}
	return nil
}

// NotLabelled is the note on line n of a block, kept as text in Extra.
func NotLabelled(n int) string {
	return fmt.Sprintf("line %d inside the block is not a \"label: value\" line; kept as text in Extra", n)
}

// Keep is Block's other for a format that keeps such a line as text in
// extra under its place, with NotLabelled's note.
func Keep(extra map[string]string, notes *[]string) func(n int, text string) {
	return func(n int, text string) {
		extra[At(n)] = text
		*notes = append(*notes, NotLabelled(n))
	}
}

// Once refuses a figure a block states twice: seen holds the line each
// figure (by key) was first stated at.
func Once(file string, seen map[string]int, key string, l Labelled) *format.InputError {
	if first, dup := seen[key]; dup {
		return format.Errorf(file, At(l.N), "%q stated twice in one block (first at line %d)", l.Label, first)
	}
	seen[key] = l.N
	return nil
}

// LabelledNumber reads the value printed beside a console block's label:
// a number (known), or a placeholder such as N/A (not known). Anything else
// is an error at the line naming the label, as is a placeholder where the
// run's request count must be (required), or a fraction where a count is
// (whole). The console layouts (vLLM, SGLang, GPUStack) read their figures
// through it.
func LabelledNumber(file string, line int, label, val string, whole, required bool) (v float64, known bool, err *format.InputError) {
	v, known, nerr := Number(val)
	switch {
	case nerr != nil:
		return 0, false, format.Errorf(file, At(line), "%s: %q is not a number", label, val)
	case !known && required:
		return 0, false, format.Errorf(file, At(line), "Successful requests is %s: the run's request count is unknown", val)
	case known && whole && (v != math.Trunc(v) || v > 1<<53):
		return 0, false, format.Errorf(file, At(line), "%s: %q is not a whole number", label, val)
	}
	return v, known, nil
}

// Number reads a value a console report printed. ok is false for the
// placeholders that mean "no figure" (N/A in look-alike blocks; nan, inf,
// None from Python; "not set"); err is set for anything else that is not a
// plain non-negative decimal number.
func Number(s string) (v float64, ok bool, err error) {
	switch strings.ToLower(s) {
	case "n/a", "na", "nan", "-nan", "inf", "-inf", "none", "not set", "":
		return 0, false, nil
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && c != '.' && !(i == 0 && (c == '-' || c == '+')) {
			return 0, false, errors.New("not a number")
		}
	}
	v, perr := strconv.ParseFloat(s, 64)
	if perr != nil {
		return 0, false, perr
	}
	if v < 0 {
		return 0, false, errors.New("negative")
	}
	return v, true, nil
}

// Milli converts a printed millisecond figure (already read by Number) to
// seconds. It shifts the decimal exponent instead of dividing, so 0.12 ms
// becomes the double nearest 0.00012 s.
func Milli(ms string) float64 {
	v, err := strconv.ParseFloat(ms+"e-3", 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// Decimals is how many digits a printed number has after its decimal
// point: the precision a console figure was printed with (Stated.Printed).
func Decimals(s string) int {
	if _, frac, ok := strings.Cut(s, "."); ok {
		return len(frac)
	}
	return 0
}
