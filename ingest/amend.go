package ingest

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

// Amendment is one `benchledger amend`: corrections of one run's
// provenance, with the reason for them.
type Amendment struct {
	Run         string            // run id, prefix or old id
	Set         provenance.Record // field=value; Source is ignored
	Unset       []string          // fields to leave without a value
	Reason      string
	Actor       string
	ToolVersion string
}

// AmendError is an amendment refused before anything was written: a value
// the raw file contradicts, a field that cannot be corrected, nothing to do.
type AmendError struct{ Reason string }

func (e *AmendError) Error() string { return e.Reason }

// AmendResult is what an amendment recorded.
type AmendResult struct {
	RunID       string             `json:"id"`
	Corrections []store.Correction `json:"-"`
	Publishable bool               `json:"publishable"`
	Missing     []string           `json:"missing,omitempty"`
}

// Amend records corrections of a run's provenance as append-only events:
// what ingest archived stays, the corrected value takes effect over it. A
// value the raw file itself contradicts is refused (the file is the
// evidence; a correction cannot make it say something else), as is a
// correction that changes nothing.
func Amend(ctx context.Context, a *store.Archive, am Amendment) (AmendResult, error) {
	if strings.TrimSpace(am.Reason) == "" {
		return AmendResult{}, &AmendError{"a correction needs --reason: say why the archived value is wrong"}
	}
	if len(am.Set) == 0 && len(am.Unset) == 0 {
		return AmendResult{}, &AmendError{"nothing to correct: give --set field=value or --unset field"}
	}
	rec, err := a.RunMeta(am.Run)
	if err != nil {
		return AmendResult{}, err
	}
	eff := rec.Provenance.Effective()
	now := time.Now().UTC()
	var cs []store.Correction
	proposed := append(provenance.Record(nil), rec.Provenance...)
	seen := map[string]bool{}
	add := func(field, value string, unset bool) error {
		if seen[field] {
			return &AmendError{fmt.Sprintf("%s is corrected twice in one amend", field)}
		}
		seen[field] = true
		old, had := eff[field]
		if (unset && !had) || (!unset && had && old == value) {
			return &AmendError{fmt.Sprintf("%s already has that value in effect (%s); nothing to correct", field, describeValue(old, had))}
		}
		cs = append(cs, store.Correction{RunID: rec.ID, Field: field, Old: old, HadOld: had, New: value, Unset: unset,
			Reason: am.Reason, Actor: am.Actor, ToolVersion: am.ToolVersion, At: now})
		v := value
		if unset {
			v = ""
		}
		proposed = append(proposed, provenance.Entry{Field: field, Value: v, Source: provenance.FromAmend})
		return nil
	}
	for _, e := range am.Set {
		if err := provenance.Validate(provenance.Entry{Field: e.Field, Value: e.Value, Source: provenance.FromAmend}); err != nil {
			return AmendResult{}, &AmendError{err.Error()}
		}
		if err := add(e.Field, e.Value, false); err != nil {
			return AmendResult{}, err
		}
	}
	for _, f := range am.Unset {
		if rec.Run.Facts[f] != "" {
			return AmendResult{}, &AmendError{fmt.Sprintf("%s is stated by the raw file itself (%q); a correction cannot unset what the file says", f, rec.Run.Facts[f])}
		}
		if err := add(f, "", true); err != nil {
			return AmendResult{}, err
		}
	}
	if cs := provenance.Contradictions(proposed); len(cs) > 0 {
		return AmendResult{}, &AmendError{"refused: the raw file contradicts the correction: " + strings.TrimPrefix(contradictionText(cs, nil), "provenance contradicts the file: ")}
	}
	full, err := a.Run(rec.ID)
	if err != nil {
		return AmendResult{}, err
	}
	missing := blockers(full.Run, proposed)
	tx, err := a.Begin(ctx, nil)
	if err != nil {
		return AmendResult{}, err
	}
	defer tx.Rollback()
	if err := tx.RecordCorrection(cs, len(missing) == 0, missing); err != nil {
		return AmendResult{}, err
	}
	if err := tx.Commit(); err != nil {
		return AmendResult{}, err
	}
	return AmendResult{RunID: rec.ID, Corrections: cs, Publishable: len(missing) == 0, Missing: missing}, nil
}

func describeValue(v string, had bool) string {
	if !had {
		return "none"
	}
	return fmt.Sprintf("%q", v)
}
