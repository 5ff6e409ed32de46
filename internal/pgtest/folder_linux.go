package pgtest

import "syscall"

// ramFolder is where a test server's folder goes when the machine has room
// there: in memory, not on disk. A test server creates and drops a
// database for each test (each some hundreds of files), and on a large ext4
// file system creating a file after so many deletions costs the kernel a
// search of its inode bitmaps: in make test that was 12 CPU-seconds of the
// server's 25.
const ramFolder = "/dev/shm"

// ramFolderRoom is the free space ramFolder must have (a test server's
// folder holds some tens of megabytes; a container's /dev/shm may have 64).
const ramFolderRoom = 1 << 30

// folderRoot is the folder a server's temporary folder is made in: a
// durable server's (make bench) is on disk, like a team's, and so is a test
// server's when ramFolder is missing, not in memory or short of room.
func folderRoot(durable bool) string {
	if durable {
		return ""
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs(ramFolder, &fs); err != nil || fs.Type != tmpfsMagic || fs.Bavail*uint64(fs.Bsize) < ramFolderRoom {
		return ""
	}
	if syscall.Access(ramFolder, 2|1) != nil { // W_OK|X_OK
		return ""
	}
	return ramFolder
}

// tmpfsMagic is a tmpfs's type in statfs (linux/magic.h).
const tmpfsMagic = 0x01021994
