package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/user"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store/internal/sqlitebulk"
)

// Tx is a write transaction: everything stored for one ingested file commits
// together or not at all. A Tx is used from one goroutine.
type Tx struct {
	a     *Archive
	tx    *sql.Tx
	ctx   context.Context // governs tx
	blobs []*BlobWriter
	done  bool
	// touched are the recorded things this transaction changed, in order:
	// Commit links their new state into the chain (chain.go).
	touched    []chainRef
	touchedSet map[chainRef]bool
	tampered   []string // things touchBefore found changed outside benchledger
	// stmts serialises the blob storers' chunk inserts with PutRun's
	// statements: they share the transaction's one connection, and a
	// PostgreSQL connection runs one statement at a time (an insert sent
	// while a query's rows are being read breaks pgx's protocol state).
	stmts sync.Mutex
	// group is the Group this Tx is a part of (nil: a transaction of its
	// own); deferred says it deferred foreign key checks (identity.go).
	group    *Group
	deferred bool
	// head is the chain's last link after this transaction's links
	// (extendChain), for the group's next part.
	head *chainPos
	// local are the statements prepared in tx's database transaction, shared
	// by a group's parts (see stmt).
	local map[string]*sql.Stmt
	// large: a blob of writebackFrom bytes or more is stored (its commit
	// asks for early writeback, see writeback.go).
	large bool
	// direct: the transaction writes the archive file directly (BeginLarge,
	// direct.go); its end puts the archive back in WAL mode.
	direct bool
	// writeback writes the archive file back while a direct transaction
	// writes it (writeback.go); nil when not.
	writeback *writeback
	// pack is putRequestPack's buffer, reused from run to run.
	pack []byte
	// requests inserts request rows on SQLite: prepared once for the
	// database transaction, which a group's parts share (a group of 1,000
	// small files prepared it 1,000 times: 50 µs each), and closed at its
	// end.
	requests *requestInserter
	// pipe queues the statements of a PutRun on PostgreSQL (pipeline.go).
	pipe *pipeline
}

// Begin starts a write transaction. While another process holds the
// archive's write lock, Begin calls onWait (may be nil) once and keeps
// waiting until the lock is free or ctx is done. ctx governs the whole
// transaction: once it is done, Commit refuses and rolls it back.
func (a *Archive) Begin(ctx context.Context, onWait func()) (*Tx, error) {
	return a.begin(ctx, ctx, onWait)
}

// begin starts a write transaction governed by ctx, waiting for the write
// lock while acquire is not done.
func (a *Archive) begin(ctx, acquire context.Context, onWait func()) (*Tx, error) {
	if a.readOnly || a.w == nil {
		return nil, fmt.Errorf("archive %s: begin: %w: opened for reading only", a.path, ErrReadOnly)
	}
	if err := a.prepareWanted(); err != nil {
		return nil, a.wrap("begin", err)
	}
	// database/sql rolls a transaction back on a goroutine of its own when
	// the transaction's context is done, under its lock on the connection;
	// the Inserter of request rows (the SQLite handle) and the PostgreSQL
	// pipelines use the connection past that lock, and a rollback in the
	// middle of their work is two threads on one connection (the race
	// detector caught it on PostgreSQL, in pgx's statement cache). So the
	// transaction's own context is never cancelled, and Commit checks ctx.
	tx, err := beginImmediate(context.WithoutCancel(ctx), acquire, a.w, onWait)
	if err != nil {
		return nil, a.wrap("begin", err)
	}
	if a.d == postgresDialect {
		if err := lockForWriting(acquire, tx, onWait); err != nil {
			tx.Rollback()
			return nil, a.wrap("begin: waiting for the write lock", err)
		}
	}
	return &Tx{a: a, tx: tx, ctx: ctx, local: map[string]*sql.Stmt{}, requests: &requestInserter{}}, nil
}

// requestInserter is a transaction's Inserter of request rows, made by its
// first run with requests.
type requestInserter struct{ in *sqlitebulk.Inserter }

