package main

import (
	"errors"
	"fmt"

	"github.com/benchledger/benchledger/internal/escape"
	"github.com/benchledger/benchledger/store"
)

// sayNotices prints on stderr what opening the archive for writing
// repaired (a dropped append-only trigger re-created) or started (the
// hash chain of an older archive).
func sayNotices(e env, a *store.Archive) {
	if a == nil {
		return
	}
	for _, n := range a.Notices() {
		fmt.Fprintf(e.stderr, "warning: %s\n", n)
	}
}

// writing are the store options of a command that writes to an archive:
// it says on stderr, before the wait, that an older archive is being
// upgraded.
func writing(e env, opt store.Options) store.Options {
	opt.OnUpgrade = func(archive string, from, to int) {
		fmt.Fprintf(e.stderr, "note: upgrading %s from archive schema version %d to %d\n", escape.Terminal(archive), from, to)
	}
	return waiting(e, opt)
}

// waiting are store options that say on stderr why opening the archive
// waits: another benchledger is writing a large file into it.
func waiting(e env, opt store.Options) store.Options {
	opt.OnBusy = func(archive string) {
		fmt.Fprintf(e.stderr, "note: waiting for another benchledger to finish writing a large file into %s\n", escape.Terminal(archive))
	}
	return opt
}

// openForReading opens the archive read-only. An archive written by an older
// benchledger is upgraded first when the file is writable (reading commands
// then work across upgrades), and one whose direct write was interrupted is
// rolled back (store.ErrInterrupted); a read-only one is refused with the
// reason.
func openForReading(path string, e env) (*store.Archive, error) {
	a, err := store.Open(path, waiting(e, store.Options{ReadOnly: true}))
	if !errors.Is(err, store.ErrOlderSchema) && !errors.Is(err, store.ErrInterrupted) {
		return a, err
	}
	w, werr := store.Open(path, writing(e, store.Options{}))
	if werr != nil {
		return nil, fmt.Errorf("%w; opening it for writing to do so failed: %v", err, werr)
	}
	sayNotices(e, w)
	w.Close()
	return store.Open(path, waiting(e, store.Options{ReadOnly: true}))
}
