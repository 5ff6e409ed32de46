package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/provenance"
)

// RunFile is a raw file attached to a run it completed (migration 0005):
// a companion of the file the run was created from.
type RunFile struct {
	RunID    string
	Blob     string // SHA-256 of the file's bytes
	Ordinal  int    // the run's position in that file
	FileName string
	Format   string
	Added    []string // what the file completed ("per-request records", ...)
	AddedAt  time.Time
}

// CompanionRun returns the run whose companion key is key, with its
// per-request records, or nil when the archive has none.
func (tx *Tx) CompanionRun(key string) (*RunRecord, error) {
	if err := tx.check("find companion run"); err != nil {
		return nil, err
	}
	if key == "" {
		return nil, nil
	}
	var id string
	err := tx.tx.QueryRow("SELECT id FROM runs WHERE companion = ? ORDER BY ingested_at, id LIMIT 1", key).Scan(&id)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, tx.wrap("find companion run "+key, err)
	}
	return tx.a.readRunIn(tx.tx, id, true)
}

// Completion is what a companion file adds to a run, already merged into
// Run by benchrun.MergeCompanion.
type Completion struct {
	Run       *benchrun.Run     // the merged run
	File      RunFile           // the companion file (its blob must be stored)
	NewStated []benchrun.Stated // stated figures the run did not have
	// Replaced maps a stated figure's position (its seq) to the same
	// figure in full precision, replacing a rounded value.
	Replaced    map[int]benchrun.Stated
	NewFacts    provenance.Record // file facts the run did not have
	NewRequests bool              // the run had no records; Run.Requests are the file's
	Provenance  provenance.Record // the whole merged record, for the summary columns
	Publishable bool
	Missing     []string
}

// AttachCompanion records a companion file and writes what it completed:
// the file row, the run's updated columns, the new records, stated figures
// and file facts. Nothing already archived is changed or removed.
func (tx *Tx) AttachCompanion(runID string, c Completion) error {
	tx.touchBefore("run", runID)
	op := "attach companion file to run " + runID
	if err := tx.check(op); err != nil {
		return err
	}
	// As PutRun: the records may be inserted in bulk on the connection a
	// blob's storer shares (tx.stmts).
	tx.stmts.Lock()
	defer tx.stmts.Unlock()
	f, run := c.File, c.Run
	if ok, err := hasBlob(tx.tx, tx.a.path, f.Blob); err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("archive %s: %s: blob %s: %w", tx.a.path, op, f.Blob, ErrNotFound)
	}
	added, err := marshalList(f.Added)
	if err != nil {
		return err
	}
	at := f.AddedAt
	if at.IsZero() {
		at = time.Now()
	}
	if _, err := tx.tx.Exec(`INSERT INTO run_files (run_id, blob, ordinal, file_name, format, added, added_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, runID, f.Blob, f.Ordinal, f.FileName, f.Format, added, formatTime(at)); err != nil {
		return tx.wrap(op, err)
	}
	extra, err := marshalMap(run.Extra)
	if err != nil {
		return err
	}
	notes, err := marshalList(run.Notes)
	if err != nil {
		return err
	}
	missing, err := marshalList(c.Missing)
	if err != nil {
		return err
	}
	sum := summarize(c.Provenance.Effective())
	if _, err := tx.tx.Exec(`UPDATE runs SET has_requests = ?, completed = ?, failed = ?, clock = ?, percentile_method = ?,
		extra = ?, notes = ?, request_count = ?, publishable = ?, missing = ?,
		campaign = ?, role = ?, model = ?, engine = ?, engine_version = ?, gpu = ?, run_date = ? WHERE id = ?`,
		run.HasRequests, run.Completed, run.Failed, string(run.Clock), run.PercentileMethod, extra, notes, run.RequestCount(),
		c.Publishable, missing, sum.campaign, sum.role, sum.model, sum.engine, sum.engineVersion, sum.gpu, sum.date, runID); err != nil {
		return tx.wrap(op, err)
	}
	if c.NewRequests {
		if err := tx.putRequests(runID, run.Requests); err != nil {
			return tx.wrap(op, err)
		}
	}
	if len(c.NewStated) > 0 {
		var next int
		if err := tx.tx.QueryRow("SELECT COALESCE(MAX(seq) + 1, 0) FROM stated WHERE run_id = ?", runID).Scan(&next); err != nil {
			return tx.wrap(op, err)
		}
		if err := tx.putStated(runID, next, c.NewStated); err != nil {
			return tx.wrap(op, err)
		}
	}
	for seq, st := range c.Replaced {
		if _, err := tx.tx.Exec(`UPDATE stated SET value = ?, unit = ?, source_key = ?, source_unit = ?, printed = ?
			WHERE run_id = ? AND seq = ? AND metric = ?`, nullFloat(st.Value), st.Unit, st.SourceKey, st.SourceUnit, st.Printed,
			runID, seq, st.Metric); err != nil {
			return tx.wrap(op, err)
		}
	}
	if err := tx.putProvenance(runID, c.NewFacts, false); err != nil {
		return tx.wrap(op, err)
	}
	return nil
}

// RunFiles lists the companion files attached to a run, in the order they
// were added.
func (a *Archive) RunFiles(runID string) ([]RunFile, error) {
	return a.readRunFiles(`SELECT `+runFileColumnsSQL+` FROM run_files WHERE run_id = ? ORDER BY added_at, blob`, runID)
}

// RunFilesByRun returns the companion files of every run that has some,
// each run's in the order they were added.
func (a *Archive) RunFilesByRun() (map[string][]RunFile, error) {
	files, err := a.readRunFiles(`SELECT ` + runFileColumnsSQL + ` FROM run_files ORDER BY run_id, added_at, blob`)
	if err != nil {
		return nil, err
	}
	out := map[string][]RunFile{}
	for _, f := range files {
		out[f.RunID] = append(out[f.RunID], f)
	}
	return out, nil
}

const runFileColumnsSQL = `run_id, blob, ordinal, file_name, format, added, added_at`

func (a *Archive) readRunFiles(query string, args ...any) ([]RunFile, error) {
	const op = "read companion files"
	rows, err := a.r.Query(query, args...)
	if err != nil {
		return nil, a.wrap(op, err)
	}
	defer rows.Close()
	var out []RunFile
	for rows.Next() {
		var f RunFile
		var added, at string
		if err := rows.Scan(&f.RunID, &f.Blob, &f.Ordinal, &f.FileName, &f.Format, &added, &at); err != nil {
			return nil, a.wrap(op, err)
		}
		if f.Added, err = unmarshalList(added); err != nil {
			return nil, a.wrap(op, err)
		}
		if f.AddedAt, err = parseTime(at); err != nil {
			return nil, a.wrap(op, err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}
