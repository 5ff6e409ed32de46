package store

import (
	"database/sql"
	"fmt"
	"strconv"
	"testing"
)

// TestRunStamps holds RunStamps to what it means: per run, the id and time
// of its event of the highest id (not the latest time, not the last
// inserted), then its latest correction's id; events without a run left
// out. The reference is the query RunStamps once made (the latest id per
// run joined back to its row).
func TestRunStamps(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		path := e.path(t)
		a := openArchive(t, path, Options{})
		tx := begin(t, a)
		var ids []string
		for i := range 3 {
			sha := writeBlob(t, tx, []byte("raw "+strconv.Itoa(i)), "r.json")
			rec := runRecord(sha, sampleRun(i), manifest("role", "baseline"))
			if err := tx.PutRun(rec); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, rec.ID)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		tx = begin(t, a)
		for k := range 2 {
			if err := tx.RecordCorrection([]Correction{{RunID: ids[1], Field: "role", Old: "baseline", HadOld: true, New: "r" + strconv.Itoa(k), Reason: "why", Actor: "ann"}}, false, nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		raw := e.raw(t, path)
		// (PutRun appends no event; ingest does.) Run 0: a later id with an
		// earlier time, inserted before an earlier id with a later time;
		// run 2 two events; events of no run.
		for _, ev := range []struct {
			id        int
			at, runID string
		}{
			{8000, "2026-01-01T00:00:00Z", "'" + ids[1] + "'"},
			{8001, "2026-01-01T00:00:00Z", "'" + ids[2] + "'"},
			{8002, "2026-01-02T00:00:00Z", "'" + ids[2] + "'"},
			{9001, "2000-01-01T00:00:00Z", "'" + ids[0] + "'"},
			{9000, "2099-01-01T00:00:00Z", "'" + ids[0] + "'"},
			{9002, "2099-01-01T00:00:00Z", "''"},
			{9003, "2099-01-01T00:00:00Z", "NULL"},
		} {
			if _, err := raw.Exec(fmt.Sprintf(`INSERT INTO events (id, at, actor, tool_version, action, run_id) VALUES (%d, '%s', 'ann', 'test', 'touch', %s)`, ev.id, ev.at, ev.runID)); err != nil {
				t.Fatal(err)
			}
		}

		got, err := a.RunStamps()
		if err != nil {
			t.Fatal(err)
		}
		want := refRunStamps(t, raw)
		if len(got) != len(want) || len(got) != 3 {
			t.Fatalf("%d stamps, want %d (reference) and 3: %v", len(got), len(want), got)
		}
		for id, w := range want {
			if got[id] != w {
				t.Errorf("run %s: stamp %q, want %q", id, got[id], w)
			}
		}
		if s := got[ids[0]]; s != "9001 2000-01-01T00:00:00Z" {
			t.Errorf("run 0's stamp %q, want its event of the highest id", s)
		}

		// BlobSizes reads through readBulk as well.
		sizes, err := a.BlobSizes()
		if err != nil {
			t.Fatal(err)
		}
		if len(sizes) != 3 || sizes[sha256Hex([]byte("raw 2"))] != int64(len("raw 2")) {
			t.Errorf("blob sizes %v, want the 3 raw files' sizes", sizes)
		}
	})
}

// refRunStamps is RunStamps as it once was made.
func refRunStamps(t *testing.T, db *sql.DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	rows, err := db.Query(`SELECT e.run_id, e.id, e.at FROM events e JOIN
		(SELECT MAX(id) AS id FROM events WHERE run_id IS NOT NULL AND run_id <> '' GROUP BY run_id) m ON e.id = m.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, at string
		var max int64
		if err := rows.Scan(&id, &max, &at); err != nil {
			t.Fatal(err)
		}
		out[id] = fmt.Sprintf("%d %s", max, at)
	}
	crows, err := db.Query(`SELECT run_id, MAX(id) FROM corrections GROUP BY run_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer crows.Close()
	for crows.Next() {
		var id string
		var max int64
		if err := crows.Scan(&id, &max); err != nil {
			t.Fatal(err)
		}
		out[id] += fmt.Sprintf(" c%d", max)
	}
	return out
}
