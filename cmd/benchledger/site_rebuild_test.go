package main

import (
	"bytes"
	"database/sql"
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
	rebuilt, made := siteFiles(t, out), siteFiles(t, full)
	sameSite(t, "the rebuilt site", rebuilt, "a full build", made)
	if page := string(made["en/run/"+newID+".html"]); !strings.Contains(page, `<table class="history">`) || !strings.Contains(page, "ingest") {
		t.Error("the new run's page shows no history")
	}
}

// siteFiles reads every file of a built site but its build record, by
// slash-separated path.
func siteFiles(t *testing.T, root string) map[string][]byte {
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

// sameSite fails unless two sites (siteFiles) hold the same files with the
// same bytes.
func sameSite(t *testing.T, nameA string, a map[string][]byte, nameB string, b map[string][]byte) {
	t.Helper()
	if len(a) != len(b) {
		t.Errorf("%s has %d files, %s %d", nameA, len(a), nameB, len(b))
	}
	for f, data := range b {
		if !bytes.Equal(a[f], data) {
			t.Errorf("%s differs between %s and %s", f, nameA, nameB)
		}
	}
}

// TestSiteSameWithoutRequestPacks: the site reads each run's records from
// its pack (request_packs) and makes the same bytes as from the rows, which
// it reads for a run without one (archived before packs).
func TestSiteSameWithoutRequestPacks(t *testing.T) {
	t.Parallel()
	db, _ := smallDemoArchive(t)
	build := func() map[string][]byte {
		t.Helper()
		out := filepath.Join(t.TempDir(), "site")
		if r := bl(t, "site", "--db", db, "--out", out, "--lang", "en,zh"); r.code != 0 {
			t.Fatal(r)
		}
		return siteFiles(t, out)
	}
	withPacks := build()
	raw, err := sql.Open("sqlite3", "file:"+db+"?mode=rw")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	res, err := raw.Exec("DELETE FROM request_packs")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n < 32 {
		t.Fatalf("the archive held %d packs; the test wants the site's one pass over 32 runs or more", n)
	}
	sameSite(t, "the site from the packs", withPacks, "the site from the rows", build())
}
