// Package sqlitebulk reads query results and inserts rows in batches: one
// cgo call steps a statement over up to a few thousand rows, copying their
// cells into a flat array or inserting them from one, where database/sql
// makes a cgo call for each row and for each value bound, and boxes every
// value. A pass over every run of a large archive (the site of 10,000 runs
// reads a million request rows) spent most of its reading time in that
// per-row path.
//
// A Conn is its own read-only connection to an archive file, holding one
// read transaction, so every statement on it sees one snapshot. An
// Inserter works on a connection go-sqlite3 opened (Handle). Both call the
// SQLite library that github.com/mattn/go-sqlite3 compiles into the
// binary; the few functions they need are declared in bulk.h, since that
// package's header is not reachable from here.
package sqlitebulk

/*
#include <stdlib.h>
#include <string.h>

#include "bulk.h"

#define BULK_OPEN_READONLY 0x00000001
#define BULK_OPEN_URI      0x00000040
#define BULK_OPEN_NOMUTEX  0x00008000
#define BULK_ROW  100
#define BULK_DONE 101


static int bulk_open(const char *uri, int busy_ms, sqlite3 **db) {
	int rc = sqlite3_open_v2(uri, db, BULK_OPEN_READONLY | BULK_OPEN_URI | BULK_OPEN_NOMUTEX, 0);
	if (rc == 0) sqlite3_busy_timeout(*db, busy_ms);
	return rc;
}

static int bulk_bind(sqlite3_stmt *st, int i, const char *v, int n) {
	// -1 as the destructor (SQLITE_TRANSIENT): SQLite copies the value,
	// so no Go pointer outlives the call.
	return sqlite3_bind_text(st, i, v, n, (void(*)(void*))-1);
}

// bulk_fill copies up to cap rows of ncol cells. *pending says the
// statement stands on a row not yet copied (its text did not fit last
// time). It returns the rows copied and sets *rc to BULK_DONE at the end,
// BULK_ROW when more may follow, or SQLite's error code; *need is the byte
// space a row needs when it alone does not fit.
static int bulk_fill(sqlite3_stmt *st, int ncol, bulk_cell *cells, int cap, char *buf, int buf_cap, int *pending, int *need, int *rc) {
	int n = 0, used = 0, c;
	*need = 0;
	*rc = BULK_ROW;
	while (n < cap) {
		if (!*pending) {
			int s = sqlite3_step(st);
			if (s != BULK_ROW) { *rc = s; break; }
			*pending = 1;
		}
		bulk_cell *row = &cells[n * ncol];
		int start = used, fits = 1;
		for (c = 0; c < ncol && fits; c++) {
			bulk_cell *x = &row[c];
			// One column call a cell, then the value's own accessors:
			// each sqlite3_column_* call checks the statement again. The
			// value is the statement's own (unprotected), read on the one
			// thread that steps it, on a connection without a mutex.
			sqlite3_value *v = sqlite3_column_value(st, c);
			x->type = sqlite3_value_type(v);
			x->off = used;
			x->len = 0;
			switch (x->type) {
			case 1:
				x->i = sqlite3_value_int64(v);
				x->f = (double)x->i;
				break;
			case 2:
				x->f = sqlite3_value_double(v);
				x->i = 0;
				break;
			case 3:
			case 4: {
				const void *p = sqlite3_value_blob(v);
				x->len = sqlite3_value_bytes(v);
				if (used + x->len > buf_cap) {
					fits = 0;
					break;
				}
				if (x->len > 0) memcpy(buf + used, p, x->len);
				used += x->len;
				break;
			}
			}
		}
		if (!fits) {
			// The row stays pending for the next call; alone in a
			// batch, it says how much room it needs.
			if (n == 0) {
				int size = 0;
				for (c = 0; c < ncol; c++) {
					int t = sqlite3_column_type(st, c);
					if (t == 3 || t == 4) size += sqlite3_column_bytes(st, c);
				}
				*need = size;
			}
			used = start;
			break;
		}
		*pending = 0;
		n++;
	}
	return n;
}
*/
import "C"

import (
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"unsafe"

	// The SQLite library these calls link against.
	_ "github.com/mattn/go-sqlite3"
)

// Storage classes of a cell.
const (
	Integer = 1
	Float   = 2
	Text    = 3
	Blob    = 4
	Null    = 5
)

// batchCells bounds a batch (rows x columns), so a batch's cells take
// half a megabyte whatever the query.
const batchCells = 16384

// Conn is a read-only connection holding one read transaction.
type Conn struct {
	db    *C.sqlite3
	stmts []*Stmt
}

