//go:build unix

package store

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system) the test process has used:
// a steadier measure than wall time on a shared machine.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
