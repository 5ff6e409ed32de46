package sqlitebulk

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/mattn/go-sqlite3"
)

// newDB writes a table t(k, i, f, s, b) of n rows with every storage class,
// NULLs, empty and long texts, in WAL mode, and returns its path.
func newDB(t *testing.T, n int) string {
	t.Helper()
	path := textDB(t, "k INTEGER PRIMARY KEY, i INTEGER, f REAL, s TEXT, b BLOB", n, func(k int) []any {
		var i, f, s, b any
		switch k % 7 {
		case 0:
			i, f, s, b = int64(k)*1e12, float64(k)/3, fmt.Sprintf("text %d ✓ 中文", k), []byte{0, 1, 2, byte(k)}
		case 1: // all NULL
		case 2:
			i, f, s, b = -k, -0.5, "", []byte{}
		case 3:
			s = strings.Repeat("long ", 30000) // over the first text buffer
		case 4:
			s = "nul\x00inside"
		case 5:
			i, f = int64(k), int64(7) // an integer in a REAL column is stored as REAL
		case 6:
			s = "<script>&'\""
		}
		return []any{k, i, f, s, b}
	})
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`PRAGMA journal_mode=WAL`); err != nil {
		t.Fatal(err)
	}
	return path
}

func uri(path string) string { return "file:" + path + "?mode=ro" }

