// Package atomicfile is the one place that knows how benchledger writes an
// output file: whole or not at all, with the mode DESIGN.md settles (0644
// under the user's umask).
//
// A single output (a report page, a CSV table, a workbook, a trace) goes
// through Write, WriteFrom or WriteWith: the data goes to a temporary file
// in the same folder, is synced to disk, and the file is renamed over the
// target, so a reader, a crash or a failed export never leaves half a file
// and an existing file stays as it was until the new one is complete.
//
// A build of many files (the site's pages, a generated campaign) goes
// through a Batch, which skips the per-file sync and, for a new file, the
// rename: see Batch for why that is safe there and what it saves.
package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// Perm is the mode every output is created with, which the umask narrows
// as it does os.Create's: 0644 under the usual umask of 022, 0600 under
// 077. It is DESIGN.md's 0644 rather than os.Create's 0666, so a umask of
// 002 does not make outputs group-writable.
const Perm fs.FileMode = 0o644

// Write replaces path with data. The folder must exist.
func Write(path string, data []byte) error {
	return WriteWith(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFrom replaces path with everything r gives; when r fails, path is
// left as it was and r's error is returned.
func WriteFrom(path string, r io.Reader) error {
	return WriteWith(path, func(w io.Writer) error {
		_, err := io.Copy(w, r)
		return err
	})
}

// WriteWith replaces path with what fill writes (fill buffers as it needs:
// w is the file itself). When fill fails, path is left as it was, no
// temporary file remains, and fill's error is returned as it is.
func WriteWith(path string, fill func(w io.Writer) error) error {
	return replace(path, fill, true)
}

// replace writes through a temporary file beside path and renames it over
// path; sync makes the data durable before the rename.
func replace(path string, fill func(w io.Writer) error, sync bool) (err error) {
	f, err := createTemp(path)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := fill(f); err != nil {
		return err
	}
	if sync {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// createTemp creates a new file beside path, named .<name>.tmp-<random>
// (hidden, and plainly not an output), with Perm under the umask. It is
// not os.CreateTemp, which creates 0600 whatever the umask: a chmod after
// it could only set a fixed mode, and the umask cannot be read without
// changing it for the whole process.
func createTemp(path string) (*os.File, error) {
	prefix := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	for try := 0; ; try++ {
		name := prefix + strconv.FormatUint(uint64(rand.Uint32()), 10)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, Perm)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return f, err
	}
}

// Batch writes the many files of one build into a folder tree: the site's
// pages (10,000 runs make over 10,000 files) and the demo's generated
// campaign. Every file has Perm under the umask, as from Write, and a
// reader never sees half of a file that was there before; but nothing is
// synced, and a file that was not there is written in place. A sync per
// file would cost more than making the page, and a new file has no reader
// yet. A build is made again from its sources: an interrupted one is
// finished by the next (the site's manifest, written last, vouches only
// for what was complete), and after a crash of the machine a site is
// rebuilt with site --force.
type Batch struct {
	// Fresh says the tree was empty when the build began: no file can be
	// there already, so none is read to compare, and each is created in
	// place.
	Fresh bool
}

// Write puts data at path, creating its folder, unless the file there
// already holds these bytes; it reports whether it wrote. An existing file
// with other bytes is replaced whole.
func (b Batch) Write(path string, data []byte) (wrote bool, err error) {
	if !b.Fresh {
		old, err := os.ReadFile(path)
		switch {
		case err == nil && bytes.Equal(old, data):
			return false, nil
		case err == nil:
			// A page a reader may have open is replaced whole.
			return true, b.replace(path, func(w io.Writer) error {
				_, err := w.Write(data)
				return err
			})
		case !errors.Is(err, fs.ErrNotExist):
			return false, err
		}
	}
	err = createFile(path, data)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			err = createFile(path, data)
		}
	}
	return err == nil, err
}

// WriteFrom replaces path, creating its folder, with everything r gives,
// through a temporary file: when r fails (a damaged blob), nothing is left
// at path that was not there before, and r's error is returned as it is.
func (b Batch) WriteFrom(path string, r io.Reader) error {
	return b.replace(path, func(w io.Writer) error {
		_, err := io.Copy(w, r)
		return err
	})
}

func (Batch) replace(path string, fill func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return replace(path, fill, false)
}
