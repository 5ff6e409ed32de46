package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/internal/textwidth"
	"golang.org/x/term"
)

// table is a console table that fits a width: the columns with a minWidth
// give up characters, widest first, down to that minimum, their cells
// ending (or, for keepEnd, starting) with "…"; when even that is too wide,
// the columns in dropped go, in that order.
type table struct {
	header   []string
	rows     [][]string
	minWidth map[int]int
	keepEnd  map[int]bool
	dropped  []int
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// write prints the table in at most maxWidth columns (0: no limit), two
// spaces between columns, no trailing spaces, and returns the headers of
// the columns it left out.
func (t *table) write(w io.Writer, maxWidth int) (hidden []string) {
	natural := make([]int, len(t.header))
	for _, row := range append([][]string{t.header}, t.rows...) {
		for i, c := range row {
			natural[i] = max(natural[i], textwidth.Of(c))
		}
	}
	widths := slices.Clone(natural)
	shown := make([]bool, len(widths))
	for i := range shown {
		shown[i] = true
	}
	total := func() int {
		n := -2
		for i, w := range widths {
			if shown[i] {
				n += w + 2
			}
		}
		return n
	}
	shrink := func() {
		for total() > maxWidth {
			widest := -1
			for i, min := range t.minWidth {
				if shown[i] && widths[i] > min && (widest < 0 || widths[i] > widths[widest] || widths[i] == widths[widest] && i < widest) {
					widest = i
				}
			}
			if widest < 0 {
				return
			}
			widths[widest] = max(t.minWidth[widest], widths[widest]-(total()-maxWidth))
		}
	}
	if maxWidth > 0 {
		// Each column dropped gives the others their width back.
		shrink()
		for _, i := range t.dropped {
			if total() <= maxWidth {
				break
			}
			shown[i] = false
			hidden = append(hidden, t.header[i])
			copy(widths, natural)
			shrink()
		}
	}
	var b strings.Builder
	for _, row := range append([][]string{t.header}, t.rows...) {
		b.Reset()
		for i, c := range row {
			if !shown[i] {
				continue
			}
			c = cut(c, widths[i], t.keepEnd[i])
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", widths[i]-textwidth.Of(c)+2))
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	return slices.Clip(hidden)
}

// cut shortens s to n display columns with an ellipsis at its end, or at
// its start when keepEnd.
func cut(s string, n int, keepEnd bool) string {
	if textwidth.Of(s) <= n {
		return s
	}
	r := []rune(s)
	if keepEnd {
		for len(r) > 0 && textwidth.Of(string(r))+1 > n {
			r = r[1:]
		}
		return "…" + string(r)
	}
	for len(r) > 0 && textwidth.Of(string(r))+1 > n {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// terminalWidth is the width output to w should fit: $COLUMNS when set,
// else the terminal's when w is one; 0 (no limit) for a file or a pipe, so
// that scripts get every character.
func terminalWidth(w io.Writer, getenv func(string) string) int {
	if n, err := strconv.Atoi(getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if n, _, err := term.GetSize(int(f.Fd())); err == nil && n > 0 {
			return n
		}
	}
	return 0
}
