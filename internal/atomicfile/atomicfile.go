// Package atomicfile replaces a file whole: the data goes to a temporary
// file in the same folder, which is then renamed over the target, so a
// reader (or an interrupted run) never sees half a file. Reports, the site
// and the demo campaign's generator write their files through it.
package atomicfile

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
)

// Write replaces path with data, readable by all (0644). The folder must
// exist.
func Write(path string, data []byte) error {
	return WriteFrom(path, bytes.NewReader(data))
}

// WriteFrom replaces path with everything r gives; when r fails, path is
// left as it was and r's error is returned.
func WriteFrom(path string, r io.Reader) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, werr := io.Copy(tmp, r)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
	}
	return werr
}
