package store

import (
	"context"
	"fmt"
)

// IntegrityProblem is one problem SQLite itself reports about the archive
// file: a line of PRAGMA integrity_check, or a row of PRAGMA
// foreign_key_check.
type IntegrityProblem struct {
	Check   string // "integrity_check" or "foreign_key_check"
	Message string
}

// CheckIntegrity runs SQLite's PRAGMA integrity_check and PRAGMA
// foreign_key_check on the archive and returns what they report; none when
// the file is sound.
func (a *Archive) CheckIntegrity(ctx context.Context) ([]IntegrityProblem, error) {
	if a.d == postgresDialect {
		// PostgreSQL keeps its pages and foreign keys itself: there is no
		// file for another program to damage behind its back.
		return nil, nil
	}
	var out []IntegrityProblem
	rows, err := a.r.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return nil, a.wrap("integrity check", err)
	}
	for rows.Next() {
		var msg string
		if err := rows.Scan(&msg); err != nil {
			rows.Close()
			return nil, a.wrap("integrity check", err)
		}
		if msg != "ok" {
			out = append(out, IntegrityProblem{"integrity_check", msg})
		}
	}
	err = rows.Err()
	rows.Close()
	if err != nil {
		return nil, a.wrap("integrity check", err)
	}

	rows, err = a.r.QueryContext(ctx, "PRAGMA foreign_key_check")
	if err != nil {
		return nil, a.wrap("foreign key check", err)
	}
	defer rows.Close()
	for rows.Next() {
		var table, parent string
		var rowid *int64
		var fkid int64
		if err := rows.Scan(&table, &rowid, &parent, &fkid); err != nil {
			return nil, a.wrap("foreign key check", err)
		}
		where := "a row without rowid"
		if rowid != nil {
			where = fmt.Sprintf("row %d", *rowid)
		}
		out = append(out, IntegrityProblem{"foreign_key_check",
			fmt.Sprintf("table %s, %s: references a missing row of %s (foreign key %d)", table, where, parent, fkid)})
	}
	if err := rows.Err(); err != nil {
		return nil, a.wrap("foreign key check", err)
	}
	return out, nil
}
