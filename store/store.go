// Package store keeps the benchledger archive: one self-contained SQLite file
// holding the raw result files (content-addressed, compressed in
// chunks), the runs read from them with their per-request records, stated
// figures and provenance, and an append-only history of events.
//
// Writes happen in a Tx, one per ingested file (on its own, or as a part of
// a Group that commits several small files at once), so the archive never
// holds half an ingest. Reads work on an archive opened read-only too.
package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/benchledger/benchledger/store/internal/sqlitebulk"
	"github.com/jackc/pgx/v5"
)

// ApplicationID is the SQLite application_id of every benchledger archive
// ("BLDG"), so that a foreign SQLite file is refused instead of altered.
const ApplicationID = 0x424C4447

// DefaultChunkSize is how many raw bytes of a blob go into one compressed
// chunk: large enough that per-chunk overhead vanishes, small enough that
// ingest memory stays a few chunks whatever the file size. Each chunk in
// flight is held several times over (the raw buffers of the pipeline, its
// compressed bytes, SQLite's copy of them when bound and the record it
// builds from that copy): ingesting a 950 MB file peaked at 142 MB of RSS
// with 4 MiB chunks, 124 MB with 2 MiB, 113 MB with 1 MiB and 104 MB with
// 512 KiB (two cores, side by side), with no more CPU time: 1 MiB against
// 4 MiB took 0.85x and 1.0x of it in two series of paired runs on a loaded
// machine (the Go heap, no longer near its soft limit, is collected some
// 20 times instead of 170). Chunks already archived keep their own size
// (blobs.chunk_size); readers take any.
const DefaultChunkSize = 1 << 20

var (
	// ErrNotArchive: the file is not a benchledger archive (another SQLite
	// application's database, an empty file, or not SQLite at all).
	ErrNotArchive = errors.New("not a benchledger archive")
	// ErrNewerSchema: the archive was written by a newer benchledger.
	ErrNewerSchema = errors.New("archive written by a newer benchledger")
	// ErrOlderSchema: the archive has an older schema and was opened
	// read-only, so it cannot be upgraded in place.
	ErrOlderSchema = errors.New("archive has an older schema that needs upgrading")
	// ErrReadOnly: write access was requested on a read-only archive or path.
	ErrReadOnly = errors.New("archive is read-only")
	// ErrNotFound: no run (or blob) with that id.
	ErrNotFound = errors.New("not found")
	// ErrNoSuchRun: no run has that id or prefix (the user's mistake; it
	// is also ErrNotFound).
	ErrNoSuchRun = fmt.Errorf("%w", ErrNotFound)
	// ErrAmbiguous: a run id prefix matches more than one run.
	ErrAmbiguous = errors.New("ambiguous run id prefix")
	// ErrExists: the blob or run is already in the archive.
	ErrExists = errors.New("already in the archive")
	// ErrBlobMismatch: the bytes written to a BlobWriter do not have the
	// declared SHA-256 or size (typically: the file changed while being read).
	ErrBlobMismatch = errors.New("blob content does not match its declared SHA-256 and size")
	// ErrCorrupt: stored data fails its own checks (chunk size, compressed
	// stream, SHA-256 of the reassembled bytes).
	ErrCorrupt = errors.New("archive data is corrupt")
	// ErrInterrupted: a transaction writing the archive directly (BeginLarge)
	// was killed, and its rollback journal must be played back, which a
	// connection opened read-only cannot do; opening it for writing does.
	ErrInterrupted = errors.New("a write into the archive was interrupted, and only a command that may write to it can undo it")
)

// Options says how to open an archive.
type Options struct {
	// ReadOnly opens for reading only; the file must exist then.
	ReadOnly bool
	// Existing opens for writing an archive that exists already: a
	// missing file, or a PostgreSQL database without an archive, is
	// fs.ErrNotExist instead of a new archive.
	Existing bool
	// OnUpgrade (may be nil) is called before an archive at an older
	// schema version is upgraded to the current one, with the archive's
	// name (Path) and the two versions: an upgrade can rewrite much of a
	// large archive, and a command says why it is waiting.
	OnUpgrade func(archive string, from, to int)
	// OnBusy (may be nil) is called once when Open has to wait because
	// another process is writing a large file directly into the archive
	// (BeginLarge), which locks it until that file is committed.
	OnBusy func(archive string)
}

