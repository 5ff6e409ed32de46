// Command benchledger archives LLM inference-serving benchmark results with
// their provenance and turns them into audited case studies.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
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
	// BENCHLEDGER_TRACE=FILE writes an execution trace (go tool trace):
	// which goroutine waited for what, where a profile shows only CPU.
	if path := os.Getenv("BENCHLEDGER_TRACE"); path != "" {
		if f, err := os.Create(path); err == nil {
			trace.Start(f)
			defer trace.Stop()
		}
	}
	// BENCHLEDGER_MEMPROFILE=FILE writes where memory was allocated.
	memProfile := os.Getenv("BENCHLEDGER_MEMPROFILE")
	if memProfile != "" {
		runtime.MemProfileRate = 64 << 10
	}
	gc := tuneGC(os.Args[1:], os.Getenv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, gc: gc})
	stop()
	if memProfile != "" {
		if f, err := os.Create(memProfile); err == nil {
			pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
	}
	if code != 0 {
		pprof.StopCPUProfile()
		trace.Stop()
		os.Exit(code)
	}
}
