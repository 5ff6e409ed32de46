package sqlitebulk

/*
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bulk.h"

// insert_rows binds and steps nrows rows of ncol cells each, text and
// blobs taken from buf. Values are bound without a copy (a null
// destructor, SQLITE_STATIC) and the bindings cleared before returning, so
// SQLite keeps no pointer into buf after the call. It returns 0, or
// SQLite's error code with *failed the row that failed.
static int insert_rows(sqlite3_stmt *st, int ncol, const bulk_cell *cells, int nrows, const char *buf, int *failed) {
	int r, c, rc = 0;
	for (r = 0; r < nrows && rc == 0; r++) {
		const bulk_cell *row = &cells[r * ncol];
		for (c = 0; c < ncol && rc == 0; c++) {
			const bulk_cell *x = &row[c];
			switch (x->type) {
			case 1: rc = sqlite3_bind_int64(st, c + 1, x->i); break;
			case 2: rc = sqlite3_bind_double(st, c + 1, x->f); break;
			case 3: rc = sqlite3_bind_text(st, c + 1, buf + x->off, x->len, 0); break;
			case 4: rc = sqlite3_bind_blob(st, c + 1, buf + x->off, x->len, 0); break;
			default: rc = sqlite3_bind_null(st, c + 1);
			}
		}
		if (rc == 0) {
			rc = sqlite3_step(st);
			// 101 is SQLITE_DONE. The reset keeps the step's error as the
			// connection's message.
			rc = rc == 101 ? 0 : rc;
			sqlite3_reset(st);
		}
		if (rc != 0) *failed = r;
	}
	sqlite3_clear_bindings(st);
	return rc;
}

// The rows of one flush, seen by the virtual table sqlitebulk_rows while
// insert_select steps: a statement INSERT ... SELECT c0, c1, ... FROM
// sqlitebulk_rows inserts them all in one step, where insert_rows binds
// every value and steps and resets the statement for every row (the
// 325,000 requests of the bench's large file: 0.24 s of CPU against
// 0.28). The pointers are the caller's for the call only: insert_select
// clears them before returning.
typedef struct {
	const bulk_cell *cells;
	const char *buf;
	int ncol, nrows;
} bulk_src;

// bulk_columns is how many columns sqlitebulk_rows declares (c0 to c63);
// a column past the flush's own count reads NULL.
#define bulk_columns 64

typedef struct {
	bulk_vtab_base base;
	const bulk_src *src;
} bulk_vtab;

typedef struct {
	bulk_cursor_base base;
	int row;
} bulk_cursor;

static int rows_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, bulk_vtab_base **out, char **err) {
	char decl[16 + 5 * bulk_columns];
	int n = 0, c;
	n += sprintf(decl + n, "CREATE TABLE x(");
	for (c = 0; c < bulk_columns; c++) n += sprintf(decl + n, c ? ",c%d" : "c%d", c);
	sprintf(decl + n, ")");
	int rc = sqlite3_declare_vtab(db, decl);
	if (rc != 0) return rc;
	bulk_vtab *v = sqlite3_malloc(sizeof *v);
	if (!v) return 7; // SQLITE_NOMEM
	memset(v, 0, sizeof *v);
	v->src = aux;
	*out = &v->base;
	return 0;
}

static int rows_best_index(bulk_vtab_base *v, bulk_index_info *info) {
	info->estimatedCost = 1e6;
	info->estimatedRows = 1000000;
	return 0;
}

static int rows_disconnect(bulk_vtab_base *v) {
	sqlite3_free(v);
	return 0;
}

static int rows_open(bulk_vtab_base *v, bulk_cursor_base **out) {
	bulk_cursor *c = sqlite3_malloc(sizeof *c);
	if (!c) return 7;
	memset(c, 0, sizeof *c);
	*out = &c->base;
	return 0;
}

static int rows_close(bulk_cursor_base *c) {
	sqlite3_free(c);
	return 0;
}

static int rows_filter(bulk_cursor_base *c, int idx, const char *idxs, int argc, void **argv) {
	((bulk_cursor *)c)->row = 0;
	return 0;
}

static int rows_next(bulk_cursor_base *c) {
	((bulk_cursor *)c)->row++;
	return 0;
}

static int rows_eof(bulk_cursor_base *c) {
	const bulk_src *src = ((bulk_vtab *)c->pVtab)->src;
	return ((bulk_cursor *)c)->row >= src->nrows;
}

static int rows_column(bulk_cursor_base *c, sqlite3_context *ctx, int col) {
	const bulk_src *src = ((bulk_vtab *)c->pVtab)->src;
	if (col >= src->ncol) {
		sqlite3_result_null(ctx);
		return 0;
	}
	const bulk_cell *x = &src->cells[((bulk_cursor *)c)->row * src->ncol + col];
	// Text and blobs without a copy (SQLITE_STATIC): the statement runs
	// to its end inside insert_select's one step, while buf stands still.
	switch (x->type) {
	case 1: sqlite3_result_int64(ctx, x->i); break;
	case 2: sqlite3_result_double(ctx, x->f); break;
	case 3: sqlite3_result_text(ctx, src->buf + x->off, x->len, 0); break;
	case 4: sqlite3_result_blob(ctx, src->buf + x->off, x->len, 0); break;
	default: sqlite3_result_null(ctx);
	}
	return 0;
}

static int rows_rowid(bulk_cursor_base *c, long long *rowid) {
	*rowid = ((bulk_cursor *)c)->row;
	return 0;
}

// An eponymous-only module (no xCreate): the table exists on the
// connection by its name, in no schema and no file.
static const bulk_module rows_module = {
	1, 0, rows_connect, rows_best_index, rows_disconnect, 0, rows_open, rows_close,
	rows_filter, rows_next, rows_eof, rows_column, rows_rowid,
};

// register_rows makes sqlitebulk_rows on db, reading *src.
static int register_rows(sqlite3 *db, bulk_src *src) {
	return sqlite3_create_module_v2(db, "sqlitebulk_rows", &rows_module, src, sqlite3_free);
}

// insert_select steps st (an INSERT ... SELECT from sqlitebulk_rows) over
// nrows rows of ncol cells.
static int insert_select(sqlite3_stmt *st, bulk_src *src, int ncol, const bulk_cell *cells, int nrows, const char *buf) {
	src->cells = cells;
	src->buf = buf;
	src->ncol = ncol;
	src->nrows = nrows;
	int rc = sqlite3_step(st);
	rc = rc == 101 ? 0 : rc;
	sqlite3_reset(st);
	src->cells = 0;
	src->buf = 0;
	src->nrows = 0;
	return rc;
}
*/
import "C"

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"github.com/mattn/go-sqlite3"
)