// Archive is an open archive file. Reads may run concurrently; at most one
// Tx per Archive is open at a time (a second Begin waits for the first).
type Archive struct {
	path     string // the file, or the PostgreSQL URL without its password
	url      string // the PostgreSQL URL as given; "" for a file
	d        *dialect
	readOnly bool
	existing bool // Options.Existing
	version  int
	// onUpgrade is Options.OnUpgrade, onBusy Options.OnBusy.
	onUpgrade func(archive string, from, to int)
	onBusy    func(archive string)

	w *sql.DB // the single writer connection; nil when read-only
	r *sql.DB // read-only connections for queries outside a Tx

	chunkSize int // raw bytes per blob chunk; settable by tests
	// directFrom is the blob size from which BeginLarge writes the file
	// directly (direct.go); settable by tests.
	directFrom int64

	// writerHandle is the SQLite connection under w, for the rows a
	// transaction inserts in bulk (Tx.insertRequests); nil when unknown.
	writerHandle atomic.Pointer[sqlitebulk.Handle]
	// writerPG is the pgx connection under w on PostgreSQL (its one
	// connection), for the statements a transaction pipelines (pipeline.go).
	writerPG atomic.Pointer[pgx.Conn]

	notices []string // see Notices

	// stmts caches statements prepared on the writer connection: an ingest
	// of many small files would otherwise prepare the same dozen statements
	// for every file.
	stmtMu sync.Mutex
	stmts  map[string]*sql.Stmt
}

const (
	// writerBusyTimeout is how long SQLite itself waits for the write lock
	// before Begin gets SQLITE_BUSY, calls onWait and retries. Short, so
	// that onWait (the "waiting for another ingest" message) comes promptly
	// and a cancelled ctx is noticed soon.
	writerBusyTimeout = 250 * time.Millisecond
	// readerBusyTimeout is long: in WAL mode a reader never waits, and in a
	// direct transaction of another (BeginLarge) it waits for its commit.
	readerBusyTimeout = lockedWait
	// migrationLockWait bounds how long Open waits for another writer
	// before applying a migration; Open has no ctx to cancel it by.
	migrationLockWait = 2 * time.Minute
	readerConns       = 4
	pageSize          = 16 << 10
)

// Open opens the archive at path. When the file is absent and opt.ReadOnly is
// false it creates it with the current schema; an existing archive with an
// older schema is upgraded (each migration in its own transaction).
//
// Errors name the path and wrap ErrNotArchive (a foreign, empty or non-SQLite
// file), ErrNewerSchema, ErrOlderSchema (an older archive opened read-only),
// ErrReadOnly (write access to a read-only file or directory) or
// fs.ErrNotExist (a missing file opened read-only).
func Open(path string, opt Options) (*Archive, error) {
	if path == "" {
		return nil, errors.New("store: open archive: empty path")
	}
	a := &Archive{path: path, readOnly: opt.ReadOnly, existing: opt.Existing, onUpgrade: opt.OnUpgrade, onBusy: opt.OnBusy,
		chunkSize: DefaultChunkSize, directFrom: directFrom, d: sqliteDialect}
	open := a.open
	if IsPostgres(path) {
		a.url, a.path, a.d = path, redactURL(path), postgresDialect
		open = a.openPostgres
	}
	if err := open(); err != nil {
		a.closeDBs()
		return nil, err
	}
	return a, nil
}

// Path returns the path the archive was opened with (a PostgreSQL URL
// without its password).
func (a *Archive) Path() string { return a.path }

// Engine names the database engine the archive lives on: "sqlite" or
// "postgres".
func (a *Archive) Engine() string { return a.d.name }

