package main

import (
	"runtime/debug"
	"testing"
)

// TestTuneGCSite: a site build runs with siteGCPercent unless $GOGC is
// set; another command (show) keeps Go's default. It changes the process's
// GOGC for a moment, and restores it.
func TestTuneGCSite(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	none := func(string) string { return "" }
	for _, c := range []struct {
		args   []string
		getenv func(string) string
		want   int
	}{
		{[]string{"site", "--out", "x"}, none, siteGCPercent},
		{[]string{"site", "--out", "x"}, func(k string) string { return map[string]string{"GOGC": "50"}[k] }, 100},
		{[]string{"show", "abc"}, none, 100},
		{nil, none, 100},
	} {
		debug.SetGCPercent(100)
		tuneGC(c.args, c.getenv)
		if got := debug.SetGCPercent(100); got != c.want {
			t.Errorf("%q: GOGC %d, want %d", c.args, got, c.want)
		}
	}
}