// close finalises the Inserter, once the database transaction is over.
func (r *requestInserter) close() {
	if r != nil && r.in != nil {
		r.in.Close()
		r.in = nil
	}
}

func (tx *Tx) wrap(op string, err error) error { return tx.a.wrap(op, err) }

// stmt returns query prepared for this transaction. The writer has one
// connection, which the transaction holds, so a statement first met inside a
// transaction is prepared on it (and closed with it) and remembered; the next
// Begin prepares it once for the archive's lifetime, before taking the
// connection. Either way it is prepared once for the database transaction,
// which a group's parts share. The caller must not close the result.
func (tx *Tx) stmt(query string) (*sql.Stmt, error) {
	if st, ok := tx.local[query]; ok {
		return st, nil
	}
	st, err := tx.prepare(query)
	if err == nil {
		tx.local[query] = st
	}
	return st, err
}

func (tx *Tx) prepare(query string) (*sql.Stmt, error) {
	a := tx.a
	a.stmtMu.Lock()
	st, ok := a.stmts[query]
	if !ok {
		if a.stmts == nil {
			a.stmts = map[string]*sql.Stmt{}
		}
		a.stmts[query] = nil // wanted: prepared by the next Begin
	}
	a.stmtMu.Unlock()
	if st == nil {
		return tx.tx.Prepare(query)
	}
	return tx.tx.Stmt(st), nil
}

// prepareWanted prepares on the writer connection the statements earlier
// transactions asked for; called while no transaction holds it.
func (a *Archive) prepareWanted() error {
	a.stmtMu.Lock()
	defer a.stmtMu.Unlock()
	for q, st := range a.stmts {
		if st != nil {
			continue
		}
		st, err := a.w.Prepare(q)
		if err != nil {
			return err
		}
		a.stmts[q] = st
	}
	return nil
}

func (tx *Tx) check(op string) error {
	if tx.done {
		return fmt.Errorf("archive %s: %s: transaction already finished", tx.a.path, op)
	}
	return nil
}

// Commit makes the transaction's writes durable. It refuses, and rolls back,
// when a BlobWriter of this transaction was not closed or failed its
// verification: a blob is stored only with bytes that match its SHA-256.
func (tx *Tx) Commit() error {
	if err := tx.check("commit"); err != nil {
		return err
	}
	if err := tx.ctx.Err(); err != nil {
		rbErr := tx.Rollback()
		return errors.Join(fmt.Errorf("archive %s: commit refused, transaction rolled back: %w", tx.a.path, err), rbErr)
	}
	for _, bw := range tx.blobs {
		var problem error
		switch {
		case !bw.closed:
			problem = fmt.Errorf("blob %s (%s) was not closed", bw.sha, bw.name)
		case bw.closeErr != nil:
			problem = fmt.Errorf("blob %s (%s) failed: %w", bw.sha, bw.name, bw.closeErr)
		}
		if problem != nil {
			rbErr := tx.Rollback()
			return errors.Join(fmt.Errorf("archive %s: commit refused, transaction rolled back: %w", tx.a.path, problem), rbErr)
		}
	}
	if err := tx.extendChain(); err != nil {
		rbErr := tx.Rollback()
		return errors.Join(err, rbErr)
	}
	tx.done = true
	if tx.group != nil {
		err := tx.endPart(true)
		if err != nil {
			tx.head = nil
		}
		if err != nil || tx.head != nil {
			tx.group.head = tx.head
		}
		return err
	}
	if tx.large && tx.writeback == nil {
		// The commit checkpoints the write-ahead log into the archive
		// file (wal_autocheckpoint), which the disk writes meanwhile.
		defer tx.a.startWriteback().end()
	}
	tx.requests.close()
	if err := tx.tx.Commit(); err != nil {
		return errors.Join(tx.wrap("commit", err), tx.endDirect())
	}
	// Committed, it stands, whatever the mode it leaves (endDirect).
	tx.endDirect()
	return nil
}

// endDirect ends the direct mode of a transaction that had it, once it
// committed or rolled back.
func (tx *Tx) endDirect() error {
	if !tx.direct {
		return nil
	}
	tx.writeback.end()
	tx.direct, tx.writeback = false, nil
	return tx.a.endDirect()
}

