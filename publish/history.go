package publish

import (
	"context"
	"errors"
	"fmt"
	"github.com/benchledger/benchledger/spec"
	"os"
	"time"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/store"
)

// Publication is the version of a case study a page shows and the history
// of its versions, as the report and the site render them.
type Publication struct {
	// Version is the recorded version this rendering is; with Draft, the
	// latest recorded version (0: none yet).
	Version  int
	Recorded time.Time
	// Draft: the rendering was not recorded (report --draft).
	Draft bool
	// History holds every recorded version, oldest first.
	History []Version
}

// Version is one recorded version with what changed from the one before
// (nothing for version 1).
type Version struct {
	Version  int
	Recorded time.Time
	Errata   []Erratum
}

// FromRecords turns the archive's records of a case study (oldest first)
// into the history a page shows, as version (with draft, the latest
// recorded one). A figure's old and new values come from the snapshots of
// the two versions, so that each language writes them in its own style.
func FromRecords(pubs []store.Publication, version int, draft bool) (*Publication, error) {
	out := &Publication{Version: version, Draft: draft}
	var prev Snapshot
	for i, p := range pubs {
		snap, err := Parse(p.Snapshot)
		if err != nil {
			return nil, fmt.Errorf("case study %s, version %d: %w", p.CaseID, p.Version, err)
		}
		v := Version{Version: p.Version, Recorded: p.RecordedAt}
		for _, e := range p.Errata {
			re := Erratum{Kind: e.Kind, Name: e.Name, Old: e.Old, New: e.New}
			switch e.Kind {
			case KindFigure:
				// Only when the stored display agrees: a snapshot the
				// erratum was not computed from must not change its text.
				if b, ok := prev.Binding(e.Name); ok && i > 0 && prev.Figures[e.Name].Display == e.Old {
					re.OldValue = &b
				}
				if b, ok := snap.Binding(e.Name); ok && snap.Figures[e.Name].Display == e.New {
					re.NewValue = &b
				}
			case KindCaveat:
				params := e.New
				if params == "" {
					params = e.Old
				}
				if c, err := CaveatOf(e.Name, params); err == nil {
					re.Caveat = &c
				}
			}
			v.Errata = append(v.Errata, re)
		}
		out.History = append(out.History, v)
		if p.Version == version {
			out.Recorded = p.RecordedAt
		}
		prev = snap
	}
	return out, nil
}

// Latest is the history of a case study as its latest recorded version
// shows it; nil when none is recorded.
func Latest(pubs []store.Publication) (*Publication, error) {
	if len(pubs) == 0 {
		return nil, nil
	}
	return FromRecords(pubs, pubs[len(pubs)-1].Version, false)
}

// Record records an evaluated case study as its next version, unless
// nothing a reader sees changed since the latest one, and returns the
// version a report of it shows. toolVersion and actor go into the event
// that records it.
func Record(ctx context.Context, a *store.Archive, res *casestudy.Result, toolVersion, actor string) (*Publication, error) {
	snap, text, err := take(res)
	if err != nil {
		return nil, err
	}
	sources, err := specSources(res.Spec)
	if err != nil {
		return nil, err
	}
	pub, _, err := a.Publish(ctx, store.NewPublication{CaseID: res.Spec.ID, Digest: res.Digest, Snapshot: text,
		ToolVersion: toolVersion, Actor: actor, Sources: sources},
		func(latest store.Publication) ([]store.Erratum, error) {
			old, err := Parse(latest.Snapshot)
			if err != nil {
				return nil, fmt.Errorf("version %d: %w", latest.Version, err)
			}
			var out []store.Erratum
			for _, e := range Changes(latest.Digest, old, res.Digest, snap) {
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
	return FromRecords(pubs, pub.Version, false)
}

// Draft is what a rendering that records nothing shows: the latest
// recorded version, if any, marked as a draft.
func Draft(a *store.Archive, caseID string) (*Publication, error) {
	pubs, err := a.Publications(caseID)
	if err != nil {
		return nil, err
	}
	version := 0
	if len(pubs) > 0 {
		version = pubs[len(pubs)-1].Version
	}
	return FromRecords(pubs, version, true)
}

// Current is the version an evaluated case study is without recording
// anything (the site): the latest recorded version when the evaluation is
// what it recorded, otherwise a draft of it.
func Current(a *store.Archive, res *casestudy.Result) (*Publication, error) {
	pubs, err := a.Publications(res.Spec.ID)
	if err != nil {
		return nil, err
	}
	if len(pubs) == 0 {
		return FromRecords(pubs, 0, true)
	}
	latest := pubs[len(pubs)-1]
	snap, text, err := take(res)
	if err != nil {
		return nil, err
	}
	old, err := Parse(latest.Snapshot)
	if err != nil {
		return nil, fmt.Errorf("case study %s, version %d: %w", latest.CaseID, latest.Version, err)
	}
	same := latest.Digest == res.Digest && (latest.Snapshot == text || len(Changes(latest.Digest, old, res.Digest, snap)) == 0)
	return FromRecords(pubs, latest.Version, !same)
}

// take is what a version of the case study records: the snapshot and its
// JSON text.
func take(res *casestudy.Result) (Snapshot, string, error) {
	snap, err := Take(res)
	if err != nil {
		return snap, "", err
	}
	text, err := snap.JSON()
	return snap, text, err
}

// specSources are the spec's bytes and each narrative's, by name ("spec",
// "narrative.<lang>"), for the archive to keep with the version.
func specSources(s *spec.Spec) (map[string][]byte, error) {
	out := map[string][]byte{}
	switch data, err := os.ReadFile(s.Path); {
	case err == nil:
		out["spec"] = data
	case !errors.Is(err, os.ErrNotExist): // a spec given as text has no file
		return nil, fmt.Errorf("publish: %w", err)
	}
	for lang := range s.Narrative {
		_, data, err := s.ReadNarrative(lang)
		if err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
		if data != nil {
			out["narrative."+lang] = data
		}
	}
	return out, nil
}
