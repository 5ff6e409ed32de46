// Package ingest turns raw benchmark result files into benchrun.Runs: format
// detection, one parser per source format, and the batch pipeline that walks
// folders, applies provenance manifests and hands runs to the store.
package ingest

import (
	"context"
	"fmt"
	"io"

	"github.com/benchledger/benchledger/benchrun"
)

// HeadSize is how much of a file detection looks at.
const HeadSize = 64 << 10

// Parser reads one raw format.
type Parser interface {
	// ID is the stable format id shown to users and stored with each run
	// ("vllm-serve-json").
	ID() string
	// Describe is a short human description ("vllm bench serve JSON result").
	Describe() string
	// Sniff reports whether a file with this base name and these first bytes
	// (at most HeadSize; less for a short file) looks like this format.
	Sniff(name string, head []byte) bool
	// Parse reads the whole file and calls emit once per run, in file order.
	// It returns an *InputError naming the place for bad input, or emit's
	// error unchanged. It must never panic, whatever the bytes.
	Parse(ctx context.Context, name string, r io.Reader, emit func(*benchrun.Run) error) error
}

// InputError is bad input: which file, where in it, and why. Every parser
// rejection is one of these, so the command can print one clear line.
type InputError struct {
	File   string // path as the user named it
	Place  string // "byte 1234 (line 1)", "key \"ttfts\" item 17", "line 9"
	Reason string
	Err    error // underlying cause, if any
}

func (e *InputError) Error() string {
	s := e.File
	if e.Place != "" {
		s += ": " + e.Place
	}
	return s + ": " + e.Reason
}

func (e *InputError) Unwrap() error { return e.Err }

// Errorf builds an InputError for file at place.
func Errorf(file, place, format string, args ...any) *InputError {
	return &InputError{File: file, Place: place, Reason: fmt.Sprintf(format, args...)}
}