// Rollback discards the transaction's writes. It is safe to call after
// Commit or a previous Rollback (it then does nothing), so `defer
// tx.Rollback()` is the usual pattern.
func (tx *Tx) Rollback() error {
	if tx.done {
		return nil
	}
	tx.done = true
	for _, bw := range tx.blobs {
		bw.abort()
	}
	if tx.group != nil {
		// Its links, if any, are undone; the head is read again.
		tx.group.head = nil
		return tx.endPart(false)
	}
	tx.requests.close()
	var err error
	if rerr := tx.tx.Rollback(); rerr != nil && !errors.Is(rerr, sql.ErrTxDone) {
		err = tx.wrap("rollback", rerr)
	}
	return errors.Join(err, tx.endDirect())
}

// HasBlob reports whether the blob is stored, as seen inside the
// transaction: under the write lock, so a duplicate found here cannot be
// raced by another ingest.
func (tx *Tx) HasBlob(sha string) (bool, error) {
	if err := tx.check("look up blob"); err != nil {
		return false, err
	}
	return hasBlob(tx.tx, tx.a.path, sha)
}

type queryer interface {
	QueryRow(query string, args ...any) *sql.Row
}

func hasBlob(q queryer, path, sha string) (bool, error) {
	ok, err := exists(q, "SELECT 1 FROM blobs WHERE sha256 = ?", strings.ToLower(sha))
	if err != nil {
		return false, wrapErr(path, "look up blob "+sha, err)
	}
	return ok, nil
}

