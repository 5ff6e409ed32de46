package spec

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutsideFolder: a file a spec names does not resolve inside the spec's
// folder (or a folder LoadOptions.AllowDirs names).
var ErrOutsideFolder = errors.New("outside the spec's folder")

// LoadOptions say how a spec is loaded.
type LoadOptions struct {
	// AllowDirs are folders, besides the spec's own, that the files it
	// names may resolve into (benchledger --allow-dir).
	AllowDirs []string
}

// ReadNarrative returns the narrative file for lang, resolved inside the
// spec's folder: see Confined. It returns nil data and no error when the
// spec has no narrative for lang.
func (s *Spec) ReadNarrative(lang string) (path string, data []byte, err error) {
	rel := s.Narrative[lang]
	if rel == "" {
		return "", nil, nil
	}
	path, err = s.confined(rel)
	if err != nil {
		return path, nil, fmt.Errorf("narrative.%s: %w", lang, err)
	}
	data, err = os.ReadFile(path)
	if err != nil {
		return path, nil, fmt.Errorf("narrative.%s: %w", lang, err)
	}
	return path, data, nil
}

func (s *Spec) confined(rel string) (string, error) {
	return Confined(filepath.Dir(s.Path), rel, s.allowDirs)
}

// Confined resolves rel, a file a spec or manifest in folder dir names, and
// refuses it unless it is a regular file inside dir or one of allow, with
// symbolic links resolved: an absolute path, a "..", or a link leading
// elsewhere (/etc/passwd, /proc/self/environ) is an error naming the file
// and the folder it had to be in. The result is the file's absolute path
// with links resolved.
func Confined(dir, rel string, allow []string) (string, error) {
	roots := make([]string, 0, 1+len(allow))
	for _, d := range append([]string{dir}, allow...) {
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", err
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		roots = append(roots, abs)
	}
	p := rel
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, rel)
	}
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return p, fmt.Errorf("%s: %w", rel, err)
	}
	inside := false
	for _, r := range roots {
		if within(r, real) {
			inside = true
			break
		}
	}
	if !inside {
		how := ""
		if real != p {
			how = " (through a symbolic link, to " + real + ")"
		}
		return p, fmt.Errorf("%s resolves outside the folder %s%s: a spec's files resolve inside its folder (--allow-dir DIR allows another): %w", rel, roots[0], how, ErrOutsideFolder)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return real, fmt.Errorf("%s: %w", rel, err)
	}
	if !fi.Mode().IsRegular() {
		return real, fmt.Errorf("%s is not a regular file (%s): %w", rel, fi.Mode().Type(), fs.ErrInvalid)
	}
	return real, nil
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