// Handle is the SQLite connection (sqlite3*) under a connection that
// github.com/mattn/go-sqlite3 opened.
type Handle struct {
	db *C.sqlite3
	// rows is what the connection's sqlitebulk_rows reads (nil when the
	// module could not be made: Inserters then bind row by row).
	rows *C.bulk_src
}

// HandleOf is c's Handle, or nil when that package no longer keeps it
// where this looks (a field db of pointer type): its callers then go the
// way of database/sql. It makes the virtual table sqlitebulk_rows on the
// connection, once: call it once per connection.
func HandleOf(c *sqlite3.SQLiteConn) *Handle {
	if c == nil {
		return nil
	}
	f := reflect.ValueOf(c).Elem().FieldByName("db")
	if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() {
		return nil
	}
	h := &Handle{db: (*C.sqlite3)(f.UnsafePointer())}
	// SQLite owns the memory from here (freed with the module).
	src := (*C.bulk_src)(C.sqlite3_malloc(C.int(unsafe.Sizeof(C.bulk_src{}))))
	if src != nil {
		*src = C.bulk_src{}
		if C.register_rows(h.db, src) == 0 {
			h.rows = src
		}
	}
	return h
}

// Inserter inserts many rows from C: through database/sql each value
// bound was a cgo call of its own, and a run of a million requests binds
// thirteen million. One from NewInserter binds each row's values and steps
// its statement once a row; one from NewTableInserter hands a whole flush
// to one step of INSERT ... SELECT from sqlitebulk_rows, a virtual table
// over the flush's cells. It is used on a connection whose owner holds it
// for the whole time (a write transaction on the archive's one writer
// connection): it takes no lock of its own.
type Inserter struct {
	db    *C.sqlite3
	st    *C.sqlite3_stmt // one row of values bound (nil until needed)
	query string
	ncol  int
	// bulk, when set, inserts a whole flush in one step (NewTableInserter)
	// from rowsSrc, the connection's sqlitebulk_rows.
	bulk    *C.sqlite3_stmt
	rowsSrc *C.bulk_src
	cells   []C.bulk_cell
	buf     []byte
	rows    int // rows complete in cells
	done    int // rows flushed before the ones in cells
	// pooled is where cells and buf came from, returned by Close.
	pooled *insertBuffer
}