// exists reports whether query (SELECT 1 ...) gives a row.
func exists(q queryer, query string, args ...any) (bool, error) {
	var one int
	err := q.QueryRow(query, args...).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

func runExists(q queryer, id string) (bool, error) {
	var one int
	err := q.QueryRow("SELECT 1 FROM runs WHERE id = ?", id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// PutRun stores a run with its provenance, stated figures and requests. The
// blob must already be stored (or opened with NewBlob in this transaction).
// rec.ID is benchrun.ContentID(rec.Run) when empty (the batch gives the id
// of a run's richest file, see benchrun.Rank); an id already stored gives
// ErrExists. Run.Facts are stored as provenance entries with source "file";
// a file entry in rec.Provenance that contradicts them is an error. The
// listing columns (campaign, role, model, engine, version, GPU, date) are
// taken from the effective provenance.
func (tx *Tx) PutRun(rec *RunRecord) error {
	if err := tx.check("store run"); err != nil {
		return err
	}
	tx.stmts.Lock()
	defer tx.stmts.Unlock()
	if rec == nil || rec.Run == nil {
		return fmt.Errorf("archive %s: store run: no run given", tx.a.path)
	}
	run := rec.Run
	sha := strings.ToLower(rec.BlobSHA256)
	if !validSHA256(sha) {
		return fmt.Errorf("archive %s: store run: blob SHA-256 %q is not 64 hex digits", tx.a.path, rec.BlobSHA256)
	}
	id := rec.ID
	if id == "" {
		id = benchrun.ContentID(run)
	}
	op := "store run " + id
	entries, err := withFacts(rec.Provenance, run.Facts)
	if err != nil {
		return fmt.Errorf("archive %s: %s: %w", tx.a.path, op, err)
	}
	// One query for both (on PostgreSQL each query is a round trip).
	var blobStored, runStored bool
	if err := tx.tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM blobs WHERE sha256 = ?1), EXISTS (SELECT 1 FROM runs WHERE id = ?2)`,
		sha, id).Scan(&blobStored, &runStored); err != nil {
		return tx.wrap(op, err)
	}
	if !blobStored {
		return fmt.Errorf("archive %s: %s: blob %s: %w", tx.a.path, op, sha, ErrNotFound)
	}
	if runStored {
		return fmt.Errorf("archive %s: %s: run %s: %w", tx.a.path, op, id, ErrExists)
	}
	// A new run: there is no state of it for touchBefore to compare with
	// its link (a run deleted outside benchledger and archived again gets
	// a new link, as touchBefore would let it).
	tx.touch("run", id)

	extra, err := marshalMap(run.Extra)
	if err != nil {
		return fmt.Errorf("archive %s: %s: extra: %w", tx.a.path, op, err)
	}
	notes, err := marshalList(run.Notes)
	if err != nil {
		return fmt.Errorf("archive %s: %s: notes: %w", tx.a.path, op, err)
	}
	missing, err := marshalList(rec.Missing)
	if err != nil {
		return fmt.Errorf("archive %s: %s: missing: %w", tx.a.path, op, err)
	}
	at := rec.IngestedAt
	if at.IsZero() {
		at = time.Now()
	}
	sum := summarize(entries.Effective())

	if !run.HasRequests && len(run.Requests) > 0 {
		return fmt.Errorf("archive %s: %s: run has %d requests but HasRequests is false", tx.a.path, op, len(run.Requests))
	}
	// The inserts go to PostgreSQL in one round trip (pipeline.go).
	tx.startPipeline()
	err = tx.putRunRows(id, sha, rec, entries, sum, extra, notes, missing, at)
	if ferr := tx.flushPipeline(); err == nil {
		err = ferr
	}
	if err != nil {
		return tx.wrap(op, err)
	}
	rec.ID = id
	if rec.IngestedAt.IsZero() {
		rec.IngestedAt = at.UTC()
	}
	return nil
}

// putRunRows inserts a new run's row and the rows that belong to it.
func (tx *Tx) putRunRows(id, sha string, rec *RunRecord, entries provenance.Record, sum summaryColumns, extra, notes, missing string, at time.Time) error {
	run := rec.Run
	err := tx.exec(`INSERT INTO runs (id, blob, ordinal, file_name, location, format, format_variant,
		source_tool, percentile_method, clock, has_requests, completed, failed, extra, notes,
		campaign, role, model, engine, engine_version, gpu, run_date, publishable, missing, ingested_at, request_count, companion, invocation)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, []any{
		id, sha, run.Ordinal, rec.FileName, run.Location, run.Format, run.FormatVariant,
		run.SourceTool, run.PercentileMethod, string(run.Clock), run.HasRequests, run.Completed, run.Failed, extra, notes,
		sum.campaign, sum.role, sum.model, sum.engine, sum.engineVersion, sum.gpu, sum.date,
		rec.Publishable, missing, formatTime(at), run.RequestCount(), run.Companion, rec.Invocation}, asIs)
	if err != nil {
		return err
	}
	if err := tx.putProvenance(id, entries, false); err != nil {
		return err
	}
	if err := tx.putStated(id, 0, run.Stated); err != nil {
		return err
	}
	if run.HasRequests {
		return tx.putRequests(id, run.Requests)
	}
	return nil
}

// withFacts merges the file's facts into a provenance record as "file"
// entries and drops repeated (field, source) pairs, the later one winning as
// in provenance.Record.Effective.
func withFacts(rec provenance.Record, facts map[string]string) (provenance.Record, error) {
	type key struct {
		field  string
		source provenance.Source
	}
	byKey := make(map[key]string, len(rec)+len(facts))
	for _, e := range rec {
		if !validSource(e.Source) {
			return nil, fmt.Errorf("provenance field %s: unknown source %q", e.Field, e.Source)
		}
		if e.Field == "" {
			return nil, fmt.Errorf("provenance entry without a field name (source %s)", e.Source)
		}
		byKey[key{e.Field, e.Source}] = e.Value
	}
	for field, value := range facts {
		k := key{field, provenance.FromFile}
		if old, ok := byKey[k]; ok && old != value {
			return nil, fmt.Errorf("provenance field %s: the run's facts say %q but its file entry says %q", field, value, old)
		}
		byKey[k] = value
	}
	out := make(provenance.Record, 0, len(byKey))
	for k, v := range byKey {
		out = append(out, provenance.Entry{Field: k.field, Value: v, Source: k.source})
	}
	sortProvenance(out)
	return out, nil
}

// displayRank orders a field's entries file, manifest, cli, then the
// correction laid over them.
func displayRank(s provenance.Source) int {
	if s == provenance.FromAmend {
		return len(sourceRank)
	}
	return sourceRank[s]
}

func sortProvenance(r provenance.Record) {
	sort.Slice(r, func(i, j int) bool {
		if r[i].Field != r[j].Field {
			return r[i].Field < r[j].Field
		}
		return displayRank(r[i].Source) < displayRank(r[j].Source)
	})
}

func (tx *Tx) putProvenance(runID string, entries provenance.Record, upsert bool) error {
	if upsert {
		// One row a statement: an entry given twice updates its row
		// twice, which one statement may not do on PostgreSQL.
		stmt, err := tx.stmt(`INSERT INTO provenance (run_id, field, source, value) VALUES (?, ?, ?, ?)
			ON CONFLICT (run_id, field, source) DO UPDATE SET value = excluded.value`)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if _, err := stmt.Exec(runID, e.Field, string(e.Source), e.Value); err != nil {
				return fmt.Errorf("provenance field %s (%s): %w", e.Field, e.Source, err)
			}
		}
		return nil
	}
	args := make([]any, 0, 4*len(entries))
	for _, e := range entries {
		args = append(args, runID, e.Field, string(e.Source), e.Value)
	}
	return tx.insertRows("INSERT INTO provenance (run_id, field, source, value) VALUES ", 4, args, prefixed("provenance"))
}

