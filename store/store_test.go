package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestCreateAndReopen(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		path := e.path(t)
		a, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		latest, _ := latestVersion()
		if a.SchemaVersion() != latest || latest < 2 {
			t.Errorf("SchemaVersion = %d, want %d (at least 2)", a.SchemaVersion(), latest)
		}
		if a.Path() != path {
			t.Errorf("Path = %q, want %q", a.Path(), path)
		}
		tx := begin(t, a)
		sha := writeBlob(t, tx, []byte(`{"x": 1}`), "x.json")
		if err := tx.PutRun(runRecord(sha, sampleRun(0))); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		// Closed cleanly, the archive is one file: the WAL was checkpointed.
		for _, side := range []string{"-wal", "-shm"} {
			if _, err := os.Stat(path + side); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s%s left behind after Close (stat: %v)", path, side, err)
			}
		}
		leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*creating*"))
		if len(leftovers) != 0 {
			t.Errorf("temporary files left: %v", leftovers)
		}

		for _, opt := range []Options{{}, {ReadOnly: true}} {
			a := openArchive(t, path, opt)
			runs, err := a.ListRuns(Filter{})
			if err != nil || len(runs) != 1 {
				t.Fatalf("%+v: ListRuns = %v, %v; want 1 run", opt, runs, err)
			}
			if a.SchemaVersion() != latest {
				t.Errorf("%+v: SchemaVersion = %d, want %d", opt, a.SchemaVersion(), latest)
			}
			a.Close()
		}
	})
}