// insertBuf is the text bytes an Inserter collects before it flushes.
const insertBuf = 256 << 10

// NewInserter prepares query, an INSERT of one row of values (?), on the
// connection h.
func NewInserter(h *Handle, query string) (*Inserter, error) {
	in := &Inserter{db: h.db, query: query}
	if err := in.prepare(&in.st, query); err != nil {
		return nil, err
	}
	in.ncol = int(C.sqlite3_bind_parameter_count(in.st))
	in.buffers()
	return in, nil
}

// NewTableInserter inserts rows of ncol values with head, an INSERT up to
// its values ("INSERT INTO t (a, b) "): each flush in one step of head +
// "SELECT c0, c1 FROM sqlitebulk_rows". When that step fails on a
// constraint, SQLite has undone it, and the flush's rows go again one by
// one so the error names the row that failed (RowError), as NewInserter's
// do.
func NewTableInserter(h *Handle, head string, ncol int) (*Inserter, error) {
	if ncol < 1 {
		return nil, fmt.Errorf("insert %s: %d values a row", head, ncol)
	}
	in := &Inserter{db: h.db, ncol: ncol, query: head + "VALUES (?" + strings.Repeat(", ?", ncol-1) + ")"}
	if h.rows != nil && ncol <= C.bulk_columns {
		var sel strings.Builder
		sel.WriteString(head)
		sel.WriteString("SELECT ")
		for c := range ncol {
			if c > 0 {
				sel.WriteString(", ")
			}
			fmt.Fprintf(&sel, "c%d", c)
		}
		sel.WriteString(" FROM sqlitebulk_rows")
		in.rowsSrc = h.rows
		if err := in.prepare(&in.bulk, sel.String()); err != nil {
			return nil, err
		}
	} else if err := in.prepare(&in.st, in.query); err != nil {
		return nil, err
	}
	in.buffers()
	return in, nil
}

func (in *Inserter) prepare(st **C.sqlite3_stmt, query string) error {
	cq := C.CString(query)
	defer C.free(unsafe.Pointer(cq))
	var prepared *C.sqlite3_stmt // C's to write: st points into Go memory
	if rc := C.sqlite3_prepare_v2(in.db, cq, -1, &prepared, nil); rc != 0 {
		return in.errorf("prepare "+query, rc)
	}
	*st = prepared
	return nil
}

// buffers takes the Inserter's cells and bytes from the pool.
func (in *Inserter) buffers() {
	in.pooled = insertBuffers.Get().(*insertBuffer)
	// Whole rows in a batch: EndRow flushes when the next would not fit.
	n := max(batchCells/max(in.ncol, 1), 1) * max(in.ncol, 1)
	if n > len(in.pooled.cells) { // a statement of more values than a batch
		in.pooled.cells = make([]C.bulk_cell, n)
	}
	in.cells = in.pooled.cells[:0:n]
	in.buf = in.pooled.buf[:0]
}

// insertBuffer is an Inserter's cells and bytes, reused: an ingest of
// 1,000 small files makes an Inserter for each, and allocating 0.75 MB
// each time cost more than their rows.
type insertBuffer struct {
	cells []C.bulk_cell
	buf   []byte
}

var insertBuffers = sync.Pool{New: func() any {
	return &insertBuffer{cells: make([]C.bulk_cell, batchCells), buf: make([]byte, 0, insertBuf)}
}}

// errorf is SQLite's error rc as its message says it, wrapping
// go-sqlite3's Error (what callers test codes on); op names the step.
func (in *Inserter) errorf(op string, rc C.int) error {
	return &codeError{msg: op + ": " + C.GoString(C.sqlite3_errmsg(in.db)),
		code: sqlite3.Error{Code: sqlite3.ErrNo(rc & 0xff), ExtendedCode: sqlite3.ErrNoExtended(C.sqlite3_extended_errcode(in.db))}}
}

type codeError struct {
	msg  string
	code sqlite3.Error
}

func (e *codeError) Error() string { return e.msg }
func (e *codeError) Unwrap() error { return e.code }