// putStated inserts stated figures numbered from first (0 for a new run;
// after the last for figures a companion file adds).
func (tx *Tx) putStated(runID string, first int, stated []benchrun.Stated) error {
	args := make([]any, 0, 8*len(stated))
	for i, s := range stated {
		args = append(args, runID, int64(first+i), s.Metric, nullFloat(s.Value), s.Unit, s.SourceKey, s.SourceUnit, s.Printed)
	}
	return tx.insertRows(`INSERT INTO stated (run_id, seq, metric, value, unit, source_key, source_unit, printed) VALUES `, 8, args, prefixed("stated figures"))
}

// insertRows runs insert, an INSERT statement up to its VALUES, for the
// rows in args (width values each) in as few executions as it can: each
// costs a round of database/sql and cgo, and on PostgreSQL a round trip
// to the server, whatever its number of rows. wrap describes an error.
func (tx *Tx) insertRows(insert string, width int, args []any, wrap func(error) error) error {
	rows := len(args) / width
	for start := 0; start < rows; start += requestBatch {
		n := min(requestBatch, rows-start)
		if err := tx.exec(insertText(insert, width, n), args[start*width:(start+n)*width], wrap); err != nil {
			return err
		}
	}
	return nil
}

// insertText completes insert, an INSERT statement up to its VALUES, with
// rows rows of width placeholders each.
func insertText(insert string, width, rows int) string {
	var b strings.Builder
	b.WriteString(insert)
	row := "(?" + strings.Repeat(", ?", width-1) + ")"
	for i := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	return b.String()
}

// requestBatch is how many requests one INSERT statement carries: binding
// is per value either way, but each statement execution costs a round of
// database/sql and cgo overhead that a batch shares.
const requestBatch = 64

const requestColumns = 13

// putRequests inserts the per-request records: through an Inserter on
// SQLite's writer connection, else through database/sql.
func (tx *Tx) putRequests(runID string, reqs []benchrun.Request) error {
	if len(reqs) == 0 {
		return nil
	}
	var err error
	if h := tx.a.writerHandle.Load(); h != nil {
		err = tx.insertRequests(h, runID, reqs)
	} else {
		err = tx.execRequests(runID, reqs)
	}
	if err != nil {
		return err
	}
	return tx.putRequestPack(runID, reqs)
}

const requestsHead = `INSERT INTO requests (run_id, idx, start, queue_time, ttft, latency,
	input_tokens, output_tokens, error, gap_count, gap_sum, gap_min, gap_max) `

const insertRequestsSQL = requestsHead + "VALUES "

