package audit

import (
	"database/sql"
	"strings"
	"testing"
)

// TestRecordsComparedByDigest: the raw records are let go once digested,
// and the stored ones compared with that digest; a stored record that
// differs in any compared field is still named with its field, and one
// within the tolerance is still no difference (the file is parsed again to
// tell).
func TestRecordsComparedByDigest(t *testing.T) {
	for _, tc := range []struct {
		update string // on request 5 of the run
		field  string // "" for no finding
	}{
		{"start = start + 1", "request 5 start"},
		{"queue_time = 0.5", "request 5 queue time"},
		{"ttft = ttft * 2", "request 5 TTFT"},
		{"latency = latency * (1 + 1e-12)", ""},
		{"latency = latency + 0.25", "request 5 latency"},
		{"input_tokens = input_tokens + 1", "request 5 input tokens"},
		{"output_tokens = NULL", "request 5 output tokens"},
		{"error = 'boom'", "request 5 failed"},
		{"error = NULL, gap_count = gap_count + 1", "request 5 chunk gap count"},
		{"gap_sum = gap_sum * 1.5", "request 5 chunk gap sum"},
		{"gap_max = gap_max * 1.5", ""}, // not compared (the file's gaps give it)
	} {
		t.Run(tc.update, func(t *testing.T) {
			a, dbPath, ids := archiveOf(t, map[string]vllmFile{"x.json": {n: 40}}, true)
			raw, err := sql.Open("sqlite3", "file:"+dbPath+"?mode=rw")
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			id := ids["x.json"]
			if res, err := raw.Exec("UPDATE requests SET "+tc.update+" WHERE run_id = ? AND idx = 5", id); err != nil {
				t.Fatal(err)
			} else if n, _ := res.RowsAffected(); n != 1 {
				t.Fatalf("%d rows updated", n)
			}
			f := find(findings(t, a), CheckRecords, id)
			switch {
			case tc.field == "" && f != nil:
				t.Fatalf("want no integrity.records finding, got %+v", f)
			case tc.field != "" && (f == nil || f.Params["field"] != tc.field || f.Params["request"] != "5" ||
				!strings.Contains(f.Message, tc.field)):
				t.Fatalf("want integrity.records naming %q, got %+v", tc.field, f)
			}
		})
	}
}
