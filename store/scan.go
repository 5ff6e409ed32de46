package store

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store/internal/sqlitebulk"
)

// ScanRuns reads every run whose id wanted holds (every run when wanted is
// nil), with its provenance, stated figures and per-request records, in id
// order from one read snapshot, and calls fn with each. It reads each table
// once in key order instead of querying per run, and in batches
// (sqlitebulk), which is what makes a pass over thousands of runs (the
// site) quick. fn may keep the record.
func (a *Archive) ScanRuns(ctx context.Context, wanted map[string]bool, fn func(*RunRecord) error) error {
	if a.d == postgresDialect {
		return a.scanRunsPostgres(ctx, wanted, fn)
	}
	const op = "scan runs"
	uri, err := fileURI(a.path, "mode=ro")
	if err != nil {
		return a.wrap(op, err)
	}
	conn, err := sqlitebulk.Open(uri, int(readerBusyTimeout.Milliseconds()))
	if err != nil {
		return a.wrap(op, err)
	}
	defer conn.Close()
	runs, err := conn.Query(`SELECT id, ` + runColumnsSQL + ` FROM runs ORDER BY id`)
	if err != nil {
		return a.wrap(op, err)
	}
	prov, err := newCursor(conn, `SELECT run_id, field, source, value FROM provenance ORDER BY run_id`,
		func(rows *sqlitebulk.Rows) (provenance.Entry, error) {
			// scanProvenanceRow's decoding: the columns are NOT NULL text.
			return provenance.Entry{Field: bulkText(rows, 1), Source: provenance.Source(bulkText(rows, 2)), Value: bulkText(rows, 3)}, nil
		})
	if err != nil {
		return a.wrap(op, err)
	}
	stated, err := newCursor(conn, `SELECT run_id, `+statedColumnsSQL+` FROM stated ORDER BY run_id, seq`,
		func(rows *sqlitebulk.Rows) (benchrun.Stated, error) {
			// scanStatedRow's decoding, from the typed cells: boxing
			// each value for it was a fifth of the scan's allocations.
			p, ok := rows.Int(6)
			if !ok {
				return benchrun.Stated{}, fmt.Errorf("stated row: printed %v is not an integer", rows.Value(6))
			}
			return benchrun.Stated{Metric: bulkText(rows, 1), Value: bulkFigure(rows, 2), Unit: bulkText(rows, 3),
				SourceKey: bulkText(rows, 4), SourceUnit: bulkText(rows, 5), Printed: int(p)}, nil
		})
	if err != nil {
		return a.wrap(op, err)
	}
	reqs, err := conn.Prepare(`SELECT ` + requestColumnsSQL + ` FROM requests WHERE run_id = ? ORDER BY idx`)
	if err != nil {
		return a.wrap(op, err)
	}
	packs, err := conn.Prepare(`SELECT data FROM request_packs WHERE run_id = ?`)
	if err != nil {
		return a.wrap(op, err)
	}

	corrections, err := correctionsByRun(a)
	if err != nil {
		return err
	}
	return mergeRuns(ctx, func(err error) error { return a.wrap(op, err) }, runs, prov, stated, corrections, wanted, fn,
		func(rec *RunRecord, keep bool, requestCount int64) (err error) {
			if !keep || !rec.Run.HasRequests {
				return nil
			}
			var packed bool
			if packed, rec.Run.Requests, err = packedRequests(packs, rec.ID); err == nil && !packed {
				rec.Run.Requests, err = bulkRequests(reqs, rec.ID, requestCount)
			}
			return err
		})
}