func TestSchemaSettings(t *testing.T) {
	t.Parallel()
	a := newArchive(t)
	var appID, version int
	var mode string
	var fk int
	w := a.w
	if err := w.QueryRow("PRAGMA application_id").Scan(&appID); err != nil {
		t.Fatal(err)
	}
	if err := w.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if err := w.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if err := w.QueryRow("PRAGMA foreign_keys").Scan(&fk); err != nil {
		t.Fatal(err)
	}
	if appID != ApplicationID || version != a.SchemaVersion() || mode != "wal" || fk != 1 {
		t.Errorf("application_id=0x%X user_version=%d journal_mode=%s foreign_keys=%d; want 0x%X, %d, wal, 1",
			appID, version, mode, fk, ApplicationID, a.SchemaVersion())
	}

	rows, err := w.Query(`SELECT name, strict FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	tables := map[string]bool{}
	for rows.Next() {
		var name string
		var strict bool
		if err := rows.Scan(&name, &strict); err != nil {
			t.Fatal(err)
		}
		tables[name] = strict
		if !strict {
			t.Errorf("table %s is not STRICT", name)
		}
	}
	for _, want := range []string{"blobs", "blob_chunks", "runs", "provenance", "stated", "requests", "events", "references", "reference_checks"} {
		if _, ok := tables[want]; !ok {
			t.Errorf("table %s missing (have %v)", want, tables)
		}
	}
}

func TestOpenRefusesForeignFiles(t *testing.T) {
	t.Parallel()
	makeSQLite := func(t *testing.T, path string) {
		db := rawDB(t, path)
		if _, err := db.Exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('mine')"); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	cases := []struct {
		name string
		make func(t *testing.T, path string)
	}{
		{"empty file", func(t *testing.T, path string) { os.WriteFile(path, nil, 0o644) }},
		{"text file", func(t *testing.T, path string) {
			os.WriteFile(path, []byte("date,model,throughput\n2025-10-09,qwen,17961\n"), 0o644)
		}},
		{"short binary", func(t *testing.T, path string) { os.WriteFile(path, []byte("SQLite"), 0o644) }},
		{"other SQLite application", makeSQLite},
		{"other application id", func(t *testing.T, path string) {
			makeSQLite(t, path)
			db := rawDB(t, path)
			if _, err := db.Exec("PRAGMA application_id = 1234"); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}},
		{"directory", func(t *testing.T, path string) { os.Mkdir(path, 0o755) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "foreign.db")
			c.make(t, path)
			before := snapshotFile(t, path)
			for _, opt := range []Options{{}, {ReadOnly: true}} {
				a, err := Open(path, opt)
				if err == nil {
					a.Close()
					t.Fatalf("Open(%+v) accepted a foreign file", opt)
				}
				if !errors.Is(err, ErrNotArchive) {
					t.Errorf("Open(%+v) = %v, want ErrNotArchive", opt, err)
				}
				if !strings.Contains(err.Error(), path) {
					t.Errorf("error %q does not name the path", err)
				}
			}
			if after := snapshotFile(t, path); !bytes.Equal(before, after) {
				t.Errorf("Open changed the foreign file")
			}
		})
	}
}

func snapshotFile(t *testing.T, path string) []byte {
	st, err := os.Stat(path)
	if err != nil || st.IsDir() {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	t.Parallel()
	path := tempArchivePath(t)
	a := openArchive(t, path, Options{})
	a.Close()
	db := rawDB(t, path)
	if _, err := db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	latest, _ := latestVersion()
	for _, opt := range []Options{{}, {ReadOnly: true}} {
		_, err := Open(path, opt)
		if !errors.Is(err, ErrNewerSchema) {
			t.Fatalf("Open(%+v) = %v, want ErrNewerSchema", opt, err)
		}
		for _, want := range []string{path, "99", fmt.Sprint(latest)} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Open(%+v) error %q does not mention %q", opt, err, want)
			}
		}
	}
}

func TestReadOnly(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		if e.name != "sqlite" {
			t.Skip("file modes are SQLite's; TestPostgresReadOnly is PostgreSQL's read-only")
		}
		path := e.path(t)
		a := openArchive(t, path, Options{})
		tx := begin(t, a)
		sha := writeBlob(t, tx, []byte("raw"), "raw.json")
		if err := tx.PutRun(runRecord(sha, sampleRun(0))); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		a.Close()
		if err := os.Chmod(path, 0o444); err != nil {
			t.Fatal(err)
		}

		if _, err := Open(path, Options{}); !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), path) {
			t.Fatalf("Open for writing a 0444 file = %v, want ErrReadOnly naming the path", err)
		}
		ro := openArchive(t, path, Options{ReadOnly: true})
		runs, err := ro.ListRuns(Filter{})
		if err != nil || len(runs) != 1 {
			t.Fatalf("read-only ListRuns = %v, %v", runs, err)
		}
		if _, err := ro.Run(runs[0].ID); err != nil {
			t.Fatalf("read-only Run: %v", err)
		}
		if ok, err := ro.HasBlob(sha); !ok || err != nil {
			t.Fatalf("read-only HasBlob = %v, %v", ok, err)
		}
		if _, err := ro.Begin(context.Background(), nil); !errors.Is(err, ErrReadOnly) {
			t.Fatalf("Begin on a read-only archive = %v, want ErrReadOnly", err)
		}
	})
}

func TestReadOnlyMissingFile(t *testing.T) {
	t.Parallel()
	path := tempArchivePath(t)
	_, err := Open(path, Options{ReadOnly: true})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), path) {
		t.Fatalf("Open read-only of a missing file = %v, want fs.ErrNotExist naming the path", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("read-only Open created %s", path)
	}
}

func TestCreateInReadOnlyDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	path := filepath.Join(dir, "new.db")
	if _, err := Open(path, Options{}); !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), path) {
		t.Fatalf("Open in a 0555 directory = %v, want ErrReadOnly naming the path", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files created in the read-only directory: %v", ents)
	}
}

// SQLite's own "attempt to write a readonly database" maps to ErrReadOnly.
func TestSQLiteReadOnlyErrorMapped(t *testing.T) {
	t.Parallel()
	path := tempArchivePath(t)
	openArchive(t, path, Options{}).Close()
	db, err := openWriter(path, "ro", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.Exec("INSERT INTO events (at, actor, tool_version, action) VALUES ('x', 'x', 'x', 'x')")
	if err == nil {
		t.Fatal("insert on a mode=ro connection succeeded")
	}
	if got := wrapErr(path, "insert", err); !errors.Is(got, ErrReadOnly) {
		t.Fatalf("wrapErr(%v) = %v, want ErrReadOnly", err, got)
	}
}

func TestBeginWaitsForOtherWriter(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		path := e.path(t)
		first := openArchive(t, path, Options{})
		second := openArchive(t, path, Options{})

		tx1 := begin(t, first)
		if err := tx1.AppendEvent(Event{Action: "first"}); err != nil {
			t.Fatal(err)
		}

		waiting := make(chan struct{})
		var waits atomic.Int32
		var firstCommitted atomic.Bool
		result := make(chan error, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			tx2, err := second.Begin(ctx, func() {
				if waits.Add(1) == 1 {
					close(waiting)
				}
			})
			if err != nil {
				result <- err
				return
			}
			if !firstCommitted.Load() {
				tx2.Rollback()
				result <- errors.New("second Begin got the lock while the first transaction was open")
				return
			}
			if err := tx2.AppendEvent(Event{Action: "second"}); err != nil {
				result <- err
				return
			}
			result <- tx2.Commit()
		}()

		select {
		case <-waiting:
		case err := <-result:
			t.Fatalf("second Begin returned without waiting: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatal("onWait not called within 10 s")
		}
		// Hold the lock across several of Begin's retries.
		time.Sleep(3 * writerBusyTimeout)
		firstCommitted.Store(true)
		if err := tx1.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := <-result; err != nil {
			t.Fatalf("second transaction: %v", err)
		}
		if n := waits.Load(); n != 1 {
			t.Errorf("onWait called %d times, want once", n)
		}
		evs, err := first.Events("")
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != 2 || evs[0].Action != "first" || evs[1].Action != "second" {
			t.Errorf("events = %+v, want first then second", evs)
		}
	})
}

func TestBeginGivesUpWhenContextEnds(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		path := e.path(t)
		first := openArchive(t, path, Options{})
		second := openArchive(t, path, Options{})
		begin(t, first) // held until cleanup
		ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := second.Begin(ctx, nil)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Begin = %v, want context.DeadlineExceeded", err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("Begin took %v to notice the deadline", d)
		}
	})
}

func TestEventsAreAppendOnly(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		path := e.path(t)
		a := openArchive(t, path, Options{})
		tx := begin(t, a)
		if err := tx.AppendEvent(Event{Action: "ingest", RunID: "abc", Detail: `{"file": "x.json"}`}); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		db := e.raw(t, path)
		for _, stmt := range []string{
			"UPDATE events SET action = 'forged'",
			"DELETE FROM events",
		} {
			_, err := db.Exec(stmt)
			if err == nil || !strings.Contains(err.Error(), "append-only") {
				t.Errorf("%s: err = %v, want the append-only trigger's refusal", stmt, err)
			}
		}
		evs, err := a.Events("")
		if err != nil || len(evs) != 1 || evs[0].Action != "ingest" {
			t.Fatalf("events after tampering attempts = %+v, %v", evs, err)
		}
	})
}

// TestWriterCheckpointInterval: the writer's connection carries the
// checkpoint interval its DSN cannot (openWriter).
func TestWriterCheckpointInterval(t *testing.T) {
	t.Parallel()
	a := newArchive(t)
	var pages int
	if err := a.w.QueryRow("PRAGMA wal_autocheckpoint").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if pages != 4096 {
		t.Errorf("writer checkpoints every %d pages, want 4096", pages)
	}
}
