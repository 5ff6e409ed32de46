package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGoldenMistakes pins the console output of runs, show and audit on the
// known-mistakes campaign (testdata/mistakes) to the golden files
// testdata/*.mistakes.stdout: a change in what a person reads is a reviewed
// diff. The campaign folder and the ingest times are masked.
func TestGoldenMistakes(t *testing.T) {
	t.Parallel()
	db, specPath := mistakesCampaign(t)
	dirs := map[string]string{"$CAMPAIGN": filepath.Dir(specPath)}
	get := func(args ...string) string {
		t.Helper()
		r := bl(t, args...)
		if r.code != 0 && r.code != exitProblems {
			t.Fatal(r)
		}
		return stable(r.stdout, dirs)
	}
	checkGolden(t, "runs.mistakes.stdout", get("runs", "--db", db))
	var shows strings.Builder
	for _, id := range strings.Fields(get("runs", "--db", db, "-q")) {
		shows.WriteString(get("show", "--db", db, id) + "\n")
	}
	checkGolden(t, "show.mistakes.stdout", shows.String())
	checkGolden(t, "audit.mistakes.stdout", get("audit", "--db", db, "--as-of", "2026-11-29", specPath))
}

// TestGoldenHelp pins every command's --help (flags, defaults, the audit's
// check table made from audit.Checks) to testdata/help/COMMAND.txt.
func TestGoldenHelp(t *testing.T) {
	t.Parallel()
	for _, c := range commandTable() {
		r := bl(t, c.name, "--help")
		if r.code != 0 || r.stderr != "" {
			t.Errorf("%s --help: the help goes to stdout, exit 0: %v", c.name, r)
		}
		checkGolden(t, filepath.Join("help", c.name+".txt"), r.stdout)
	}
	r := bl(t, "--help")
	if r.code != 0 {
		t.Errorf("--help: %v", r)
	}
	checkGolden(t, filepath.Join("help", "benchledger.txt"), r.stdout)
}
