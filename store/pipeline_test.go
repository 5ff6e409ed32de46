package store

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/internal/pgtest"
	"github.com/benchledger/benchledger/provenance"
	"github.com/jackc/pgx/v5/pgconn"
)

// newPostgresArchive is a new archive on a database of its own.
func newPostgresArchive(t *testing.T) *Archive {
	t.Helper()
	return openArchive(t, pgtest.NewDatabase(t), Options{})
}

// TestPostgresWriterConnFound: the writer's pgx connection is known, so a
// run's inserts are pipelined; without it they would go one round trip
// each, silently slower.
func TestPostgresWriterConnFound(t *testing.T) {
	t.Parallel()
	a := newPostgresArchive(t)
	if a.writerPG.Load() == nil {
		t.Fatal("no pgx connection under the writer's pool: a run's inserts are not pipelined")
	}
	tx := begin(t, a)
	tx.startPipeline()
	if tx.pipe == nil {
		t.Fatal("startPipeline on PostgreSQL made no pipeline")
	}
	if err := tx.flushPipeline(); err != nil {
		t.Fatal(err)
	}
}

// manyRequests are the awkward records and more, so that a pipeline
// sends its statements in more than one batch.
func manyRequests() []benchrun.Request {
	reqs := awkwardRequests()
	n := len(reqs)
	for i := range n {
		r := reqs[i]
		r.Index += n
		reqs = append(reqs, r)
	}
	if len(reqs)*requestColumns <= pipelineValues {
		panic("too few records for two batches")
	}
	return reqs
}

// TestPostgresPipelineStoresAlike: a run stored through the pipeline is
// the rows database/sql stores statement by statement, value for value,
// with records of every awkward kind in more statements than one.
func TestPostgresPipelineStoresAlike(t *testing.T) {
	t.Parallel()
	store := func(pipelined bool) map[string][]string {
		a := newPostgresArchive(t)
		if !pipelined {
			a.writerPG.Store(nil)
		}
		tx := begin(t, a)
		sha := writeBlob(t, tx, []byte("raw"), "a.json")
		run := sampleRun(0)
		run.Requests = manyRequests()
		if err := tx.PutRun(runRecord(sha, run, manifest("hardware.gpu_model", "H100 ✓"), manifest("runtime.engine", "vllm"))); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		return dumpTables(t, a)
	}
	piped, plain := store(true), store(false)
	for _, table := range []string{"runs", "provenance", "stated", "requests", "request_packs"} {
		rows := plain[table]
		if len(rows) == 0 {
			t.Errorf("%s: no rows stored", table)
		}
		if len(piped[table]) != len(rows) {
			t.Errorf("%s: %d rows pipelined, %d one statement at a time", table, len(piped[table]), len(rows))
			continue
		}
		for i := range rows {
			if piped[table][i] != rows[i] {
				t.Errorf("%s row %d:\n pipelined: %v\n one by one: %v", table, i, piped[table][i], rows[i])
				break
			}
		}
	}
}

