package textread_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/textread"
)

// TestBlock: the walk every console format shares: blank lines skipped,
// rules give sections, labels normalised, other lines kept with a note,
// a figure stated twice refused at its line, the walk stopped there.
func TestBlock(t *testing.T) {
	t.Parallel()
	var lines []textread.Line
	for i, s := range []string{"  Successful   requests:  12 ", "", "---Time to First Token---", "Mean TTFT (ms): 1.5", "stray text", "Successful requests: 3", "After: 1"} {
		lines = append(lines, textread.Line{N: i + 1, Text: s})
	}
	var got []string
	extra, notes, seen := map[string]string{}, []string{}, map[string]int{}
	section := ""
	err := textread.Block(lines, func(title string) { section = title }, func(l textread.Labelled) *format.InputError {
		got = append(got, fmt.Sprintf("%d %q %q %q", l.N, section, l.Label, l.Val))
		return textread.Once("f.txt", seen, strings.ToLower(l.Label), l)
	}, textread.Keep(extra, &notes))
	want := []string{`1 "" "Successful requests" "12"`, `4 "Time to First Token" "Mean TTFT (ms)" "1.5"`, `6 "Time to First Token" "Successful requests" "3"`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("labels %q\nwant   %q", got, want)
	}
	var ie *format.InputError
	if !errors.As(err, &ie) || ie.Place != "line 6" || ie.Reason != `"Successful requests" stated twice in one block (first at line 1)` {
		t.Errorf("err %v", err)
	}
	if extra["line 5"] != "stray text" || len(notes) != 1 || notes[0] != textread.NotLabelled(5) {
		t.Errorf("extra %v notes %q", extra, notes)
	}
}
