package store

import (
	"context"
	"database/sql"
	"errors"
	"sort"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/provenance"
)

// ScanRuns reads every run whose id wanted holds (every run when wanted is
// nil), with its provenance, stated figures and per-request records, in id
// order from one read snapshot, and calls fn with each. It reads each table
// once in key order instead of querying per run, which is what makes a pass
// over thousands of runs (the site) quick. fn may keep the record.
func (a *Archive) ScanRuns(ctx context.Context, wanted map[string]bool, fn func(*RunRecord) error) error {
	const op = "scan runs"
	tx, err := a.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return a.wrap(op, err)
	}
	defer tx.Rollback()
	runs, err := tx.QueryContext(ctx, `SELECT id, `+runColumnsSQL+` FROM runs ORDER BY id`)
	if err != nil {
		return a.wrap(op, err)
	}
	defer runs.Close()
	prov, err := newCursor(ctx, tx, `SELECT run_id, field, source, value FROM provenance ORDER BY run_id`,
		func(scan func(...any) error) (id string, e provenance.Entry, err error) {
			err = scanProvenanceRow(scan, &e, &id)
			return id, e, err
		})
	if err != nil {
		return a.wrap(op, err)
	}
	defer prov.rows.Close()
	stated, err := newCursor(ctx, tx, `SELECT run_id, `+statedColumnsSQL+` FROM stated ORDER BY run_id, seq`,
		func(scan func(...any) error) (id string, st benchrun.Stated, err error) {
			err = scanStatedRow(scan, &st, &id)
			return id, st, err
		})
	if err != nil {
		return a.wrap(op, err)
	}
	defer stated.rows.Close()
	var rs requestScanner
	reqs, err := newCursor(ctx, tx, `SELECT run_id, `+requestColumnsSQL+` FROM requests ORDER BY run_id, idx`,
		func(scan func(...any) error) (id string, r benchrun.Request, err error) {
			err = rs.scan(scan, &r, &id)
			return id, r, err
		})
	if err != nil {
		return a.wrap(op, err)
	}
	defer reqs.rows.Close()

	for runs.Next() {
		rec := &RunRecord{}
		requestCount, err := scanRunRow(runs.Scan, rec, &rec.ID)
		if err != nil {
			return a.wrap(op, err)
		}
		keep := wanted == nil || wanted[rec.ID]
		run := rec.Run
		if keep && run.HasRequests {
			run.Requests = make([]benchrun.Request, 0, max(requestCount, 0))
		}
		err = errors.Join(
			prov.each(rec.ID, func(e provenance.Entry) {
				if keep {
					rec.Provenance = append(rec.Provenance, e)
				}
			}),
			stated.each(rec.ID, func(st benchrun.Stated) {
				if keep {
					run.Stated = append(run.Stated, st)
				}
			}),
			reqs.each(rec.ID, func(r benchrun.Request) {
				if keep {
					run.Requests = append(run.Requests, r)
				}
			}))
		if err != nil {
			return a.wrap(op, err)
		}
		if !keep {
			continue
		}
		// Provenance in readProvenance's order: field, then file,
		// manifest, cli.
		sort.SliceStable(rec.Provenance, func(i, j int) bool {
			x, y := rec.Provenance[i], rec.Provenance[j]
			if x.Field != y.Field {
				return x.Field < y.Field
			}
			return sourceRank[x.Source] < sourceRank[y.Source]
		})
		factsFromProvenance(rec)
		if len(run.Requests) == 0 {
			run.Requests = nil
		}
		if err := fn(rec); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return a.wrap(op, runs.Err())
}

// cursor walks a query ordered by run id (its first column), one run's rows
// at a time, for ScanRuns' merge: each row is decoded once, ahead.
type cursor[T any] struct {
	rows   *sql.Rows
	decode func(scan func(...any) error) (string, T, error)
	ok     bool
	runID  string // of the row ahead
	value  T
}

func newCursor[T any](ctx context.Context, tx *sql.Tx, query string, decode func(scan func(...any) error) (string, T, error)) (*cursor[T], error) {
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c := &cursor[T]{rows: rows, decode: decode}
	return c, c.advance()
}

func (c *cursor[T]) advance() error {
	if c.ok = c.rows.Next(); !c.ok {
		return c.rows.Err()
	}
	var err error
	c.runID, c.value, err = c.decode(c.rows.Scan)
	return err
}

// each hands fn the rows of run id; rows of runs before id (which the
// runs table does not hold) are passed over.
func (c *cursor[T]) each(id string, fn func(T)) error {
	for c.ok && c.runID < id {
		if err := c.advance(); err != nil {
			return err
		}
	}
	for c.ok && c.runID == id {
		fn(c.value)
		if err := c.advance(); err != nil {
			return err
		}
	}
	return nil
}
