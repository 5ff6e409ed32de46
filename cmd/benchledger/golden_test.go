package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/internal/pgtest"
)

// archiveEngines are the databases an archive can live on. The archive-level
// tests that must hold on both run once per engine from this one table
// (DESIGN.md: PostgreSQL gives the same commands the same guarantees).
var archiveEngines = []struct {
	name string
	// newArchive names a new, empty archive: a file that does not exist
	// yet, or an empty PostgreSQL database (skipped where no server can be
	// started).
	newArchive func(t *testing.T) string
}{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "mistakes.db") }},
	{"postgres", func(t *testing.T) string { return pgtest.NewDatabase(t) }},
}

// TestGoldenMistakes pins the console output of runs, show and audit on the
// known-mistakes campaign (testdata/mistakes) to the golden files
// testdata/*.mistakes.stdout: a change in what a person reads is a reviewed
// diff. On every engine the output is the same golden. Then a report, a CSV
// export and the site are made from each engine's archive: byte for byte
// the same files. The campaign folder, the archive and ingest times are
// masked.
func TestGoldenMistakes(t *testing.T) {
	t.Parallel()
	outputs := make([]map[string][]byte, len(archiveEngines))
	for i, e := range archiveEngines {
		t.Run(e.name, func(t *testing.T) {
			db := e.newArchive(t)
			specPath := mistakesCampaignIn(t, db)
			dirs := map[string]string{"$CAMPAIGN": filepath.Dir(specPath), "$ARCHIVE": db}
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

			out := t.TempDir()
			for _, args := range [][]string{
				{"report", "--as-of", "2026-11-29", "--lang", "en,ja", "--format", "html,md", "--out", filepath.Join(out, "report"), specPath},
				{"export", "--as-of", "2026-11-29", "--csv", filepath.Join(out, "csv"), specPath},
				{"site", "--as-of", "2026-11-29", "--lang", "en,ja", "--out", filepath.Join(out, "site"), specPath},
			} {
				get(append(args[:1:1], append([]string{"--db", db}, args[1:]...)...)...)
			}
			outputs[i] = treeBytes(t, out, dirs)
		})
	}
	first := outputs[0]
	if len(first) < 5 {
		t.Fatalf("%s made only %d files", archiveEngines[0].name, len(first))
	}
	for i, got := range outputs[1:] {
		if got == nil { // skipped: no server
			continue
		}
		name := archiveEngines[i+1].name
		for f, b := range first {
			if g, ok := got[f]; !ok {
				t.Errorf("%s: %s was not made", name, f)
			} else if !bytes.Equal(g, b) {
				t.Errorf("%s: %s differs from %s's (%d vs %d bytes)", name, f, archiveEngines[0].name, len(g), len(b))
			}
		}
		for f := range got {
			if _, ok := first[f]; !ok {
				t.Errorf("%s: %s made only there", name, f)
			}
		}
	}
}

// ingestTimeRE is an ingest or export time as the CSV export writes it (to
// the second, or the cover's to the minute): two archives ingest the same
// files, and are exported, at different times.
var ingestTimeRE = regexp.MustCompile(`\b20\d\d-\d\d-\d\d \d\d:\d\d(:\d\d)?\b`)

// treeBytes reads every file under dir, by path relative to dir, with the
// masks of stable and ingest times masked. The site's build cache is left
// out: its rows are signed with the archive's own key (store.SiteKey).
func treeBytes(t *testing.T, dir string, masks map[string]string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || e.Name() == ".benchledger-site.json" {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[rel] = []byte(ingestTimeRE.ReplaceAllString(stable(string(b), masks), "INGESTED"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
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
