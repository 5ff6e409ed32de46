// Package textwidth measures text as a terminal or a spreadsheet column
// shows it: East Asian wide and full-width characters take two cells.
package textwidth

import "golang.org/x/text/width"

// Of is the number of cells s takes.
func Of(s string) int {
	n := 0
	for _, r := range s {
		switch width.LookupRune(r).Kind() {
		case width.EastAsianWide, width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}
