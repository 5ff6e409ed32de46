package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSiteRebuildAsFullBuild: the pages a rebuild makes for a few runs,
// each run's history and companion files read on its own, are the bytes a
// full build makes for them, with the whole archive's read in one pass (as
// for 32 runs or more): after one new run, the rebuilt site and a --force
// build into another folder are the same, file for file, but for the
// build record.
func TestSiteRebuildAsFullBuild(t *testing.T) {
	t.Parallel()
	db, _ := smallDemoArchive(t)
	out, full := filepath.Join(t.TempDir(), "site"), filepath.Join(t.TempDir(), "full")
	site := func(dir string, extra ...string) string {
		t.Helper()
		r := bl(t, append([]string{"site", "--db", db, "--out", dir, "--lang", "en,ja"}, extra...)...)
		if r.code != 0 {
			t.Fatal(r)
		}
		return r.stderr
	}
	site(out)
	dir := t.TempDir()
	writeVLLM(t, filepath.Join(dir, "extra.json"), vllmSpec{n: 20, seed: 7})
	if r := bl(t, "ingest", "--db", db, "--set", "campaign=extra", filepath.Join(dir, "extra.json")); r.code != 0 {
		t.Fatal(r)
	}
	ids := strings.Fields(bl(t, "runs", "--db", db, "-q").stdout)
	if len(ids) < 33 {
		t.Fatalf("%d runs: a --force build of fewer than 32 does not read them in one pass", len(ids))
	}
	newID := strings.TrimSpace(bl(t, "runs", "--db", db, "--campaign", "extra", "-q").stdout)
	if got := site(out); !strings.Contains(got, "(1 made again)") {
		t.Fatalf("the rebuild: %s", got)
	}
	site(full, "--force")
	read := func(root string) map[string][]byte {
		t.Helper()
		files := map[string][]byte{}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() == ".benchledger-site.json" {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			files[filepath.ToSlash(rel)], err = os.ReadFile(path)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	rebuilt, made := read(out), read(full)
	if len(rebuilt) != len(made) {
		t.Errorf("the rebuilt site has %d files, the full build %d", len(rebuilt), len(made))
	}
	for f, data := range made {
		if !bytes.Equal(rebuilt[f], data) {
			t.Errorf("%s differs between the rebuilt site and a full build", f)
		}
	}
	if page := string(made["en/run/"+newID+".html"]); !strings.Contains(page, `<table class="history">`) || !strings.Contains(page, "ingest") {
		t.Error("the new run's page shows no history")
	}
}
