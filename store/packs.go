package store

import (
	"cmp"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/store/internal/reqpack"
	"github.com/benchledger/benchledger/store/internal/sqlitebulk"
)

// MaxPackedRequests is the most requests a run may have for the archive to
// keep their packed copy (request_packs): a run's pack is read whole, and
// a run of a million requests is read from its rows in a stream instead.
const MaxPackedRequests = 1 << 16

// putRequestPack stores the packed copy of a run's records (reqpack) that
// ScanRuns reads instead of the rows, in the rows' order.
func (tx *Tx) putRequestPack(runID string, reqs []benchrun.Request) error {
	if len(reqs) > MaxPackedRequests {
		return nil
	}
	// Reused by the next run: a pipeline is sent before PutRun returns.
	tx.pack = appendPack(tx.pack[:0], reqs)
	return tx.exec(insertPackSQL, []any{runID, tx.pack}, prefixed("packed requests"))
}

const insertPackSQL = `INSERT INTO request_packs (run_id, data) VALUES (?, ?)`

// appendPack appends the pack of reqs, in index order as the rows are read.
func appendPack(dst []byte, reqs []benchrun.Request) []byte {
	if !slices.IsSortedFunc(reqs, byIndex) {
		reqs = slices.Clone(reqs)
		slices.SortFunc(reqs, byIndex)
	}
	return reqpack.Append(dst, reqs)
}

func byIndex(a, b benchrun.Request) int { return cmp.Compare(a.Index, b.Index) }

// packArchivedRequests is the upgrade to version 8 on SQLite: the runs
// archived before it get their packs, so the site reads an upgraded
// archive as fast as a new one. (On PostgreSQL they keep none: its scan
// reads the rows of a run without a pack.)
func packArchivedRequests(tx *sql.Tx, _ string) error {
	rows, err := tx.Query(`SELECT id FROM runs WHERE has_requests AND request_count <= ? ORDER BY id`, MaxPackedRequests)
	if err != nil {
		return err
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	insert, err := tx.Prepare(insertPackSQL)
	if err != nil {
		return err
	}
	defer insert.Close()
	var reqs []benchrun.Request
	var pack []byte
	for _, id := range ids {
		reqs = reqs[:0]
		if err := scanRequests(tx, id, func(r *benchrun.Request) error {
			reqs = append(reqs, *r)
			return nil
		}); err != nil {
			return fmt.Errorf("run %s: %w", id, err)
		}
		if len(reqs) == 0 {
			continue
		}
		pack = appendPack(pack[:0], reqs)
		if _, err := insert.Exec(id, pack); err != nil {
			return fmt.Errorf("run %s: packed requests: %w", id, err)
		}
	}
	return nil
}

// packedRequests reads a run's records from its pack (request_packs);
// packed is false when the run has none (more than MaxPackedRequests
// records, or the pack was deleted), and its rows are to be read instead.
func packedRequests(stmt *sqlitebulk.Stmt, runID string) (packed bool, reqs []benchrun.Request, err error) {
	rows, err := stmt.Query(runID)
	if err != nil {
		return false, nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		return false, nil, rows.Err()
	}
	// The table is STRICT: data is a BLOB.
	reqs, err = decodePack(rows.Bytes(0))
	if err != nil {
		return false, nil, fmt.Errorf("packed requests: %w", err)
	}
	return true, reqs, nil
}

// decodePack decodes a pack as read from request_packs; a pack that cannot
// be read is an error wrapping ErrCorrupt.
func decodePack(data []byte) ([]benchrun.Request, error) {
	reqs, err := reqpack.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return reqs, nil
}

// RequestPack returns a run's records as its pack holds them (ok false: the
// run has no pack), for audit to hold the pack to the rows. A pack that
// cannot be read is an error wrapping ErrCorrupt.
func (a *Archive) RequestPack(runID string) (reqs []benchrun.Request, ok bool, err error) {
	var data []byte
	err = a.r.QueryRow("SELECT data FROM request_packs WHERE run_id = ?", runID).Scan(&data)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, false, nil
	case err != nil:
		return nil, false, a.wrap("read packed requests of run "+runID, err)
	}
	if reqs, err = decodePack(data); err != nil {
		return nil, false, fmt.Errorf("archive %s: packed requests of run %s: %w", a.path, runID, err)
	}
	return reqs, true, nil
}
