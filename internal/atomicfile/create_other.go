//go:build !unix

package atomicfile

import "os"

// createFile writes data to a new file at path (truncating one that is
// there) with Perm under the umask.
func createFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, Perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
