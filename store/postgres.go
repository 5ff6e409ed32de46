package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// An archive on PostgreSQL (a team archive): the database the URL names
// holds the same tables as an archive file, created by the scripts in
// migrations/postgres, and benchledger_archive marks it as an archive and
// carries its schema version. Writers take a transaction-scoped advisory
// lock (writeLockKey) for their transaction, so writes are serialised as
// SQLite serialises them: the hash chain is one sequence, and an ingest
// sees what the one before it committed. Readers are never blocked.

// writeLockKey is the advisory lock every write transaction holds; the
// archive's application id, so it cannot collide with another program's
// numbers by chance.
const writeLockKey = ApplicationID

// redactURL is the URL without its password, for messages.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "postgres://…"
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

func (a *Archive) openPostgres() error {
	latest, err := latestVersion()
	if err != nil {
		return err
	}
	if a.readOnly {
		if a.r, err = openPostgresDB(a.url, true, readerConns); err != nil {
			return a.wrap("open", err)
		}
		if a.version, err = a.identifyPostgres(a.r, latest); err != nil {
			return err
		}
		if a.version == 0 {
			return fmt.Errorf("archive %s: %w: the database holds no archive yet (any benchledger command that writes creates it)", a.path, ErrNotArchive)
		}
		if a.version < latest {
			return fmt.Errorf("archive %s: %w: schema version %d, this benchledger uses %d; any benchledger command that writes to it upgrades it",
				a.path, ErrOlderSchema, a.version, latest)
		}
		return nil
	}
	if a.w, err = openPostgresPool(a.url, false, 1, a.writerPG.Store); err != nil {
		return a.wrap("open", err)
	}
	if a.version, err = a.identifyPostgres(a.w, latest); err != nil {
		return err
	}
	if a.version == 0 && a.existing {
		return fmt.Errorf("archive %s does not exist: the database holds no archive yet: %w", a.path, fs.ErrNotExist)
	}
	if a.version < latest {
		a.announceUpgrade(latest)
		if err := a.migratePostgres(latest); err != nil {
			return err
		}
		a.version = latest
	}
	if a.r, err = openPostgresDB(a.url, true, readerConns); err != nil {
		return a.wrap("open", err)
	}
	return a.afterOpenForWriting()
}

// identifyPostgres reads the marker: 0 for a database with no tables at
// all (a new archive), ErrNotArchive for one that has tables but no
// marker or another marker, ErrNewerSchema for a newer archive.
func (a *Archive) identifyPostgres(db *sql.DB, latest int) (int, error) {
	marked, tables, err := markerOf(db)
	if err != nil {
		return 0, a.wrap("read the archive marker", err)
	}
	if !marked {
		if tables > 0 {
			return 0, fmt.Errorf("archive %s: %w: the database has %d tables and no benchledger_archive marker", a.path, ErrNotArchive, tables)
		}
		return 0, nil
	}
	var appID, version int64
	if err := db.QueryRow(`SELECT application_id, schema_version FROM benchledger_archive`).Scan(&appID, &version); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, fmt.Errorf("archive %s: %w: its benchledger_archive marker is empty", a.path, ErrNotArchive)
		}
		return 0, a.wrap("read the archive marker", err)
	}
	if appID != ApplicationID {
		return 0, fmt.Errorf("archive %s: %w: its application id is 0x%08X, a benchledger archive has 0x%08X",
			a.path, ErrNotArchive, uint32(appID), ApplicationID)
	}
	if version > int64(latest) {
		return 0, fmt.Errorf("archive %s: %w: schema version %d, this benchledger knows versions up to %d; use a newer benchledger",
			a.path, ErrNewerSchema, version, latest)
	}
	return int(version), nil
}

// markerOf says whether the current schema has the marker table and how
// many tables it has, from one scan of the catalog: one snapshot, so a
// concurrent creation is seen whole or not at all (to_regclass would read
// the session's catalog cache, which can lag a commit).
func markerOf(q interface {
	QueryRow(string, ...any) *sql.Row
}) (marked bool, tables int, err error) {
	err = q.QueryRow(`SELECT count(*) FILTER (WHERE tablename = 'benchledger_archive') > 0, count(*)
		FROM pg_catalog.pg_tables WHERE schemaname = current_schema()`).Scan(&marked, &tables)
	return marked, tables, err
}

// migratePostgres applies the PostgreSQL scripts after the database's
// version, each in its own transaction under the write lock, re-reading
// the version there: another process may have created or upgraded it.
func (a *Archive) migratePostgres(latest int) error {
	ms, err := loadPostgresMigrations()
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.version > latest {
			break
		}
		if err := a.applyPostgresMigration(m, ms[0].version); err != nil {
			return err
		}
	}
	return nil
}

