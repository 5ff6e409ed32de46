package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/benchledger/benchledger/provenance"
)

// ErrStaleReference: a reference was declared with a re-check older than the
// one the archive already holds (an old copy of a manifest, say). Taking it
// would turn the current status back, so it is refused.
var ErrStaleReference = errors.New("reference check is older than the last recorded one")

// StoredReference is an external reference as the archive holds it: its
// current values and every state it was recorded in.
type StoredReference struct {
	Campaign string
	// Reference holds the current values. Line is 0: the manifest line is
	// not part of the archive.
	provenance.Reference
	RecordedAt time.Time // when the reference was first recorded (UTC)
	UpdatedAt  time.Time // when the current values were recorded (UTC)
	// Checks is the history, oldest first: one entry per distinct state
	// recorded (a re-check, or a corrected value). The last equals the
	// current values.
	Checks []ReferenceCheck
}

// ReferenceCheck is one recorded state of a reference.
type ReferenceCheck struct {
	Seq int // 1 for the first recording, then 2, 3, ...
	// Reference holds the values as this check declared them (ID set,
	// Line 0).
	provenance.Reference
	RecordedAt time.Time // UTC
}

// refState is what is stored of a reference, in stored form, so that "did
// anything change" is one comparison.
type refState struct {
	figure, unit, source, title, notes string
	value                              float64
	captured, checked                  string // YYYY-MM-DD
	visible                            bool
	provenance                         string // JSON object field -> value, keys sorted
}

func referenceState(r provenance.Reference) (refState, error) {
	switch {
	case !provenance.ValidReferenceID(r.ID):
		return refState{}, fmt.Errorf("id %q is not a reference id ([a-z0-9._-]+)", r.ID)
	case strings.TrimSpace(r.Figure) == "":
		return refState{}, errors.New("no figure")
	case strings.TrimSpace(r.Unit) == "":
		return refState{}, errors.New("no unit")
	case !provenance.ValidReferenceSource(r.Source):
		return refState{}, fmt.Errorf("source %q is not an http(s) URL", r.Source)
	case math.IsNaN(r.Value) || math.IsInf(r.Value, 0):
		return refState{}, fmt.Errorf("value %v is not a finite number", r.Value)
	case r.Captured.IsZero() || r.Checked.IsZero():
		return refState{}, errors.New("no captured or checked date")
	}
	s := refState{
		figure: r.Figure, unit: r.Unit, source: r.Source, title: r.Title, notes: r.Notes, value: r.Value,
		captured: formatDate(r.Captured), checked: formatDate(r.Checked), visible: r.Visible,
	}
	if s.checked < s.captured {
		return refState{}, fmt.Errorf("checked %s is before captured %s", s.checked, s.captured)
	}
	fields := make(map[string]string, len(r.Provenance))
	for _, e := range r.Provenance {
		if err := provenance.Validate(e); err != nil {
			return refState{}, fmt.Errorf("provenance: %w", err)
		}
		if old, dup := fields[e.Field]; dup && old != e.Value {
			return refState{}, fmt.Errorf("provenance: %s given twice (%q, %q)", e.Field, old, e.Value)
		}
		fields[e.Field] = e.Value
	}
	var err error
	if s.provenance, err = marshalMap(fields); err != nil {
		return refState{}, fmt.Errorf("provenance: %w", err)
	}
	return s, nil
}