// TestPostgresPipelineErrorNamesTheStatement: a statement the server
// refuses in the middle of a pipeline fails the run with the error that
// statement would have given alone (naming the records, wrapping the
// server's error), and nothing of the run stays: rolled back alone, or,
// in a group, back to its part, the group going on.
func TestPostgresPipelineErrorNamesTheStatement(t *testing.T) {
	t.Parallel()
	// A record repeated in the first batch the pipeline sends, or in the
	// last.
	badRun := func(early bool) *benchrun.Run {
		run := sampleRun(1)
		run.Requests = manyRequests()
		if early {
			run.Requests[2001].Index = 2000
		} else {
			run.Requests[5801].Index = 5800
		}
		return run
	}
	check := func(err error, early bool) {
		t.Helper()
		want := "requests 5760 to 5823: "
		if early {
			want = "requests 1984 to 2047: "
		}
		var pe *pgconn.PgError
		if err == nil || !errors.As(err, &pe) || pe.Code != "23505" || !strings.Contains(err.Error(), want) {
			t.Fatalf("PutRun = %v, want the server's unique violation naming %s", err, want)
		}
	}

	for _, early := range []bool{true, false} {
		t.Run(fmt.Sprint("transaction, early ", early), func(t *testing.T) {
			t.Parallel()
			a := newPostgresArchive(t)
			tx := begin(t, a)
			sha := writeBlob(t, tx, []byte("raw"), "a.json")
			check(tx.PutRun(runRecord(sha, badRun(early))), early)
			if err := tx.Rollback(); err != nil {
				t.Fatal(err)
			}
			for _, table := range []string{"runs", "provenance", "stated", "requests", "request_packs"} {
				if n := countRows(t, a.r, table); n != 0 {
					t.Errorf("%d %s rows after the rollback", n, table)
				}
			}
		})
	}

	t.Run("group", func(t *testing.T) {
		t.Parallel()
		a := newPostgresArchive(t)
		g, err := a.BeginGroup(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer g.Rollback()
		for i, bad := range []bool{false, true, false} {
			part, err := g.Begin()
			if err != nil {
				t.Fatal(err)
			}
			sha := writeBlob(t, part, []byte(fmt.Sprint("raw ", i)), "a.json")
			run := sampleRun(i)
			if bad {
				run = badRun(false)
			}
			err = part.PutRun(runRecord(sha, run))
			if bad {
				check(err, false)
				if err := part.Rollback(); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := part.Commit(); err != nil {
				t.Fatal(err)
			}
		}
		if err := g.Commit(); err != nil {
			t.Fatal(err)
		}
		if n := countRows(t, a.r, "runs"); n != 2 {
			t.Errorf("%d runs after the group, want the 2 good parts'", n)
		}
		if n := countRows(t, a.r, "requests"); n != 2*len(sampleRun(0).Requests) {
			t.Errorf("%d request rows, want the good parts' %d", n, 2*len(sampleRun(0).Requests))
		}
	})
}

// TestSQLiteJSONArraysInChunks: lists made into json_array texts many to a
// query are each what a query of its own gives, across the chunks the
// limits on columns and variables make.
func TestSQLiteJSONArraysInChunks(t *testing.T) {
	t.Parallel()
	db, err := jsonEngine()
	if err != nil {
		t.Fatal(err)
	}
	var lists [][]any
	for i := range 2500 {
		l := []any{fmt.Sprint("run ", i), int64(i), float64(i) / 3, nil, int32(-i)}
		if i%3 == 0 { // so that a chunk's variables run out before its columns
			for range 95 {
				l = append(l, 0.1)
			}
		}
		lists = append(lists, l)
	}
	want := make([]string, len(lists))
	for i, l := range lists {
		vals := append([]any(nil), l...)
		vals[4] = int64(vals[4].(int32))
		q := "SELECT json_array(" + strings.TrimSuffix(strings.Repeat("?,", len(vals)), ",") + ")"
		if err := db.QueryRow(q, vals...).Scan(&want[i]); err != nil {
			t.Fatal(err)
		}
	}
	got, err := sqliteJSONArrays(lists)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d texts for %d lists", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("list %d: %.80s, alone %.80s", i, got[i], want[i])
		}
	}
	if _, err := sqliteJSONArrays([][]any{{[]byte("x")}}); err == nil {
		t.Error("a []byte value made a JSON text")
	}
}

// TestPostgresChainStatesPipelinedAlike: the records and latest links a
// commit reads in one batch are those read query by query, for a run with
// children, an event and a thing linked before.
func TestPostgresChainStatesPipelinedAlike(t *testing.T) {
	t.Parallel()
	a := newPostgresArchive(t)
	tx := begin(t, a)
	sha := writeBlob(t, tx, []byte("raw"), "a.json")
	if err := tx.PutRun(runRecord(sha, sampleRun(0), manifest("hardware.gpu_model", "H100"))); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	id := runRecord(sha, sampleRun(0)).ID

	tx = begin(t, a)
	if err := tx.AddProvenance(id, provenance.Record{cli("runtime.engine", "vllm")}, true, nil); err != nil {
		t.Fatal(err)
	}
	if err := tx.AppendEvent(Event{Action: "test", RunID: id, Detail: `{"n": 1.5}`}); err != nil {
		t.Fatal(err)
	}
	tx.touch("run", "no-such-run")
	if len(tx.touched) < 3 {
		t.Fatalf("touched %v, want the run, the event and the missing run", tx.touched)
	}
	piped, err := tx.touchedStates()
	if err != nil {
		t.Fatal(err)
	}
	conn := a.writerPG.Load()
	a.writerPG.Store(nil)
	plain, err := tx.touchedStates()
	a.writerPG.Store(conn)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(piped, plain) {
		t.Fatalf("pipelined:\n%+v\nquery by query:\n%+v", piped, plain)
	}
	if len(plain[0].recs) != 1 || plain[0].last == "" || !strings.Contains(plain[0].recs[0].text, "H100") {
		t.Errorf("the run's state %+v: want its record and the link of its first commit", plain[0])
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if rep, err := a.VerifyChain(t.Context()); err != nil || len(rep.Problems) > 0 {
		t.Fatalf("VerifyChain: %+v, %v", rep, err)
	}
}