// SchemaVersion returns the archive's schema version (PRAGMA user_version,
// or benchledger_archive.schema_version on PostgreSQL).
func (a *Archive) SchemaVersion() int { return a.version }

// ReadOnly reports whether the archive was opened for reading only.
func (a *Archive) ReadOnly() bool { return a.readOnly }

// Close closes the archive. Any Tx must be finished first.
func (a *Archive) Close() error {
	if err := a.closeDBs(); err != nil {
		return fmt.Errorf("archive %s: close: %w", a.path, err)
	}
	return nil
}

func (a *Archive) closeDBs() error {
	var errs []error
	a.stmtMu.Lock()
	for _, st := range a.stmts {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	a.stmts = nil
	a.stmtMu.Unlock()
	// Readers first: the last connection to close checkpoints the WAL into
	// the main file and removes it, and only a writable one can.
	if a.r != nil {
		errs = append(errs, a.r.Close())
		a.r = nil
	}
	if a.w != nil {
		errs = append(errs, a.w.Close())
		a.w = nil
	}
	return errors.Join(errs...)
}

func (a *Archive) open() error {
	latest, err := latestVersion()
	if err != nil {
		return err
	}
	st, err := os.Stat(a.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if a.readOnly || a.existing {
			return fmt.Errorf("archive %s does not exist: %w", a.path, fs.ErrNotExist)
		}
		if err := create(a.path, latest); err != nil {
			return err
		}
		if st, err = os.Stat(a.path); err != nil {
			return fmt.Errorf("archive %s: %w", a.path, err)
		}
	case err != nil:
		return fmt.Errorf("archive %s: %w", a.path, err)
	}
	if err := checkHeader(a.path, st); err != nil {
		return err
	}
	// Checked on the mode bits, not by trying: root may write anything, but
	// a user who made the archive 0444 meant it to stay as it is.
	if !a.readOnly && st.Mode().Perm()&0o222 == 0 {
		return fmt.Errorf("archive %s: %w: the file has no write permission (mode %v)", a.path, ErrReadOnly, st.Mode().Perm())
	}

	if a.readOnly {
		if err := a.identifyReading(latest); err != nil {
			return err
		}
		if a.r, err = openReader(a.path, readerBusyTimeout); err != nil {
			return a.wrap("open", err)
		}
		if a.version < latest {
			return fmt.Errorf("archive %s: %w: schema version %d, this benchledger uses %d; any benchledger command that writes to it upgrades it",
				a.path, ErrOlderSchema, a.version, latest)
		}
		return nil
	}

	if a.w, err = openWriter(a.path, "rw", a.setWriterHandle); err != nil {
		return a.wrap("open", err)
	}
	err = a.waitUnlocked(func() (err error) {
		if a.version, err = a.identify(a.w, latest); err != nil {
			return err
		}
		// Only now, with the file known to be ours: switching a foreign
		// file to WAL would have changed it.
		if err := setWAL(a.w); err != nil {
			return a.wrap("set WAL journal mode", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if a.version < latest {
		a.announceUpgrade(latest)
		if err := migrate(a.w, a.path, latest); err != nil {
			return err
		}
		a.version = latest
	}
	if a.r, err = openReader(a.path, readerBusyTimeout); err != nil {
		return a.wrap("open", err)
	}
	return a.afterOpenForWriting()
}

// identifyReading is identify for an archive opened read-only, through
// connections that wait for a lock only briefly (a connection reads the
// schema as it opens), so that OnBusy says promptly why Open waits.
func (a *Archive) identifyReading(latest int) error {
	probe, err := openReader(a.path, writerBusyTimeout)
	if err != nil {
		return a.wrap("open", err)
	}
	defer probe.Close()
	return a.waitUnlocked(func() (err error) {
		a.version, err = a.identify(probe, latest)
		return err
	})
}

// waitUnlocked runs open's first reads again while they find the archive
// locked (retryBusy), for lockedWait at most: only a direct transaction
// (BeginLarge) of another process locks it against them, and only until
// that transaction ends.
func (a *Archive) waitUnlocked(read func() error) error {
	acquire, cancel := context.WithTimeout(context.Background(), lockedWait)
	defer cancel()
	var onWait func()
	if a.onBusy != nil {
		onWait = func() { a.onBusy(a.path) }
	}
	var last error
	err := retryBusy(acquire, onWait, func() error {
		last = read()
		return last
	})
	if errors.Is(err, context.DeadlineExceeded) && last != nil {
		return last // still locked: say so, rather than that time ran out
	}
	return err
}

// announceUpgrade calls OnUpgrade before an existing archive is upgraded
// to latest (not when a new one is created).
func (a *Archive) announceUpgrade(latest int) {
	if a.onUpgrade != nil && a.version > 0 && a.version < latest {
		a.onUpgrade(a.path, a.version, latest)
	}
}

// afterOpenForWriting is what opening for writing does on either engine
// once the schema is current.
func (a *Archive) afterOpenForWriting() error {
	// What a write restores: the append-only triggers another program
	// dropped or altered, and a chain an older archive never started.
	fixed, err := a.repairTriggers()
	if err != nil {
		return err
	}
	for _, name := range fixed {
		a.notices = append(a.notices, fmt.Sprintf("archive %s: re-created trigger %s, which was dropped or altered outside benchledger (benchledger audit reports what may have changed meanwhile)", a.path, name))
	}
	n, err := a.startChain(context.Background())
	if err != nil {
		return err
	}
	if n > 0 {
		a.notices = append(a.notices, fmt.Sprintf("archive %s: the hash chain starts now, over %d recorded things", a.path, n))
	}
	return nil
}

// Notices are what opening the archive for writing repaired or started,
// for the command to say on stderr.
func (a *Archive) Notices() []string { return a.notices }

// identify reads the application id and schema version, refusing foreign
// files and archives from a newer benchledger.
func (a *Archive) identify(db queryer, latest int) (int, error) {
	var appID, version int64
	if err := db.QueryRow("PRAGMA application_id").Scan(&appID); err != nil {
		return 0, a.wrap("read application id", err)
	}
	if appID != ApplicationID {
		return 0, fmt.Errorf("archive %s: %w: SQLite application id is 0x%08X, a benchledger archive has 0x%08X",
			a.path, ErrNotArchive, uint32(appID), ApplicationID)
	}
	if err := db.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		return 0, a.wrap("read schema version", err)
	}
	if version > int64(latest) {
		return 0, fmt.Errorf("archive %s: %w: schema version %d, this benchledger knows versions up to %d; use a newer benchledger",
			a.path, ErrNewerSchema, version, latest)
	}
	return int(version), nil
}

// sqliteMagic starts every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// checkHeader refuses what is plainly not SQLite before SQLite sees it. An
// empty file is refused too: SQLite would take it for a fresh database, and
// silently initialising a file the user named is not ours to do.
func checkHeader(path string, st fs.FileInfo) error {
	if st.IsDir() {
		return fmt.Errorf("archive %s: %w: it is a directory", path, ErrNotArchive)
	}
	if st.Size() == 0 {
		return fmt.Errorf("archive %s: %w: the file is empty", path, ErrNotArchive)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("archive %s: %w", path, err)
	}
	defer f.Close()
	head := make([]byte, len(sqliteMagic))
	if _, err := io.ReadFull(f, head); err != nil || string(head) != sqliteMagic {
		return fmt.Errorf("archive %s: %w: not an SQLite database", path, ErrNotArchive)
	}
	return nil
}

// create makes a new archive at path with the schema at version target. It
// builds the file under a temporary name in the same directory and links it
// into place only when complete, so no other process ever sees a
// half-initialised archive, and a crash leaves a stray temporary file rather
// than an empty archive. If another process creates path meanwhile, its file
// wins and create returns nil.
func create(path string, target int) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("archive %s: cannot create it: %w", path, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("archive %s: cannot create it: %s is not a directory", path, dir)
	}
	if st.Mode().Perm()&0o222 == 0 {
		return fmt.Errorf("archive %s: %w: cannot create it, directory %s is not writable", path, ErrReadOnly, dir)
	}
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return fmt.Errorf("archive %s: %w", path, err)
	}
	tmp := filepath.Join(dir, "."+filepath.Base(path)+".creating-"+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) || isReadOnlyFS(err) {
			return fmt.Errorf("archive %s: %w: cannot create it: %w", path, ErrReadOnly, err)
		}
		return fmt.Errorf("archive %s: cannot create it: %w", path, err)
	}
	f.Close()
	defer func() {
		for _, p := range []string{tmp, tmp + "-wal", tmp + "-shm", tmp + "-journal"} {
			os.Remove(p)
		}
	}()

	db, err := openWriter(tmp, "rw", nil)
	if err != nil {
		return fmt.Errorf("archive %s: create: %w", path, err)
	}
	// Large pages: the archive is mostly blob chunks, stored as overflow
	// page chains, and a 64 KiB page cuts the pages (and WAL frames) per
	// chunk sixteenfold; measured, a 100 MB blob commits about twice as
	// fast as with 4 KiB pages. Only a new file can take it.
	_, err = db.Exec(fmt.Sprintf("PRAGMA page_size = %d", pageSize))
	if err == nil {
		err = setWAL(db)
	}
	if err == nil {
		err = migrate(db, path, target)
	}
	// Closing the last connection checkpoints the WAL into the file and
	// removes it, so the linked file is complete on its own.
	if cerr := db.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("archive %s: create: %w", path, cerr)
	}
	if err != nil {
		return err
	}

	// Link, unlike rename, fails if path exists: a concurrent creator's
	// archive is never replaced.
	err = os.Link(tmp, path)
	switch {
	case err == nil, errors.Is(err, fs.ErrExist):
		return nil
	default:
		// A file system without hard links: rename, accepting the small
		// race the check leaves.
		if _, serr := os.Lstat(path); serr == nil {
			return nil
		}
		if rerr := os.Rename(tmp, path); rerr != nil {
			return fmt.Errorf("archive %s: create: %w", path, rerr)
		}
		return nil
	}
}

