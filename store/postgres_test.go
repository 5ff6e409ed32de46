package store

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/internal/pgtest"
)

// TestChainRecordsSameOnBothEngines: the same things written to both
// engines have the same canonical records, byte for byte (chainpg.go),
// or an archive copied between engines would not verify.
func TestChainRecordsSameOnBothEngines(t *testing.T) {
	t.Parallel()
	records := map[string][]chainRecord{}
	forEachEngine(t, func(t *testing.T, e engine) {
		a := openArchive(t, e.path(t), Options{})
		tx := begin(t, a)
		for i, name := range []string{"a.json", "b.json"} {
			sha := writeBlob(t, tx, []byte("raw "+name), name)
			run := sampleRun(i)
			run.Stated = append(run.Stated, benchrun.Stated{Metric: "odd", Value: 1.0 / 3, Unit: "s"},
				benchrun.Stated{Metric: "big", Value: 2.5e17, Unit: "tok"}, benchrun.Stated{Metric: "tiny", Value: -4.2e-9, Unit: "s"})
			if err := tx.PutRun(runRecord(sha, run, manifest("campaign", "c\t\"quoted\"\\"), cli("hardware.gpu_model", "H100 ✓"))); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		for _, k := range chainKinds {
			recs, err := a.chainRecords(context.Background(), a.r, k, "")
			if err != nil {
				t.Fatal(err)
			}
			records[e.name] = append(records[e.name], recs...)
		}
	})
	if len(records["postgres"]) == 0 {
		t.Skip("no PostgreSQL records to compare")
	}
	s, p := records["sqlite"], records["postgres"]
	if len(s) != len(p) {
		t.Fatalf("%d records on SQLite, %d on PostgreSQL", len(s), len(p))
	}
	for i := range s {
		if s[i] != p[i] {
			t.Errorf("record %d differs:\nsqlite   %+v\npostgres %+v", i, s[i], p[i])
		}
	}
}

func TestMigrationsSameVersionsOnBothEngines(t *testing.T) {
	t.Parallel()
	pg, err := loadPostgresMigrations()
	if err != nil {
		t.Fatal(err)
	}
	latest, _ := latestVersion()
	if pg[len(pg)-1].version != latest {
		t.Errorf("PostgreSQL scripts end at %d, SQLite's at %d", pg[len(pg)-1].version, latest)
	}
}

// TestPostgresRefusesForeignDatabase: a database with tables of its own,
// or another marker, is not an archive and is left as it is; a newer
// archive is refused as on SQLite.
func TestPostgresRefusesForeignDatabase(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, setup string
		want        error
	}{
		{"tables of another program", `CREATE TABLE accounts (id int)`, ErrNotArchive},
		{"another application id", `CREATE TABLE benchledger_archive (application_id bigint, schema_version bigint, singleton boolean PRIMARY KEY DEFAULT true);
			INSERT INTO benchledger_archive VALUES (42, 7)`, ErrNotArchive},
		{"an empty marker", `CREATE TABLE benchledger_archive (application_id bigint, schema_version bigint, singleton boolean PRIMARY KEY DEFAULT true)`, ErrNotArchive},
		{"a newer schema", `CREATE TABLE benchledger_archive (application_id bigint, schema_version bigint, singleton boolean PRIMARY KEY DEFAULT true);
			INSERT INTO benchledger_archive VALUES (1112294471, 9999)`, ErrNewerSchema},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := pgtest.NewDatabase(t)
			raw := rawPostgres(t, url)
			if _, err := raw.Exec(c.setup); err != nil {
				t.Fatal(err)
			}
			for _, opt := range []Options{{}, {ReadOnly: true}} {
				a, err := Open(url, opt)
				if !errors.Is(err, c.want) {
					if a != nil {
						a.Close()
					}
					t.Fatalf("Open(%+v) = %v, want %v", opt, err, c.want)
				}
			}
			var tables int
			raw.QueryRow(`SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`).Scan(&tables)
			if tables != 1 {
				t.Errorf("the refused database has %d tables now, had 1", tables)
			}
		})
	}
}

// TestPostgresReadOnly: an empty database opened for reading is not an
// archive (nothing is created); an archive opened read-only refuses writes,
// and its connections do too, on the server's side.
func TestPostgresReadOnly(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	if _, err := Open(url, Options{ReadOnly: true}); !errors.Is(err, ErrNotArchive) {
		t.Fatalf("read-only open of an empty database: %v", err)
	}
	openArchive(t, url, Options{}).Close()
	a := openArchive(t, url, Options{ReadOnly: true})
	if _, err := a.Begin(context.Background(), nil); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Begin on a read-only archive: %v", err)
	}
	if _, err := a.r.Exec(`INSERT INTO run_aliases VALUES ('a', 'b', 'c')`); pgErrorCode(err) != "25006" {
		t.Errorf("a write through a read-only connection: %v", err)
	}
	if strings.Contains(a.Path(), "password") {
		t.Errorf("path %q", a.Path())
	}
}

// TestPostgresTriggersAudited: a trigger dropped, disabled or a function
// replaced by a direct client shows in VerifyChain, and the next write
// puts it back.
func TestPostgresTriggersAudited(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, sql, ref string }{
		{"dropped", `DROP TRIGGER events_no_delete ON events`, "events_no_delete"},
		{"disabled", `ALTER TABLE chain DISABLE TRIGGER chain_no_update`, "chain_no_update"},
		{"function replaced", `CREATE OR REPLACE FUNCTION bl_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$`, "bl_refuse"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := pgtest.NewDatabase(t)
			openArchive(t, url, Options{}).Close()
			if _, err := rawPostgres(t, url).Exec(c.sql); err != nil {
				t.Fatal(err)
			}
			a := openArchive(t, url, Options{ReadOnly: true})
			rep, err := a.VerifyChain(context.Background())
			if err != nil || len(rep.Problems) != 1 || rep.Problems[0].Check != CheckTriggers || rep.Problems[0].Ref != c.ref {
				t.Fatalf("VerifyChain after the trigger was %s: %+v, %v", c.name, rep.Problems, err)
			}
			w := openArchive(t, url, Options{})
			if n := w.Notices(); len(n) != 1 || !strings.Contains(n[0], c.ref) {
				t.Errorf("notices on reopening: %q", n)
			}
			if rep, err := w.VerifyChain(context.Background()); err != nil || len(rep.Problems) != 0 {
				t.Errorf("after the repair: %+v, %v", rep.Problems, err)
			}
		})
	}
}

// TestOpenExisting: Options.Existing never creates an archive, on either
// engine (report --publish of an archive that is not there is a mistake).
func TestOpenExisting(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		path := e.path(t)
		if _, err := Open(path, Options{Existing: true}); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Open(Existing) of no archive: %v", err)
		}
		openArchive(t, path, Options{}).Close()
		openArchive(t, path, Options{Existing: true})
	})
}

// TestPostgresConcurrentCreation: the first commands of a team on an empty
// database race to create the archive: it is created once, and every one
// of them opens it.
func TestPostgresConcurrentCreation(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			a, err := Open(url, Options{})
			if err == nil {
				err = a.Close()
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Errorf("a concurrent first open: %v", err)
		}
	}
}