// Null, Int, Float, Text and Blob add the next cell of the current row.
func (in *Inserter) Null() { in.cells = append(in.cells, C.bulk_cell{_type: Null}) }

func (in *Inserter) Int(v int64) {
	in.cells = append(in.cells, C.bulk_cell{i: C.longlong(v), _type: Integer})
}

// Float adds v; a NaN, which SQLite would store as NULL anyway, is NULL.
func (in *Inserter) Float(v float64) {
	if math.IsNaN(v) {
		in.Null()
		return
	}
	in.cells = append(in.cells, C.bulk_cell{f: C.double(v), _type: Float})
}

func (in *Inserter) Text(s string) {
	in.cells = append(in.cells, C.bulk_cell{off: C.int(len(in.buf)), len: C.int(len(s)), _type: Text})
	in.buf = append(in.buf, s...)
}

// Blob adds b (empty, not NULL, when len(b) == 0).
func (in *Inserter) Blob(b []byte) {
	in.cells = append(in.cells, C.bulk_cell{off: C.int(len(in.buf)), len: C.int(len(b)), _type: Blob})
	in.buf = append(in.buf, b...)
}

// Discard drops the rows not flushed yet, and the current row's cells.
func (in *Inserter) Discard() {
	in.cells, in.buf, in.rows = in.cells[:0], in.buf[:0], 0
}

// Rows is how many rows were ended (EndRow) over the Inserter's life,
// flushed or not: the number the next row has in a RowError.
func (in *Inserter) Rows() int { return in.done + in.rows }

// RowError is the failure of one row, counted from 0 over the Inserter's
// life.
type RowError struct {
	Row int
	Err error
}

func (e *RowError) Error() string { return fmt.Sprintf("row %d: %v", e.Row, e.Err) }
func (e *RowError) Unwrap() error { return e.Err }

// EndRow ends the current row, inserting the rows collected when the
// batch is full.
func (in *Inserter) EndRow() error {
	if len(in.cells) != (in.rows+1)*in.ncol {
		return &RowError{Row: in.done + in.rows, Err: fmt.Errorf("insert %s: %d values, the statement takes %d",
			in.query, len(in.cells)-in.rows*in.ncol, in.ncol)}
	}
	in.rows++
	if len(in.cells)+in.ncol > cap(in.cells) || len(in.buf) >= insertBuf {
		return in.Flush()
	}
	return nil
}

// Flush inserts the rows collected.
func (in *Inserter) Flush() error {
	if in.rows == 0 {
		return nil
	}
	defer in.Discard() // inserted or failed, the rows leave the buffer
	var failed C.int
	buf := unsafe.Pointer(unsafe.SliceData(in.buf))
	if len(in.buf) == 0 {
		buf = unsafe.Pointer(&placeholder)
	}
	if in.bulk != nil {
		rc := C.insert_select(in.bulk, in.rowsSrc, C.int(in.ncol), unsafe.SliceData(in.cells), C.int(in.rows), (*C.char)(buf))
		if rc == 0 {
			in.done += in.rows
			return nil
		}
		// A constraint failure undoes the statement and leaves the
		// transaction open: the rows again, one by one, find the row.
		// Any other error is the whole flush's.
		const constraint = 19
		if rc&0xff != constraint || C.sqlite3_get_autocommit(in.db) != 0 {
			return in.errorf("insert", rc)
		}
		if in.st == nil {
			if err := in.prepare(&in.st, in.query); err != nil {
				return err
			}
		}
	}
	rc := C.insert_rows(in.st, C.int(in.ncol), unsafe.SliceData(in.cells), C.int(in.rows), (*C.char)(buf), &failed)
	if rc != 0 {
		return &RowError{Row: in.done + int(failed), Err: in.errorf("insert", rc)}
	}
	in.done += in.rows
	return nil
}

var placeholder byte

// Close inserts what is left and finalises the statement.
func (in *Inserter) Close() error {
	err := in.Flush()
	for _, st := range []**C.sqlite3_stmt{&in.st, &in.bulk} {
		if *st != nil {
			C.sqlite3_finalize(*st)
			*st = nil
		}
	}
	if in.pooled != nil {
		if cap(in.buf) <= 4*insertBuf { // a huge text grew it: let it go
			in.pooled.buf = in.buf[:0]
		}
		insertBuffers.Put(in.pooled)
		in.pooled, in.cells, in.buf = nil, nil, nil
	}
	return err
}
