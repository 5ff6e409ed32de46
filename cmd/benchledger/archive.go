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
	return opt
}

// openForReading opens the archive read-only. An archive written by an older
// benchledger is upgraded first when the file is writable (reading commands
// then work across upgrades); a read-only one is refused with the reason.
func openForReading(path string, e env) (*store.Archive, error) {
	a, err := store.Open(path, store.Options{ReadOnly: true})
	if !errors.Is(err, store.ErrOlderSchema) {
		return a, err
	}
	w, werr := store.Open(path, writing(e, store.Options{}))
	if werr != nil {
		return nil, fmt.Errorf("%w (upgrading it failed: %v)", err, werr)
	}
	sayNotices(e, w)
	w.Close()
	return store.Open(path, store.Options{ReadOnly: true})
}
