//go:build linux && cgo

package store

/*
#include <malloc.h>

static void limitArenas(int n) {
#ifdef M_ARENA_MAX
	mallopt(M_ARENA_MAX, n);
#endif
}
*/
import "C"

// mallocArenas bounds glibc's malloc arenas. SQLite allocates through
// malloc (a blob chunk bound for insert is copied into a buffer of its
// size, about 2 MB with the 4 MiB chunks of the time this was measured),
// and glibc gives each thread that calls it an arena of
// its own, up to eight per core, keeping what is freed in each: cgo calls
// run on whichever thread the goroutine is on, so an ingest of a 950 MB file
// held some 20 MB more of freed buffers that way (151 MB peak instead of
// 132 MB with two arenas, on two cores). Two arenas still spare the writer
// and a reader from waiting on each other.
const mallocArenas = 2

func init() { C.limitArenas(mallocArenas) }
