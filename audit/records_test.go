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
			fs := findings(t, a)
			f := findKey(fs, MsgRecordsDiffer, id)
			// The rows changed and the pack the site reads did not: that
			// is told as well, whatever the raw file says.
			if pf := findKey(fs, MsgRecordsPackDiffer, id); pf == nil || pf.Check != CheckRecords || pf.Params["idx"] != "5" || pf.Params["field"] == "" {
				t.Errorf("want integrity.records.pack_differ at idx 5, got %+v", pf)
			}
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

// TestPackHeldToRows: the packed copy of a run's records that the site
// reads is held to the rows: another run's pack, one of another count and
// one that cannot be read are each told under integrity.records; a run
// without a pack (archived before packs) is not.
func TestPackHeldToRows(t *testing.T) {
	for _, tc := range []struct {
		name, update string // x's pack made from y's (40 requests) or z's (30)
		key          string // "" for no finding
		params       map[string]string
	}{
		{"another run's", "UPDATE request_packs SET data = (SELECT data FROM request_packs WHERE run_id = :y) WHERE run_id = :x",
			MsgRecordsPackDiffer, map[string]string{"idx": "0", "field": "start"}},
		{"another count", "UPDATE request_packs SET data = (SELECT data FROM request_packs WHERE run_id = :z) WHERE run_id = :x",
			MsgRecordsPackCount, map[string]string{"packed": "30", "archived": "40"}},
		{"unreadable", "UPDATE request_packs SET data = x'01' WHERE run_id = :x", MsgRecordsPackUnreadable, nil},
		{"none", "DELETE FROM request_packs WHERE run_id = :x", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, dbPath, ids := archiveOf(t, map[string]vllmFile{"x.json": {n: 40}, "y.json": {n: 40, start: 200}, "z.json": {n: 30}}, false)
			raw, err := sql.Open("sqlite3", "file:"+dbPath+"?mode=rw")
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			if _, err := raw.Exec(tc.update, sql.Named("x", ids["x.json"]), sql.Named("y", ids["y.json"]), sql.Named("z", ids["z.json"])); err != nil {
				t.Fatal(err)
			}
			var got []Finding
			for _, f := range findings(t, a) {
				if strings.HasPrefix(f.MessageKey, "integrity.records.pack") || f.MessageKey == MsgRecordsDiffer {
					got = append(got, f)
				}
			}
			if tc.key == "" {
				if len(got) != 0 {
					t.Fatalf("want no finding about records, got %+v", got)
				}
				return
			}
			if len(got) != 1 || got[0].MessageKey != tc.key || got[0].Check != CheckRecords || got[0].Severity != Fail || got[0].Run != ids["x.json"] {
				t.Fatalf("want one %s finding about run x, got %+v", tc.key, got)
			}
			for k, v := range tc.params {
				if got[0].Params[k] != v {
					t.Errorf("param %s is %q, want %q (%+v)", k, got[0].Params[k], v, got[0])
				}
			}
		})
	}
}