func isReadOnlyFS(err error) bool { return errors.Is(err, syscall.EROFS) }

// fileURI turns a path into an SQLite URI filename with query parameters.
// '?', '#' and '%' would end or escape the path part, so they are escaped.
func fileURI(path, query string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	abs = filepath.ToSlash(abs)
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return "file:" + r.Replace(abs) + "?" + query, nil
}

// openWriter opens the pool that holds the archive's single writer
// connection. BEGIN is IMMEDIATE so a transaction takes the write lock at its
// start: a deferred read-to-write upgrade in WAL fails at once with "database
// is locked" instead of waiting. The connection keeps its prepared
// statements (_stmt_cache_size): a transaction runs some twenty statements,
// and preparing them again for each of 1,000 small files was a fifth of the
// writer's time. SQLite's lock around each call on the connection is left
// out (_mutex=no): database/sql already uses a connection from one
// goroutine at a time, and the lock was taken for every value bound.
//
// The connection also carries what its DSN cannot: the WAL is
// checkpointed into the archive every 64 MB (4,096 pages of 16 KiB)
// instead of SQLite's 1,000 pages; each checkpoint syncs the archive file,
// and an ingest of 1,000 ordinary result files took an eighth less time
// with the longer interval. onConnect (may be nil) is given each
// connection opened.
func openWriter(path, mode string, onConnect func(*sqlite3.SQLiteConn)) (*sql.DB, error) {
	uri, err := fileURI(path, fmt.Sprintf("mode=%s&_foreign_keys=on&_txlock=immediate&_synchronous=NORMAL&_stmt_cache_size=64&_mutex=no&_busy_timeout=%d",
		mode, writerBusyTimeout.Milliseconds()))
	if err != nil {
		return nil, err
	}
	drv := &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		if _, err := c.Exec("PRAGMA wal_autocheckpoint=4096", nil); err != nil {
			return err
		}
		if onConnect != nil {
			onConnect(c)
		}
		return nil
	}}
	db := sql.OpenDB(writerConnector{uri: uri, drv: drv})
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	return db, nil
}

