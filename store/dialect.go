package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// The dialect layer: what differs between the two engines an archive can
// live on, SQLite (a file) and PostgreSQL (a team archive, --db
// postgres://…). The store's SQL is written once, in SQLite's spelling
// with ? and ?N placeholders, restricted to what both engines read alike;
// the PostgreSQL connections rewrite the placeholders (rebind), and the
// few statements that cannot be shared are the dialect's fields.

type dialect struct {
	name string
	// deferForeignKeys lets one transaction rename a key and its
	// references in any order (identity.go).
	deferForeignKeys string
	// immediateForeignKeys undoes it within the transaction (the end of a
	// Group's part).
	immediateForeignKeys string
	// groupSettings and groupReset are run on the writer connection before
	// and after a Group's transaction (group.go); "" when none.
	groupSettings, groupReset string
	// strpos is the function giving the position of a substring.
	strpos string
	// requestError is the value stored for a request's error text ("":
	// none). PostgreSQL's text cannot hold a NUL byte, which a client's
	// error message may carry, so there the column is bytea.
	requestError func(string) any
	// afterCopy runs in a copy's transaction once the rows are in
	// (copy.go): PostgreSQL's identity columns must continue after the ids
	// copied.
	afterCopy []string
}

func requestErrorBytes(s string) any {
	if s == "" {
		return nil
	}
	return []byte(s)
}

const (
	// groupCacheKiB is a group transaction's page cache on SQLite.
	groupCacheKiB = 32 << 10
	// sqliteDefaultCacheSize is SQLite's cache_size on a new connection
	// (2,000 KiB), which a group's end restores.
	sqliteDefaultCacheSize = -2000
)

var (
	sqliteDialect = &dialect{name: "sqlite", deferForeignKeys: "PRAGMA defer_foreign_keys = ON",
		immediateForeignKeys: "PRAGMA defer_foreign_keys = OFF",
		// A part's savepoint journal holds the pages it changes as they
		// were; in a temporary file (SQLite's default beyond 64 KiB) that
		// was 500 MB written for 1,000 small files.
		//
		// A group's page cache is 32 MiB instead of SQLite's 2 MB
		// (groupCacheKiB): each file's raw chunks went through the small
		// cache and pushed out the b-tree pages the next file inserts into,
		// which were read back from the write-ahead log: 38,000 reads (600
		// MB) for 1,000 ordinary files, 11,600 with the larger cache, for a
		// tenth less CPU and ~30 MB more at the peak. A large file has a
		// transaction of its own and keeps the small cache (its peak).
		groupSettings: "PRAGMA temp_store = MEMORY; PRAGMA cache_size = -" + strconv.Itoa(groupCacheKiB),
		groupReset:    "PRAGMA temp_store = DEFAULT; PRAGMA cache_size = " + strconv.Itoa(sqliteDefaultCacheSize),
		strpos:        "instr",
		requestError:  func(s string) any { return nullString(s) }}
	postgresDialect = &dialect{name: "postgres", deferForeignKeys: "SET CONSTRAINTS ALL DEFERRED",
		immediateForeignKeys: "SET CONSTRAINTS ALL IMMEDIATE", strpos: "strpos",
		requestError: requestErrorBytes, afterCopy: []string{
			`SELECT setval(pg_get_serial_sequence('events', 'id'), coalesce(max(id), 0) + 1, false) FROM events`,
			`SELECT setval(pg_get_serial_sequence('corrections', 'id'), coalesce(max(id), 0) + 1, false) FROM corrections`}}
)

// IsPostgres reports whether an archive name is a PostgreSQL connection
// URL rather than a file path.
func IsPostgres(name string) bool {
	return strings.HasPrefix(name, "postgres://") || strings.HasPrefix(name, "postgresql://")
}

// rebind turns SQLite placeholders into PostgreSQL's: ?N is $N, and a bare
// ? is one more than the largest number so far, as SQLite numbers them.
// Quoted strings, quoted identifiers, comments and $$ bodies are left as
// they are.
func rebind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	if v, ok := rebound.Load(q); ok {
		return v.(string)
	}
	var b strings.Builder
	b.Grow(len(q) + 8)
	largest := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(q[i+1:], c)
			if j < 0 {
				j = len(q) - i - 1
			}
			b.WriteString(q[i : i+j+2])
			i += j + 1
		case c == '-' && strings.HasPrefix(q[i:], "--"):
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				j = len(q) - i
			}
			b.WriteString(q[i : i+j])
			i += j - 1
		case c == '$' && strings.HasPrefix(q[i:], "$$"):
			j := strings.Index(q[i+2:], "$$")
			if j < 0 {
				j = len(q) - i - 2
			} else {
				j += 2
			}
			b.WriteString(q[i : i+j+2])
			i += j + 1
		case c == '?':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			n := largest + 1
			if j > i+1 {
				n, _ = strconv.Atoi(q[i+1 : j])
			}
			largest = max(largest, n)
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	out := b.String()
	rebound.Store(q, out)
	return out
}

// rebound caches rebind: the store's statements are a few hundred
// constant strings.
var rebound sync.Map

// openPostgresDB opens a database/sql pool on the PostgreSQL database the
// URL names, through pgx, with the placeholders rewritten. readOnly makes
// every transaction of the pool read-only on the server's side.
func openPostgresDB(rawURL string, readOnly bool, conns int) (*sql.DB, error) {
	return openPostgresPool(rawURL, readOnly, conns, nil)
}

// openPostgresPool is openPostgresDB with a hook called with each new
// connection's pgx connection (nil: none).
func openPostgresPool(rawURL string, readOnly bool, conns int, connected func(*pgx.Conn)) (*sql.DB, error) {
	cfg, err := postgresConfig(rawURL, readOnly)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(pgConnector{inner: stdlib.GetConnector(*cfg), connected: connected})
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	return db, nil
}

// postgresConfig is the pgx configuration of the URL; readOnly makes
// every transaction read-only on the server's side.
func postgresConfig(rawURL string, readOnly bool) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, err
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["application_name"] = "benchledger"
	if readOnly {
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	return cfg, nil
}

// pgConnector and pgConn wrap pgx's database/sql connections so that every
// statement goes through rebind.
type pgConnector struct {
	inner     driver.Connector
	connected func(*pgx.Conn)
}

func (c pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc := cn.(*stdlib.Conn)
	if c.connected != nil {
		c.connected(sc.Conn())
	}
	return &pgConn{sc}, nil
}

func (c pgConnector) Driver() driver.Driver { return c.inner.Driver() }

type pgConn struct{ *stdlib.Conn }

func (c *pgConn) Prepare(q string) (driver.Stmt, error) { return c.Conn.Prepare(rebind(q)) }

func (c *pgConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, rebind(q))
}

func (c *pgConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, rebind(q), args)
}

func (c *pgConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, rebind(q), args)
}

// CheckNamedValue passes each value as pgValue makes it.
func (c *pgConn) CheckNamedValue(nv *driver.NamedValue) error {
	nv.Value = pgValue(nv.Value)
	return c.Conn.CheckNamedValue(nv)
}

// pgValue is a value as it goes to PostgreSQL: a bool as SQLite stores
// it, 0 or 1 (the flags are integer columns on both engines); anything
// else as it is, for pgx to encode.
func pgValue(v any) any {
	if b, ok := v.(bool); ok {
		if b {
			return int64(1)
		}
		return int64(0)
	}
	return v
}
