package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/publish"
	"github.com/benchledger/benchledger/render/report"
	"github.com/benchledger/benchledger/store"
)

// openForPublishing opens the archive for writing, for report to record
// the version it renders. Unlike ingest it never creates the archive: a
// report of an archive that does not exist is a mistake, not a new archive.
// A read-only archive is refused with the way out (a draft, without --publish).
func openForPublishing(path string, e env) (*store.Archive, error) {
	a, err := store.Open(path, writing(e, store.Options{Existing: true}))
	if errors.Is(err, store.ErrReadOnly) {
		return nil, fmt.Errorf("%w; report records each published version of the case study in the archive, so it must be writable (without --publish, report renders a draft and records nothing)", err)
	}
	sayNotices(e, a)
	return a, err
}

// recordPublication records the evaluated case study as its next version,
// unless nothing a reader sees changed since the latest one, and returns
// the version the report shows with the case study's history.
func recordPublication(ctx context.Context, a *store.Archive, res *casestudy.Result) (*publish.Publication, error) {
	// A text the renderer would refuse must not become a version nobody
	// could read.
	if err := report.CheckTexts(res); err != nil {
		return nil, err
	}
	return publish.Record(ctx, a, res, toolVersion(), osUser())
}