// setWriterHandle keeps the SQLite handle of the writer's connection
// (openWriter's onConnect). The pool holds one connection, so a
// transaction holds the connection this names.
func (a *Archive) setWriterHandle(c *sqlite3.SQLiteConn) {
	a.writerHandle.Store(sqlitebulk.HandleOf(c))
}

// writerConnector opens the writer's connections with its own driver
// value, whose hook knows the archive.
type writerConnector struct {
	uri string
	drv *sqlite3.SQLiteDriver
}

func (c writerConnector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.uri) }
func (c writerConnector) Driver() driver.Driver                        { return c.drv }

// openReader opens a pool of read-only connections; in WAL mode they read a
// consistent snapshot while a writer works.
func openReader(path string, busyTimeout time.Duration) (*sql.DB, error) {
	uri, err := fileURI(path, fmt.Sprintf("mode=ro&_foreign_keys=on&_busy_timeout=%d", busyTimeout.Milliseconds()))
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite3", uri)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(readerConns)
	db.SetMaxIdleConns(readerConns)
	return db, nil
}

func setWAL(db *sql.DB) error {
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode=WAL").Scan(&mode); err != nil {
		return err
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("journal mode is %q, not wal", mode)
	}
	return nil
}

// wrap names the archive and the operation, and maps SQLite's own
// read-only and not-a-database errors onto the package's sentinels.
func (a *Archive) wrap(op string, err error) error {
	return wrapErr(a.path, op, err)
}