// TestRowsMatchDatabaseSQL: across batches, every cell reads back as
// database/sql's driver gives it, by Value and by Scan into any.
func TestRowsMatchDatabaseSQL(t *testing.T) {
	const n = 9000 // two batches of five columns, with long texts forcing early cuts
	path := newDB(t, n)
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want, err := db.Query(`SELECT k, i, f, s, b FROM t ORDER BY k`)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Close()

	c, err := Open(uri(path), 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rows, err := c.Query(`SELECT k, i, f, s, b FROM t ORDER BY k`)
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for rows.Next() {
		if !want.Next() {
			t.Fatalf("row %d: database/sql has no more rows", got)
		}
		w := make([]any, 5)
		wp := make([]any, 5)
		for i := range w {
			wp[i] = &w[i]
		}
		if err := want.Scan(wp...); err != nil {
			t.Fatal(err)
		}
		g := make([]any, 5)
		gp := make([]any, 5)
		for i := range g {
			gp[i] = &g[i]
		}
		if err := rows.Scan(gp...); err != nil {
			t.Fatal(err)
		}
		for col := range 5 {
			if !reflect.DeepEqual(g[col], w[col]) || !reflect.DeepEqual(rows.Value(col), w[col]) {
				t.Fatalf("row %d column %d: got %#v (Value %#v), database/sql %#v", got, col, g[col], rows.Value(col), w[col])
			}
		}
		got++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if got != n || want.Next() {
		t.Errorf("read %d rows of %d", got, n)
	}
}

// TestScanConversions: typed destinations convert as database/sql does,
// and a NULL where a value is needed is an error naming the column.
func TestScanConversions(t *testing.T) {
	path := newDB(t, 7)
	c, err := Open(uri(path), 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	stmt, err := c.Prepare(`SELECT i, f, s FROM t WHERE k = ?`)
	if err != nil {
		t.Fatal(err)
	}
	one := func(k string, dest ...any) error {
		rows, err := stmt.Query(k)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		if !rows.Next() {
			t.Fatalf("no row %s: %v", k, rows.Err())
		}
		return rows.Scan(dest...)
	}
	var i int64
	var n int
	var f float64
	var s string
	var ok bool
	if err := one("0", &i, &f, &s); err != nil || i != 0 || f != 0 || s != "text 0 ✓ 中文" {
		t.Errorf("row 0: %v %v %q %v", i, f, s, err)
	}
	if err := one("2", &n, &f, &s); err != nil || n != -2 || f != -0.5 || s != "" {
		t.Errorf("row 2: %v %v %q %v", n, f, s, err)
	}
	if err := one("5", &ok, &i, &s); err == nil {
		t.Error("row 5: NULL text into a string gave no error")
	} else if !strings.Contains(err.Error(), "column 2") {
		t.Errorf("row 5: error %q does not name the column", err)
	}
	if err := one("5", &ok, &i, new(sql.NullString)); err != nil || !ok || i != 7 {
		t.Errorf("row 5: bool %v, REAL 7.0 as integer %v: %v", ok, i, err)
	}
	if err := one("2", &i, &i, &s); err == nil {
		t.Error("a non-integral REAL into an integer gave no error")
	}
	if err := one("0", &i); err == nil {
		t.Error("one destination for three columns gave no error")
	}
}

// TestSnapshot: a Conn sees the archive as it was at its first query,
// whatever commits after.
func TestSnapshot(t *testing.T) {
	path := newDB(t, 10)
	c, err := Open(uri(path), 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if v, ok, err := c.Int(`SELECT count(*) FROM t`); err != nil || !ok || v != 10 {
		t.Fatalf("count %d %v %v", v, ok, err)
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`INSERT INTO t (k) VALUES (100)`); err != nil {
		t.Fatal(err)
	}
	if v, _, err := c.Int(`SELECT count(*) FROM t`); err != nil || v != 10 {
		t.Errorf("after a commit elsewhere the snapshot counts %d (%v), want 10", v, err)
	}
	if _, ok, err := c.Int(`SELECT i FROM t WHERE k = 1`); err != nil || ok {
		t.Errorf("NULL read as an integer: ok %v, %v", ok, err)
	}
}

func TestErrors(t *testing.T) {
	path := newDB(t, 1)
	if _, err := Open(uri(filepath.Join(t.TempDir(), "missing.db")), 100); err == nil {
		t.Error("opening a missing file read-only gave no error")
	}
	c, err := Open(uri(path), 100)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Query(`SELECT nope FROM t`); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("bad query: %v", err)
	}
	if _, err := c.Query(`INSERT INTO t (k) VALUES (5)`); err != nil {
		t.Fatal(err) // prepared; the write fails when stepped
	}
	rows, _ := c.Query(`INSERT INTO t (k) VALUES (5)`)
	if rows.Next() || rows.Err() == nil {
		t.Errorf("a write on the read-only connection: next without error (%v)", rows.Err())
	}
}

// textDB writes a table t(columns) of n rows, row k's values from row,
// and returns its path.
func textDB(tb testing.TB, columns string, n int, row func(k int) []any) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "t.db")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE t (` + columns + `)`); err != nil {
		tb.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	for k := range n {
		v := row(k)
		if _, err := tx.Exec(`INSERT INTO t VALUES (?`+strings.Repeat(", ?", len(v)-1)+`)`, v...); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// TestStringInterns: a column's repeated short texts are one string, a
// column whose texts mostly differ stops being looked up, and either way
// every text reads back as it is.
func TestStringInterns(t *testing.T) {
	const n = 1000
	path := textDB(t, "k INTEGER PRIMARY KEY, same TEXT, uniq TEXT", n, func(k int) []any {
		return []any{k, fmt.Sprintf("unit %d", k%3), fmt.Sprintf("run-%06d", k)}
	})
	c, err := Open(uri(path), 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rows, err := c.Query(`SELECT same, uniq FROM t ORDER BY k`)
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]*byte{}
	k := 0
	for ; rows.Next(); k++ {
		same, uniq := rows.String(0), rows.String(1)
		if want := fmt.Sprintf("unit %d", k%3); same != want {
			t.Fatalf("row %d: %q, want %q", k, same, want)
		}
		if want := fmt.Sprintf("run-%06d", k); uniq != want {
			t.Fatalf("row %d: %q, want %q", k, uniq, want)
		}
		if p, ok := first[same]; !ok {
			first[same] = unsafe.StringData(same)
		} else if p != unsafe.StringData(same) {
			t.Fatalf("row %d: %q is not the string read first", k, same)
		}
	}
	if err := rows.Err(); err != nil || k != n {
		t.Fatalf("%d rows, %v", k, err)
	}
	if in := rows.interns; in[0].off || len(in[0].m) != 3 || !in[1].off || in[1].m != nil {
		t.Errorf("the repeated column shared in %d strings (off %v), the unique one off %v with %d", len(in[0].m), in[0].off, in[1].off, len(in[1].m))
	}
}

// BenchmarkStrings reads 10,000 rows of texts as a list of runs has them:
// an id and a time unique to each row, a date shared by a few, a campaign
// and an engine shared by many.
func BenchmarkStrings(b *testing.B) {
	path := textDB(b, "id TEXT, at TEXT, day TEXT, campaign TEXT, engine TEXT", 10000, func(k int) []any {
		return []any{fmt.Sprintf("%012x", k*7919), fmt.Sprintf("2026-12-03T10:%02d:%02d.%09dZ", k/60%60, k%60, k),
			fmt.Sprintf("2026-11-%02d", k/400+1), fmt.Sprintf("campaign-%d", k%9), "vllm"}
	})
	b.ResetTimer()
	for range b.N {
		c, err := Open(uri(path), 1000)
		if err != nil {
			b.Fatal(err)
		}
		rows, err := c.Query(`SELECT id, at, day, campaign, engine FROM t`)
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
			for col := range 5 {
				_ = rows.String(col)
			}
		}
		c.Close()
	}
}

// TestInserterWideStatement: a statement taking more values than a batch
// of cells (here 20,000 in one row of 20,000 placeholders) is inserted
// whole, with cells of its own size.
func TestInserterWideStatement(t *testing.T) {
	t.Parallel()
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "w.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE t (v INTEGER)`); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const n = 20_000
	err = conn.Raw(func(dc any) error {
		h := HandleOf(dc.(*sqlite3.SQLiteConn))
		if h == nil {
			return errors.New("no handle under go-sqlite3's connection")
		}
		in, err := NewInserter(h, "INSERT INTO t (v) VALUES (?)"+strings.Repeat(", (?)", n-1))
		if err != nil {
			return err
		}
		for i := range n {
			in.Int(int64(i))
		}
		if err := in.EndRow(); err != nil {
			in.Close()
			return err
		}
		return in.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	var count, sum int64
	if err := conn.QueryRowContext(context.Background(), `SELECT count(*), sum(v) FROM t`).Scan(&count, &sum); err != nil {
		t.Fatal(err)
	}
	if count != n || sum != n*(n-1)/2 {
		t.Errorf("%d rows summing to %d, want %d summing to %d", count, sum, n, n*(n-1)/2)
	}
}

// onConn runs the statements before, then f with the Handle, then check,
// on one connection of a new database whose schema is schema (f holds the
// connection: check reads it afterwards).
func onConn(t *testing.T, schema, before string, f func(h *Handle) error, check func(conn *sql.Conn) error) {
	t.Helper()
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "i.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(schema); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if before != "" {
		if _, err := conn.ExecContext(context.Background(), before); err != nil {
			t.Fatal(err)
		}
	}
	err = conn.Raw(func(dc any) error {
		h := HandleOf(dc.(*sqlite3.SQLiteConn))
		if h == nil {
			return errors.New("no handle under go-sqlite3's connection")
		}
		return f(h)
	})
	if err == nil {
		err = check(conn)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// cellRows are rows of every storage class for a table (k, i, f, s, b):
// NULLs, -0, empty texts and blobs, a NUL inside a text, and now and then
// a text longer than an Inserter's bytes, which flushes early.
func cellRows(n int) [][]any {
	rows := make([][]any, n)
	for k := range rows {
		var i, f, s, b any
		switch k % 6 {
		case 0:
			i, f, s, b = int64(k)*1e12, float64(k)/3, fmt.Sprintf("text %d ✓ 中文", k), []byte{0, 1, 2, byte(k)}
		case 1: // all NULL
		case 2:
			i, f, s, b = int64(-k), math.Copysign(0, -1), "", []byte{}
		case 3:
			s = "short"
			if k%1000 == 3 {
				s = strings.Repeat("long ", 60000)
			}
		case 4:
			s, f = "nul\x00inside", math.Inf(1)
		case 5:
			i, f = int64(math.MinInt64), -1e-300
		}
		rows[k] = []any{int64(k), i, f, s, b}
	}
	return rows
}

func addCells(in *Inserter, row []any) {
	for _, v := range row {
		switch v := v.(type) {
		case nil:
			in.Null()
		case int64:
			in.Int(v)
		case float64:
			in.Float(v)
		case string:
			in.Text(v)
		case []byte:
			in.Blob(v)
		}
	}
}

// dumpCells is every row of table, with each cell's storage class and
// its float bits (so -0 and 0 differ).
func dumpCells(t *testing.T, conn *sql.Conn, table string) []string {
	t.Helper()
	rows, err := conn.QueryContext(context.Background(), `SELECT k, typeof(i), i, typeof(f), f, typeof(s), s, typeof(b), hex(b) FROM `+table+` ORDER BY k`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k int64
		var ti, tf, ts, tb, hb string
		var i, f, s any
		if err := rows.Scan(&k, &ti, &i, &tf, &f, &ts, &s, &tb, &hb); err != nil {
			t.Fatal(err)
		}
		if v, ok := f.(float64); ok {
			f = math.Float64bits(v)
		}
		out = append(out, fmt.Sprintf("%d %s %v %s %v %s %q %s %s", k, ti, i, tf, f, ts, s, tb, hb))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTableInserterStoresWhatBindingStores: rows of every storage class,
// over several flushes, inserted through sqlitebulk_rows (one step a
// flush), row by row (a Handle without the table) and by NewInserter's
// bound statement, read back cell for cell the same.
func TestTableInserterStoresWhatBindingStores(t *testing.T) {
	t.Parallel()
	const schema = `CREATE TABLE a (k INTEGER PRIMARY KEY, i INTEGER, f REAL, s TEXT, b BLOB);
		CREATE TABLE b (k INTEGER PRIMARY KEY, i INTEGER, f REAL, s TEXT, b BLOB);
		CREATE TABLE c (k INTEGER PRIMARY KEY, i INTEGER, f REAL, s TEXT, b BLOB)`
	rows := cellRows(9000)
	onConn(t, schema, "BEGIN", func(h *Handle) error {
		if h.rows == nil {
			return errors.New("the connection has no sqlitebulk_rows")
		}
		for _, c := range []struct {
			table string
			open  func() (*Inserter, error)
		}{
			{"a", func() (*Inserter, error) { return NewTableInserter(h, "INSERT INTO a (k, i, f, s, b) ", 5) }},
			{"b", func() (*Inserter, error) {
				return NewTableInserter(&Handle{db: h.db}, "INSERT INTO b (k, i, f, s, b) ", 5)
			}},
			{"c", func() (*Inserter, error) {
				return NewInserter(h, "INSERT INTO c (k, i, f, s, b) VALUES (?, ?, ?, ?, ?)")
			}},
		} {
			in, err := c.open()
			if err != nil {
				return err
			}
			if c.table == "a" && in.bulk == nil || c.table != "a" && in.bulk != nil {
				in.Close()
				return fmt.Errorf("table %s: bulk statement %v", c.table, in.bulk != nil)
			}
			for _, row := range rows {
				addCells(in, row)
				if err := in.EndRow(); err != nil {
					in.Close()
					return err
				}
			}
			if err := in.Close(); err != nil {
				return err
			}
		}
		return nil
	}, func(conn *sql.Conn) error {
		if _, err := conn.ExecContext(context.Background(), "COMMIT"); err != nil {
			return err
		}
		a, b, c := dumpCells(t, conn, "a"), dumpCells(t, conn, "b"), dumpCells(t, conn, "c")
		if len(a) != len(rows) || len(b) != len(rows) || len(c) != len(rows) {
			return fmt.Errorf("%d, %d and %d rows, want %d", len(a), len(b), len(c), len(rows))
		}
		for k := range a {
			if a[k] != c[k] || b[k] != c[k] {
				return fmt.Errorf("row %d:\n in one step: %.200s\n row by row:  %.200s\n bound:       %.200s", k, a[k], b[k], c[k])
			}
		}
		return nil
	})
}

// TestTableInserterNamesTheFailingRow: a flush whose one step fails on a
// constraint is undone by SQLite and goes again row by row: the error
// names the row (counted over the Inserter's life, across flushes) and is
// SQLite's constraint error; the rows before it stay inserted, in the
// transaction that is still open.
func TestTableInserterNamesTheFailingRow(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		bad  int
		set  func(row []any)
	}{
		{"a repeated key in the second flush", 5000, func(row []any) { row[0] = int64(4990) }},
		{"a CHECK refused in the first flush", 17, func(row []any) { row[1] = int64(-1) }},
		{"a NULL where NOT NULL", 8999, func(row []any) { row[3] = nil }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rows := cellRows(9000)
			for _, row := range rows {
				row[1], row[3] = int64(1), "x" // within the constraints
			}
			c.set(rows[c.bad])
			schema := `CREATE TABLE t (k INTEGER PRIMARY KEY, i INTEGER CHECK (i >= 0), f REAL, s TEXT NOT NULL, b BLOB)`
			onConn(t, schema, "BEGIN", func(h *Handle) error {
				in, err := NewTableInserter(h, "INSERT INTO t (k, i, f, s, b) ", 5)
				if err != nil {
					return err
				}
				for _, row := range rows {
					addCells(in, row)
					if err = in.EndRow(); err != nil {
						break
					}
				}
				if cerr := in.Close(); err == nil {
					err = cerr
				}
				var re *RowError
				var se sqlite3.Error
				if !errors.As(err, &re) || re.Row != c.bad || !errors.As(err, &se) || se.Code != sqlite3.ErrConstraint {
					return fmt.Errorf("inserting = %v, want SQLite's constraint error at row %d", err, c.bad)
				}
				t.Logf("the error: %v", err)
				return nil
			}, func(conn *sql.Conn) error {
				ctx := context.Background()
				var n, last int64
				if err := conn.QueryRowContext(ctx, "SELECT count(*), coalesce(max(k), -1) FROM t").Scan(&n, &last); err != nil {
					return err
				}
				if n != int64(c.bad) || last != int64(c.bad)-1 {
					return fmt.Errorf("%d rows up to key %d after the failure, want the %d before it", n, last, c.bad)
				}
				_, err := conn.ExecContext(ctx, "COMMIT") // the transaction is still open
				return err
			})
		})
	}
}

// TestInserterDiscard: rows ended but not flushed, and a half-made row,
// are dropped by Discard; the rows added after it go in alone.
func TestInserterDiscard(t *testing.T) {
	t.Parallel()
	onConn(t, `CREATE TABLE t (k INTEGER PRIMARY KEY, i INTEGER, f REAL, s TEXT, b BLOB)`, "", func(h *Handle) error {
		in, err := NewTableInserter(h, "INSERT INTO t (k, i, f, s, b) ", 5)
		if err != nil {
			return err
		}
		defer in.Close()
		for k := range 3 {
			addCells(in, []any{int64(k), nil, nil, "dropped", nil})
			if err := in.EndRow(); err != nil {
				return err
			}
		}
		in.Int(3) // half a row
		in.Discard()
		if n := in.Rows(); n != 0 {
			return fmt.Errorf("%d rows after Discard, want 0", n)
		}
		addCells(in, []any{int64(10), nil, nil, "kept", nil})
		if err := in.EndRow(); err != nil {
			return err
		}
		return in.Flush()
	}, func(conn *sql.Conn) error {
		got := dumpCells(t, conn, "t")
		if len(got) != 1 || !strings.HasPrefix(got[0], "10 ") || !strings.Contains(got[0], `"kept"`) {
			return fmt.Errorf("table holds %q, want only row 10, kept", got)
		}
		return nil
	})
}
