package store

import (
	"reflect"
	"testing"

	"github.com/benchledger/benchledger/provenance"
)

// TestListRunsBulkAsDatabaseSQL: on SQLite, ListRuns without dates reads
// through its own bulk connection, and gives the summaries database/sql
// gives for the same query, in the same order, filters applied alike.
func TestListRunsBulkAsDatabaseSQL(t *testing.T) {
	t.Parallel()
	a := newArchive(t)
	tx := begin(t, a)
	for i, gpu := range []string{"NVIDIA H100 80GB HBM3", "H200", "ünïcode ✓ 中文", ""} {
		sha := writeBlob(t, tx, []byte{byte('a' + i)}, "run.json")
		run := sampleRun(i)
		run.Facts["measurement.date"] = []string{"2025-10-09", "2025-10-08", "2025-10-09", ""}[i]
		rec := runRecord(sha, run, provenance.Entry{Field: "hardware.gpu_model", Value: gpu, Source: provenance.FromManifest},
			manifest("campaign", []string{"c1", "c2", "c1", ""}[i]))
		if err := tx.PutRun(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []Filter{{}, {Campaign: "C1"}, {GPU: "h2"}, {Model: "qwen3"}, {Role: "x"}} {
		got, err := a.ListRuns(f)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := a.r.Query("SELECT " + summaryColumnsSQL + " FROM runs WHERE 1 = 1 ORDER BY run_date, id")
		if err != nil {
			t.Fatal(err)
		}
		var want []RunSummary
		for rows.Next() {
			s, err := scanSummary(rows.Scan)
			if err != nil {
				t.Fatal(err)
			}
			if f.selects(s) {
				want = append(want, s)
			}
		}
		rows.Close()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("filter %+v: bulk\n%+v\ndatabase/sql\n%+v", f, got, want)
		}
		if f == (Filter{}) && len(got) != 4 {
			t.Errorf("%d runs listed, want 4", len(got))
		}
	}
}