func (a *Archive) applyPostgresMigration(m migration, baseline int) error {
	op := "upgrade to schema " + m.name
	ctx := context.Background()
	// The write lock for the session, then a transaction: one begun after
	// the wait sees what the process that held the lock created (two
	// first commands on an empty database create it once).
	conn, err := a.w.Conn(ctx)
	if err != nil {
		return a.wrap(op, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(?)`, int64(writeLockKey)); err != nil {
		return a.wrap(op+": waiting for the write lock", err)
	}
	defer conn.ExecContext(ctx, `SELECT pg_advisory_unlock(?)`, int64(writeLockKey))
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return a.wrap(op, err)
	}
	defer tx.Rollback()
	var current int
	marked, _, err := markerOf(tx)
	if err != nil {
		return a.wrap(op, err)
	}
	if marked {
		if err := tx.QueryRow(`SELECT schema_version FROM benchledger_archive`).Scan(&current); err != nil {
			return a.wrap(op, err)
		}
	}
	switch {
	case current >= m.version:
		return nil
	case current == 0 && m.version != baseline, current != 0 && current != m.version-1:
		return fmt.Errorf("archive %s: %s: archive is at version %d", a.path, op, current)
	}
	if _, err := tx.Exec(m.sql); err != nil {
		return a.wrap(op, err)
	}
	if m.version == baseline {
		// The site key (0007_integrity.sql makes it with randomblob).
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return a.wrap(op, err)
		}
		if _, err := tx.Exec(`INSERT INTO archive_keys (name, value) VALUES ('site', ?)`, key); err != nil {
			return a.wrap(op, err)
		}
	}
	if _, err := tx.Exec(`INSERT INTO benchledger_archive (application_id, schema_version) VALUES (?, ?)
		ON CONFLICT (singleton) DO UPDATE SET schema_version = excluded.schema_version`, int64(ApplicationID), m.version); err != nil {
		return a.wrap(op, err)
	}
	return a.wrap(op, tx.Commit())
}

// lockForWriting takes the archive's write lock in tx, calling onWait once
// when another writer holds it; acquire bounds the waiting.
func lockForWriting(acquire context.Context, tx *sql.Tx, onWait func()) error {
	var got bool
	if err := tx.QueryRowContext(acquire, `SELECT pg_try_advisory_xact_lock(?)`, int64(writeLockKey)).Scan(&got); err != nil {
		return err
	}
	if got {
		return nil
	}
	if onWait != nil {
		onWait()
	}
	_, err := tx.ExecContext(acquire, `SELECT pg_advisory_xact_lock(?)`, int64(writeLockKey))
	return err
}

// The append-only rules on PostgreSQL are triggers calling a function:
// audit compares both with the scripts, and a write re-creates what was
// dropped, disabled or altered.
var (
	pgTriggerRE  = regexp.MustCompile(`(?m)^CREATE TRIGGER (\w+) .* ON ("?\w+"?) .*;$`)
	pgFunctionRE = regexp.MustCompile(`(?s)CREATE FUNCTION (\w+)\(\) RETURNS trigger LANGUAGE plpgsql AS \$\$(.*?)\$\$;`)
)

// postgresTriggers are the schema's triggers and trigger functions by
// name: a trigger as pg_get_triggerdef prints it, a function its body.
func postgresTriggers() (map[string]string, error) {
	ms, err := loadPostgresMigrations()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, m := range ms {
		for _, t := range pgTriggerRE.FindAllStringSubmatch(m.sql, -1) {
			out[t[1]] = strings.TrimSuffix(t[0], ";")
		}
		for _, f := range pgFunctionRE.FindAllStringSubmatch(m.sql, -1) {
			out[f[1]] = f[2]
		}
	}
	return out, nil
}

func postgresArchiveTriggers(q rowsQueryer) (map[string]string, error) {
	have := map[string]string{}
	// A disabled trigger guards nothing: it reads as altered.
	rows, err := q.Query(`SELECT t.tgname, replace(pg_get_triggerdef(t.oid), ' ON ' || quote_ident(current_schema()) || '.', ' ON ') || CASE WHEN t.tgenabled = 'D' THEN ' (disabled)' ELSE '' END
		FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
		WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			rows.Close()
			return nil, err
		}
		have[name] = def
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	frows, err := q.Query(`SELECT proname, prosrc FROM pg_proc WHERE pronamespace = current_schema()::regnamespace AND proname LIKE 'bl\_%'`)
	if err != nil {
		return nil, err
	}
	defer frows.Close()
	for frows.Next() {
		var name, src string
		if err := frows.Scan(&name, &src); err != nil {
			return nil, err
		}
		have[name] = src
	}
	return have, frows.Err()
}

// postgresRecreate is the statement that puts back trigger or function
// name as the schema has it.
func postgresRecreate(name, def string) string {
	if m := pgTriggerRE.FindStringSubmatch(def + ";"); m != nil {
		return "DROP TRIGGER IF EXISTS " + name + " ON " + m[2] + ";\n" + def + ";"
	}
	return "CREATE OR REPLACE FUNCTION " + name + "() RETURNS trigger LANGUAGE plpgsql AS $$" + def + "$$;"
}

// pgErrorCode is the SQLSTATE of a PostgreSQL error, "" for another error.
func pgErrorCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}