// formatDate keeps the UTC calendar day: dates are days, not instants.
func formatDate(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// PutReference records an external reference of a campaign. A reference not
// yet archived is inserted with its first check. One already archived is
// left alone when nothing differs (changed is false), and otherwise gets a
// new check row with the declared values, which become the current ones:
// earlier values stay in the history, never overwritten. A declaration whose
// checked date is before the archived one is refused with ErrStaleReference,
// before anything is written, so the transaction stays usable.
func (tx *Tx) PutReference(campaign string, r provenance.Reference) (changed bool, err error) {
	op := "store reference " + campaign + "/" + r.ID
	if err := tx.check(op); err != nil {
		return false, err
	}
	if campaign == "" {
		return false, fmt.Errorf("archive %s: %s: no campaign", tx.a.path, op)
	}
	tx.touchBefore("reference", campaign+"/"+r.ID)
	defer func() {
		if err == nil && changed {
			var seq int
			if tx.tx.QueryRow(`SELECT coalesce(max(seq), 0) FROM reference_checks WHERE campaign = ? AND reference_id = ?`, campaign, r.ID).Scan(&seq) == nil && seq > 0 {
				tx.touch("reference_check", campaign+"/"+r.ID+"/"+strconv.Itoa(seq))
			}
		}
	}()
	next, err := referenceState(r)
	if err != nil {
		return false, fmt.Errorf("archive %s: %s: %w", tx.a.path, op, err)
	}
	now := formatTime(time.Now())
	var cur refState
	err = tx.tx.QueryRow(`SELECT figure, unit, source, title, notes, value, captured, checked, visible, provenance
		FROM "references" WHERE campaign = ? AND id = ?`, campaign, r.ID).Scan(
		&cur.figure, &cur.unit, &cur.source, &cur.title, &cur.notes, &cur.value, &cur.captured, &cur.checked,
		&cur.visible, &cur.provenance)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = tx.tx.Exec(`INSERT INTO "references" (campaign, id, figure, value, unit, source, title, notes,
			captured, checked, visible, provenance, recorded_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			campaign, r.ID, next.figure, next.value, next.unit, next.source, next.title, next.notes,
			next.captured, next.checked, next.visible, next.provenance, now, now)
		if err != nil {
			return false, tx.wrap(op, err)
		}
		return true, tx.addCheck(op, campaign, r.ID, 1, next, now)
	case err != nil:
		return false, tx.wrap(op, err)
	case cur == next:
		return false, nil
	case next.checked < cur.checked:
		return false, fmt.Errorf("archive %s: %s: %w: declared checked %s, archived %s", tx.a.path, op,
			ErrStaleReference, next.checked, cur.checked)
	}
	var seq int
	if err := tx.tx.QueryRow(`SELECT coalesce(max(seq), 0) FROM reference_checks WHERE campaign = ? AND reference_id = ?`,
		campaign, r.ID).Scan(&seq); err != nil {
		return false, tx.wrap(op, err)
	}
	if err := tx.addCheck(op, campaign, r.ID, seq+1, next, now); err != nil {
		return false, err
	}
	_, err = tx.tx.Exec(`UPDATE "references" SET figure = ?, value = ?, unit = ?, source = ?, title = ?, notes = ?,
		captured = ?, checked = ?, visible = ?, provenance = ?, updated_at = ? WHERE campaign = ? AND id = ?`,
		next.figure, next.value, next.unit, next.source, next.title, next.notes,
		next.captured, next.checked, next.visible, next.provenance, now, campaign, r.ID)
	if err != nil {
		return false, tx.wrap(op, err)
	}
	return true, nil
}

func (tx *Tx) addCheck(op, campaign, id string, seq int, s refState, at string) error {
	_, err := tx.tx.Exec(`INSERT INTO reference_checks (campaign, reference_id, seq, checked, visible, value, unit,
		source, figure, title, notes, captured, provenance, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		campaign, id, seq, s.checked, s.visible, s.value, s.unit, s.source, s.figure, s.title, s.notes,
		s.captured, s.provenance, at)
	return tx.wrap(op, err)
}

// Reference returns one reference as this transaction sees it (its own
// writes included), or ErrNotFound.
func (tx *Tx) Reference(campaign, id string) (*StoredReference, error) {
	op := "read reference " + campaign + "/" + id
	if err := tx.check(op); err != nil {
		return nil, err
	}
	refs, err := readReferences(tx.tx, campaign, id)
	if err != nil {
		return nil, tx.wrap(op, err)
	}
	if len(refs) == 0 {
		return nil, fmt.Errorf("archive %s: reference %s of campaign %s: %w", tx.a.path, id, campaign, ErrNotFound)
	}
	return &refs[0], nil
}

// References returns a campaign's references, sorted by id, each with its
// full history; campaign "" returns those of every campaign, sorted by
// campaign, then id. It works on a read-only archive.
func (a *Archive) References(campaign string) ([]StoredReference, error) {
	op := "read references"
	if campaign != "" {
		op += " of campaign " + campaign
	}
	// One read transaction: current values and histories from one snapshot.
	tx, err := a.r.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, a.wrap(op, err)
	}
	defer tx.Rollback()
	refs, err := readReferences(tx, campaign, "")
	if err != nil {
		return nil, a.wrap(op, err)
	}
	return refs, nil
}

// Reference returns one reference of a campaign with its full history, or
// ErrNotFound.
func (a *Archive) Reference(campaign, id string) (*StoredReference, error) {
	op := "read reference " + campaign + "/" + id
	tx, err := a.r.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, a.wrap(op, err)
	}
	defer tx.Rollback()
	refs, err := readReferences(tx, campaign, id)
	if err != nil {
		return nil, a.wrap(op, err)
	}
	if len(refs) == 0 {
		return nil, fmt.Errorf("archive %s: reference %s of campaign %s: %w", a.path, id, campaign, ErrNotFound)
	}
	return &refs[0], nil
}

