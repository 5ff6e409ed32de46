package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/provenance"
)

// scanRunsPostgres is ScanRuns on PostgreSQL, with the same merge: each
// table is read once in run order, streamed over its own connection, and
// the connections read one snapshot (the first exports it, the others
// take it), so the runs, their provenance, stated figures and requests
// agree even while writers work. A run's requests come from its pack
// (request_packs, one stream over all runs) when it has one, as on SQLite,
// and otherwise from a stream of the rows of the runs without one (a run of
// more than MaxPackedRequests, or archived before packs): for 10,000 runs
// of 100 requests, reading the rows took a third of the site's time.
func (a *Archive) scanRunsPostgres(ctx context.Context, wanted map[string]bool, fn func(*RunRecord) error) error {
	const op = "scan runs"
	corrections, err := correctionsByRun(a)
	if err != nil {
		return err
	}
	// Connections of its own, as the SQLite scan has: fn may read the
	// archive meanwhile.
	db, err := openPostgresDB(a.url, true, 5)
	if err != nil {
		return a.wrap(op, err)
	}
	defer db.Close()
	var snapshot string
	txs := make([]*sql.Tx, 5)
	var closers []func() error
	defer func() {
		for _, c := range closers {
			c()
		}
	}()
	for i := range txs {
		tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
		if err != nil {
			return a.wrap(op, err)
		}
		defer tx.Rollback()
		if i == 0 {
			err = tx.QueryRowContext(ctx, `SELECT pg_export_snapshot()`).Scan(&snapshot)
		} else {
			_, err = tx.ExecContext(ctx, `SET TRANSACTION SNAPSHOT '`+snapshot+`'`)
		}
		if err != nil {
			return a.wrap(op, err)
		}
		txs[i] = tx
	}
	runs, err := txs[0].QueryContext(ctx, `SELECT id, `+runColumnsSQL+` FROM runs ORDER BY id`)
	if err != nil {
		return a.wrap(op, err)
	}
	defer runs.Close()
	query := func(tx *sql.Tx, q string) (*sql.Rows, error) {
		rows, err := tx.QueryContext(ctx, q)
		if err == nil {
			closers = append(closers, rows.Close)
		}
		return rows, err
	}
	provRows, err := query(txs[1], `SELECT run_id, field, source, value FROM provenance ORDER BY run_id`)
	if err != nil {
		return a.wrap(op, err)
	}
	prov, err := newRowCursor(provRows, func(scan func(...any) error, id *string) (e provenance.Entry, err error) {
		return e, scanProvenanceRow(scan, &e, id)
	})
	if err != nil {
		return a.wrap(op, err)
	}
	statedRows, err := query(txs[2], `SELECT run_id, `+statedColumnsSQL+` FROM stated ORDER BY run_id, seq`)
	if err != nil {
		return a.wrap(op, err)
	}
	stated, err := newRowCursor(statedRows, func(scan func(...any) error, id *string) (st benchrun.Stated, err error) {
		return st, scanStatedRow(scan, &st, id)
	})
	if err != nil {
		return a.wrap(op, err)
	}
	packRows, err := query(txs[3], `SELECT run_id, data FROM request_packs ORDER BY run_id`)
	if err != nil {
		return a.wrap(op, err)
	}
	packs, err := newRowCursor(packRows, func(scan func(...any) error, id *string) (data []byte, err error) {
		return data, scan(id, &data)
	})
	if err != nil {
		return a.wrap(op, err)
	}
	reqRows, err := query(txs[4], `SELECT run_id, `+requestColumnsSQL+` FROM requests
		WHERE run_id IN (SELECT id FROM runs WHERE has_requests <> 0
			AND NOT EXISTS (SELECT 1 FROM request_packs p WHERE p.run_id = runs.id))
		ORDER BY run_id, idx`)
	if err != nil {
		return a.wrap(op, err)
	}
	var rs requestScanner
	reqs, err := newRowCursor(reqRows, func(scan func(...any) error, id *string) (r benchrun.Request, err error) {
		return r, rs.scan(scan, &r, id)
	})
	if err != nil {
		return a.wrap(op, err)
	}
	return mergeRuns(ctx, func(err error) error { return a.wrap(op, err) }, runs, prov, stated, corrections, wanted, fn,
		func(rec *RunRecord, keep bool, requestCount int64) error {
			run := rec.Run
			want := keep && run.HasRequests
			var packErr error
			packed := false
			err := packs.each(rec.ID, func(data []byte) {
				packed = true
				if want && packErr == nil {
					if run.Requests, packErr = decodePack(data); packErr != nil {
						packErr = fmt.Errorf("packed requests: %w", packErr)
					}
				}
			})
			if want && !packed {
				run.Requests = make([]benchrun.Request, 0, max(requestCount, 0))
			}
			err = errors.Join(err, packErr, reqs.each(rec.ID, func(r benchrun.Request) {
				if want && !packed {
					run.Requests = append(run.Requests, r)
				}
			}))
			if len(run.Requests) == 0 {
				run.Requests = nil
			}
			return err
		})
}

// newRowCursor is scan.go's cursor over database/sql rows whose first
// column is the run id; decode scans a row with the id first.
func newRowCursor[T any](rows *sql.Rows, decode func(scan func(...any) error, id *string) (T, error)) (*cursor[T], error) {
	c := &cursor[T]{next: rows.Next, err: rows.Err, decode: func(runID *string) (T, error) {
		v, err := decode(rows.Scan, runID)
		if err != nil {
			err = fmt.Errorf("row of run %s: %w", *runID, err)
		}
		return v, err
	}}
	return c, c.advance()
}
