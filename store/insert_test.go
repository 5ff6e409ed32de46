package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/benchledger/benchledger/benchrun"
)

// TestWriterHandleFound: the writer's SQLite handle is found under
// go-sqlite3's connection, so records are inserted in bulk. A go-sqlite3
// that keeps it elsewhere would silently fall back to the slower path.
func TestWriterHandleFound(t *testing.T) {
	t.Parallel()
	a := newArchive(t)
	if a.writerHandle.Load() == nil {
		t.Fatal("no SQLite handle under the writer's connection: records go through database/sql")
	}
}

// awkwardRequests are records with every value class the columns take:
// unknowns (NaN, -1), a negative zero, infinities, extremes, errors with
// a NUL byte, non-ASCII text and one larger than an Inserter's buffer, in
// more rows than one batch of cells holds.
func awkwardRequests() []benchrun.Request {
	var reqs []benchrun.Request
	for k := range 3000 {
		r := benchrun.Request{Index: k, Start: float64(k) / 7, QueueTime: 0.25, TTFT: 0.125 + float64(k)*1e-9,
			Latency: float64(k), InputTokens: int32(k), OutputTokens: int32(k % 7),
			Gaps: benchrun.GapStats{Count: int32(k % 5), Sum: 0.5, Min: 0.1, Max: 0.4}}
		switch k % 11 {
		case 1:
			r.TTFT, r.Latency, r.OutputTokens, r.InputTokens = benchrun.Unknown, benchrun.Unknown, -1, -1
		case 2:
			r.QueueTime, r.Gaps.Min = math.Copysign(0, -1), math.Inf(1)
		case 3:
			r.Start, r.Gaps.Max, r.InputTokens = math.MaxFloat64, math.Inf(-1), math.MaxInt32
		case 4:
			r.Error = "nul\x00 and <tags> ✗ 超时"
		case 5:
			r.Error, r.Gaps = "timeout", benchrun.GapStats{Sum: benchrun.Unknown, Min: benchrun.Unknown, Max: benchrun.Unknown}
		}
		if k == 1500 {
			r.Error = strings.Repeat("long error ", 30_000)
		}
		reqs = append(reqs, r)
	}
	return reqs
}

// TestRequestsStoredAlikeBothWays: the records an Inserter stores are the
// rows database/sql stored, value for value and storage class for
// storage class.
func TestRequestsStoredAlikeBothWays(t *testing.T) {
	t.Parallel()
	reqs := awkwardRequests()
	dump := func(bulk bool) [][]any {
		a := newArchive(t)
		if !bulk {
			a.writerHandle.Store(nil)
		} else if a.writerHandle.Load() == nil {
			t.Fatal("no writer handle")
		}
		tx := begin(t, a)
		sha := writeBlob(t, tx, []byte("raw"), "a.json")
		run := sampleRun(0)
		run.Requests = reqs
		if err := tx.PutRun(runRecord(sha, run)); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		rows, err := a.r.Query(`SELECT idx, start, queue_time, ttft, latency, input_tokens, output_tokens, error,
			gap_count, gap_sum, gap_min, gap_max, typeof(start), typeof(queue_time), typeof(ttft), typeof(latency),
			typeof(input_tokens), typeof(output_tokens), typeof(error), typeof(gap_sum), typeof(gap_min), typeof(gap_max)
			FROM requests ORDER BY idx`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out [][]any
		for rows.Next() {
			row := make([]any, 22)
			ptrs := make([]any, len(row))
			for i := range row {
				ptrs[i] = &row[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range row {
				if f, ok := v.(float64); ok {
					row[i] = math.Float64bits(f) // -0 and 0 apart
				}
			}
			out = append(out, row)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	bulk, plain := dump(true), dump(false)
	if len(bulk) != len(reqs) || len(plain) != len(reqs) {
		t.Fatalf("%d rows in bulk and %d through database/sql, want %d", len(bulk), len(plain), len(reqs))
	}
	for i := range bulk {
		if !reflect.DeepEqual(bulk[i], plain[i]) {
			t.Fatalf("request %d stored\n in bulk:            %v\n through database/sql: %v", i, bulk[i], plain[i])
		}
	}
}

// TestRequestsInsertErrorNamesTheRecord: a record SQLite refuses (a
// second record with the same index) fails the run with an error that
// names the record and is SQLite's constraint error, and the transaction
// rolls back to nothing.
func TestRequestsInsertErrorNamesTheRecord(t *testing.T) {
	t.Parallel()
	a := newArchive(t)
	tx := begin(t, a)
	sha := writeBlob(t, tx, []byte("raw"), "a.json")
	run := sampleRun(0)
	run.Requests = awkwardRequests()
	run.Requests[2001].Index = 2000
	err := tx.PutRun(runRecord(sha, run))
	var se sqlite3.Error
	if err == nil || !errors.As(err, &se) || se.Code != sqlite3.ErrConstraint || !strings.Contains(err.Error(), "request 2000: ") {
		t.Fatalf("PutRun = %v, want SQLite's constraint error naming request 2000", err)
	}
	t.Logf("the error: %v", err)
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, a.r, "requests"); n != 0 {
		t.Errorf("%d request rows after the rollback", n)
	}
}

// TestGroupRequestsShareOneInserter: a group's parts insert their request
// rows through the one Inserter of the group's transaction. A part whose
// records SQLite refuses names the record of its own run (not a row count
// over the group) and is rolled back alone; the parts before and after it
// keep every record.
func TestGroupRequestsShareOneInserter(t *testing.T) {
	t.Parallel()
	a := newArchive(t)
	group, err := a.BeginGroup(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer group.Rollback()
	ids := map[string]int{}
	for part := range 3 {
		tx, err := group.Begin()
		if err != nil {
			t.Fatal(err)
		}
		sha := writeBlob(t, tx, []byte(fmt.Sprintf("raw %d", part)), fmt.Sprintf("f%d.json", part))
		run := sampleRun(part)
		run.Requests = awkwardRequests()
		if part == 1 {
			run.Requests[2001].Index = 2000
		}
		rec := runRecord(sha, run)
		err = tx.PutRun(rec)
		if part == 1 {
			if err == nil || !strings.Contains(err.Error(), "request 2000: ") {
				t.Fatalf("part 1: PutRun = %v, want SQLite's constraint error naming request 2000", err)
			}
			if err := tx.Rollback(); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("part %d: %v", part, err)
		}
		ids[rec.ID] = len(run.Requests)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if err := group.Commit(); err != nil {
		t.Fatal(err)
	}
	rows, err := a.r.Query("SELECT run_id, count(*), min(idx), max(idx) FROM requests GROUP BY run_id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string]int{}
	for rows.Next() {
		var id string
		var n, lo, hi int
		if err := rows.Scan(&id, &n, &lo, &hi); err != nil {
			t.Fatal(err)
		}
		if lo != 0 || hi != n-1 {
			t.Errorf("run %s: records %d to %d of %d", id, lo, hi, n)
		}
		got[id] = n
	}
	if !reflect.DeepEqual(got, ids) {
		t.Errorf("records by run %v, want %v (parts 0 and 2)", got, ids)
	}
}
