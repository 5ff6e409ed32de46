package sqlitebulk

/*
#include <stdlib.h>
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
*/
import "C"

import (
	"fmt"
	"math"
	"reflect"
	"sync"
	"unsafe"

	"github.com/mattn/go-sqlite3"
)

// Handle is the SQLite connection (sqlite3*) under a connection that
// github.com/mattn/go-sqlite3 opened.
type Handle struct{ db *C.sqlite3 }

// HandleOf is c's Handle, or nil when that package no longer keeps it
// where this looks (a field db of pointer type): its callers then go the
// way of database/sql.
func HandleOf(c *sqlite3.SQLiteConn) *Handle {
	if c == nil {
		return nil
	}
	f := reflect.ValueOf(c).Elem().FieldByName("db")
	if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() {
		return nil
	}
	return &Handle{db: (*C.sqlite3)(f.UnsafePointer())}
}

// Inserter runs one statement (an INSERT) for many rows, binding and
// stepping each in C: through database/sql each value bound was a cgo
// call of its own, and a run of a million requests binds thirteen million.
// It is used on a connection whose owner holds it for the whole time (a
// write transaction on the archive's one writer connection): it takes no
// lock of its own.
type Inserter struct {
	db    *C.sqlite3
	st    *C.sqlite3_stmt
	query string
	ncol  int
	cells []C.bulk_cell
	buf   []byte
	rows  int // rows complete in cells
	done  int // rows flushed before the ones in cells
	// pooled is where cells and buf came from, returned by Close.
	pooled *insertBuffer
}

// insertBuf is the text bytes an Inserter collects before it flushes.
const insertBuf = 256 << 10

// NewInserter prepares query on the connection h.
func NewInserter(h *Handle, query string) (*Inserter, error) {
	in := &Inserter{db: h.db, query: query}
	cq := C.CString(query)
	defer C.free(unsafe.Pointer(cq))
	if rc := C.sqlite3_prepare_v2(in.db, cq, -1, &in.st, nil); rc != 0 {
		return nil, in.errorf("prepare "+query, rc)
	}
	in.ncol = int(C.sqlite3_bind_parameter_count(in.st))
	in.pooled = insertBuffers.Get().(*insertBuffer)
	// Whole rows in a batch: EndRow flushes when the next would not fit.
	n := max(batchCells/max(in.ncol, 1), 1) * max(in.ncol, 1)
	if n > len(in.pooled.cells) { // a statement of more values than a batch
		in.pooled.cells = make([]C.bulk_cell, n)
	}
	in.cells = in.pooled.cells[:0:n]
	in.buf = in.pooled.buf[:0]
	return in, nil
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

// Null, Int, Float and Text add the next cell of the current row.
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
	var failed C.int
	buf := unsafe.Pointer(unsafe.SliceData(in.buf))
	if len(in.buf) == 0 {
		buf = unsafe.Pointer(&placeholder)
	}
	rc := C.insert_rows(in.st, C.int(in.ncol), unsafe.SliceData(in.cells), C.int(in.rows), (*C.char)(buf), &failed)
	if rc != 0 {
		err := &RowError{Row: in.done + int(failed), Err: in.errorf("insert", rc)}
		in.cells, in.buf, in.rows = in.cells[:0], in.buf[:0], 0
		return err
	}
	in.done += in.rows
	in.cells, in.buf, in.rows = in.cells[:0], in.buf[:0], 0
	return nil
}

var placeholder byte

// Close inserts what is left and finalises the statement.
func (in *Inserter) Close() error {
	err := in.Flush()
	if in.st != nil {
		C.sqlite3_finalize(in.st)
		in.st = nil
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
