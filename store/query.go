package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/internal/jsonstr"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store/internal/sqlitebulk"
)

const summaryColumnsSQL = `id, campaign, role, model, engine, engine_version, gpu, run_date, format,
	publishable, file_name, request_count, blob, ingested_at`

// scanSummary decodes a row of summaryColumnsSQL through scan (a
// database/sql or sqlitebulk row's Scan).
func scanSummary(scan func(...any) error) (RunSummary, error) {
	var s RunSummary
	var at string
	err := scan(&s.ID, &s.Campaign, &s.Role, &s.Model, &s.Engine, &s.EngineVersion, &s.GPU, &s.Date,
		&s.Format, &s.Publishable, &s.FileName, &s.RequestCount, &s.BlobSHA256, &at)
	if err != nil {
		return s, err
	}
	if s.IngestedAt, err = parseTime(at); err != nil {
		return s, fmt.Errorf("run %s: ingested_at %q: %w", s.ID, at, err)
	}
	return s, nil
}

// ListRuns returns the runs the filter selects, sorted by date, then id.
func (a *Archive) ListRuns(f Filter) ([]RunSummary, error) {
	q := "SELECT " + summaryColumnsSQL + " FROM runs WHERE 1 = 1"
	var args []any
	if f.Since != "" || f.Until != "" {
		q += " AND run_date <> ''"
	}
	if f.Since != "" {
		q += " AND substr(run_date, 1, length(CAST(?1 AS TEXT))) >= CAST(?1 AS TEXT)"
		args = append(args, f.Since)
	}
	if f.Until != "" {
		q += fmt.Sprintf(" AND substr(run_date, 1, length(CAST(?%d AS TEXT))) <= CAST(?%[1]d AS TEXT)", len(args)+1)
		args = append(args, f.Until)
	}
	if len(args) == 0 && a.d != postgresDialect {
		return a.listRunsBulk(q, f)
	}
	q += " ORDER BY run_date, id"
	rows, err := a.r.Query(q, args...)
	if err != nil {
		return nil, a.wrap("list runs", err)
	}
	defer rows.Close()
	out, err := f.summaries(rows)
	return out, a.wrap("list runs", err)
}

