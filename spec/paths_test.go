package spec

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNarrativeConfined (issue 17, hole 2): a narrative resolves inside the
// spec's folder; every other form is refused when the spec loads, with an
// error naming the file, unless --allow-dir names the folder it is in.
func TestNarrativeConfined(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.md")
	if err := os.WriteFile(secret, []byte("SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	up := strings.Repeat("../", 12) + "etc/passwd"
	cases := []struct {
		name, narrative string
		link            string // a symbolic link made in the spec's folder, to this
	}{
		{"absolute", "/etc/passwd", ""},
		{"dot-dot", up, ""},
		{"proc", "/proc/self/environ", ""},
		{"symlink out", "narrative/link.md", secret},
		{"symlinked folder out", "narrative/out/secret.md", outside},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir, path := textSpec(t, strings.Replace(texts, "narrative/zh.md", c.narrative, 1))
			if c.link != "" {
				link := filepath.Join(dir, "narrative", "link.md")
				if strings.HasSuffix(c.narrative, "/out/secret.md") {
					link = filepath.Join(dir, "narrative", "out")
				}
				if err := os.Symlink(c.link, link); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Load(path)
			if err == nil || !strings.Contains(err.Error(), "resolves outside the folder") || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "--allow-dir") {
				t.Fatalf("narrative %q: error %v, want one naming the spec and saying the file is outside its folder", c.narrative, err)
			}
			if c.link == "" {
				return
			}
			// The folder the link leads to, allowed by name.
			s, err := LoadWith(path, LoadOptions{AllowDirs: []string{outside}})
			if err != nil {
				t.Fatalf("with --allow-dir %s: %v", outside, err)
			}
			if _, data, err := s.ReadNarrative("zh"); err != nil || string(data) != "SECRET" {
				t.Errorf("ReadNarrative with the folder allowed = %q, %v", data, err)
			}
		})
	}

	// A spec that loaded, whose narrative became a link elsewhere since:
	// the read refuses it too.
	dir, path := textSpec(t, texts)
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	nar := filepath.Join(dir, "narrative", "zh.md")
	if err := os.Remove(nar); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", nar); err != nil {
		t.Fatal(err)
	}
	if _, data, err := s.ReadNarrative("zh"); !errors.Is(err, ErrOutsideFolder) || data != nil {
		t.Errorf("ReadNarrative of a link to /etc/passwd = %d bytes, %v", len(data), err)
	}
}
