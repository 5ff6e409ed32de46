package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// copyTables are the archive's tables in an order that satisfies their
// foreign keys, each with the key it is read in (so a copy is the same
// rows in the same order, whatever the engines). benchledger_archive is
// not among them: it is the destination's own marker.
var copyTables = []struct{ name, order string }{
	{"blobs", "sha256"},
	{"blob_chunks", "blob, seq"},
	{"runs", "id"},
	{"provenance", "run_id, field, source"},
	{"stated", "run_id, seq"},
	{"requests", "run_id, idx"},
	{"request_packs", "run_id"},
	{"run_files", "blob, ordinal"},
	{"run_aliases", "alias"},
	{"events", "id"},
	{"corrections", "id"},
	{`"references"`, "campaign, id"},
	{"reference_checks", "campaign, reference_id, seq"},
	{"publications", "case_id, version"},
	{"errata", "case_id, version, seq"},
	{"chain", "seq"},
}

// binaryColumns hold bytes on both engines; every other column read as
// bytes is text (or PostgreSQL's bytea requests.error, see dialect).
var binaryColumns = map[string]bool{"blob_chunks.data": true, "archive_keys.value": true, "request_packs.data": true}

// CopyStats counts what Copy copied, by table.
type CopyStats map[string]int64

// ErrNotEmpty: the destination of a copy already holds something.
var ErrNotEmpty = errors.New("the destination archive is not empty")

// CopyTo copies the whole archive into dst, a new archive (on the same or
// the other engine) that holds nothing yet: every row of every table as it
// is, the hash chain and the site key included, read from one snapshot of
// a and written in one transaction of dst. Nothing is recomputed, so the
// copy's raw files are byte-identical and audit finds in it what it finds
// here, tampering included.
func (a *Archive) CopyTo(ctx context.Context, dst *Archive) (CopyStats, error) {
	op := "copy to " + dst.path
	// One snapshot: SQLite's read transactions are one; PostgreSQL's
	// need repeatable read.
	txo := &sql.TxOptions{ReadOnly: true}
	if a.d == postgresDialect {
		txo.Isolation = sql.LevelRepeatableRead
	}
	src, err := a.r.BeginTx(ctx, txo)
	if err != nil {
		return nil, a.wrap(op, err)
	}
	defer src.Rollback()
	tx, err := dst.Begin(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	for _, t := range copyTables {
		var n int64
		if err := tx.tx.QueryRow("SELECT count(*) FROM " + t.name).Scan(&n); err != nil {
			return nil, dst.wrap(op, err)
		}
		if n > 0 {
			return nil, fmt.Errorf("archive %s: %w: table %s has %d rows", dst.path, ErrNotEmpty, t.name, n)
		}
	}
	stats := CopyStats{}
	for _, t := range copyTables {
		n, err := copyTable(ctx, src, tx.tx, dst.d, t.name, "SELECT * FROM "+t.name+" ORDER BY "+t.order)
		if err != nil {
			return nil, fmt.Errorf("archive %s: %s: table %s: %w", a.path, op, t.name, err)
		}
		stats[strings.Trim(t.name, `"`)] = n
	}
	// The site key: the copy vouches for the site caches the original's
	// builds left, so it keeps the key.
	var key []byte
	if err := src.QueryRow(`SELECT value FROM archive_keys WHERE name = 'site'`).Scan(&key); err != nil {
		return nil, a.wrap(op, err)
	}
	if _, err := tx.tx.Exec(`UPDATE archive_keys SET value = ? WHERE name = 'site'`, key); err != nil {
		return nil, dst.wrap(op, err)
	}
	for _, q := range dst.d.afterCopy {
		if _, err := tx.tx.Exec(q); err != nil {
			return nil, dst.wrap(op, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return stats, nil
}

func copyTable(ctx context.Context, src *sql.Tx, dst *sql.Tx, d *dialect, table, query string) (int64, error) {
	rows, err := src.QueryContext(ctx, query)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = `"` + c + `"`
	}
	// The source and the destination are other connections: rows stream
	// from one to the other.
	ins, err := dst.PrepareContext(ctx, "INSERT INTO "+table+" ("+strings.Join(quoted, ", ")+") VALUES ("+
		strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")+")")
	if err != nil {
		return 0, err
	}
	defer ins.Close()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var n int64
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return n, err
		}
		for i, v := range vals {
			col := strings.Trim(table, `"`) + "." + cols[i]
			if b, ok := v.([]byte); ok && !binaryColumns[col] {
				vals[i] = string(b)
			}
			if col == "requests.error" {
				if s, ok := vals[i].(string); ok {
					vals[i] = d.requestError(s)
				}
			}
		}
		if _, err := ins.ExecContext(ctx, vals...); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}