// readReferences reads the references selected by campaign and id ("" for
// any) with their checks.
func readReferences(tx *sql.Tx, campaign, id string) ([]StoredReference, error) {
	q := `SELECT campaign, id, figure, value, unit, source, title, notes, captured, checked, visible, provenance,
		recorded_at, updated_at FROM "references" WHERE (?1 = '' OR campaign = ?1) AND (?2 = '' OR id = ?2)
		ORDER BY campaign, id`
	rows, err := tx.Query(q, campaign, id)
	if err != nil {
		return nil, err
	}
	var out []StoredReference
	for rows.Next() {
		var sr StoredReference
		var s refState
		var recorded, updated string
		if err := rows.Scan(&sr.Campaign, &sr.ID, &s.figure, &s.value, &s.unit, &s.source, &s.title, &s.notes,
			&s.captured, &s.checked, &s.visible, &s.provenance, &recorded, &updated); err != nil {
			rows.Close()
			return nil, err
		}
		if sr.Reference, err = s.reference(sr.ID); err == nil {
			if sr.RecordedAt, err = parseTime(recorded); err == nil {
				sr.UpdatedAt, err = parseTime(updated)
			}
		}
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("reference %s/%s: %w", sr.Campaign, sr.ID, err)
		}
		out = append(out, sr)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Histories after the first query is closed: a read transaction has one
	// connection, and nested result sets on it are best avoided.
	for i := range out {
		if out[i].Checks, err = readChecks(tx, out[i].Campaign, out[i].ID); err != nil {
			return nil, fmt.Errorf("reference %s/%s: %w", out[i].Campaign, out[i].ID, err)
		}
	}
	return out, nil
}

func readChecks(tx *sql.Tx, campaign, id string) ([]ReferenceCheck, error) {
	rows, err := tx.Query(`SELECT seq, figure, value, unit, source, title, notes, captured, checked, visible, provenance,
		recorded_at FROM reference_checks WHERE campaign = ? AND reference_id = ? ORDER BY seq`, campaign, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ReferenceCheck
	for rows.Next() {
		var c ReferenceCheck
		var s refState
		var at string
		if err := rows.Scan(&c.Seq, &s.figure, &s.value, &s.unit, &s.source, &s.title, &s.notes, &s.captured,
			&s.checked, &s.visible, &s.provenance, &at); err != nil {
			return nil, err
		}
		if c.Reference, err = s.reference(id); err != nil {
			return nil, fmt.Errorf("check %d: %w", c.Seq, err)
		}
		if c.RecordedAt, err = parseTime(at); err != nil {
			return nil, fmt.Errorf("check %d: recorded_at %q: %w", c.Seq, at, err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// reference turns a stored state back into a provenance.Reference.
func (s refState) reference(id string) (provenance.Reference, error) {
	r := provenance.Reference{ID: id, Figure: s.figure, Unit: s.unit, Source: s.source, Title: s.title, Notes: s.notes,
		Value: s.value, Visible: s.visible}
	var err error
	if r.Captured, err = time.Parse(time.DateOnly, s.captured); err != nil {
		return r, fmt.Errorf("captured %q: %w", s.captured, err)
	}
	if r.Checked, err = time.Parse(time.DateOnly, s.checked); err != nil {
		return r, fmt.Errorf("checked %q: %w", s.checked, err)
	}
	var fields map[string]string
	if err := json.Unmarshal([]byte(s.provenance), &fields); err != nil {
		return r, fmt.Errorf("provenance: %w", err)
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r.Provenance = append(r.Provenance, provenance.Entry{Field: k, Value: fields[k], Source: provenance.FromManifest})
	}
	return r, nil
}
