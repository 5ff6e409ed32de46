package site

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestFilesExistChecksEachFolderOnce: filesExist looks at a folder on the
// way to many files, and a file many runs name (a data shard), once per
// build (10,000 run pages share en/run), and a folder that is a symbolic
// link is refused all the same, whether it is met first or after folders
// already checked.
func TestFilesExistChecksEachFolderOnce(t *testing.T) {
	t.Parallel()
	out, elsewhere := t.TempDir(), t.TempDir()
	for _, f := range []string{"en/run/a.html", "en/run/b.html", "en/index.html"} {
		p := filepath.Join(out, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(elsewhere, "c.html"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(out, "en", "link")); err != nil {
		t.Fatal(err)
	}
	b := &builder{out: out}
	if !b.filesExist([]string{"en/run/a.html", "en/run/b.html", "en/index.html"}) {
		t.Fatal("files that are there are not found")
	}
	if got := len(b.checked); got != 5 || !b.checked["en"] || !b.checked["en/run"] || !b.checked["en/run/a.html"] {
		t.Errorf("checked: %v, want en, en/run and the three files", b.checked)
	}
	for _, f := range []string{"en/link/c.html", "en/run/missing.html", "en/run/a.html/x"} {
		if b.filesExist([]string{f}) {
			t.Errorf("%s counted as a file of the site", f)
		}
	}
	if b.checked["en/link"] || b.checked["en/link/c.html"] {
		t.Error("a symbolic link was noted as a checked folder")
	}
	// With the folders noted, a link planted at a file's place is still
	// refused (the file itself is always looked at).
	if _, err := lstatInsideDirs(out, "en/link", b.checked); !errors.Is(err, errSymlink) {
		t.Errorf("the link itself: %v, want errSymlink", err)
	}
	if _, err := lstatInside(out, "en/link/c.html"); !errors.Is(err, errSymlink) {
		t.Errorf("without noted folders: %v, want errSymlink", err)
	}
}
