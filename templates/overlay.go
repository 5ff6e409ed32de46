package templates

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Report is the report's and the audit page's templates (FS) with the
// files of the folder dir in front (report --templates DIR); dir "" is FS.
func Report(dir string) fs.FS { return Overlay(FS, dir) }

// SiteFiles is the site's templates and static files (Site, without its
// site/ folder) with the files of the folder dir in front (site
// --templates DIR); dir "" is the embedded set.
func SiteFiles(dir string) fs.FS {
	sub, err := fs.Sub(Site, "site")
	if err != nil {
		panic(err) // a constant, valid name
	}
	return Overlay(sub, dir)
}

// Overlay layers the folder dir over base: a file dir has is read from
// dir, any other from base, and a folder lists the names of both. So a
// user replaces one template and the others stay the embedded ones; html
// and text/template's ParseFS read it like any fs.FS. A file in dir that
// is there but cannot be opened is an error naming its path, never a
// silent fall back to base. dir "" gives base itself.
func Overlay(base fs.FS, dir string) fs.FS {
	if dir == "" {
		return base
	}
	return &overlay{dir: dir, top: os.DirFS(dir), base: base}
}

type overlay struct {
	dir       string
	top, base fs.FS
}

func (o *overlay) Open(name string) (fs.File, error) {
	f, err := o.top.Open(name)
	switch {
	case err == nil:
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return &mergedDir{File: f, fsys: o, name: name}, nil
		}
		return f, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, o.where(err, name)
	}
	f, err = o.base.Open(name)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return &mergedDir{File: f, fsys: o, name: name}, nil
	}
	return f, nil
}

// ReadFile is the file from dir when dir has it, else from base.
func (o *overlay) ReadFile(name string) ([]byte, error) {
	data, err := fs.ReadFile(o.top, name)
	switch {
	case err == nil:
		return data, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, o.where(err, name)
	}
	return fs.ReadFile(o.base, name)
}

// ReadDir lists the folder's entries in both, dir's where both have a
// name, sorted by name.
func (o *overlay) ReadDir(name string) ([]fs.DirEntry, error) {
	top, terr := fs.ReadDir(o.top, name)
	if terr != nil && !errors.Is(terr, fs.ErrNotExist) {
		return nil, o.where(terr, name)
	}
	base, berr := fs.ReadDir(o.base, name)
	if berr != nil && !errors.Is(berr, fs.ErrNotExist) {
		return nil, berr
	}
	if terr != nil && berr != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	seen := make(map[string]bool, len(top))
	for _, e := range top {
		seen[e.Name()] = true
	}
	out := top
	for _, e := range base {
		if !seen[e.Name()] {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// where makes an error from dir name the file's path in the user's folder
// (os.DirFS names it relative to the folder).
func (o *overlay) where(err error, name string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &fs.PathError{Op: pe.Op, Path: filepath.Join(o.dir, filepath.FromSlash(name)), Err: pe.Err}
	}
	return err
}

// mergedDir is a folder of the overlay opened as a file: its entries are
// the overlay's.
type mergedDir struct {
	fs.File
	fsys    *overlay
	name    string
	entries []fs.DirEntry
	read    bool
}

func (d *mergedDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if !d.read {
		entries, err := d.fsys.ReadDir(d.name)
		if err != nil {
			return nil, err
		}
		d.entries, d.read = entries, true
	}
	if n <= 0 {
		out := d.entries
		d.entries = nil
		return out, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.entries))
	out := d.entries[:n:n]
	d.entries = d.entries[n:]
	return out, nil
}
