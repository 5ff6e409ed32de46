package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
)

// printedRequests prints records so that unknown (NaN) figures compare
// equal, and zero whatever its sign (PostgreSQL keeps -0, SQLite does not,
// and a pack keeps 0).
func printedRequests(reqs []benchrun.Request) string {
	out := make([]benchrun.Request, len(reqs))
	for i, r := range reqs {
		for _, f := range []*float64{&r.Start, &r.QueueTime, &r.TTFT, &r.Latency, &r.Gaps.Sum, &r.Gaps.Min, &r.Gaps.Max} {
			*f += 0
		}
		out[i] = r
	}
	return fmt.Sprintf("%#v", out)
}

// scannedRequests are the records ScanRuns gives for each run, by id.
func scannedRequests(t *testing.T, a *Archive) map[string]string {
	t.Helper()
	got := map[string]string{}
	if err := a.ScanRuns(context.Background(), nil, func(rec *RunRecord) error {
		got[rec.ID] = printedRequests(rec.Run.Requests)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestRequestPacks: a run archived with its records gets their pack, in the
// rows' order and with the values the rows give back; ScanRuns reads the
// pack and gives what the rows give, and the rows when the pack is gone;
// renaming a run takes its pack along; a damaged pack is ErrCorrupt.
func TestRequestPacks(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		path := e.path(t)
		a := openArchive(t, path, Options{})
		tx := begin(t, a)
		var ids []string
		for i, name := range []string{"a.json", "b.json", "c.json"} {
			sha := writeBlob(t, tx, []byte("raw "+name), name)
			run := sampleRun(i)
			switch i {
			case 1:
				run.Requests, run.HasRequests, run.Stated = nil, false, nil // summary-only
			case 2:
				// Out of index order, with holes, a negative zero, another
				// NaN, a NUL byte in an error.
				run.Requests = nil
				for k := 3000; k > 0; k -= 3 {
					r := benchrun.Request{Index: k, Start: float64(k) / 7, QueueTime: math.Copysign(0, -1), TTFT: math.Float64frombits(0x7ff8dead00000001),
						Latency: float64(k), InputTokens: int32(k), OutputTokens: -1, Gaps: benchrun.GapStats{Count: 2, Sum: 0.5, Min: 0.1, Max: 0.4}}
					if k%500 == 0 {
						r.Error = "nul\x00 and <tags> ✗"
					}
					run.Requests = append(run.Requests, r)
				}
			}
			rec := runRecord(sha, run, manifest("campaign", "c"))
			if err := tx.PutRun(rec); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, rec.ID)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		raw := e.raw(t, path)
		if n := countRows(t, raw, "request_packs"); n != 2 {
			t.Fatalf("%d packs, want one for each of the 2 runs with records", n)
		}
		rows := map[string]string{}
		for _, id := range ids {
			reqs, err := a.Requests(id)
			if err != nil {
				t.Fatal(err)
			}
			rows[id] = printedRequests(reqs)
			packed, ok, err := a.RequestPack(id)
			if err != nil || ok != (reqs != nil) {
				t.Fatalf("run %s: RequestPack: ok %v, %v", id, ok, err)
			}
			if got := printedRequests(packed); ok && got != rows[id] {
				t.Errorf("run %s: the pack holds\n%.600s\nthe rows\n%.600s", id, got, rows[id])
			}
		}
		if got := scannedRequests(t, a); fmt.Sprint(got) != fmt.Sprint(rows) {
			t.Errorf("ScanRuns with packs gives other records than the rows:\n%.600v\nwant\n%.600v", got, rows)
		}

		// A damaged pack is an error naming the run, not other records.
		if _, err := raw.Exec("UPDATE request_packs SET data = ? WHERE run_id = ?", []byte{1, 5}, ids[2]); err != nil {
			t.Fatal(err)
		}
		if _, _, err := a.RequestPack(ids[2]); !errors.Is(err, ErrCorrupt) {
			t.Errorf("RequestPack of a damaged pack: %v, want ErrCorrupt", err)
		}
		err := a.ScanRuns(context.Background(), nil, func(*RunRecord) error { return nil })
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), ids[2]) {
			t.Errorf("ScanRuns over a damaged pack: %v, want ErrCorrupt naming run %s", err, ids[2])
		}

		// One run with its pack, one without (a run of more records than
		// a pack takes): the pack for the one, the rows for the other,
		// also when only the one without is wanted.
		if _, err := raw.Exec("DELETE FROM request_packs WHERE run_id = ?", ids[2]); err != nil {
			t.Fatal(err)
		}
		if got := scannedRequests(t, a); fmt.Sprint(got) != fmt.Sprint(rows) {
			t.Errorf("ScanRuns with a pack and rows gives other records than the rows:\n%.600v\nwant\n%.600v", got, rows)
		}
		for _, id := range []string{ids[0], ids[2]} {
			var got []string
			if err := a.ScanRuns(context.Background(), map[string]bool{id: true}, func(rec *RunRecord) error {
				got = append(got, rec.ID, printedRequests(rec.Run.Requests))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if want := []string{id, rows[id]}; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("ScanRuns of run %s alone gives\n%.600v\nwant\n%.600v", id, got, want)
			}
		}

		// Without packs (an archive from before them), the rows.
		if _, err := raw.Exec("DELETE FROM request_packs"); err != nil {
			t.Fatal(err)
		}
		if got := scannedRequests(t, a); fmt.Sprint(got) != fmt.Sprint(rows) {
			t.Errorf("ScanRuns without packs gives other records than the rows:\n%.600v\nwant\n%.600v", got, rows)
		}
	})
}

