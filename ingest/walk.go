package ingest

// The walk: which paths of the command line are files to ingest, and
// what is said about the others (skipped, refused, reported links).

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// candidate is a file to ingest; walked files may be skipped, named ones not.
type candidate struct {
	path   string
	walked bool
}

func collect(paths []string, report func(Outcome)) ([]candidate, error) {
	var out []candidate
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			report(Outcome{Status: StatusRejected, File: p, Reason: plainIOError(err)})
			continue
		}
		if !st.IsDir() {
			if !st.Mode().IsRegular() {
				// A named pipe would block the read forever, a device
				// never end: only regular files are results.
				report(Outcome{Status: StatusRejected, File: p, Reason: "not a regular file (" + kindOf(st.Mode()) + "): only regular files are read"})
				continue
			}
			out = append(out, candidate{path: p})
			continue
		}
		// A folder named through a symbolic link ("results" -> /mnt/x,
		// no trailing slash) is walked where it leads: it was named.
		root := p
		if lst, err := os.Lstat(p); err == nil && lst.Mode()&fs.ModeSymlink != 0 {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				root = real
			}
		}
		var found []candidate
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if root != p {
				path = filepath.Join(p, strings.TrimPrefix(path, root))
			}
			if err != nil {
				report(Outcome{Status: StatusRejected, File: path, Reason: plainIOError(err)})
				return nil
			}
			name := d.Name()
			if path != p && strings.HasPrefix(name, ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			switch t := d.Type(); {
			case t.IsRegular():
				found = append(found, candidate{path: path, walked: true})
			case t&fs.ModeSymlink != 0:
				// Links met while walking are not followed (a link to
				// "/" or a loop), but said: name the target to ingest it.
				target, _ := os.Readlink(path)
				report(Outcome{Status: StatusSkipped, File: path, Reason: "a symbolic link (to " + target + "), not followed while walking; name it on the command line to ingest what it leads to"})
			case !t.IsDir():
				report(Outcome{Status: StatusSkipped, File: path, Reason: "not a regular file (" + kindOf(t) + ")"})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Slice(found, func(i, j int) bool { return found[i].path < found[j].path })
		out = append(out, found...)
	}
	return out, nil
}

// kindOf names a file type that is not a regular file.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a folder"
	}
	return "not a regular file"
}

func plainIOError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
