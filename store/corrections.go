package store

import (
	"database/sql"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/benchledger/benchledger/provenance"
)

// Correction is one provenance correction (benchledger amend): an
// append-only event. Old is the value in effect before it, New the value
// after; HadOld / Unset say when either is absent.
type Correction struct {
	Seq         int64 // its position in the archive's corrections, from 1
	RunID       string
	Field       string
	Old         string
	HadOld      bool
	New         string
	Unset       bool // --unset: the field has no value in effect after it
	Reason      string
	Actor       string
	ToolVersion string
	At          time.Time
}

// RecordCorrection appends corrections of one run and brings the run's
// listing columns and publishability up to date; publishable and missing
// are the run's state with the corrections in effect. Nothing ingest
// archived is changed: readers lay the latest correction of each field
// over it (provenance.FromAmend).
func (tx *Tx) RecordCorrection(cs []Correction, publishable bool, missing []string) error {
	if len(cs) == 0 {
		return nil
	}
	runID := cs[0].RunID
	op := "record correction of run " + runID
	if err := tx.check(op); err != nil {
		return err
	}
	if ok, err := runExists(tx.tx, runID); err != nil {
		return tx.wrap(op, err)
	} else if !ok {
		return fmt.Errorf("archive %s: %s: run %s: %w", tx.a.path, op, runID, ErrNotFound)
	}
	// The run's listing columns change below: the chain vouches for the
	// run as it was, then links it as corrected (chain.go).
	tx.touchBefore("run", runID)
	for _, c := range cs {
		if c.RunID != runID || c.Field == "" || c.Reason == "" {
			return fmt.Errorf("archive %s: %s: a correction needs the run, a field and a reason", tx.a.path, op)
		}
		at := c.At
		if at.IsZero() {
			at = time.Now()
		}
		var id int64
		err := tx.tx.QueryRow(`INSERT INTO corrections (run_id, field, old_value, new_value, reason, actor, tool_version, at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, runID, c.Field, nullText(c.Old, c.HadOld), nullText(c.New, !c.Unset),
			c.Reason, c.Actor, c.ToolVersion, formatTime(at)).Scan(&id)
		if err != nil {
			return tx.wrap(op, err)
		}
		tx.touch("correction", strconv.FormatInt(id, 10))
	}
	all, err := readProvenance(tx.tx, runID)
	if err != nil {
		return tx.wrap(op, err)
	}
	missingJSON, err := marshalList(missing)
	if err != nil {
		return err
	}
	sum := summarize(all.Effective())
	if _, err := tx.tx.Exec(`UPDATE runs SET campaign = ?, role = ?, model = ?, engine = ?, engine_version = ?,
		gpu = ?, run_date = ?, publishable = ?, missing = ? WHERE id = ?`,
		sum.campaign, sum.role, sum.model, sum.engine, sum.engineVersion, sum.gpu, sum.date,
		publishable, missingJSON, runID); err != nil {
		return tx.wrap(op, err)
	}
	return nil
}

// Corrections returns the corrections of a run in the order they were
// recorded, or every correction of the archive when runID is "".
func (a *Archive) Corrections(runID string) ([]Correction, error) {
	return readCorrections(a.r, a.path, runID)
}

func readCorrections(q interface {
	Query(string, ...any) (*sql.Rows, error)
}, path, runID string) ([]Correction, error) {
	query := `SELECT id, run_id, field, old_value, new_value, reason, actor, tool_version, at FROM corrections`
	var args []any
	if runID != "" {
		query += " WHERE run_id = ?"
		args = append(args, runID)
	}
	rows, err := q.Query(query+" ORDER BY id", args...)
	if err != nil {
		return nil, wrapErr(path, "read corrections", err)
	}
	defer rows.Close()
	var out []Correction
	for rows.Next() {
		var c Correction
		var old, new sql.NullString
		var at string
		if err := rows.Scan(&c.Seq, &c.RunID, &c.Field, &old, &new, &c.Reason, &c.Actor, &c.ToolVersion, &at); err != nil {
			return nil, wrapErr(path, "read corrections", err)
		}
		c.Old, c.HadOld = old.String, old.Valid
		c.New, c.Unset = new.String, !new.Valid
		if c.At, err = parseTime(at); err != nil {
			return nil, wrapErr(path, "read corrections", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// correctionEntries are the values corrections put in effect: the latest
// correction of each field, as FromAmend entries ("" for an --unset).
func correctionEntries(cs []Correction) provenance.Record {
	latest := map[string]Correction{}
	for _, c := range cs {
		latest[c.Field] = c
	}
	out := make(provenance.Record, 0, len(latest))
	for f, c := range latest {
		v := c.New
		if c.Unset {
			v = ""
		}
		out = append(out, provenance.Entry{Field: f, Value: v, Source: provenance.FromAmend})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}

func nullText(s string, valid bool) sql.NullString { return sql.NullString{String: s, Valid: valid} }