// insertRequests stores what execRequests stores, from C, a few thousand
// records a step (sqlitebulk.NewTableInserter): a run of a million records
// spent a third of its insert time in database/sql and the cgo call for
// each value bound; binding each record's values and stepping once a
// record took 0.28 s for the 325,000 records of the bench's large file,
// one step a flush 0.24 s (CPU profiles). The transaction holds the
// writer's one connection, and the caller tx.stmts, which a blob's storer
// takes for each chunk it inserts on it: the Inserter goes past
// database/sql's lock on the connection.
func (tx *Tx) insertRequests(h *sqlitebulk.Handle, runID string, reqs []benchrun.Request) error {
	if tx.requests.in == nil {
		in, err := sqlitebulk.NewTableInserter(h, requestsHead, requestColumns)
		if err != nil {
			return err
		}
		tx.requests.in = in
	}
	in := tx.requests.in
	first := in.Rows() // RowError counts over the Inserter's life
	count := func(v int32) {
		if v == -1 {
			in.Null()
		} else {
			in.Int(int64(v))
		}
	}
	var err error
	for i := range reqs {
		r := &reqs[i]
		in.Text(runID)
		in.Int(int64(r.Index))
		in.Float(r.Start)
		in.Float(r.QueueTime)
		in.Float(r.TTFT)
		in.Float(r.Latency)
		count(r.InputTokens)
		count(r.OutputTokens)
		if r.Error == "" {
			in.Null()
		} else {
			in.Text(r.Error)
		}
		in.Int(int64(r.Gaps.Count))
		in.Float(r.Gaps.Sum)
		in.Float(r.Gaps.Min)
		in.Float(r.Gaps.Max)
		if err = in.EndRow(); err != nil {
			break
		}
	}
	if err == nil {
		err = in.Flush()
	} else {
		in.Discard() // the next run of the transaction starts clean
	}
	if re := (*sqlitebulk.RowError)(nil); errors.As(err, &re) && re.Row-first >= 0 && re.Row-first < len(reqs) {
		return fmt.Errorf("request %d: %w", reqs[re.Row-first].Index, re.Err)
	}
	return err
}

// execRequests inserts the records with one prepared multi-row statement
// (and one for the remainder), reusing one argument slice throughout.
func (tx *Tx) execRequests(runID string, reqs []benchrun.Request) error {
	args := make([]any, 0, requestBatch*requestColumns)
	full := insertText(insertRequestsSQL, requestColumns, requestBatch)
	for start := 0; start < len(reqs); start += requestBatch {
		batch := reqs[start:min(start+requestBatch, len(reqs))]
		args = args[:0]
		for i := range batch {
			r := &batch[i]
			// Integers go as int64, a driver.Value: database/sql converts
			// any other integer type by reflection, for every argument.
			args = append(args, runID, int64(r.Index),
				nullFloat(r.Start), nullFloat(r.QueueTime), nullFloat(r.TTFT), nullFloat(r.Latency),
				nullCount(r.InputTokens), nullCount(r.OutputTokens), tx.a.d.requestError(r.Error),
				int64(r.Gaps.Count), nullFloat(r.Gaps.Sum), nullFloat(r.Gaps.Min), nullFloat(r.Gaps.Max))
		}
		query := full
		if len(batch) < requestBatch {
			query = insertText(insertRequestsSQL, requestColumns, len(batch))
		}
		if err := tx.exec(query, args, prefixed(fmt.Sprintf("requests %d to %d", batch[0].Index, batch[len(batch)-1].Index))); err != nil {
			return err
		}
	}
	return nil
}

// nullFloat stores benchrun.Unknown (NaN) as NULL.
func nullFloat(v float64) any {
	if math.IsNaN(v) {
		return nil
	}
	return v
}

