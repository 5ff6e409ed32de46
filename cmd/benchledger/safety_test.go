package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// summaryOnlyArchive is a fresh archive holding one run (a trtllm-bench
// console report): the cheapest archive a site or report can be built from.
func summaryOnlyArchive(t *testing.T) (dir, db string) {
	t.Helper()
	dir = t.TempDir()
	db = filepath.Join(dir, "a.db")
	if r := bl(t, "ingest", "--db", db, filepath.Join("..", "..", "ingest", "format", "trtllm", "testdata", "console_pytorch_streaming.log")); r.code != 0 {
		t.Fatal(r)
	}
	return dir, db
}

// editSiteManifest rewrites a site's .benchledger-site.json through fn.
func editSiteManifest(t *testing.T, out string, fn func(m map[string]any)) {
	t.Helper()
	path := filepath.Join(out, ".benchledger-site.json")
	var m map[string]any
	if err := json.Unmarshal(readFileT(t, path), &m); err != nil {
		t.Fatal(err)
	}
	fn(m)
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSiteManifestNotTrusted (issue 17, hole 1): a rebuild removes only
// files inside --out that it can prove it wrote, and a forged cached row
// never reaches runs.html.
func TestSiteManifestNotTrusted(t *testing.T) {
	t.Parallel()
	dir, db := summaryOnlyArchive(t)
	out := filepath.Join(dir, "deep", "er", "site")
	build := func() result {
		t.Helper()
		r := bl(t, "site", "--db", db, "--out", out, "--lang", "en", "--raw=false")
		if r.code != 0 {
			t.Fatal(r)
		}
		return r
	}
	build()

	// A forged row: another model, publishable, under the row's old MAC.
	editSiteManifest(t, out, func(m map[string]any) {
		for _, run := range m["runs"].(map[string]any) {
			row := run.(map[string]any)["row"].(map[string]any)
			row["model"] = "FORGED-MODEL"
			row["publishable"] = true
			row["workload"] = "FORGED-WORKLOAD"
		}
	})
	build()
	runs := string(readFileT(t, filepath.Join(out, "en", "runs.html")))
	if strings.Contains(runs, "FORGED") || strings.Contains(runs, `data-publishable="yes"`) {
		t.Error("a row edited in the manifest reached runs.html")
	}

	// Files outside the folder: a victim beside it, and one reached through
	// a symbolic link planted inside it.
	victim := filepath.Join(dir, "victim")
	writeFile(t, filepath.Join(victim, "keep.txt"), "mine")
	if err := os.Symlink(victim, filepath.Join(out, "en", "link")); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{{"../../../victim/keep.txt"}, {"en/link/keep.txt"}, {filepath.Join(victim, "keep.txt")}} {
		editSiteManifest(t, out, func(m map[string]any) {
			m["files"] = append(m["files"].([]any), bad[0])
		})
		r := build()
		if _, err := os.Stat(filepath.Join(victim, "keep.txt")); err != nil {
			t.Fatalf("manifest naming %q: the file outside the site is gone: %v", bad[0], err)
		}
		if strings.HasPrefix(bad[0], "en/") {
			continue // a path inside, through a link: skipped, not refused
		}
		if !strings.Contains(r.stderr, "not a file inside the site's folder") {
			t.Errorf("manifest naming %q: no warning on stderr:\n%s", bad[0], r.stderr)
		}
	}
}

// TestReportNarrativeOutsideSpec (issue 17, hole 2): report and site refuse
// a spec whose narrative is a file outside its folder, and write nothing of
// it.
func TestReportNarrativeOutsideSpec(t *testing.T) {
	t.Parallel()
	d := sharedDemo(t)
	for _, target := range []string{"/proc/self/environ", "../../../../../../../../etc/passwd"} {
		specPath := demoSpecCopy(t)
		data := strings.Replace(string(readFileT(t, specPath)), "en: narrative/en.md", "en: "+target, 1)
		writeFile(t, specPath, data)
		out := t.TempDir()
		for _, args := range [][]string{
			{"report", specPath, "--db", d.db, "--draft", "--no-audit", "--lang", "en", "--format", "md", "--out", out},
			{"site", specPath, "--db", d.db, "--lang", "en", "--raw=false", "--out", filepath.Join(out, "site")},
		} {
			r := bl(t, args...)
			if r.code == 0 || !strings.Contains(r.stderr, "resolves outside the folder") {
				t.Errorf("%s with narrative %s: exit %d, want a refusal:\n%s", args[0], target, r.code, r.stderr)
			}
		}
		ents, _ := os.ReadDir(out)
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".md") {
				t.Errorf("narrative %s: %s written", target, e.Name())
			}
		}
	}
}
