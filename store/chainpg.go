package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
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
		return readRecords(ctx, q, k.query(where)+order, args, false)
	}
	cols := strings.TrimSuffix(strings.TrimPrefix(k.record, "json_array("), ")")
	if k.kind == "run" {
		cols = runRecordColumns
	}
	recs, err := readRecords(ctx, q, "SELECT "+k.ref+", "+cols+" FROM "+k.from+" "+where, args, true)
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
	arrays := make([][]any, len(recs))
	for i, r := range recs {
		c, ok := children[r.ref]
		if !ok {
			c = []any{"[]", "[]", "[]"}
		}
		arrays[i] = c
	}
	// SQLite's subqueries hand json_array the children's arrays as text,
	// which it quotes: so they are strings in the record.
	quoted, err := sqliteJSONArrays(arrays)
	if err != nil {
		return nil, err
	}
	for i, r := range recs {
		recs[i].text = "[" + r.text + "," + quoted[i][1:len(quoted[i])-1] + "]"
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
		elems, err := readRecords(ctx, q, query, args, true)
		if err != nil {
			return nil, err
		}
		for j := 0; j < len(elems); {
			run, texts := elems[j].ref, []string{}
			for ; j < len(elems) && elems[j].ref == run; j++ {
				texts = append(texts, elems[j].text)
			}
			if _, ok := arrays[run]; !ok {
				arrays[run] = make([]string, len(parts))
			}
			arrays[run][i] = "[" + strings.Join(texts, ",") + "]"
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

// readRecords reads query's rows, each a text key and then the record's
// values: with asJSON SQLite's json_array of those values (made for all
// rows at once), else the one value, which is the record's text already.
func readRecords(ctx context.Context, q contextQueryer, query string, args []any, asJSON bool) ([]chainRecord, error) {
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
	var values [][]any
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		ref, ok := vals[0].(string)
		if !ok {
			return nil, fmt.Errorf("chain record: key %v is not text", vals[0])
		}
		rec := chainRecord{ref: ref}
		if asJSON {
			values = append(values, slices.Clone(vals[1:]))
		} else if rec.text, ok = vals[1].(string); !ok {
			return nil, fmt.Errorf("chain record of %s: %T is not text", ref, vals[1])
		}
		out = append(out, rec)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if asJSON {
		texts, err := sqliteJSONArrays(values)
		if err != nil {
			return nil, err
		}
		for i := range out {
			out[i].text = texts[i]
		}
	}
	return out, nil
}

// sqliteJSONArrays is SQLite's json_array over each list of values as
// database/sql gives them, made by SQLite itself (an in-memory database):
// its REAL formatting is its own, and only SQLite gives the same digits.
// Many lists go in one query (a query costs far more than an array).
func sqliteJSONArrays(lists [][]any) ([]string, error) {
	db, err := jsonEngine()
	if err != nil {
		return nil, err
	}
	// Under SQLite's default limits of 2,000 result columns and 32,766
	// variables.
	const maxArrays, maxValues = 1000, 30000
	out := make([]string, 0, len(lists))
	var query strings.Builder
	var args []any
	for start := 0; start < len(lists); {
		query.Reset()
		args = args[:0]
		query.WriteString("SELECT ")
		end := start
		for ; end < len(lists) && end-start < maxArrays && (end == start || len(args)+len(lists[end]) <= maxValues); end++ {
			if end > start {
				query.WriteByte(',')
			}
			query.WriteString("json_array(")
			for i, v := range lists[end] {
				switch v := v.(type) {
				case nil, int64, float64, string:
				case int32:
					lists[end][i] = int64(v)
				default:
					return nil, fmt.Errorf("chain record: a %T value has no SQLite JSON form", v)
				}
				if i > 0 {
					query.WriteByte(',')
				}
				query.WriteByte('?')
			}
			query.WriteByte(')')
			args = append(args, lists[end]...)
		}
		texts := make([]string, end-start)
		ptrs := make([]any, len(texts))
		for i := range texts {
			ptrs[i] = &texts[i]
		}
		if err := db.QueryRow(query.String(), args...).Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, texts...)
		start = end
	}
	return out, nil
}

var jsonEngine = sync.OnceValues(func() (*sql.DB, error) {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(2)
	return db, nil
})