// nullCount stores an unknown (-1) token count as NULL.
func nullCount(v int32) any {
	if v == -1 {
		return nil
	}
	return int64(v)
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// AddProvenance records provenance supplied after ingest (a manifest or --set
// completing a run) and replaces the run's publishable flag and missing
// list. An entry for a (field, source) already stored replaces its value.
// Entries with source "file" are refused: what the raw file says is fixed by
// its bytes. The listing columns are recomputed from the new effective
// provenance.
func (tx *Tx) AddProvenance(runID string, entries provenance.Record, publishable bool, missing []string) error {
	tx.touchBefore("run", runID)
	op := "add provenance to run " + runID
	if err := tx.check(op); err != nil {
		return err
	}
	if ok, err := runExists(tx.tx, runID); err != nil {
		return tx.wrap(op, err)
	} else if !ok {
		return fmt.Errorf("archive %s: %s: run %s: %w", tx.a.path, op, runID, ErrNotFound)
	}
	for _, e := range entries {
		switch {
		case e.Source == provenance.FromFile:
			return fmt.Errorf("archive %s: %s: field %s: entries from the file itself cannot be added later", tx.a.path, op, e.Field)
		case !validSource(e.Source):
			return fmt.Errorf("archive %s: %s: field %s: unknown source %q", tx.a.path, op, e.Field, e.Source)
		case e.Field == "":
			return fmt.Errorf("archive %s: %s: entry without a field name", tx.a.path, op)
		}
	}
	if err := tx.putProvenance(runID, entries, true); err != nil {
		return tx.wrap(op, err)
	}
	all, err := readProvenance(tx.tx, runID)
	if err != nil {
		return tx.wrap(op, err)
	}
	missingJSON, err := marshalList(missing)
	if err != nil {
		return fmt.Errorf("archive %s: %s: missing: %w", tx.a.path, op, err)
	}
	sum := summarize(all.Effective())
	_, err = tx.tx.Exec(`UPDATE runs SET campaign = ?, role = ?, model = ?, engine = ?, engine_version = ?,
		gpu = ?, run_date = ?, publishable = ?, missing = ? WHERE id = ?`,
		sum.campaign, sum.role, sum.model, sum.engine, sum.engineVersion, sum.gpu, sum.date,
		publishable, missingJSON, runID)
	if err != nil {
		return tx.wrap(op, err)
	}
	return nil
}

// AppendEvent adds an entry to the archive's history. At, Actor and
// ToolVersion are filled in when empty; Detail must be JSON text or "".
func (tx *Tx) AppendEvent(ev Event) error {
	op := "append event " + ev.Action
	if err := tx.check(op); err != nil {
		return err
	}
	if ev.Action == "" {
		return fmt.Errorf("archive %s: append event: no action", tx.a.path)
	}
	if ev.Detail != "" && !json.Valid([]byte(ev.Detail)) {
		return fmt.Errorf("archive %s: %s: detail is not valid JSON", tx.a.path, op)
	}
	if ev.At.IsZero() {
		ev.At = time.Now()
	}
	if ev.Actor == "" {
		ev.Actor = currentActor()
	}
	if ev.ToolVersion == "" {
		ev.ToolVersion = buildVersion()
	}
	// RETURNING rather than LastInsertId: PostgreSQL has no last id.
	var id int64
	err := tx.tx.QueryRow(`INSERT INTO events (at, actor, tool_version, action, run_id, blob, detail)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		formatTime(ev.At), ev.Actor, ev.ToolVersion, ev.Action,
		nullString(ev.RunID), nullString(strings.ToLower(ev.BlobSHA256)), nullString(ev.Detail)).Scan(&id)
	if err != nil {
		return tx.wrap(op, err)
	}
	tx.touch("event", strconv.FormatInt(id, 10))
	// Every change to a run appends an event naming it: its new state is
	// linked too.
	tx.touch("run", ev.RunID)
	return nil
}

var currentActor = sync.OnceValue(func() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "unknown"
})

var buildVersion = sync.OnceValue(func() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "unknown"
})

// marshalMap stores a map as a JSON object of strings, sorted by key (as
// encoding/json writes maps), so the same run always gives the same text.
func marshalMap(m map[string]string) (string, error) {
	if len(m) == 0 {
		return "{}", nil
	}
	b, err := json.Marshal(m)
	return string(b), err
}

func marshalList(l []string) (string, error) {
	if len(l) == 0 {
		return "[]", nil
	}
	b, err := json.Marshal(l)
	return string(b), err
}

func validSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
