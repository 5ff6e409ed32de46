package store

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/benchledger/benchledger/benchrun"
)

// CompanionRuns returns every run whose companion key is key, oldest first,
// without its per-request records (ExistingRun reads the one chosen whole).
// The key alone never makes two files one
// run (runs of one fixed workload share it); the batch looks for stronger
// evidence among these candidates.
func (tx *Tx) CompanionRuns(key string) ([]*RunRecord, error) {
	if err := tx.check("find companion runs"); err != nil {
		return nil, err
	}
	if key == "" {
		return nil, nil
	}
	rows, err := tx.tx.Query("SELECT id FROM runs WHERE companion = ? ORDER BY ingested_at, id", key)
	if err != nil {
		return nil, tx.wrap("find companion runs "+key, err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, tx.wrap("find companion runs "+key, err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, tx.wrap("find companion runs "+key, err)
	}
	var out []*RunRecord
	for _, id := range ids {
		rec, err := tx.a.readRunIn(tx.tx, id, false)
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
	return out, nil
}

// ExistingRun returns the archived run with exactly this id (an alias
// resolves to its run), with its records, or nil when there is none.
func (tx *Tx) ExistingRun(id string) (*RunRecord, error) {
	if err := tx.check("read run"); err != nil {
		return nil, err
	}
	// Most ids an ingest asks about are new: one query says so.
	var known bool
	if err := tx.tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM runs WHERE id = ?1)
		OR EXISTS (SELECT 1 FROM run_aliases WHERE alias = ?1)`, id).Scan(&known); err != nil {
		return nil, tx.wrap("read run "+id, err)
	} else if !known {
		return nil, nil
	}
	rec, err := tx.a.readRunIn(tx.tx, id, true)
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrAmbiguous) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if rec.ID != id {
		if target, _ := aliasOf(tx.tx, id); target != rec.ID {
			return nil, nil // a longer id that id merely prefixes
		}
	}
	return rec, nil
}

// AttachFile records another file holding a run already archived whole (a
// sweep's summary.json beside its run=N.json): nothing of the run changes.
func (tx *Tx) AttachFile(runID string, f RunFile) error {
	op := "attach file to run " + runID
	if err := tx.check(op); err != nil {
		return err
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
	return nil
}

// RekeyRun renames run old to new (the ContentID of a richer file of the
// run that arrived later), keeping old resolvable as an alias. A run a
// publication cites, or one with corrections, keeps its id: what was
// published or corrected under it stays findable as it was. It reports
// whether the run was renamed.
func (tx *Tx) RekeyRun(old, new, reason string) (bool, error) {
	op := "rename run " + old + " to " + new
	if err := tx.check(op); err != nil {
		return false, err
	}
	tx.deferred = true
	ok, err := rekey(tx.a.d, tx.tx, old, new, reason, true)
	if err != nil {
		return false, tx.wrap(op, err)
	}
	return ok, nil
}

// packs says the schema has request_packs (version 8 on): the upgrade to
// version 6 renames runs too.
func rekey(d *dialect, tx *sql.Tx, old, new, reason string, packs bool) (bool, error) {
	if old == new {
		return false, nil
	}
	var n int
	if err := tx.QueryRow(`SELECT (SELECT count(*) FROM runs WHERE id = ?2)
		+ (SELECT count(*) FROM run_aliases WHERE alias = ?2)
		+ (SELECT count(*) FROM corrections WHERE run_id = ?1)
		+ (SELECT count(*) FROM publications WHERE `+d.strpos+`(snapshot, ?1) > 0)`, old, new).Scan(&n); err != nil {
		return false, err
	}
	if n > 0 {
		return false, nil
	}
	if _, err := tx.Exec(d.deferForeignKeys); err != nil {
		return false, err
	}
	for _, q := range []string{
		"UPDATE runs SET id = ?2 WHERE id = ?1",
		"UPDATE provenance SET run_id = ?2 WHERE run_id = ?1",
		"UPDATE stated SET run_id = ?2 WHERE run_id = ?1",
		"UPDATE requests SET run_id = ?2 WHERE run_id = ?1",
		"UPDATE run_files SET run_id = ?2 WHERE run_id = ?1",
		"UPDATE run_aliases SET run_id = ?2 WHERE run_id = ?1",
	} {
		if _, err := tx.Exec(q, old, new); err != nil {
			return false, err
		}
	}
	if packs {
		if _, err := tx.Exec("UPDATE request_packs SET run_id = ?2 WHERE run_id = ?1", old, new); err != nil {
			return false, err
		}
	}
	if _, err := tx.Exec("INSERT INTO run_aliases (alias, run_id, reason) VALUES (?, ?, ?)", old, new, reason); err != nil {
		return false, err
	}
	return true, nil
}

// Aliases lists the old ids that resolve to a run.
func (a *Archive) Aliases(runID string) ([]string, error) {
	rows, err := a.r.Query("SELECT alias FROM run_aliases WHERE run_id = ? ORDER BY alias", runID)
	if err != nil {
		return nil, a.wrap("read aliases of run "+runID, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, a.wrap("read aliases of run "+runID, err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

func aliasOf(q interface {
	QueryRow(string, ...any) *sql.Row
}, alias string) (string, error) {
	var id string
	err := q.QueryRow("SELECT run_id FROM run_aliases WHERE alias = ?", alias).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// A Reparser reads the run at ordinal of an archived raw file with its
// format's parser. The store is below the parsers and cannot parse; the
// ingest package registers one (SetReparser), which the schema 0006
// upgrade uses to name a run completed by companion files as the batch
// names it.
type Reparser func(format, fileName string, raw []byte, ordinal int) (*benchrun.Run, error)

var reparser atomic.Pointer[Reparser]

// SetReparser registers the parsers for the upgrade of old archives.
func SetReparser(f Reparser) { reparser.Store(&f) }

// rekeyContentIDs is schema 0006's upgrade of the runs themselves: each run
// gets the id a fresh ingest of its files gives it, its old id kept as an
// alias. A run of one file is named by benchrun.ContentID of its content.
// A run completed by companion files is named as the batch names it: by
// the ContentID of its richest file's own run (benchrun.Rank, the smaller
// id between equals), which the upgrade re-parses from the archived bytes
// (its archived content is the merge, not that file alone); when a file
// cannot be re-parsed (no Reparser registered, a parser that no longer
// reads it) the run keeps its id. A run whose content another run already
// has, or one a publication cites, keeps its id too.
func rekeyContentIDs(tx *sql.Tx, archivePath string) error {
	rows, err := tx.Query(`SELECT id, EXISTS (SELECT 1 FROM run_files WHERE run_files.run_id = runs.id) FROM runs ORDER BY ingested_at, id`)
	if err != nil {
		return err
	}
	type old struct {
		id         string
		companions bool
	}
	var olds []old
	for rows.Next() {
		var o old
		if err := rows.Scan(&o.id, &o.companions); err != nil {
			rows.Close()
			return err
		}
		olds = append(olds, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	// Schema 0006 predates PostgreSQL archives: this upgrade is SQLite's.
	a := &Archive{path: archivePath, d: sqliteDialect}
	for _, o := range olds {
		rec, err := a.readRunIn(tx, o.id, true)
		if err != nil {
			return err
		}
		id, reason := benchrun.ContentID(rec.Run), "schema 0006: ids derived from the run's content"
		if o.companions {
			if id, err = a.richestFileID(tx, rec); err != nil {
				return fmt.Errorf("rename run %s: %w", o.id, err)
			}
			reason = "schema 0006: named by its richest file's content"
		}
		if id == "" {
			continue
		}
		if _, err := rekey(sqliteDialect, tx, o.id, id, reason, false); err != nil {
			return fmt.Errorf("rename run %s: %w", o.id, err)
		}
	}
	return nil
}

// richestFileID is the id the batch gives a run of several files: the
// ContentID of the run its richest file holds alone. "" when a file cannot
// be re-parsed.
func (a *Archive) richestFileID(tx *sql.Tx, rec *RunRecord) (string, error) {
	p := reparser.Load()
	if p == nil {
		return "", nil
	}
	type file struct {
		blob, name, format string
		ordinal            int
	}
	files := []file{{rec.BlobSHA256, rec.FileName, rec.Run.Format, rec.Run.Ordinal}}
	rows, err := tx.Query("SELECT blob, file_name, format, ordinal FROM run_files WHERE run_id = ? ORDER BY added_at, blob", rec.ID)
	if err != nil {
		return "", err
	}
	for rows.Next() {
		var f file
		if err := rows.Scan(&f.blob, &f.name, &f.format, &f.ordinal); err != nil {
			rows.Close()
			return "", err
		}
		files = append(files, f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return "", err
	}
	best, bestRank := "", -1
	for _, f := range files {
		br, err := a.openBlobIn(tx, f.blob)
		if err != nil {
			return "", err
		}
		raw, err := io.ReadAll(br)
		br.Close()
		if err != nil {
			return "", err
		}
		run, err := (*p)(f.format, f.name, raw, f.ordinal)
		if err != nil || run == nil {
			return "", nil
		}
		id, rank := benchrun.ContentID(run), benchrun.Rank(run)
		if rank > bestRank || rank == bestRank && id < best {
			best, bestRank = id, rank
		}
	}
	return best, nil
}