// Open opens uri (a SQLite file: URI) read-only and begins a read
// transaction; its snapshot is taken by the first query. busyMillis is how
// long to wait on a locked archive.
func Open(uri string, busyMillis int) (*Conn, error) {
	curi := C.CString(uri)
	defer C.free(unsafe.Pointer(curi))
	c := &Conn{}
	if rc := C.bulk_open(curi, C.int(busyMillis), &c.db); rc != 0 {
		err := c.errorf("open", rc)
		c.Close()
		return nil, err
	}
	begin := C.CString("BEGIN")
	defer C.free(unsafe.Pointer(begin))
	if rc := C.sqlite3_exec(c.db, begin, nil, nil, nil); rc != 0 {
		err := c.errorf("begin", rc)
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Conn) errorf(op string, rc C.int) error {
	msg := "out of memory"
	if c.db != nil {
		msg = C.GoString(C.sqlite3_errmsg(c.db))
	}
	return fmt.Errorf("%s: %s (SQLite code %d)", op, msg, int(rc))
}

// Close finalises the connection's statements, ends its transaction and
// closes it.
func (c *Conn) Close() error {
	for _, s := range c.stmts {
		s.Close()
	}
	c.stmts = nil
	if c.db == nil {
		return nil
	}
	rc := C.sqlite3_close_v2(c.db)
	c.db = nil
	if rc != 0 {
		return fmt.Errorf("close: SQLite code %d", int(rc))
	}
	return nil
}

// Stmt is a prepared statement of a Conn.
type Stmt struct {
	c     *Conn
	st    *C.sqlite3_stmt
	query string
	ncol  int
	rows  *Rows
}

// Prepare prepares query.
func (c *Conn) Prepare(query string) (*Stmt, error) {
	cq := C.CString(query)
	defer C.free(unsafe.Pointer(cq))
	s := &Stmt{c: c, query: query}
	if rc := C.sqlite3_prepare_v2(c.db, cq, -1, &s.st, nil); rc != 0 {
		return nil, c.errorf("prepare "+query, rc)
	}
	s.ncol = int(C.sqlite3_column_count(s.st))
	c.stmts = append(c.stmts, s)
	return s, nil
}

// Close finalises the statement.
func (s *Stmt) Close() {
	if s.st != nil {
		C.sqlite3_finalize(s.st)
		s.st = nil
	}
}

// Query runs the statement with text arguments. The Rows it returns are
// the statement's own: a new Query ends the previous one's.
func (s *Stmt) Query(args ...string) (*Rows, error) {
	C.sqlite3_reset(s.st)
	for i, a := range args {
		ca := C.CString(a)
		rc := C.bulk_bind(s.st, C.int(i+1), ca, C.int(len(a)))
		C.free(unsafe.Pointer(ca))
		if rc != 0 {
			return nil, s.c.errorf("bind "+s.query, rc)
		}
	}
	r := s.rows
	if r == nil {
		ncol := max(s.ncol, 1)
		r = &Rows{s: s, cells: make([]C.bulk_cell, max(batchCells/ncol, 1)*ncol), buf: make([]byte, 64<<10)}
		s.rows = r
	}
	r.n, r.at, r.done, r.pending, r.err = 0, -1, false, 0, nil
	return r, nil
}

// Query prepares and runs a statement that is used once.
func (c *Conn) Query(query string, args ...string) (*Rows, error) {
	s, err := c.Prepare(query)
	if err != nil {
		return nil, err
	}
	return s.Query(args...)
}

// Rows walks a query's result, a batch at a time.
type Rows struct {
	s       *Stmt
	cells   []C.bulk_cell
	buf     []byte
	n, at   int // rows in the batch, the current one
	done    bool
	pending C.int
	err     error
	interns []interns // by column, made by String
}

// interns are a column's short texts as String shares them.
type interns struct {
	m           map[string]string
	seen, added int
	off         bool // the texts mostly differ: not shared
}

// Next moves to the next row, reading the next batch when the current one
// is used up. It returns false at the end or on an error (see Err).
func (r *Rows) Next() bool {
	if r.at+1 < r.n {
		r.at++
		return true
	}
	if r.done || r.err != nil {
		return false
	}
	ncol := max(r.s.ncol, 1)
	for {
		var need, status C.int
		n := C.bulk_fill(r.s.st, C.int(r.s.ncol), &r.cells[0], C.int(len(r.cells)/ncol),
			(*C.char)(unsafe.Pointer(&r.buf[0])), C.int(len(r.buf)), &r.pending, &need, &status)
		r.n, r.at = int(n), 0
		switch {
		case status == C.BULK_DONE:
			r.done = true
		case status != C.BULK_ROW:
			r.err = r.s.c.errorf(r.s.query, status)
			r.n = 0
			return false
		case need > 0:
			r.buf = make([]byte, 2*int(need))
			continue
		}
		return r.n > 0
	}
}

// Err is the error that ended Next early.
func (r *Rows) Err() error { return r.err }

// Close ends the walk; the statement stays prepared.
func (r *Rows) Close() error {
	r.n, r.at, r.done = 0, -1, true
	C.sqlite3_reset(r.s.st)
	return nil
}

func (r *Rows) cell(col int) *C.bulk_cell {
	return &r.cells[r.at*r.s.ncol+col]
}

// Type is the storage class of column col of the current row.
func (r *Rows) Type(col int) int { return int(r.cell(col)._type) }

// Int is an INTEGER cell (ok false for any other class).
func (r *Rows) Int(col int) (int64, bool) {
	x := r.cell(col)
	return int64(x.i), x._type == Integer
}

// Float is an INTEGER or FLOAT cell as a float (ok false for others).
func (r *Rows) Float(col int) (float64, bool) {
	x := r.cell(col)
	return float64(x.f), x._type == Integer || x._type == Float
}

// Bytes is a TEXT or BLOB cell, valid until the next batch.
func (r *Rows) Bytes(col int) []byte {
	x := r.cell(col)
	if x._type != Text && x._type != Blob {
		return nil
	}
	return r.buf[x.off : x.off+x.len : x.off+x.len]
}

// String is a TEXT or BLOB cell as a string. Short strings are shared
// between rows, each column's apart (field names, units and sources repeat
// on every run), unless the column's texts mostly differ (ids, times): a
// column in which more than half of the first 256 texts were new is no
// longer looked up (a map of every run's id and time was most of the
// time of listing the runs).
func (r *Rows) String(col int) string {
	b := r.Bytes(col)
	if len(b) > 48 {
		return string(b)
	}
	if r.interns == nil {
		r.interns = make([]interns, r.s.ncol)
	}
	in := &r.interns[col]
	if in.off {
		return string(b)
	}
	in.seen++
	if s, ok := in.m[string(b)]; ok {
		return s
	}
	s := string(b)
	in.added++
	if in.seen >= 256 && 2*in.added > in.seen {
		in.off, in.m = true, nil
		return s
	}
	if in.m == nil {
		in.m = map[string]string{}
	}
	if len(in.m) < 1<<14 {
		in.m[s] = s
	}
	return s
}

// Value is the cell as database/sql's driver would give it: nil, int64,
// float64, string or []byte.
func (r *Rows) Value(col int) any {
	switch x := r.cell(col); x._type {
	case Integer:
		return int64(x.i)
	case Float:
		return float64(x.f)
	case Text:
		return r.String(col)
	case Blob:
		b := r.Bytes(col)
		return append(make([]byte, 0, len(b)), b...) // empty, not nil, as the driver gives it
	}
	return nil
}

// Scan copies the current row into dest as database/sql's Rows.Scan does,
// for the kinds the archive uses: *string, *int, *int64, *bool, *float64,
// *[]byte, *any and sql.Scanner.
func (r *Rows) Scan(dest ...any) error {
	if len(dest) != r.s.ncol {
		return fmt.Errorf("scan: %d destinations for %d columns", len(dest), r.s.ncol)
	}
	for i, d := range dest {
		if err := r.scanOne(i, d); err != nil {
			return fmt.Errorf("scan column %d: %w", i, err)
		}
	}
	return nil
}

var errNull = errors.New("NULL where a value is required")

func (r *Rows) scanOne(col int, dest any) error {
	x := r.cell(col)
	t := int(x._type)
	switch d := dest.(type) {
	case *string:
		switch t {
		case Text, Blob:
			*d = r.String(col)
		case Integer:
			*d = strconv.FormatInt(int64(x.i), 10)
		case Float:
			*d = strconv.FormatFloat(float64(x.f), 'g', -1, 64)
		default:
			return errNull
		}
	case *int64:
		v, err := r.integer(col)
		*d = v
		return err
	case *int:
		v, err := r.integer(col)
		*d = int(v)
		return err
	case *bool:
		switch t {
		case Integer:
			*d = x.i != 0
		case Text:
			v, err := strconv.ParseBool(r.String(col))
			*d = v
			return err
		case Null:
			return errNull
		default:
			return fmt.Errorf("storage class %d is not a boolean", t)
		}
	case *float64:
		switch t {
		case Integer, Float:
			*d = float64(x.f)
		case Text:
			v, err := strconv.ParseFloat(r.String(col), 64)
			*d = v
			return err
		case Null:
			return errNull
		default:
			return fmt.Errorf("storage class %d is not a number", t)
		}
	case *[]byte:
		if t == Null {
			*d = nil
		} else if v, ok := r.Value(col).([]byte); ok {
			*d = v
		} else {
			*d = []byte(fmt.Sprint(r.Value(col)))
		}
	case *any:
		*d = r.Value(col)
	case sql.Scanner:
		return d.Scan(r.Value(col))
	default:
		return fmt.Errorf("unsupported destination %T", dest)
	}
	return nil
}

func (r *Rows) integer(col int) (int64, error) {
	x := r.cell(col)
	switch int(x._type) {
	case Integer:
		return int64(x.i), nil
	case Float:
		if f := float64(x.f); f == float64(int64(f)) {
			return int64(f), nil
		}
		return 0, fmt.Errorf("%v is not an integer", float64(x.f))
	case Text:
		return strconv.ParseInt(r.String(col), 10, 64)
	case Null:
		return 0, errNull
	}
	return 0, errors.New("a blob is not an integer")
}

// Int runs a query of one integer value; ok is false when it gives no row
// or no integer.
func (c *Conn) Int(query string) (v int64, ok bool, err error) {
	rows, err := c.Query(query)
	if err != nil {
		return 0, false, err
	}
	defer rows.Close()
	if !rows.Next() {
		return 0, false, rows.Err()
	}
	v, ok = rows.Int(0)
	return v, ok, nil
}
