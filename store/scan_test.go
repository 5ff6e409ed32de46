package store

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/provenance"
)

// TestScanRunsMatchesRun: the bulk pass gives every run exactly as Run
// reads it, in id order, and only the wanted ones when asked.
func TestScanRunsMatchesRun(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		a := openArchive(t, e.path(t), Options{})
		tx := begin(t, a)
		var ids []string
		for i, name := range []string{"a.json", "b.json", "c.json"} {
			sha := writeBlob(t, tx, []byte("raw "+name), name)
			run := sampleRun(i)
			if i == 1 {
				run.Requests, run.HasRequests, run.Stated = nil, false, nil // summary-only
			}
			if i == 2 {
				// Requests over several read batches, with error texts
				// longer than a batch's first text buffer.
				for k := 3; k < 3000; k++ {
					r := run.Requests[k%3]
					r.Index = k
					switch k % 500 {
					case 7:
						r.Error = strings.Repeat("upstream reset ✗ ", 5000)
					case 9:
						r.Error = "nul\x00 and <tags> & \"quotes\""
					}
					run.Requests = append(run.Requests, r)
				}
			}
			rec := runRecord(sha, run, manifest("campaign", "c"), cli("runtime.version", "0.25.1"),
				provenance.Entry{Field: "runtime.version", Value: "0.25.0", Source: provenance.FromFile},
				manifest("runtime.version", "0.25.0"))
			if err := tx.PutRun(rec); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, rec.ID)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		var got []string
		err := a.ScanRuns(context.Background(), nil, func(rec *RunRecord) error {
			got = append(got, rec.ID)
			want, err := a.Run(rec.ID)
			if err != nil {
				return err
			}
			g, w := *rec, *want
			gr, wr := *g.Run, *w.Run
			g.Run, w.Run = nil, nil
			if !reflect.DeepEqual(g, w) {
				t.Errorf("run %s: ScanRuns\n%+v\nRun\n%+v", rec.ID, g, w)
			}
			v1, v2 := reflect.ValueOf(gr), reflect.ValueOf(wr)
			for i := 0; i < v1.NumField(); i++ {
				// Printed, so that unknown (NaN) values compare equal.
				if fmt.Sprintf("%#v", v1.Field(i).Interface()) != fmt.Sprintf("%#v", v2.Field(i).Interface()) {
					t.Errorf("run %s: Run.%s: ScanRuns %#v, Run %#v", rec.ID, v1.Type().Field(i).Name, v1.Field(i).Interface(), v2.Field(i).Interface())
				}
			}
			// Each record is its own: changing one (its decoded JSON
			// columns are cached by text) leaves the next runs alone.
			if len(rec.Run.Notes) > 0 {
				rec.Run.Notes[0] = "changed"
			}
			if rec.Run.Extra != nil {
				rec.Run.Extra["custom"] = "changed"
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || !(got[0] < got[1] && got[1] < got[2]) {
			t.Errorf("scanned %v, want the three runs in id order", got)
		}
		var only []string
		if err := a.ScanRuns(context.Background(), map[string]bool{ids[2]: true}, func(rec *RunRecord) error {
			only = append(only, rec.ID)
			if len(rec.Run.Requests) == 0 {
				t.Error("wanted run without its requests")
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(only) != 1 || only[0] != ids[2] {
			t.Errorf("wanted %s, scanned %v", ids[2], only)
		}
	})
}
