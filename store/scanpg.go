package store

import (
	"context"
	"database/sql"
)

// scanRunsPostgres is ScanRuns on PostgreSQL: every run from one snapshot
// (a repeatable-read transaction), read as Run reads it.
func (a *Archive) scanRunsPostgres(ctx context.Context, wanted map[string]bool, fn func(*RunRecord) error) error {
	const op = "scan runs"
	tx, err := a.r.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return a.wrap(op, err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT id FROM runs ORDER BY id`)
	if err != nil {
		return a.wrap(op, err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return a.wrap(op, err)
		}
		if wanted == nil || wanted[id] {
			ids = append(ids, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return a.wrap(op, err)
	}
	for _, id := range ids {
		rec, err := a.readRunIn(tx, id, true)
		if err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}
