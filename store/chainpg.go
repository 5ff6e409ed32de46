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
	qs := a.recordQueries(k, ref)
	sets := make([][]recordRow, len(qs))
	for i, rq := range qs {
		rows, err := readRecordRows(ctx, q, rq)
		if err != nil {
			return nil, err
		}
		sets[i] = rows
		if i == 0 && len(rows) == 0 {
			// A run not stored yet (a write about to create it) has no
			// children to read.
			break
		}
	}
	return a.assembleRecords(k, sets)
}

// recordQuery is one query whose rows make chain records: each row a text
// key, then values.
type recordQuery struct {
	sql  string
	args []any
}

// recordRow is one row of a recordQuery.
type recordRow struct {
	ref  string
	vals []any
}

// recordQueries are the queries whose rows make the records of kind k (of
// the thing ref, or of all when ref is ""), in the order assembleRecords
// takes their rows. On SQLite a row's one value is the record's text; on
// PostgreSQL a row's values are the record's (a run's row, then the rows
// of its provenance, stated figures and companion files).
func (a *Archive) recordQueries(k chainKind, ref string) []recordQuery {
	where, args := "", []any(nil)
	if ref != "" {
		where, args = k.one, []any{ref}
	}
	if a.d != postgresDialect {
		order := ""
		if ref == "" {
			order = " ORDER BY 1"
		}
		return []recordQuery{{k.query(where) + order, args}}
	}
	cols := strings.TrimSuffix(strings.TrimPrefix(k.record, "json_array("), ")")
	if k.kind == "run" {
		cols = runRecordColumns
	}
	qs := []recordQuery{{"SELECT " + k.ref + ", " + cols + " FROM " + k.from + " " + where, args}}
	if k.kind == "run" {
		for _, p := range runChildParts {
			query := "SELECT run_id, " + p.cols + " FROM " + p.from
			if ref != "" {
				query += " WHERE run_id = ?1"
			}
			qs = append(qs, recordQuery{query + " ORDER BY run_id, " + p.order, args})
		}
	}
	return qs
}

// runChildParts are the three arrays that follow a run's row in its
// record: provenance, stated figures, companion files.
var runChildParts = []struct{ cols, from, order string }{
	{"field, source, value", "provenance", "field, source"},
	{"seq, metric, value, unit, source_key, source_unit, printed", "stated", "seq"},
	{"blob, ordinal, file_name, format, added, added_at", "run_files", "blob, ordinal"},
}

// assembleRecords makes the records of kind k from the rows of its
// recordQueries (a run's children may be missing when it has no row).
func (a *Archive) assembleRecords(k chainKind, sets [][]recordRow) ([]chainRecord, error) {
	out := make([]chainRecord, len(sets[0]))
	if a.d != postgresDialect {
		for i, r := range sets[0] {
			text, ok := r.vals[0].(string)
			if !ok {
				return nil, fmt.Errorf("chain record of %s: %T is not text", r.ref, r.vals[0])
			}
			out[i] = chainRecord{ref: r.ref, text: text}
		}
		return out, nil
	}
	texts, err := recordTexts(sets[0])
	if err != nil {
		return nil, err
	}
	for i, r := range sets[0] {
		out[i] = chainRecord{ref: r.ref, text: texts[i]}
	}
	// ORDER BY on the ref expression would follow the database's
	// collation; SQLite's is bytewise.
	sort.Slice(out, func(i, j int) bool { return out[i].ref < out[j].ref })
	if k.kind != "run" || len(out) == 0 {
		return out, nil
	}
	// Each run's three arrays: the rows come in run order.
	arrays := map[string][]string{}
	for part, rows := range sets[1:] {
		texts, err := recordTexts(rows)
		if err != nil {
			return nil, err
		}
		for j := 0; j < len(rows); {
			run, elems := rows[j].ref, []string{}
			for ; j < len(rows) && rows[j].ref == run; j++ {
				elems = append(elems, texts[j])
			}
			if _, ok := arrays[run]; !ok {
				arrays[run] = []string{"[]", "[]", "[]"}
			}
			arrays[run][part] = "[" + strings.Join(elems, ",") + "]"
		}
	}
	lists := make([][]any, len(out))
	for i, r := range out {
		as, ok := arrays[r.ref]
		if !ok {
			as = []string{"[]", "[]", "[]"}
		}
		lists[i] = []any{as[0], as[1], as[2]}
	}
	// SQLite's subqueries hand json_array the children's arrays as text,
	// which it quotes: so they are strings in the record.
	quoted, err := sqliteJSONArrays(lists)
	if err != nil {
		return nil, err
	}
	for i, r := range out {
		out[i].text = "[" + r.text + "," + quoted[i][1:len(quoted[i])-1] + "]"
	}
	return out, nil
}

// recordTexts is SQLite's json_array over each row's values.
func recordTexts(rows []recordRow) ([]string, error) {
	lists := make([][]any, len(rows))
	for i, r := range rows {
		lists[i] = r.vals
	}
	return sqliteJSONArrays(lists)
}

// runRecordColumns are the run row's columns in the run record, as in
// chainKinds.
const runRecordColumns = `id, blob, ordinal, file_name, location, format, format_variant, source_tool,
	percentile_method, clock, has_requests, completed, failed, extra, notes, campaign, role, model, engine,
	engine_version, gpu, run_date, publishable, missing, ingested_at, request_count, companion`

// readRecordRows reads the rows of one recordQuery.
func readRecordRows(ctx context.Context, q contextQueryer, rq recordQuery) ([]recordRow, error) {
	rows, err := q.QueryContext(ctx, rq.sql, rq.args...)
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
	var out []recordRow
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		if out, err = appendRecordRow(out, vals); err != nil {
			return nil, err
		}
	}
	return out, rows.Err()
}

// appendRecordRow appends a row read as vals (a copy of them).
func appendRecordRow(out []recordRow, vals []any) ([]recordRow, error) {
	ref, ok := vals[0].(string)
	if !ok {
		return nil, fmt.Errorf("chain record: key %v is not text", vals[0])
	}
	return append(out, recordRow{ref: ref, vals: slices.Clone(vals[1:])}), nil
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
