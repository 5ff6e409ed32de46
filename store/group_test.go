package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"
)

// writeFile stores one small file's blob, run and event in tx, as an ingest
// does, with fixed times so that two archives can be compared.
func writeFile(t *testing.T, tx *Tx, i int) {
	t.Helper()
	raw := []byte(fmt.Sprintf("raw file %d", i))
	p, err := PrepareBlob(raw, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.PutPreparedBlob(p, fmt.Sprintf("f%d.json", i)); err != nil {
		t.Fatal(err)
	}
	rec := runRecord(p.SHA256, sampleRun(0), manifest("hardware.gpu_model", "NVIDIA H100 80GB HBM3"))
	if err := tx.PutRun(rec); err != nil {
		t.Fatal(err)
	}
	ev := Event{At: time.Date(2025, 10, 10, 9, 0, i, 0, time.UTC), Actor: "test", ToolVersion: "test", Action: "ingest",
		RunID: rec.ID, BlobSHA256: p.SHA256, Detail: fmt.Sprintf(`{"file": "f%d.json"}`, i)}
	if err := tx.AppendEvent(ev); err != nil {
		t.Fatal(err)
	}
}

// archiveRows is what the tables a write touches hold, in order, with the
// chain's links: two archives written alike give the same text.
func archiveRows(t *testing.T, e engine, path string) string {
	t.Helper()
	db := e.raw(t, path)
	var b strings.Builder
	for _, q := range []string{
		"SELECT sha256 || ' ' || name FROM blobs ORDER BY sha256",
		"SELECT id || ' ' || blob FROM runs ORDER BY id",
		"SELECT CAST(id AS TEXT) || ' ' || action || ' ' || run_id || ' ' || detail FROM events ORDER BY id",
		"SELECT CAST(seq AS TEXT) || ' ' || kind || ' ' || ref || ' ' || record || ' ' || prev || ' ' || hash FROM chain ORDER BY seq",
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			b.WriteString(s + "\n")
		}
		rows.Close()
	}
	return b.String()
}

// writeThree writes files 1 to 3, each in a transaction begin gives, and
// rolls file 2 back after its writes.
func writeThree(t *testing.T, begin func() (*Tx, error)) { writeFiles(t, begin, 3, 2) }

// writeFiles writes files 1 to n, each in a transaction begin gives, and
// rolls back file number back after its writes.
func writeFiles(t *testing.T, begin func() (*Tx, error), n, back int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		tx, err := begin()
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, tx, i)
		if i == back {
			err = tx.Rollback()
		} else {
			err = tx.Commit()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestGroupPartsAsTransactions writes files 1 to 3, file 2 rolled back
// after its writes, once in a transaction each and once as the parts of a
// Group: the archives hold the same rows and the same chain, nothing of a
// group is visible before it commits, and a rolled-back group leaves
// nothing.
func TestGroupPartsAsTransactions(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		ctx := context.Background()
		alone, grouped := e.path(t), e.path(t)
		a := openArchive(t, alone, Options{})
		writeThree(t, func() (*Tx, error) { return a.Begin(ctx, nil) })

		g := openArchive(t, grouped, Options{})
		group, err := g.BeginGroup(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		writeThree(t, group.Begin)
		if n := countRows(t, e.raw(t, grouped), "runs"); n != 0 {
			t.Errorf("before the group commits, another connection sees %d runs", n)
		}
		if err := group.Commit(); err != nil {
			t.Fatal(err)
		}
		want, got := archiveRows(t, e, alone), archiveRows(t, e, grouped)
		if got != want {
			t.Errorf("a group's parts wrote\n%s\nwhere transactions of their own wrote\n%s", got, want)
		}
		if strings.Count(got, " ingest ") != 2 {
			t.Errorf("want the events of files 1 and 3:\n%s", got)
		}

		// A group rolled back (an ingest killed before its commit) leaves
		// nothing, parts committed or not.
		group, err = g.BeginGroup(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := group.Begin()
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, tx, 4)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := group.Rollback(); err != nil {
			t.Fatal(err)
		}
		if after := archiveRows(t, e, grouped); after != got {
			t.Errorf("a rolled-back group changed the archive:\n%s", after)
		}
		rep, err := g.VerifyChain(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Problems) > 0 {
			t.Errorf("chain: %v", rep.Problems)
		}
		// The writer is free again for a transaction of its own.
		tx = begin(t, g)
		writeFile(t, tx, 5)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestGroupChainHeadFollowsParts: a group's parts link their changes after
// the links of the parts kept before them (the head a part leaves is the
// next part's start; a part rolled back leaves none), as transactions of
// their own do.
func TestGroupChainHeadFollowsParts(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		ctx := context.Background()
		alone, grouped := e.path(t), e.path(t)
		a := openArchive(t, alone, Options{})
		writeFiles(t, func() (*Tx, error) { return a.Begin(ctx, nil) }, 6, 4)
		g := openArchive(t, grouped, Options{})
		group, err := g.BeginGroup(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		writeFiles(t, group.Begin, 6, 4)
		if err := group.Commit(); err != nil {
			t.Fatal(err)
		}
		want, got := archiveRows(t, e, alone), archiveRows(t, e, grouped)
		if got != want {
			t.Errorf("a group's parts wrote\n%s\nwhere transactions of their own wrote\n%s", got, want)
		}
		if rep, err := g.VerifyChain(ctx); err != nil {
			t.Fatal(err)
		} else if len(rep.Problems) > 0 {
			t.Errorf("chain: %v", rep.Problems)
		}
	})
}

// An error from the statement that ends a group says so: the label names
// the step that failed, not the beginning.
func TestGroupSettingNamesItsStep(t *testing.T) {
	t.Parallel()
	a := newArchive(t)
	if a.d.groupSettings == "" {
		t.Skip("this engine has no group settings")
	}
	d := *a.d
	d.groupReset = "PRAGMA no_such_thing = (" // a syntax error
	a.d = &d
	g, err := a.BeginGroup(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	err = g.Commit()
	if err == nil || !strings.Contains(err.Error(), "end a group") || strings.Contains(err.Error(), "begin a group") {
		t.Fatalf("commit with a failing reset: %v, want an error naming \"end a group\"", err)
	}
}

// TestGroupPageCache: a group's transaction has the larger page cache on
// SQLite, and the writer gets its own default back after the group,
// committed or rolled back, so a large file's transaction keeps the small
// one.
func TestGroupPageCache(t *testing.T) {
	t.Parallel()
	a := newArchive(t)
	cacheSize := func(q interface {
		QueryRow(string, ...any) *sql.Row
	}) int {
		t.Helper()
		var n int
		if err := q.QueryRow("PRAGMA cache_size").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := cacheSize(a.w); got != sqliteDefaultCacheSize {
		t.Fatalf("a new writer connection has cache_size %d; the group's reset restores %d", got, sqliteDefaultCacheSize)
	}
	for _, commit := range []bool{true, false} {
		g, err := a.BeginGroup(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := cacheSize(g.tx.tx); got != -groupCacheKiB {
			t.Errorf("cache_size in a group = %d, want %d", got, -groupCacheKiB)
		}
		if commit {
			err = g.Commit()
		} else {
			err = g.Rollback()
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := cacheSize(a.w); got != sqliteDefaultCacheSize {
			t.Errorf("cache_size after a group (commit %v) = %d, want %d", commit, got, sqliteDefaultCacheSize)
		}
	}
}