// summaries decodes the rows of summaryColumnsSQL (database/sql's or
// sqlitebulk's) and keeps those the filter selects.
func (f Filter) summaries(rows interface {
	Next() bool
	Scan(...any) error
	Err() error
}) ([]RunSummary, error) {
	var out []RunSummary
	for rows.Next() {
		s, err := scanSummary(rows.Scan)
		if err != nil {
			return nil, err
		}
		if f.selects(s) {
			out = append(out, s)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// listRunsBulk is ListRuns without dates on SQLite: the runs through a
// connection of their own, read in batches (sqlitebulk) rather than a cgo
// call and boxed values per row (the site lists 10,000 runs on every
// rebuild), in the table's order and sorted here, by date and then id as
// SQLite's ORDER BY sorts the texts (byte by byte; its sorter was most of
// the query's time). q has no ORDER BY.
func (a *Archive) listRunsBulk(q string, f Filter) ([]RunSummary, error) {
	conn, err := a.openBulk()
	if err != nil {
		return nil, a.wrap("list runs", err)
	}
	defer conn.Close()
	rows, err := conn.Query(q)
	if err != nil {
		return nil, a.wrap("list runs", err)
	}
	defer rows.Close()
	out, err := f.summaries(rows)
	slices.SortFunc(out, func(x, y RunSummary) int {
		if c := strings.Compare(x.Date, y.Date); c != 0 {
			return c
		}
		return strings.Compare(x.ID, y.ID)
	})
	return out, a.wrap("list runs", err)
}

// openBulk opens a read-only connection of the archive's own for reading
// in batches (sqlitebulk), its read transaction begun (SQLite only).
func (a *Archive) openBulk() (*sqlitebulk.Conn, error) {
	uri, err := fileURI(a.path, "mode=ro")
	if err != nil {
		return nil, err
	}
	return sqlitebulk.Open(uri, int(readerBusyTimeout.Milliseconds()))
}

// selects says whether a run passes the filter's substring matches, which
// are done here rather than in SQL: SQLite's lower() and LIKE fold ASCII
// only.
func (f Filter) selects(s RunSummary) bool {
	return contains(s.Campaign, f.Campaign) && contains(s.Model, f.Model) && contains(s.Engine, f.Engine) &&
		contains(s.GPU, f.GPU) && (f.Role == "" || strings.EqualFold(s.Role, f.Role))
}

func contains(s, sub string) bool {
	return sub == "" || strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// RunsOfBlob returns the runs read from one raw file, in file order.
func (a *Archive) RunsOfBlob(sha string) ([]RunSummary, error) {
	sha = strings.ToLower(sha)
	rows, err := a.r.Query("SELECT "+summaryColumnsSQL+` FROM runs WHERE blob = ?1
		OR id IN (SELECT run_id FROM run_files WHERE blob = ?1) ORDER BY ordinal, id`, sha)
	if err != nil {
		return nil, a.wrap("runs of blob "+sha, err)
	}
	defer rows.Close()
	var out []RunSummary
	for rows.Next() {
		s, err := scanSummary(rows.Scan)
		if err != nil {
			return nil, a.wrap("runs of blob "+sha, err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, a.wrap("runs of blob "+sha, err)
	}
	return out, nil
}

// maxCandidates is how many matching ids an ambiguous-prefix error lists.
const maxCandidates = 8

// ResolveRunID returns the id of the run whose id is idOrPrefix or starts
// with it (ignoring case). No match gives ErrNotFound; several give
// ErrAmbiguous, with the candidates in the message.
func (a *Archive) ResolveRunID(idOrPrefix string) (string, error) {
	return resolveRunID(a.r, a.path, idOrPrefix)
}

func resolveRunID(q interface {
	Query(string, ...any) (*sql.Rows, error)
}, path, idOrPrefix string) (string, error) {
	p := strings.ToLower(strings.TrimSpace(idOrPrefix))
	if p == "" {
		return "", fmt.Errorf("archive %s: run id is empty: %w", path, ErrNoSuchRun)
	}
	// A range on the primary key finds the id and every id it prefixes
	// through the index ("abc" <= id < "abd"), so a lookup stays quick in
	// an archive of many runs. A prefix ending in byte 0xff (no id has
	// one) keeps the upper bound open.
	hi := "\U0010FFFF"
	if last := p[len(p)-1]; last < 0xff {
		hi = p[:len(p)-1] + string([]byte{last + 1})
	}
	rows, err := q.Query(`SELECT id FROM runs WHERE id >= ?1 AND id < ?2
		ORDER BY id <> ?1, id LIMIT ?3`, p, hi, maxCandidates+1)
	if err != nil {
		return "", wrapErr(path, "look up run "+p, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return "", wrapErr(path, "look up run "+p, err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return "", wrapErr(path, "look up run "+p, err)
	}
	if len(ids) == 0 {
		// An old id (schema 0006 renamed runs; a richer companion file
		// renames its run) resolves to the run it names now.
		if qr, ok := q.(interface {
			QueryRow(string, ...any) *sql.Row
		}); ok {
			if id, err := aliasOf(qr, p); err != nil {
				return "", wrapErr(path, "look up run "+p, err)
			} else if id != "" {
				return id, nil
			}
		}
	}
	switch {
	case len(ids) == 0:
		return "", fmt.Errorf("archive %s: run %s: %w", path, idOrPrefix, ErrNoSuchRun)
	case len(ids) == 1 || ids[0] == p:
		return ids[0], nil
	}
	list := strings.Join(ids[:min(len(ids), maxCandidates)], ", ")
	if len(ids) > maxCandidates {
		list += ", ..."
	}
	return "", fmt.Errorf("archive %s: %w %q: it matches runs %s", path, ErrAmbiguous, idOrPrefix, list)
}

// Run returns the run with this id, or the one run whose id starts with the
// given prefix, with everything archived about it, requests included.
func (a *Archive) Run(idOrPrefix string) (*RunRecord, error) {
	return a.readRun(idOrPrefix, true)
}

// RunMeta is Run without the per-request records (Run.Requests is nil;
// HasRequests and the counts are set): cheap for a run of a million requests.
func (a *Archive) RunMeta(idOrPrefix string) (*RunRecord, error) {
	return a.readRun(idOrPrefix, false)
}

func (a *Archive) readRun(idOrPrefix string, withRequests bool) (*RunRecord, error) {
	// One read transaction, so the run, its provenance and its requests
	// come from the same snapshot even while a writer works.
	tx, err := a.r.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, a.wrap("read run "+idOrPrefix, err)
	}
	defer tx.Rollback()
	return a.readRunIn(tx, idOrPrefix, withRequests)
}

// readRunIn reads a run inside a transaction (a read snapshot, or the
// write transaction of an ingest that completes the run).
func (a *Archive) readRunIn(tx *sql.Tx, idOrPrefix string, withRequests bool) (*RunRecord, error) {
	id, err := resolveRunID(tx, a.path, idOrPrefix)
	if err != nil {
		return nil, err
	}
	op := "read run " + id
	rec := &RunRecord{ID: id}
	var requestCount int64
	row := tx.QueryRow(`SELECT `+runColumnsSQL+` FROM runs WHERE id = ?`, id)
	if requestCount, err = scanRunRow(row.Scan, rec, nil); err != nil {
		return nil, a.wrap(op, err)
	}
	run := rec.Run
	if rec.Provenance, err = readProvenance(tx, id); err != nil {
		return nil, a.wrap(op, err)
	}
	factsFromProvenance(rec)
	if run.Stated, err = readStated(tx, id); err != nil {
		return nil, a.wrap(op, err)
	}
	if withRequests && run.HasRequests {
		if run.Requests, err = readRequests(tx, id, requestCount); err != nil {
			return nil, a.wrap(op, err)
		}
	}
	return rec, nil
}

const runColumnsSQL = `blob, ordinal, file_name, location, format, format_variant, source_tool,
		percentile_method, clock, has_requests, completed, failed, extra, notes, publishable, missing,
		ingested_at, request_count, companion, invocation`

// scanRunRow decodes runColumnsSQL into rec (whose ID is set; after any
// columns in extra) and returns the stored request count.
func scanRunRow(scan func(...any) error, rec *RunRecord, cache *jsonCache, extra ...any) (int64, error) {
	rec.Run = &benchrun.Run{}
	run := rec.Run
	var clock, extraJSON, notes, missing, at string
	var requestCount int64
	err := scan(append(extra,
		&rec.BlobSHA256, &run.Ordinal, &rec.FileName, &run.Location, &run.Format, &run.FormatVariant,
		&run.SourceTool, &run.PercentileMethod, &clock, &run.HasRequests, &run.Completed, &run.Failed,
		&extraJSON, &notes, &rec.Publishable, &missing, &at, &requestCount, &run.Companion, &rec.Invocation)...)
	if err != nil {
		return 0, err
	}
	run.Clock = benchrun.Clock(clock)
	if rec.IngestedAt, err = parseTime(at); err != nil {
		return 0, fmt.Errorf("ingested_at %q: %w", at, err)
	}
	if run.Extra, err = cache.mapOf(extraJSON); err != nil {
		return 0, fmt.Errorf("extra: %w", err)
	}
	if run.Notes, err = cache.listOf(notes); err != nil {
		return 0, fmt.Errorf("notes: %w", err)
	}
	if rec.Missing, err = cache.listOf(missing); err != nil {
		return 0, fmt.Errorf("missing: %w", err)
	}
	return requestCount, nil
}

// factsFromProvenance fills run.Facts from the entries the file stated.
func factsFromProvenance(rec *RunRecord) {
	for _, e := range rec.Provenance {
		if e.Source == provenance.FromFile {
			if rec.Run.Facts == nil {
				rec.Run.Facts = map[string]string{}
			}
			rec.Run.Facts[e.Field] = e.Value
		}
	}
}

func readProvenance(q interface {
	Query(string, ...any) (*sql.Rows, error)
}, runID string) (provenance.Record, error) {
	rows, err := q.Query(`SELECT field, source, value FROM provenance WHERE run_id = ?
		ORDER BY field, CASE source WHEN 'file' THEN 0 WHEN 'manifest' THEN 1 ELSE 2 END`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out provenance.Record
	for rows.Next() {
		var e provenance.Entry
		if err := scanProvenanceRow(rows.Scan, &e); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	cs, err := readCorrections(q, "", runID)
	if err != nil {
		return nil, err
	}
	out = append(out, correctionEntries(cs)...)
	sortProvenance(out)
	return out, nil
}

// scanProvenanceRow decodes field, source, value (after any columns in
// extra) into e.
func scanProvenanceRow(scan func(...any) error, e *provenance.Entry, extra ...any) error {
	var src string
	if err := scan(append(extra, &e.Field, &src, &e.Value)...); err != nil {
		return err
	}
	e.Source = provenance.Source(src)
	return nil
}

func readStated(tx *sql.Tx, runID string) ([]benchrun.Stated, error) {
	rows, err := tx.Query(`SELECT `+statedColumnsSQL+` FROM stated WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []benchrun.Stated
	for rows.Next() {
		var st benchrun.Stated
		if err := scanStatedRow(rows.Scan, &st); err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

const statedColumnsSQL = `metric, value, unit, source_key, source_unit, printed`

// scanStatedRow decodes statedColumnsSQL (after any columns in extra).
// Like requestScanner it scans into plain interface values, which
// database/sql copies without conversion.
func scanStatedRow(scan func(...any) error, st *benchrun.Stated, extra ...any) error {
	var metric, value, unit, key, sourceUnit, printed any
	if err := scan(append(extra, &metric, &value, &unit, &key, &sourceUnit, &printed)...); err != nil {
		return err
	}
	p, ok := printed.(int64)
	if !ok {
		return fmt.Errorf("stated row: printed %v is not an integer", printed)
	}
	*st = benchrun.Stated{Metric: textOf(metric), Value: realOrUnknown(value), Unit: textOf(unit),
		SourceKey: textOf(key), SourceUnit: textOf(sourceUnit), Printed: int(p)}
	return nil
}

// textOf reads a TEXT column as the driver returns it.
func textOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return ""
}

func readRequests(tx *sql.Tx, runID string, sizeHint int64) ([]benchrun.Request, error) {
	out := make([]benchrun.Request, 0, max(sizeHint, 0))
	err := scanRequests(tx, runID, func(r *benchrun.Request) error {
		out = append(out, *r)
		return nil
	})
	if len(out) == 0 {
		out = nil
	}
	return out, err
}

// scanRequests calls fn for each request of a run in index order, reusing
// one Request (fn must copy what it keeps).
func scanRequests(tx *sql.Tx, runID string, fn func(*benchrun.Request) error) error {
	rows, err := tx.Query(`SELECT `+requestColumnsSQL+` FROM requests WHERE run_id = ? ORDER BY idx`, runID)
	if err != nil {
		return err
	}
	defer rows.Close()
	var rs requestScanner
	var r benchrun.Request
	for rows.Next() {
		if err := rs.scan(rows.Scan, &r); err != nil {
			return err
		}
		if err := fn(&r); err != nil {
			return err
		}
	}
	return rows.Err()
}

const requestColumnsSQL = `idx, start, queue_time, ttft, latency, input_tokens, output_tokens,
		error, gap_count, gap_sum, gap_min, gap_max`

// requestScanner decodes requestColumnsSQL rows. It scans into plain
// interface values, which database/sql copies without conversion, and
// decodes them itself: a pass over a million requests spends its time here.
type requestScanner struct {
	vals [12]any
	dest []any
}

// scan decodes one row (after any columns in extra) into r.
func (s *requestScanner) scan(scan func(...any) error, r *benchrun.Request, extra ...any) error {
	if len(s.dest) != len(extra)+len(s.vals) {
		s.dest = append(append([]any(nil), extra...), make([]any, len(s.vals))...)
		for i := range s.vals {
			s.dest[len(extra)+i] = &s.vals[i]
		}
	}
	copy(s.dest, extra)
	if err := scan(s.dest...); err != nil {
		return err
	}
	v := &s.vals
	idx, ok1 := v[0].(int64)
	gapCount, ok2 := v[8].(int64)
	if !ok1 || !ok2 {
		return fmt.Errorf("request row: idx %v, gap_count %v: not integers", v[0], v[8])
	}
	*r = benchrun.Request{Index: int(idx), Start: realOrUnknown(v[1]), QueueTime: realOrUnknown(v[2]), TTFT: realOrUnknown(v[3]),
		Latency: realOrUnknown(v[4]), InputTokens: intOrUnknown(v[5]), OutputTokens: intOrUnknown(v[6]),
		Gaps: benchrun.GapStats{Count: int32(gapCount), Sum: realOrUnknown(v[9]), Min: realOrUnknown(v[10]), Max: realOrUnknown(v[11])}}
	switch e := v[7].(type) {
	case string:
		r.Error = e
	case []byte:
		r.Error = string(e)
	}
	return nil
}

// realOrUnknown reads a REAL column (NULL: unknown).
func realOrUnknown(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	}
	return benchrun.Unknown
}

// intOrUnknown reads a token count (NULL: -1, unknown).
func intOrUnknown(v any) int32 {
	if x, ok := v.(int64); ok {
		return int32(x)
	}
	return -1
}

func orUnknown(v sql.NullFloat64) float64 {
	if !v.Valid {
		return benchrun.Unknown
	}
	return v.Float64
}

func countOrUnknown(v sql.NullInt32) int32 {
	if !v.Valid {
		return -1
	}
	return v.Int32
}

// Requests returns a run's per-request records in index order (nil for a
// summary-only run). runID is an exact id.
func (a *Archive) Requests(runID string) ([]benchrun.Request, error) {
	op := "read requests of run " + runID
	if a.d != postgresDialect {
		return a.bulkRunRequests(op, runID)
	}
	tx, err := a.r.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, a.wrap(op, err)
	}
	defer tx.Rollback()
	var hasRequests bool
	var count int64
	err = tx.QueryRow("SELECT has_requests, request_count FROM runs WHERE id = ?", runID).Scan(&hasRequests, &count)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("archive %s: run %s: %w", a.path, runID, ErrNotFound)
	case err != nil:
		return nil, a.wrap(op, err)
	case !hasRequests:
		return nil, nil
	}
	reqs, err := readRequests(tx, runID, count)
	if err != nil {
		return nil, a.wrap(op, err)
	}
	return reqs, nil
}

// RequestCount is how many per-request records a run has, as archived
// with it (-1 when unknown); runID is an exact id.
func (a *Archive) RequestCount(runID string) (int64, error) {
	var n int64
	err := a.r.QueryRow("SELECT request_count FROM runs WHERE id = ?", runID).Scan(&n)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, fmt.Errorf("archive %s: run %s: %w", a.path, runID, ErrNotFound)
	case err != nil:
		return 0, a.wrap("read the request count of run "+runID, err)
	}
	return n, nil
}

// EachRequest calls fn for each per-request record of a run, in index
// order, without holding the run's records in memory (the export of a
// million-request run). fn gets one reused Request and must copy what it
// keeps; an error from fn stops the scan and is returned as it is.
func (a *Archive) EachRequest(ctx context.Context, runID string, fn func(*benchrun.Request) error) error {
	op := "read requests of run " + runID
	tx, err := a.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return a.wrap(op, err)
	}
	defer tx.Rollback()
	var fnErr error
	err = scanRequests(tx, runID, func(r *benchrun.Request) error {
		if fnErr = fn(r); fnErr != nil {
			return fnErr
		}
		return ctx.Err()
	})
	switch {
	case fnErr != nil:
		return fnErr
	case err != nil:
		return a.wrap(op, err)
	}
	return nil
}

// Events returns the history in the order it was written: all of it when
// runID is "", else the events of that run.
func (a *Archive) Events(runID string) ([]Event, error) {
	q := "SELECT " + eventColumnsSQL + " FROM events"
	var args []any
	if runID != "" {
		q += " WHERE run_id = ?"
		args = append(args, runID)
	}
	return a.readEvents(q+" ORDER BY id", args...)
}

// EventsByRun returns, for every run with events, its events in the order
// they were written: one query for a pass over many runs.
func (a *Archive) EventsByRun() (map[string][]Event, error) {
	evs, err := a.readEvents("SELECT " + eventColumnsSQL + " FROM events WHERE run_id IS NOT NULL AND run_id <> '' ORDER BY id")
	if err != nil {
		return nil, err
	}
	out := map[string][]Event{}
	for _, ev := range evs {
		out[ev.RunID] = append(out[ev.RunID], ev)
	}
	return out, nil
}

const eventColumnsSQL = "id, at, actor, tool_version, action, run_id, blob, detail"

func (a *Archive) readEvents(query string, args ...any) ([]Event, error) {
	rows, err := a.r.Query(query, args...)
	if err != nil {
		return nil, a.wrap("read events", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var ev Event
		var at string
		var run, blob, detail sql.NullString
		if err := rows.Scan(&ev.ID, &at, &ev.Actor, &ev.ToolVersion, &ev.Action, &run, &blob, &detail); err != nil {
			return nil, a.wrap("read events", err)
		}
		if ev.At, err = parseTime(at); err != nil {
			return nil, a.wrap("read events", fmt.Errorf("event %d: at %q: %w", ev.ID, at, err))
		}
		ev.RunID, ev.BlobSHA256, ev.Detail = run.String, blob.String, detail.String
		out = append(out, ev)
	}
	if err := rows.Err(); err != nil {
		return nil, a.wrap("read events", err)
	}
	return out, nil
}

// jsonCache remembers how the JSON columns of runs decoded, for a pass over
// many runs: the missing fields and the notes repeat from run to run, and
// often the extra keys. Each caller gets a copy of its own. A nil cache
// decodes every time.
type jsonCache struct {
	maps  map[string]map[string]string
	lists map[string][]string
}

// jsonCacheSize bounds each of a cache's maps.
const jsonCacheSize = 4096

func newJSONCache() *jsonCache {
	return &jsonCache{maps: map[string]map[string]string{}, lists: map[string][]string{}}
}

func (c *jsonCache) mapOf(s string) (map[string]string, error) {
	if c == nil {
		return unmarshalMap(s)
	}
	return decodeCached(c.maps, s, unmarshalMap, maps.Clone)
}

func (c *jsonCache) listOf(s string) ([]string, error) {
	if c == nil {
		return unmarshalList(s)
	}
	return decodeCached(c.lists, s, unmarshalList, slices.Clone)
}

// decodeCached decodes s once per text seen (up to jsonCacheSize texts);
// what it returns is the caller's own (a clone of what the cache keeps).
func decodeCached[T any](cache map[string]T, s string, decode func(string) (T, error), clone func(T) T) (T, error) {
	if v, ok := cache[s]; ok {
		return clone(v), nil
	}
	v, err := decode(s)
	if err != nil || len(cache) >= jsonCacheSize {
		return v, err // kept by nobody else
	}
	cache[s] = v
	return clone(v), nil
}

// unmarshalMap reads a map as json.Unmarshal does; the runs table's
// extra, as json.Marshal wrote it, without its reflection (10,000 runs'
// extras, nearly all different, were a twelfth of a site build's reading
// of the archive).
func unmarshalMap(s string) (map[string]string, error) {
	m, ok := jsonstr.StringObject(s)
	if !ok {
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			return nil, err
		}
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

func unmarshalList(s string) ([]string, error) {
	var l []string
	if err := json.Unmarshal([]byte(s), &l); err != nil {
		return nil, err
	}
	if len(l) == 0 {
		return nil, nil
	}
	return l, nil
}
