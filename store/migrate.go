package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// The schema is the sequence of numbered scripts in migrations/: NNNN_name.sql
// brings an archive from version NNNN-1 to NNNN. Scripts are never edited
// once released; a change is a new script.
//
//go:embed migrations/*.sql migrations/postgres/*.sql
var migrationFS embed.FS

// goSteps are upgrades SQL cannot express, run after a version's script in
// its transaction.
var goSteps = map[int]func(tx *sql.Tx, archivePath string) error{
	6: rekeyContentIDs,
	8: packArchivedRequests,
}

type migration struct {
	version int
	name    string
	sql     string
}

var loadMigrations = sync.OnceValues(func() ([]migration, error) {
	ms, err := readMigrations("migrations")
	if err == nil && ms[0].version != 1 {
		err = fmt.Errorf("store: migrations must start at 0001, not %s", ms[0].name)
	}
	return ms, err
})

// loadPostgresMigrations are the PostgreSQL scripts: the first (the
// baseline) creates the schema at its version at once, and every version
// after it has a script in both folders, so the engines never differ in
// schema version.
var loadPostgresMigrations = sync.OnceValues(func() ([]migration, error) {
	ms, err := readMigrations("migrations/postgres")
	if err != nil {
		return nil, err
	}
	latest, err := latestVersion()
	if err != nil {
		return nil, err
	}
	if last := ms[len(ms)-1].version; last != latest {
		return nil, fmt.Errorf("store: the PostgreSQL migrations end at version %d, the SQLite ones at %d: each version needs a script in migrations/postgres too", last, latest)
	}
	return ms, nil
})

// readMigrations reads the NNNN_name.sql scripts of dir, which must be
// numbered consecutively.
func readMigrations(dir string) ([]migration, error) {
	ents, err := migrationFS.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() {
			continue
		}
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || len(num) != 4 || !strings.HasSuffix(name, ".sql") {
			return nil, fmt.Errorf("store: migration file %q is not named NNNN_name.sql", name)
		}
		b, err := migrationFS.ReadFile(path.Join(dir, name))
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: name, sql: string(b)})
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("store: no migrations embedded in %s", dir)
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != ms[0].version+i {
			return nil, fmt.Errorf("store: migrations in %s must be numbered without gaps; found %s at position %d", dir, m.name, i+1)
		}
	}
	return ms, nil
}

// latestVersion is the schema version this binary writes.
func latestVersion() (int, error) {
	ms, err := loadMigrations()
	if err != nil {
		return 0, err
	}
	return ms[len(ms)-1].version, nil
}

// migrate applies the migrations after the archive's current version up to
// target, each in its own transaction, so that an interrupted upgrade leaves
// the archive at a whole version.
func migrate(db *sql.DB, archivePath string, target int) error {
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	for _, m := range ms[:target] {
		if err := applyMigration(db, archivePath, m); err != nil {
			return err
		}
	}
	return nil
}

func applyMigration(db *sql.DB, archivePath string, m migration) error {
	acquire, cancel := context.WithTimeout(context.Background(), migrationLockWait)
	defer cancel()
	tx, err := beginImmediate(context.Background(), acquire, db, nil)
	if err != nil {
		return wrapErr(archivePath, "upgrade to schema "+m.name+": waiting for the write lock", err)
	}
	defer tx.Rollback()
	// Read again under the write lock: another process may have upgraded
	// the archive since it was opened.
	var current int
	if err := tx.QueryRow("PRAGMA user_version").Scan(&current); err != nil {
		return wrapErr(archivePath, "upgrade to schema "+m.name, err)
	}
	if current >= m.version {
		return nil
	}
	if current != m.version-1 {
		return fmt.Errorf("archive %s: upgrade to schema %s: archive is at version %d", archivePath, m.name, current)
	}
	if _, err := tx.Exec(m.sql); err != nil {
		return wrapErr(archivePath, "upgrade to schema "+m.name, err)
	}
	if step := goSteps[m.version]; step != nil {
		if err := step(tx, archivePath); err != nil {
			return wrapErr(archivePath, "upgrade to schema "+m.name, err)
		}
	}
	// PRAGMAs take no bound parameters; both values are integers we format.
	if m.version == 1 {
		if _, err := tx.Exec(fmt.Sprintf("PRAGMA application_id = %d", ApplicationID)); err != nil {
			return wrapErr(archivePath, "upgrade to schema "+m.name, err)
		}
	}
	if _, err := tx.Exec(fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
		return wrapErr(archivePath, "upgrade to schema "+m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return wrapErr(archivePath, "upgrade to schema "+m.name, err)
	}
	return nil
}