// mergeRuns is ScanRuns' merge on either engine: for each row of runs (id,
// runColumnsSQL) it takes the run's provenance and stated figures from
// their cursors, its requests through requests (which must consume the
// run's requests when keep is false too, where they come from a cursor),
// and hands the wanted runs to fn. Its own errors go through wrap, fn's
// are returned as they are.
func mergeRuns(ctx context.Context, wrap func(error) error, runs interface {
	Next() bool
	Err() error
	Scan(...any) error
}, prov *cursor[provenance.Entry], stated *cursor[benchrun.Stated], corrections map[string][]Correction,
	wanted map[string]bool, fn func(*RunRecord) error, requests func(rec *RunRecord, keep bool, requestCount int64) error) error {
	cache := newJSONCache()
	// A run's provenance and stated figures are gathered here first, then
	// copied once into slices of their size (appending to the run's own
	// regrew them a few times a run).
	var provs []provenance.Entry
	var stateds []benchrun.Stated
	for runs.Next() {
		rec := &RunRecord{}
		requestCount, err := scanRunRow(runs.Scan, rec, cache, &rec.ID)
		if err != nil {
			return wrap(err)
		}
		keep := wanted == nil || wanted[rec.ID]
		run := rec.Run
		provs, stateds = provs[:0], stateds[:0]
		err = errors.Join(
			prov.each(rec.ID, func(e provenance.Entry) {
				if keep {
					provs = append(provs, e)
				}
			}),
			stated.each(rec.ID, func(st benchrun.Stated) {
				if keep {
					stateds = append(stateds, st)
				}
			}))
		if len(provs) > 0 {
			rec.Provenance = append(rec.Provenance, provs...)
		}
		if len(stateds) > 0 {
			run.Stated = append(run.Stated, stateds...)
		}
		if err == nil {
			err = requests(rec, keep, requestCount)
		}
		if err != nil {
			return wrap(fmt.Errorf("run %s: %w", rec.ID, err))
		}
		if !keep {
			continue
		}
		finishScanned(rec, corrections[rec.ID])
		if err := fn(rec); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return wrap(runs.Err())
}

// correctionsByRun reads every correction, by run: they are few, so a
// scan reads them whole and lays each run's over it.
func correctionsByRun(a *Archive) (map[string][]Correction, error) {
	all, err := readCorrections(a.r, a.path, "")
	if err != nil {
		return nil, err
	}
	out := map[string][]Correction{}
	for _, c := range all {
		out[c.RunID] = append(out[c.RunID], c)
	}
	return out, nil
}

// finishScanned lays a scanned run's corrections over its provenance and
// puts it in readProvenance's order (field, then file, manifest, cli), as
// Run gives it.
func finishScanned(rec *RunRecord, cs []Correction) {
	if len(cs) > 0 {
		rec.Provenance = append(rec.Provenance, correctionEntries(cs)...)
		sortProvenance(rec.Provenance)
	}
	sort.SliceStable(rec.Provenance, func(i, j int) bool {
		x, y := rec.Provenance[i], rec.Provenance[j]
		if x.Field != y.Field {
			return x.Field < y.Field
		}
		return sourceRank[x.Source] < sourceRank[y.Source]
	})
	factsFromProvenance(rec)
}

// bulkRunRequests is Requests on SQLite: the run's row and then its
// records, from one read snapshot of a connection of its own, in batches
// (sqlitebulk). Through database/sql, a case study's evaluation spent
// most of its time in the driver's row by row copies.
func (a *Archive) bulkRunRequests(op, runID string) ([]benchrun.Request, error) {
	uri, err := fileURI(a.path, "mode=ro")
	if err != nil {
		return nil, a.wrap(op, err)
	}
	conn, err := sqlitebulk.Open(uri, int(readerBusyTimeout.Milliseconds()))
	if err != nil {
		return nil, a.wrap(op, err)
	}
	defer conn.Close()
	rows, err := conn.Query("SELECT has_requests, request_count FROM runs WHERE id = ?", runID)
	if err != nil {
		return nil, a.wrap(op, err)
	}
	var hasRequests bool
	var count int64
	found := rows.Next()
	if found {
		err = rows.Scan(&hasRequests, &count)
	} else {
		err = rows.Err()
	}
	rows.Close()
	switch {
	case err != nil:
		return nil, a.wrap(op, err)
	case !found:
		return nil, fmt.Errorf("archive %s: run %s: %w", a.path, runID, ErrNotFound)
	case !hasRequests:
		return nil, nil
	}
	stmt, err := conn.Prepare(`SELECT ` + requestColumnsSQL + ` FROM requests WHERE run_id = ? ORDER BY idx`)
	if err != nil {
		return nil, a.wrap(op, err)
	}
	reqs, err := bulkRequests(stmt, runID, count)
	if err != nil {
		return nil, a.wrap(op, err)
	}
	return reqs, nil
}

// bulkRequests reads one run's requestColumnsSQL rows with the conventions
// of requestScanner: a NULL figure is unknown, a NULL token count -1.
func bulkRequests(stmt *sqlitebulk.Stmt, runID string, sizeHint int64) ([]benchrun.Request, error) {
	rows, err := stmt.Query(runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]benchrun.Request, 0, max(sizeHint, 0))
	figure := func(col int) float64 { return bulkFigure(rows, col) }
	tokens := func(col int) int32 {
		if v, ok := rows.Int(col); ok {
			return int32(v)
		}
		return -1
	}
	for rows.Next() {
		idx, ok1 := rows.Int(0)
		gapCount, ok2 := rows.Int(8)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("request row: idx %v, gap_count %v: not integers", rows.Value(0), rows.Value(8))
		}
		r := benchrun.Request{Index: int(idx), Start: figure(1), QueueTime: figure(2), TTFT: figure(3),
			Latency: figure(4), InputTokens: tokens(5), OutputTokens: tokens(6),
			Gaps: benchrun.GapStats{Count: int32(gapCount), Sum: figure(9), Min: figure(10), Max: figure(11)}}
		r.Error = bulkText(rows, 7)
		out = append(out, r)
	}
	if len(out) == 0 {
		out = nil
	}
	return out, rows.Err()
}

// bulkFigure reads a REAL column as realOrUnknown does (NULL: unknown).
func bulkFigure(rows *sqlitebulk.Rows, col int) float64 {
	if v, ok := rows.Float(col); ok {
		return v
	}
	return benchrun.Unknown
}

// bulkText reads a TEXT column as textOf does (anything else: "").
func bulkText(rows *sqlitebulk.Rows, col int) string {
	if t := rows.Type(col); t == sqlitebulk.Text || t == sqlitebulk.Blob {
		return rows.String(col)
	}
	return ""
}

// cursor walks a query ordered by run id (its first column), one run's rows
// at a time, for ScanRuns' merge: each row is decoded once, ahead. It is
// the same over sqlitebulk's rows and database/sql's (scanpg.go).
type cursor[T any] struct {
	next func() bool
	err  func() error
	// decode decodes the row and sets *runID to its run id (when it
	// changed: a run's rows share its id).
	decode func(runID *string) (T, error)
	ok     bool
	runID  string // of the row ahead
	value  T
}

func newCursor[T any](conn *sqlitebulk.Conn, query string, decode func(*sqlitebulk.Rows) (T, error)) (*cursor[T], error) {
	rows, err := conn.Query(query)
	if err != nil {
		return nil, err
	}
	c := &cursor[T]{next: rows.Next, err: rows.Err, decode: func(runID *string) (T, error) {
		// A string is made only when the id changes.
		if id := rows.Bytes(0); string(id) != *runID {
			*runID = string(id)
		}
		return decode(rows)
	}}
	return c, c.advance()
}

func (c *cursor[T]) advance() error {
	if c.ok = c.next(); !c.ok {
		return c.err()
	}
	var err error
	c.value, err = c.decode(&c.runID)
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
