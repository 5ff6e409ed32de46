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
	if !slices.IsSortedFunc(reqs, byIndex) {
		reqs = slices.Clone(reqs)
		slices.SortFunc(reqs, byIndex)
	}
	tx.pack = reqpack.Append(tx.pack[:0], reqs)
	stmt, err := tx.stmt(`INSERT INTO request_packs (run_id, data) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	if _, err := stmt.Exec(runID, tx.pack); err != nil {
		return fmt.Errorf("packed requests: %w", err)
	}
	return nil
}

func byIndex(a, b benchrun.Request) int { return cmp.Compare(a.Index, b.Index) }

// packedRequests reads a run's records from its pack (request_packs);
// packed is false when the run has none (archived before packs, or too
// many requests), and its rows are to be read instead.
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
	reqs, err = reqpack.Decode(rows.Bytes(0))
	if err != nil {
		return false, nil, fmt.Errorf("packed requests: %w: %w", ErrCorrupt, err)
	}
	return true, reqs, nil
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
	if reqs, err = reqpack.Decode(data); err != nil {
		return nil, false, fmt.Errorf("archive %s: packed requests of run %s: %w: %w", a.path, runID, ErrCorrupt, err)
	}
	return reqs, true, nil
}
