package store

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// The chain's canonical records on PostgreSQL. On SQLite a record is the
// text of SQLite's json_array over the thing's columns (chainKinds); on
// PostgreSQL the same columns are read and SQLite's json_array makes the
// same text of them (TestChainRecordsSameOnBothEngines), so that an archive
// copied from one engine to the other verifies with the chain it had.

type chainRecord struct{ ref, text string }

type contextQueryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// chainRecords reads the records of kind k: of the thing ref only, or of
// every thing of the kind when ref is "", in ref order.
func (a *Archive) chainRecords(ctx context.Context, q contextQueryer, k chainKind, ref string) ([]chainRecord, error) {
	where, args := "", []any(nil)
	if ref != "" {
		where, args = k.one, []any{ref}
	}
	if a.d != postgresDialect {
		order := ""
		if ref == "" {
			order = " ORDER BY 1"
		}
		return readRecords(ctx, q, k.query(where)+order, args, func(_ string, vals []any) (string, error) { return vals[0].(string), nil })
	}
	cols := strings.TrimSuffix(strings.TrimPrefix(k.record, "json_array("), ")")
	if k.kind == "run" {
		cols = runRecordColumns
	}
	recs, err := readRecords(ctx, q, "SELECT "+k.ref+", "+cols+" FROM "+k.from+" "+where, args, func(_ string, vals []any) (string, error) {
		return sqliteJSONArray(vals)
	})
	// ORDER BY on the ref expression would follow the database's
	// collation; SQLite's is bytewise.
	sort.Slice(recs, func(i, j int) bool { return recs[i].ref < recs[j].ref })
	if err != nil || k.kind != "run" || len(recs) == 0 {
		// A run not stored yet (a write about to create it) has no
		// children to read.
		return recs, err
	}
	children, err := runChildren(ctx, q, ref)
	if err != nil {
		return nil, err
	}
	for i, r := range recs {
		c, ok := children[r.ref]
		if !ok {
			c = []any{"[]", "[]", "[]"}
		}
		// SQLite's subqueries hand json_array the children's arrays as
		// text, which it quotes: so they are strings in the record.
		quoted, err := sqliteJSONArray(c)
		if err != nil {
			return nil, err
		}
		recs[i].text = "[" + r.text + "," + quoted[1:len(quoted)-1] + "]"
	}
	return recs, nil
}

// runRecordColumns are the run row's columns in the run record, as in
// chainKinds.
const runRecordColumns = `id, blob, ordinal, file_name, location, format, format_variant, source_tool,
	percentile_method, clock, has_requests, completed, failed, extra, notes, campaign, role, model, engine,
	engine_version, gpu, run_date, publishable, missing, ingested_at, request_count, companion`

// runChildren makes, for each run (or run ref), the three arrays that
// follow its row in its record: provenance, stated figures, companion
// files.
func runChildren(ctx context.Context, q contextQueryer, ref string) (map[string][]any, error) {
	parts := []struct{ cols, from, order string }{
		{"field, source, value", "provenance", "field, source"},
		{"seq, metric, value, unit, source_key, source_unit, printed", "stated", "seq"},
		{"blob, ordinal, file_name, format, added, added_at", "run_files", "blob, ordinal"},
	}
	arrays := map[string][]string{}
	for i, p := range parts {
		query := "SELECT run_id, " + p.cols + " FROM " + p.from
		var args []any
		if ref != "" {
			query += " WHERE run_id = ?1"
			args = []any{ref}
		}
		query += " ORDER BY run_id, " + p.order
		elems := map[string][]string{}
		_, err := readRecords(ctx, q, query, args, func(run string, vals []any) (string, error) {
			text, err := sqliteJSONArray(vals)
			if _, ok := arrays[run]; !ok {
				arrays[run] = make([]string, len(parts))
			}
			elems[run] = append(elems[run], text)
			return "", err
		})
		if err != nil {
			return nil, err
		}
		for run, es := range elems {
			arrays[run][i] = "[" + strings.Join(es, ",") + "]"
		}
	}
	out := map[string][]any{}
	for run, as := range arrays {
		out[run] = make([]any, len(as))
		for i := range as {
			if as[i] == "" {
				as[i] = "[]"
			}
			out[run][i] = as[i]
		}
	}
	return out, nil
}

func readRecords(ctx context.Context, q contextQueryer, query string, args []any, text func(ref string, vals []any) (string, error)) ([]chainRecord, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out []chainRecord
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		ref, ok := vals[0].(string)
		if !ok {
			return nil, fmt.Errorf("chain record: key %v is not text", vals[0])
		}
		t, err := text(ref, vals[1:])
		if err != nil {
			return nil, err
		}
		out = append(out, chainRecord{ref: ref, text: t})
	}
	return out, rows.Err()
}

// sqliteJSONArray is SQLite's json_array over values as database/sql
// gives them, made by SQLite itself (an in-memory database): its REAL
// formatting is its own, and only SQLite gives the same digits.
func sqliteJSONArray(vals []any) (string, error) {
	db, err := jsonEngine()
	if err != nil {
		return "", err
	}
	for i, v := range vals {
		switch v.(type) {
		case nil, int64, float64, string:
		case int32:
			vals[i] = int64(v.(int32))
		default:
			return "", fmt.Errorf("chain record: a %T value has no SQLite JSON form", v)
		}
	}
	var text string
	err = db.QueryRow("SELECT json_array("+strings.TrimSuffix(strings.Repeat("?,", len(vals)), ",")+")", vals...).Scan(&text)
	return text, err
}

var jsonEngine = sync.OnceValues(func() (*sql.DB, error) {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(2)
	return db, nil
})
