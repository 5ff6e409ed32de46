package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/internal/pgtest"
)

// docsSQL is the SQL block of docs/team-archive.md that starts with marker,
// with the documented names made this test's own (roles are the whole
// server's).
func docsSQL(t *testing.T, marker, db, suffix string) string {
	t.Helper()
	b, err := os.ReadFile("../docs/team-archive.md")
	if err != nil {
		t.Skipf("docs/team-archive.md: %v", err)
	}
	_, block, ok := strings.Cut(string(b), marker)
	if !ok {
		t.Fatalf("docs/team-archive.md has no block %q", marker)
	}
	block, _, _ = strings.Cut(block, "```")
	_, block, _ = strings.Cut(block, "\n") // the rest of the marker's line
	var keep []string
	for _, line := range strings.Split(block, "\n") {
		if !strings.HasPrefix(line, "CREATE DATABASE") {
			keep = append(keep, line)
		}
	}
	return strings.NewReplacer("DATABASE benchledger ", "DATABASE "+db+" ",
		"benchledger_owner", "owner_"+suffix, "benchledger_writer", "writer_"+suffix, "benchledger_reader", "reader_"+suffix).
		Replace(strings.Join(keep, "\n"))
}

// teamArchive is a new PostgreSQL archive made by its owner, with the roles
// of docs/team-archive.md (not granted yet): the database's name and each
// role's URL.
func teamArchive(t *testing.T) (db, ownerURL, writerURL, readerURL string) {
	t.Helper()
	db = pgtest.DatabaseName(pgtest.NewDatabase(t))
	pgtest.Exec(t, docsSQL(t, "-- benchledger roles", db, db))
	pgtest.Exec(t, fmt.Sprintf("ALTER DATABASE %s OWNER TO owner_%s", db, db))
	ownerURL, writerURL, readerURL = pgtest.URL(db, "owner_"+db), pgtest.URL(db, "writer_"+db), pgtest.URL(db, "reader_"+db)
	openArchive(t, ownerURL, Options{}).Close()
	return db, ownerURL, writerURL, readerURL
}

// TestPostgresRoles sets up the roles and grants exactly as docs/team-archive.md
// says: the writer ingests and amends but cannot rewrite history even by
// connecting directly, the owner's direct rewrites hit the triggers, and
// the reader reads only.
func TestPostgresRoles(t *testing.T) {
	t.Parallel()
	db, ownerURL, writerURL, readerURL := teamArchive(t)
	if _, err := rawPostgres(t, ownerURL).Exec(docsSQL(t, "-- benchledger grants", db, db)); err != nil {
		t.Fatalf("the documented grants: %v", err)
	}

	// The writer's ingest and amend.
	w := openArchive(t, writerURL, Options{})
	tx := begin(t, w)
	sha := writeBlob(t, tx, []byte("raw file"), "a.json")
	rec := runRecord(sha, sampleRun(0), manifest("campaign", "c"))
	if err := tx.PutRun(rec); err != nil {
		t.Fatalf("PutRun as the writer: %v", err)
	}
	if err := tx.AppendEvent(Event{Action: "ingest", RunID: rec.ID}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("ingest as the writer: %v", err)
	}
	tx = begin(t, w)
	if err := tx.RecordCorrection([]Correction{{RunID: rec.ID, Field: "hardware.gpu_model", New: "H200", Reason: "typo"}}, false, rec.Missing); err != nil {
		t.Fatalf("amend as the writer: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("amend as the writer: %v", err)
	}

	// Direct clients.
	type attempt struct{ as, sql, want string }
	for _, c := range []attempt{
		{writerURL, "UPDATE events SET actor = 'x'", "42501"},
		{writerURL, "DELETE FROM runs", "42501"},
		{writerURL, "DELETE FROM chain", "42501"},
		{writerURL, "TRUNCATE chain", "42501"},
		{writerURL, "UPDATE corrections SET reason = 'x'", "42501"},
		{ownerURL, "UPDATE events SET actor = 'x'", "append-only"},
		{ownerURL, "DELETE FROM chain", "append-only"},
		{ownerURL, "TRUNCATE events", "append-only"},
		{ownerURL, "DELETE FROM corrections", "append-only"},
		{readerURL, "INSERT INTO run_aliases VALUES ('a', 'b', 'c')", "42501"},
	} {
		_, err := rawPostgres(t, c.as).Exec(c.sql)
		if err == nil || pgErrorCode(err) != c.want && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s as %s: %v, want %s", c.sql, pgtest.DatabaseName(c.as), err, c.want)
		}
	}
	if rep, err := w.VerifyChain(context.Background()); err != nil || len(rep.Problems) != 0 {
		t.Errorf("the chain after the refused rewrites: %+v, %v", rep.Problems, err)
	}

	// A richer file of another run renames it, its records and their pack
	// (the chain is ingest's to extend, ingest/runs.go).
	tx = begin(t, w)
	sha2 := writeBlob(t, tx, []byte("another raw file"), "b.json")
	rec2 := runRecord(sha2, sampleRun(1))
	if err := tx.PutRun(rec2); err != nil {
		t.Fatalf("PutRun as the writer: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	tx = begin(t, w)
	if renamed, err := tx.RekeyRun(rec2.ID, "0123456789ab", "a richer file"); err != nil || !renamed {
		t.Fatalf("rename as the writer: %v, %v", renamed, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("rename as the writer: %v", err)
	}

	r := openArchive(t, readerURL, Options{ReadOnly: true})
	if runs, err := r.ListRuns(Filter{}); err != nil || len(runs) != 2 {
		t.Errorf("the reader lists %d runs: %v", len(runs), err)
	}
	rw := openArchive(t, readerURL, Options{})
	tx = begin(t, rw)
	if _, err := tx.PutBytes([]byte("x"), "x.json"); err == nil || !errors.Is(err, ErrReadOnly) {
		t.Errorf("a write as the reader: %v, want ErrReadOnly", err)
	}
}

// TestPostgresUpgradeKeepsGrants: an archive of version 7 whose roles were
// granted as docs/team-archive.md says, upgraded by its owner, lets the
// writer ingest (which writes request_packs, new in version 8) and the
// reader read without granting again.
func TestPostgresUpgradeKeepsGrants(t *testing.T) {
	t.Parallel()
	db, ownerURL, writerURL, readerURL := teamArchive(t)
	// The archive as version 7 left it, granted then.
	owner := rawPostgres(t, ownerURL)
	if _, err := owner.Exec("DROP TABLE request_packs; UPDATE benchledger_archive SET schema_version = 7"); err != nil {
		t.Fatal(err)
	}
	grants7 := strings.Replace(docsSQL(t, "-- benchledger grants", db, db), " request_packs,", "", 1)
	if _, err := owner.Exec(grants7); err != nil {
		t.Fatalf("the documented grants of version 7: %v", err)
	}
	openArchive(t, ownerURL, Options{}).Close() // the upgrade

	w := openArchive(t, writerURL, Options{})
	rec := putOneRun(t, w)
	r := openArchive(t, readerURL, Options{ReadOnly: true})
	if _, ok, err := r.RequestPack(rec.ID); !ok || err != nil {
		t.Errorf("the reader reads the writer's pack: %v, %v", ok, err)
	}
}
