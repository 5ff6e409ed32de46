package pgtest

import (
	"os"
	"syscall"
)

func ownerOf(st os.FileInfo) (uid, gid int) {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return int(s.Uid), int(s.Gid)
	}
	return os.Getuid(), os.Getgid()
}
