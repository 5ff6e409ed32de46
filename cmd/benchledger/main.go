// Command benchledger archives LLM inference-serving benchmark results with
// their provenance and turns them into audited case studies.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
)

func main() {
	// BENCHLEDGER_CPUPROFILE=FILE writes a CPU profile, for speed work.
	if path := os.Getenv("BENCHLEDGER_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv})
	stop()
	if code != 0 {
		pprof.StopCPUProfile()
		os.Exit(code)
	}
}