func wrapErr(path, op string, err error) error {
	if err == nil {
		return nil
	}
	switch pgErrorCode(err) {
	case "25006", "42501": // read_only_sql_transaction, insufficient_privilege
		return fmt.Errorf("archive %s: %s: %w: %w", path, op, ErrReadOnly, err)
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrReadonly:
			if se.ExtendedCode == sqlite3.ErrReadonlyRollback {
				return fmt.Errorf("archive %s: %s: %w: %w", path, op, ErrInterrupted, err)
			}
			return fmt.Errorf("archive %s: %s: %w: %w", path, op, ErrReadOnly, err)
		case sqlite3.ErrNotADB:
			return fmt.Errorf("archive %s: %s: %w: %w", path, op, ErrNotArchive, err)
		}
	}
	return fmt.Errorf("archive %s: %s: %w", path, op, err)
}

func isBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.Code == sqlite3.ErrBusy
}

// beginImmediate starts a write transaction, retrying while another
// connection holds the write lock. onWait (may be nil) is called once, on
// the first busy answer; acquire bounds the waiting, ctx governs the
// transaction itself (database/sql rolls it back when ctx is done).
func beginImmediate(ctx context.Context, acquire context.Context, db *sql.DB, onWait func()) (*sql.Tx, error) {
	var tx *sql.Tx
	err := retryBusy(acquire, onWait, func() (err error) {
		tx, err = db.BeginTx(ctx, nil)
		return err
	})
	return tx, err
}

// retryBusy runs op again while it finds the archive locked (SQLITE_BUSY)
// and acquire is not done, whose error it then returns; the connection's
// own busy timeout paces the tries. onWait (may be nil) is called once, on
// the first busy answer.
func retryBusy(acquire context.Context, onWait func(), op func() error) error {
	waited := false
	for {
		if err := acquire.Err(); err != nil {
			return err
		}
		err := op()
		if !isBusy(err) {
			return err
		}
		if !waited {
			waited = true
			if onWait != nil {
				onWait()
			}
		}
	}
}