// TestRequestPackFollowsRename: a renamed run's pack is under its new id.
func TestRequestPackFollowsRename(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		a := openArchive(t, e.path(t), Options{})
		rec := putOneRun(t, a)
		tx := begin(t, a)
		if renamed, err := tx.RekeyRun(rec.ID, "0123456789ab", "a richer file"); err != nil || !renamed {
			t.Fatalf("RekeyRun: %v, %v", renamed, err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := a.RequestPack(rec.ID); ok || err != nil {
			t.Errorf("the old id still has a pack (%v, %v)", ok, err)
		}
		if reqs, ok, err := a.RequestPack("0123456789ab"); !ok || err != nil || len(reqs) != len(rec.Run.Requests) {
			t.Errorf("the new id's pack: %d records, %v, %v", len(reqs), ok, err)
		}
	})
}

// TestRequestPackLimit: a run of more than MaxPackedRequests records is
// read from its rows only; one of exactly that many has its pack.
func TestRequestPackLimit(t *testing.T) {
	t.Parallel()
	a := newArchive(t)
	tx := begin(t, a)
	var ids []string
	for i, n := range []int{MaxPackedRequests, MaxPackedRequests + 1} {
		sha := writeBlob(t, tx, []byte(fmt.Sprint("raw ", n)), "big.json")
		run := sampleRun(i)
		base := run.Requests[0]
		run.Requests = make([]benchrun.Request, n)
		for k := range run.Requests {
			run.Requests[k] = base
			run.Requests[k].Index = k
		}
		rec := runRecord(sha, run)
		if err := tx.PutRun(rec); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rec.ID)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false} {
		if _, ok, err := a.RequestPack(ids[i]); ok != want || err != nil {
			t.Errorf("run %d: pack %v (%v), want %v", i, ok, err, want)
		}
	}
	n := 0
	if err := a.ScanRuns(context.Background(), nil, func(rec *RunRecord) error {
		n += len(rec.Run.Requests)
		return nil
	}); err != nil || n != 2*MaxPackedRequests+1 {
		t.Errorf("ScanRuns read %d records (%v), want %d", n, err, 2*MaxPackedRequests+1)
	}
}

// TestUpgradeAddsRequestPacks: the upgrade to version 8 packs the records
// of the runs archived before it (an archive of version 7: this one with
// request_packs dropped), each as its rows give them; a run without
// records gets none.
func TestUpgradeAddsRequestPacks(t *testing.T) {
	t.Parallel()
	path := tempArchivePath(t)
	a := openArchive(t, path, Options{})
	rec := putOneRun(t, a)
	tx := begin(t, a)
	sha := writeBlob(t, tx, []byte("summary only"), "s.json")
	summary := sampleRun(1)
	summary.Requests, summary.HasRequests = nil, false
	if err := tx.PutRun(runRecord(sha, summary)); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	want, err := a.Requests(rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	if _, err := rawDB(t, path).Exec("DROP TABLE request_packs; PRAGMA user_version = 7"); err != nil {
		t.Fatal(err)
	}
	a = openArchive(t, path, Options{})
	if n := countRows(t, rawDB(t, path), "request_packs"); n != 1 {
		t.Errorf("%d packs after the upgrade, want the one run with records'", n)
	}
	got, ok, err := a.RequestPack(rec.ID)
	if !ok || err != nil || printedRequests(got) != printedRequests(want) {
		t.Errorf("the upgrade's pack (%v, %v):\n%s\nthe rows:\n%s", ok, err, printedRequests(got), printedRequests(want))
	}
}
