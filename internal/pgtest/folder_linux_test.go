package pgtest

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// shmIsRoomyTmpfs reads /proc/mounts (not statfs, which folderRoot uses)
// for whether /dev/shm is a tmpfs, and statfs for its room.
func shmIsRoomyTmpfs(t *testing.T) bool {
	f, err := os.Open("/proc/mounts")
	if err != nil {
		t.Skipf("no /proc/mounts: %v", err)
	}
	defer f.Close()
	tmpfs := false
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if fields := strings.Fields(sc.Text()); len(fields) > 2 && fields[1] == ramFolder {
			tmpfs = fields[2] == "tmpfs"
		}
	}
	var fs syscall.Statfs_t
	return tmpfs && syscall.Statfs(ramFolder, &fs) == nil && fs.Bavail*uint64(fs.Bsize) >= ramFolderRoom
}

// TestServerFolderInMemory: a test server's folder is in /dev/shm when that
// is a tmpfs with room, and in the temporary folder otherwise; a durable
// server's (make bench) is always in the temporary folder.
func TestServerFolderInMemory(t *testing.T) {
	if err := Available(); err != nil {
		t.Skipf("PostgreSQL tests skipped: %v", err)
	}
	want := filepath.Clean(os.TempDir())
	if shmIsRoomyTmpfs(t) {
		want = ramFolder
	}
	if filepath.Dir(srv.dir) != want {
		t.Errorf("test server's folder %s is not in %s", srv.dir, want)
	}
	d, err := StartDurable()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Stop()
	if filepath.Dir(d.Dir()) != filepath.Clean(os.TempDir()) {
		t.Errorf("durable server's folder %s is not in the temporary folder %s", d.Dir(), os.TempDir())
	}
	if _, err := os.Stat(filepath.Join(d.Dir(), "data", "PG_VERSION")); err != nil {
		t.Errorf("durable server's data: %v", err)
	}
}

func TestMain(m *testing.M) { Main(m) }
