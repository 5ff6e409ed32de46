package main

import (
	"errors"
	"fmt"

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

// openForReading opens the archive read-only. An archive written by an older
// benchledger is upgraded first when the file is writable (reading commands
// then work across upgrades); a read-only one is refused with the reason.
func openForReading(path string, e env) (*store.Archive, error) {
	a, err := store.Open(path, store.Options{ReadOnly: true})
	if !errors.Is(err, store.ErrOlderSchema) {
		return a, err
	}
	w, werr := store.Open(path, store.Options{})
	if werr != nil {
		return nil, fmt.Errorf("%w (upgrading it failed: %v)", err, werr)
	}
	fmt.Fprintf(e.stderr, "note: upgraded %s to archive schema version %d\n", path, w.SchemaVersion())
	sayNotices(e, w)
	w.Close()
	return store.Open(path, store.Options{ReadOnly: true})
}
