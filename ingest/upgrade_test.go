package ingest

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/store"
)

// TestCompanionRunKeepsContentIDAcrossUpgrade: a summary-only run that two
// companion files described (AIPerf's summary JSON and CSV), archived under
// the old scheme (schema 5: the id of the first file's SHA-256 and
// ordinal), gets on upgrade the id a fresh ingest of the same files gives
// it — its richest file's content id — and its old id stays an alias.
func TestCompanionRunKeepsContentIDAcrossUpgrade(t *testing.T) {
	t.Parallel()
	paths := copyAIPerfFixtures(t, "current_profile_export_aiperf.csv", "current_profile_export_aiperf.json")
	// The id a fresh archive gives the run, whichever file comes first.
	fresh := openTestArchive(t)
	outs := ingestPaths(t, fresh, paths...)
	if len(outs) != 2 || outs[1].Status != StatusCompleted {
		t.Fatalf("the CSV and JSON must make one run: %+v", outs)
	}
	want := outs[1].RunID
	if rec, err := fresh.RunMeta(want); err != nil || rec.Run.HasRequests {
		t.Fatalf("the run must be summary-only: %v", err)
	}

	// The same run in an archive of the old scheme: ingested CSV first, so
	// named by the CSV's SHA-256 and ordinal, at schema version 5.
	dbPath := filepath.Join(t.TempDir(), "old.db")
	a, err := store.Open(dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	outs = ingestPaths(t, a, paths...)
	a.Close()
	csvSHA := sha256File(t, paths[0])
	legacy := benchrun.LegacyID(csvSHA, 0)
	downgradeTo5(t, dbPath, outs[1].RunID, legacy)

	a, err = store.Open(dbPath, store.Options{})
	if err != nil {
		t.Fatalf("upgrading the old archive: %v", err)
	}
	defer a.Close()
	runs, err := a.ListRuns(store.Filter{})
	if err != nil || len(runs) != 1 {
		t.Fatalf("%d runs after the upgrade (%v)", len(runs), err)
	}
	if runs[0].ID != want {
		t.Errorf("after the upgrade the run is %s, want %s (the id a fresh ingest gives it)", runs[0].ID, want)
	}
	if id, err := a.ResolveRunID(legacy); err != nil || id != want {
		t.Errorf("the old id %s resolves to %q, %v", legacy, id, err)
	}
	if al, err := a.Aliases(want); err != nil || !slices.Contains(al, legacy) {
		t.Errorf("aliases %v, %v; want %s among them", al, err, legacy)
	}
	// And a companion ingested after the upgrade still finds its run.
	if o := ingestPaths(t, a, paths[1]); len(o) != 1 || o[0].RunID != want {
		t.Errorf("re-ingest after the upgrade: %+v", o)
	}
}

// downgradeTo5 turns an archive this version wrote into one schema 5
// wrote: what migrations 6 and later added is dropped (compared with a
// database the released scripts 0001–0005 build), and run id is renamed to
// legacy, as ids were then.
func downgradeTo5(t *testing.T, path, id, legacy string) {
	t.Helper()
	ref, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "v5.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	scripts, _ := filepath.Glob("../store/migrations/000[1-5]_*.sql")
	if len(scripts) != 5 {
		t.Fatalf("migration scripts 1-5: %v", scripts)
	}
	for _, s := range scripts {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ref.Exec(string(b)); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	objects := func(d *sql.DB) map[string]string {
		rows, err := d.Query("SELECT name, type FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]string{}
		for rows.Next() {
			var n, k string
			rows.Scan(&n, &k)
			out[n] = k
		}
		return out
	}
	columns := func(d *sql.DB, table string) []string {
		rows, err := d.Query("SELECT name FROM pragma_table_info(?)", table)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var n string
			rows.Scan(&n)
			out = append(out, n)
		}
		return out
	}
	old, now := objects(ref), objects(db)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, kind := range []string{"trigger", "view", "index", "table"} {
		for name, k := range now {
			if k == kind && old[name] == "" {
				exec("DROP " + kind + ` "` + name + `"`)
			}
		}
	}
	for name, k := range old {
		if k != "table" {
			continue
		}
		keep := columns(ref, name)
		for _, c := range columns(db, name) {
			if !slices.Contains(keep, c) {
				exec(`ALTER TABLE "` + name + `" DROP COLUMN "` + c + `"`)
			}
		}
	}
	// Schema 5's own triggers (events are append-only) step aside for the
	// rename and come back as they were.
	rows, err := ref.Query("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger'")
	if err != nil {
		t.Fatal(err)
	}
	triggers := map[string]string{}
	for rows.Next() {
		var n, q string
		rows.Scan(&n, &q)
		triggers[n] = q
	}
	rows.Close()
	for n := range triggers {
		exec(`DROP TRIGGER "` + n + `"`)
	}
	defer func() {
		for _, q := range triggers {
			exec(q)
		}
	}()
	exec("PRAGMA foreign_keys = OFF")
	for _, q := range []string{"UPDATE runs SET id = ?2 WHERE id = ?1", "UPDATE provenance SET run_id = ?2 WHERE run_id = ?1",
		"UPDATE stated SET run_id = ?2 WHERE run_id = ?1", "UPDATE requests SET run_id = ?2 WHERE run_id = ?1",
		"UPDATE run_files SET run_id = ?2 WHERE run_id = ?1", "UPDATE events SET run_id = ?2 WHERE run_id = ?1"} {
		exec(q, id, legacy)
	}
	exec("PRAGMA user_version = 5")
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// copyAIPerfFixtures copies AIPerf fixture files into one fresh folder (one
// invocation's files) and returns their paths, in order.
func copyAIPerfFixtures(t *testing.T, names ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for _, f := range names {
		data, err := os.ReadFile(filepath.Join("format/aiperf/testdata/aiperf", f))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, f)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}
