//go:build unix

package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestModeUnderUmask: every way of writing gives Perm under the umask, as
// os.Create does (DESIGN.md: outputs are created 0644 under the user's
// umask). It changes the process's umask, so it runs alone (not parallel).
func TestModeUnderUmask(t *testing.T) {
	for _, tc := range []struct {
		umask int
		want  fs.FileMode
	}{
		{0o022, 0o644},
		{0o077, 0o600},
		{0o002, 0o644},
		{0o000, 0o644},
	} {
		old := syscall.Umask(tc.umask)
		dir := t.TempDir()
		writes := map[string]func(p string) error{
			"Write":     func(p string) error { return Write(p, []byte("x")) },
			"WriteFrom": func(p string) error { return WriteFrom(p, strings.NewReader("x")) },
			"Write over an older file": func(p string) error {
				if err := os.WriteFile(p, []byte("old"), 0o666); err != nil {
					return err
				}
				return Write(p, []byte("x"))
			},
			"Batch.Write fresh": func(p string) error { _, err := Batch{Fresh: true}.Write(p, []byte("x")); return err },
			"Batch.Write new":   func(p string) error { _, err := Batch{}.Write(p, []byte("x")); return err },
			"Batch.Write over an older file": func(p string) error {
				if err := os.WriteFile(p, []byte("old"), 0o666); err != nil {
					return err
				}
				_, err := Batch{}.Write(p, []byte("x"))
				return err
			},
			"Batch.WriteFrom": func(p string) error { return Batch{}.WriteFrom(p, strings.NewReader("x")) },
		}
		i := 0
		for name, write := range writes {
			i++
			p := filepath.Join(dir, "f"+string(rune('a'+i)))
			err := write(p)
			fi, serr := os.Stat(p)
			if err != nil || serr != nil {
				t.Errorf("umask %03o, %s: %v %v", tc.umask, name, err, serr)
				continue
			}
			if got := fi.Mode().Perm(); got != tc.want {
				t.Errorf("umask %03o, %s: mode %v, want %v", tc.umask, name, got, tc.want)
			}
		}
		syscall.Umask(old)
	}
}
