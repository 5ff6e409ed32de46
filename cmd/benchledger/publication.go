package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/publish"
	"github.com/benchledger/benchledger/render/report"
	"github.com/benchledger/benchledger/store"
)

// openForPublishing opens the archive for writing, for report to record
// the version it renders. Unlike ingest it never creates the archive: a
// report of an archive that does not exist is a mistake, not a new archive.
// A read-only archive is refused with the way out (--draft).
func openForPublishing(path string) (*store.Archive, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("archive %s does not exist: %w", path, err)
	}
	a, err := store.Open(path, store.Options{})
	if errors.Is(err, store.ErrReadOnly) {
		return nil, fmt.Errorf("%w; report records each published version of the case study in the archive, so it must be writable (--draft renders without recording)", err)
	}
	return a, err
}

// recordPublication records the evaluated case study as its next version,
// unless nothing a reader sees changed since the latest one, and returns
// the version the report shows with the case study's history.
func recordPublication(ctx context.Context, a *store.Archive, res *casestudy.Result) (*report.Publication, error) {
	// A text the renderer would refuse must not become a version nobody
	// could read.
	if err := report.CheckTexts(res); err != nil {
		return nil, err
	}
	snap, text, err := takeSnapshot(res)
	if err != nil {
		return nil, err
	}
	pub, _, err := a.Publish(ctx, store.NewPublication{CaseID: res.Spec.ID, Digest: res.Digest, Snapshot: text,
		ToolVersion: toolVersion(), Actor: osUser()},
		func(latest store.Publication) ([]store.Erratum, error) {
			old, err := publish.Parse(latest.Snapshot)
			if err != nil {
				return nil, fmt.Errorf("version %d: %w", latest.Version, err)
			}
			var out []store.Erratum
			for _, e := range publish.Changes(latest.Digest, old, res.Digest, snap) {
				out = append(out, store.Erratum{Kind: e.Kind, Name: e.Name, Old: e.Old, New: e.New})
			}
			return out, nil
		})
	if err != nil {
		return nil, err
	}
	pubs, err := a.Publications(res.Spec.ID)
	if err != nil {
		return nil, err
	}
	return reportPublication(pubs, pub.Version, false)
}

// takeSnapshot is what a version of the case study records: the snapshot
// and its JSON text.
func takeSnapshot(res *casestudy.Result) (publish.Snapshot, string, error) {
	snap, err := publish.Take(res)
	if err != nil {
		return snap, "", err
	}
	text, err := snap.JSON()
	return snap, text, err
}

// draftPublication is what a --draft report shows: the latest recorded
// version, if any, marked as a draft.
func draftPublication(a *store.Archive, caseID string) (*report.Publication, error) {
	pubs, err := a.Publications(caseID)
	if err != nil {
		return nil, err
	}
	version := 0
	if len(pubs) > 0 {
		version = pubs[len(pubs)-1].Version
	}
	return reportPublication(pubs, version, true)
}

// reportPublication turns the archive's history into the renderer's plain
// data. A figure's old and new values come from the snapshots of the two
// versions, so each language writes them in its own style.
func reportPublication(pubs []store.Publication, version int, draft bool) (*report.Publication, error) {
	rp := &report.Publication{Version: version, Draft: draft}
	var prev publish.Snapshot
	for i, p := range pubs {
		snap, err := publish.Parse(p.Snapshot)
		if err != nil {
			return nil, fmt.Errorf("case study %s, version %d: %w", p.CaseID, p.Version, err)
		}
		v := report.PublishedVersion{Version: p.Version, Recorded: p.RecordedAt}
		for _, e := range p.Errata {
			re := report.Erratum{Kind: e.Kind, Name: e.Name, Old: e.Old, New: e.New}
			switch e.Kind {
			case publish.KindFigure:
				// Only when the stored display agrees: a snapshot the
				// erratum was not computed from must not change its text.
				if b, ok := prev.Binding(e.Name); ok && i > 0 && prev.Figures[e.Name].Display == e.Old {
					re.OldValue = &b
				}
				if b, ok := snap.Binding(e.Name); ok && snap.Figures[e.Name].Display == e.New {
					re.NewValue = &b
				}
			case publish.KindCaveat:
				params := e.New
				if params == "" {
					params = e.Old
				}
				if c, err := publish.CaveatOf(e.Name, params); err == nil {
					re.Caveat = &c
				}
			}
			v.Errata = append(v.Errata, re)
		}
		rp.History = append(rp.History, v)
		if p.Version == version {
			rp.Recorded = p.RecordedAt
		}
		prev = snap
	}
	return rp, nil
}
