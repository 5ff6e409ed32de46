package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

// StatusReference reports an external reference of a manifest recorded in
// the archive, for the first time or as a re-check or correction. RunID is
// empty, File is the manifest, Format "reference", and Reason starts with
// the reference id. A reference whose stored values already match is not
// reported.
const StatusReference Status = "reference"

// recordReferences stores the references: of manifest m, once per manifest
// in a batch, in one transaction, with a "reference" event for each one that
// changed. A re-check older than the archived one is rejected (reported,
// not stored); the manifest's other references are still recorded.
func (b *batch) recordReferences(ctx context.Context, m *provenance.Manifest, report func(Outcome)) error {
	if m == nil || b.referencesDone[m.Path] {
		return nil
	}
	if b.referencesDone == nil {
		b.referencesDone = map[string]bool{}
	}
	b.referencesDone[m.Path] = true
	if len(m.References) == 0 {
		return nil
	}
	// --set campaign=NAME moves the runs of this ingest to another
	// campaign; the references go with them.
	campaign := m.Campaign
	for _, e := range b.opt.Set {
		if e.Field == "campaign" {
			campaign = e.Value
		}
	}

	tx, err := b.part(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback() // a no-op after Commit
	now := time.Now().UTC()
	file := shownPath(m.Path)
	var outs []Outcome
	for _, r := range m.References {
		var prior *store.StoredReference
		if p, err := tx.Reference(campaign, r.ID); err == nil {
			prior = p
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		changed, err := tx.PutReference(campaign, r)
		switch {
		case errors.Is(err, store.ErrStaleReference):
			outs = append(outs, Outcome{Status: StatusRejected, File: file, Place: fmt.Sprintf("line %d", r.Line),
				Reason: fmt.Sprintf("reference %s: checked %s is before the re-check the archive holds (%s); an older check is not recorded",
					r.ID, r.Checked.Format(time.DateOnly), prior.Checked.Format(time.DateOnly))})
			continue
		case err != nil:
			return err
		case !changed:
			continue
		}
		change, changes := describeReferenceChange(prior, r)
		reason := r.ID + ": recorded"
		if change != "new" {
			reason = r.ID + ": " + change + " recorded"
		}
		switch {
		case len(changes) > 0:
			reason += " (" + strings.Join(changes, "; ") + ")"
		case change == "re-check":
			reason += fmt.Sprintf(" (checked %s, nothing else changed)", r.Checked.Format(time.DateOnly))
		}
		detail, err := json.Marshal(map[string]any{
			"campaign": campaign, "reference": r.ID, "manifest": file, "line": r.Line, "change": change,
			"changes": changes, "figure": r.Figure, "value": r.Value, "unit": r.Unit, "source": r.Source,
			"captured": r.Captured.Format(time.DateOnly), "checked": r.Checked.Format(time.DateOnly), "visible": r.Visible,
		})
		if err != nil {
			return err
		}
		if err := tx.AppendEvent(store.Event{At: now, Actor: b.opt.Actor, ToolVersion: b.opt.ToolVersion,
			Action: "reference", Detail: string(detail)}); err != nil {
			return err
		}
		outs = append(outs, Outcome{Status: StatusReference, Format: "reference", File: file, Reason: reason})
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	// Reported only once committed: an outcome names what the archive holds.
	for _, o := range outs {
		report(o)
	}
	return nil
}

// describeReferenceChange names the kind of change ("new",
// "re-check" when the checked date moved, else "correction") and lists what
// differs from the archived values, status first.
func describeReferenceChange(prior *store.StoredReference, r provenance.Reference) (string, []string) {
	if prior == nil {
		return "new", nil
	}
	var out []string
	diff := func(what, old, new string) {
		if old != new {
			out = append(out, what+" "+old+" → "+new)
		}
	}
	num := func(v float64, unit string) string { return strconv.FormatFloat(v, 'g', -1, 64) + " " + unit }
	diff("visible", strconv.FormatBool(prior.Visible), strconv.FormatBool(r.Visible))
	diff("value", num(prior.Value, prior.Unit), num(r.Value, r.Unit))
	diff("figure", prior.Figure, r.Figure)
	diff("source", prior.Source, r.Source)
	diff("captured", prior.Captured.Format(time.DateOnly), r.Captured.Format(time.DateOnly))
	if prior.Title != r.Title {
		out = append(out, "title changed")
	}
	if prior.Notes != r.Notes {
		out = append(out, "notes changed")
	}
	was, now := prior.Provenance.Effective(), r.Provenance.Effective()
	var fields []string
	for f := range was {
		fields = append(fields, f)
	}
	for f := range now {
		if _, ok := was[f]; !ok {
			fields = append(fields, f)
		}
	}
	slices.Sort(fields)
	orNone := func(s string, ok bool) string {
		if !ok {
			return "(none)"
		}
		return s
	}
	for _, f := range fields {
		o, ok1 := was[f]
		n, ok2 := now[f]
		diff(f, orNone(o, ok1), orNone(n, ok2))
	}
	if !prior.Checked.Equal(r.Checked) {
		return "re-check", out
	}
	return "correction", out
}

// shownPath gives a manifest found by walking up from a file (an absolute
// path) relative to the working directory when it lies below it, as the
// result files beside it are shown.
func shownPath(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel
	}
	return p
}
