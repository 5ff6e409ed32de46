package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/internal/pgtest"
)

// dumpTables is every row of every copied table as text, in key order.
func dumpTables(t *testing.T, a *Archive) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, tb := range copyTables {
		rows, err := a.r.Query("SELECT * FROM " + tb.name + " ORDER BY " + tb.order)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for i, v := range vals {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, "%s=%v|", cols[i], v)
			}
			out[tb.name] = append(out[tb.name], b.String())
		}
		rows.Close()
	}
	return out
}

// TestCopyRoundTrip: SQLite to PostgreSQL and back gives the same rows, raw
// files byte for byte, and the same audit findings (a tampered value
// included), and each copy can be written to afterwards.
func TestCopyRoundTrip(t *testing.T) {
	t.Parallel()
	pgURL := pgtest.NewDatabase(t)
	src := openArchive(t, tempArchivePath(t), Options{})
	tx := begin(t, src)
	var shas []string
	for i, name := range []string{"a.json", "b.json"} {
		data := bytes.Repeat([]byte(fmt.Sprintf("raw %s %d\x00\xff", name, i)), 50000)
		sha := writeBlob(t, tx, data, name)
		shas = append(shas, sha)
		run := sampleRun(i)
		run.Requests[1].Error = "nul\x00 inside"
		if err := tx.PutRun(runRecord(sha, run, manifest("campaign", "c"))); err != nil {
			t.Fatal(err)
		}
		if err := tx.AppendEvent(Event{Action: "ingest", RunID: benchrun.LegacyID(sha, i), BlobSHA256: sha}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// Another program changes a recorded value: audit must say so in
	// every copy.
	if _, err := rawDB(t, src.Path()).Exec(`UPDATE provenance SET value = 'forged' WHERE field = 'campaign'`); err != nil {
		t.Fatal(err)
	}
	want, err := src.VerifyChain(context.Background())
	if err != nil || len(want.Problems) != 2 {
		t.Fatalf("the source's findings: %+v, %v", want.Problems, err)
	}

	pg := openArchive(t, pgURL, Options{})
	back := openArchive(t, tempArchivePath(t), Options{})
	for _, hop := range []struct{ from, to *Archive }{{src, pg}, {pg, back}} {
		stats, err := hop.from.CopyTo(context.Background(), hop.to)
		if err != nil {
			t.Fatalf("copy %s to %s: %v", hop.from.Engine(), hop.to.Engine(), err)
		}
		if stats["runs"] != 2 || stats["blob_chunks"] == 0 || stats["request_packs"] != 2 {
			t.Errorf("copy stats %v", stats)
		}
	}
	wantRows := dumpTables(t, src)
	for _, c := range []*Archive{pg, back} {
		if got := dumpTables(t, c); !reflect.DeepEqual(got, wantRows) {
			for name := range wantRows {
				if !reflect.DeepEqual(got[name], wantRows[name]) {
					t.Errorf("%s: table %s differs after the copy:\n got %.400q\nwant %.400q", c.Engine(), name, got[name], wantRows[name])
				}
			}
		}
		got, err := c.VerifyChain(context.Background())
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: audit of the copy %+v, %v; of the original %+v", c.Engine(), got, err, want)
		}
		for _, sha := range shas {
			a, b := readBlob(t, src, sha), readBlob(t, c, sha)
			if !bytes.Equal(a, b) {
				t.Errorf("%s: blob %s differs after the copy", c.Engine(), sha)
			}
		}
		k1, _ := src.SiteKey()
		k2, _ := c.SiteKey()
		if !bytes.Equal(k1, k2) {
			t.Errorf("%s: the site key was not copied", c.Engine())
		}
		// The copy goes on: a new event gets the next id.
		tx := begin(t, c)
		if err := tx.AppendEvent(Event{Action: "note"}); err != nil {
			t.Errorf("%s: write after the copy: %v", c.Engine(), err)
		}
		tx.Rollback()
	}
	// A copy never merges into an archive that holds something.
	if _, err := src.CopyTo(context.Background(), back); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("copy into a non-empty archive: %v", err)
	}
}

func readBlob(t *testing.T, a *Archive, sha string) []byte {
	t.Helper()
	r, err := a.OpenBlob(sha)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCopyTablesCoverSchema: every table of the schema is copied (a table
// added by a migration and left out of copyTables would vanish from every
// copy), but archive_keys, whose one row CopyTo carries on its own.
func TestCopyTablesCoverSchema(t *testing.T) {
	t.Parallel()
	a := newArchive(t)
	rows, err := a.r.Query(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	listed := map[string]bool{"archive_keys": true}
	for _, tb := range copyTables {
		listed[strings.Trim(tb.name, `"`)] = true
	}
	n := 0
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		n++
		if !listed[name] {
			t.Errorf("table %s is not in copyTables", name)
		}
	}
	if err := rows.Err(); err != nil || n != len(copyTables)+1 {
		t.Errorf("%d tables in the schema (%v), copyTables lists %d", n, err, len(copyTables))
	}
}
