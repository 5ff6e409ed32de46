package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/provenance"
)

func TestRunRoundTrip(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		path := e.path(t)
		a := openArchive(t, path, Options{})
		tx := begin(t, a)
		sha := writeBlob(t, tx, []byte("raw bytes of the file"), "baseline.json")
		run := sampleRun(3)
		rec := runRecord(sha, run,
			manifest("campaign", "qwen3-batch"),
			manifest("hardware.gpu_model", "NVIDIA H100 80GB HBM3"),
			manifest("hardware.gpu_count", "8"),
			manifest("runtime.engine", "vllm"),
			manifest("runtime.version", "0.25.0"),
			manifest("role", "baseline"),
			cli("runtime.version", "0.25.1"), // --set wins over the manifest
			provenance.Entry{Field: "measurement.date", Value: "2025-10-09", Source: provenance.FromFile},
		)
		if err := tx.PutRun(rec); err != nil {
			t.Fatal(err)
		}
		if want := benchrun.LegacyID(sha, 3); rec.ID != want {
			t.Fatalf("PutRun set ID %q, want %q", rec.ID, want)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}

		for _, opt := range []Options{{}, {ReadOnly: true}} {
			a := a
			if opt.ReadOnly {
				a = openArchive(t, path, opt)
			}
			got, err := a.Run(rec.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.ID != rec.ID || got.BlobSHA256 != sha || got.FileName != rec.FileName || got.Publishable != rec.Publishable {
				t.Errorf("record header: got %+v", got)
			}
			if !got.IngestedAt.Equal(rec.IngestedAt) || got.IngestedAt.Location() != time.UTC {
				t.Errorf("IngestedAt = %v, want %v in UTC", got.IngestedAt, rec.IngestedAt)
			}
			if !reflect.DeepEqual(got.Missing, rec.Missing) {
				t.Errorf("Missing = %v, want %v", got.Missing, rec.Missing)
			}
			// %#v prints NaN as NaN, so unknown values compare equal.
			if g, w := fmt.Sprintf("%#v", *got.Run), fmt.Sprintf("%#v", *run); g != w {
				t.Errorf("Run differs after the round trip:\ngot  %s\nwant %s", g, w)
			}
			wantProv, _ := withFacts(rec.Provenance, run.Facts)
			if !reflect.DeepEqual(got.Provenance, wantProv) {
				t.Errorf("Provenance:\ngot  %v\nwant %v", got.Provenance, wantProv)
			}
			eff := got.Provenance.Effective()
			if eff["runtime.version"] != "0.25.1" || eff["checkpoint.model_id"] != "Qwen/Qwen3-30B-A3B" {
				t.Errorf("effective provenance = %v", eff)
			}
			reqs, err := a.Requests(rec.ID)
			if err != nil || fmt.Sprintf("%#v", reqs) != fmt.Sprintf("%#v", run.Requests) {
				t.Errorf("Requests = %#v, %v", reqs, err)
			}
			if reqs, err := a.Requests("zz" + rec.ID[2:]); reqs != nil || !errors.Is(err, ErrNotFound) {
				t.Errorf("Requests of a run the archive does not have = %v, %v; want ErrNotFound", reqs, err)
			}
			meta, err := a.RunMeta(rec.ID)
			if err != nil || meta.Run.Requests != nil || !meta.Run.HasRequests || len(meta.Run.Stated) != 3 {
				t.Errorf("RunMeta = %+v, %v; want no requests but everything else", meta, err)
			}
			runs, err := a.ListRuns(Filter{})
			if err != nil || len(runs) != 1 {
				t.Fatalf("ListRuns = %v, %v", runs, err)
			}
			wantSummary := RunSummary{
				ID: rec.ID, Campaign: "qwen3-batch", Role: "baseline", Model: "Qwen/Qwen3-30B-A3B", Engine: "vllm",
				EngineVersion: "0.25.1", GPU: "8 x NVIDIA H100 80GB HBM3", Date: "2025-10-09", Format: "vllm-serve-json",
				Publishable: false, FileName: rec.FileName, RequestCount: 3, BlobSHA256: sha, IngestedAt: rec.IngestedAt.UTC(),
			}
			if !reflect.DeepEqual(runs[0], wantSummary) {
				t.Errorf("summary:\ngot  %+v\nwant %+v", runs[0], wantSummary)
			}
		}

		// Unknown values are NULL in the file, not sentinel numbers.
		db := e.raw(t, path)
		var nullTTFT, nullTokens, nullErr, nullGapMin, nullStated int
		db.QueryRow("SELECT count(*) FROM requests WHERE ttft IS NULL").Scan(&nullTTFT)
		db.QueryRow("SELECT count(*) FROM requests WHERE input_tokens IS NULL AND output_tokens IS NULL").Scan(&nullTokens)
		db.QueryRow("SELECT count(*) FROM requests WHERE error IS NULL").Scan(&nullErr)
		db.QueryRow("SELECT count(*) FROM requests WHERE gap_min IS NULL").Scan(&nullGapMin)
		db.QueryRow("SELECT count(*) FROM stated WHERE value IS NULL").Scan(&nullStated)
		if nullTTFT != 1 || nullTokens != 1 || nullErr != 2 || nullGapMin != 1 || nullStated != 1 {
			t.Errorf("NULL counts: ttft %d, tokens %d, error %d, gap_min %d, stated %d; want 1, 1, 2, 1, 1",
				nullTTFT, nullTokens, nullErr, nullGapMin, nullStated)
		}
	})
}

func TestSummaryOnlyRun(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		a := openArchive(t, e.path(t), Options{})
		tx := begin(t, a)
		sha := writeBlob(t, tx, []byte("summary"), "summary.json")
		run := sampleRun(0)
		run.Requests, run.HasRequests = nil, false
		run.Completed, run.Failed = 1000, 2
		run.Facts, run.Extra, run.Notes, run.Stated = nil, nil, nil, nil
		rec := runRecord(sha, run)
		rec.Missing = nil
		if err := tx.PutRun(rec); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		got, err := a.Run(rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := fmt.Sprintf("%#v", *got.Run), fmt.Sprintf("%#v", *run); g != w {
			t.Errorf("Run differs:\ngot  %s\nwant %s", g, w)
		}
		if got.Missing != nil || got.Provenance != nil {
			t.Errorf("Missing %v, Provenance %v; want nil", got.Missing, got.Provenance)
		}
		if reqs, err := a.Requests(rec.ID); reqs != nil || err != nil {
			t.Errorf("Requests = %v, %v; want nil, nil", reqs, err)
		}
		runs, _ := a.ListRuns(Filter{})
		if len(runs) != 1 || runs[0].RequestCount != 1002 {
			t.Errorf("RequestCount = %+v, want 1002", runs)
		}
	})
}

func TestPutRunRefusals(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		a := openArchive(t, e.path(t), Options{})
		tx := begin(t, a)
		sha := writeBlob(t, tx, []byte("file"), "f.json")
		if err := tx.PutRun(runRecord(sha, sampleRun(0))); err != nil {
			t.Fatal(err)
		}
		contradicting := runRecord(sha, sampleRun(1), provenance.Entry{Field: "measurement.date", Value: "2024-01-01", Source: provenance.FromFile})
		cases := []struct {
			name string
			rec  *RunRecord
			is   error
			text string
		}{
			{"duplicate run", runRecord(sha, sampleRun(0)), ErrExists, ""},
			{"unknown blob", runRecord(sha256Hex([]byte("not stored")), sampleRun(0)), ErrNotFound, ""},
			{"bad sha", runRecord("xyz", sampleRun(0)), nil, "64 hex"},
			{"facts contradict file entry", contradicting, nil, "measurement.date"},
			{"unknown source", runRecord(sha, sampleRun(3), provenance.Entry{Field: "role", Value: "x", Source: "guess"}), nil, "unknown source"},
			{"no run", &RunRecord{BlobSHA256: sha}, nil, "no run"},
		}
		for _, c := range cases {
			err := tx.PutRun(c.rec)
			if err == nil || (c.is != nil && !errors.Is(err, c.is)) || !strings.Contains(err.Error(), c.text) {
				t.Errorf("%s: PutRun = %v, want %v / %q", c.name, err, c.is, c.text)
			}
		}
	})
}

func TestRollbackLeavesNothing(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		path := e.path(t)
		a := openArchive(t, path, Options{})
		a.chunkSize = 64
		tx := begin(t, a)
		sha := writeBlob(t, tx, randomBytes(1000, 1), "x.json")
		rec := runRecord(sha, sampleRun(0), manifest("campaign", "c"))
		if err := tx.PutRun(rec); err != nil {
			t.Fatal(err)
		}
		if err := tx.AddProvenance(rec.ID, provenance.Record{cli("role", "tuned")}, true, nil); err != nil {
			t.Fatal(err)
		}
		if err := tx.AppendEvent(Event{Action: "ingest", RunID: rec.ID, BlobSHA256: sha}); err != nil {
			t.Fatal(err)
		}
		// A second blob still being written when the transaction is abandoned.
		bw, err := tx.NewBlob(sha256Hex(randomBytes(5000, 2)), 5000, "y.json")
		if err != nil {
			t.Fatal(err)
		}
		bw.Write(randomBytes(5000, 2)[:3000])
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		if err := tx.Rollback(); err != nil {
			t.Errorf("second Rollback = %v, want nil", err)
		}
		if err := tx.Commit(); err == nil {
			t.Error("Commit after Rollback succeeded")
		}
		db := e.raw(t, path)
		for _, table := range []string{"blobs", "blob_chunks", "runs", "provenance", "stated", "requests", "events"} {
			if n := countRows(t, db, table); n != 0 {
				t.Errorf("%s holds %d rows after Rollback", table, n)
			}
		}
		// The archive is still usable.
		tx = begin(t, a)
		writeBlob(t, tx, []byte("after"), "after.json")
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestRunByPrefix(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		a := openArchive(t, e.path(t), Options{})
		tx := begin(t, a)
		sha := writeBlob(t, tx, []byte("many runs"), "sweep.json")
		// 17 runs: at least two share their first hex digit.
		var ids []string
		for i := range 17 {
			rec := runRecord(sha, sampleRun(i))
			if err := tx.PutRun(rec); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, rec.ID)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		sort.Strings(ids)
		var shared []string
		for i := 1; i < len(ids) && shared == nil; i++ {
			if ids[i][0] == ids[i-1][0] {
				shared = []string{ids[i-1], ids[i]}
			}
		}
		// The shortest prefix of shared[0] that tells it apart from every other id.
		unique := shared[0]
		for n := 1; n <= len(shared[0]); n++ {
			matches := 0
			for _, id := range ids {
				if strings.HasPrefix(id, shared[0][:n]) {
					matches++
				}
			}
			if matches == 1 {
				unique = shared[0][:n]
				break
			}
		}

		cases := []struct {
			query   string
			want    string
			is      error
			mention []string
		}{
			{query: shared[0], want: shared[0]},
			{query: unique, want: shared[0]},
			{query: strings.ToUpper(unique), want: shared[0]},
			{query: shared[0][:1], is: ErrAmbiguous, mention: shared},
			{query: "zz", is: ErrNotFound},
			{query: "", is: ErrNotFound},
		}
		for _, c := range cases {
			rec, err := a.Run(c.query)
			switch {
			case c.is != nil:
				if !errors.Is(err, c.is) {
					t.Errorf("Run(%q) = %v, want %v", c.query, err, c.is)
				}
				for _, m := range c.mention {
					if err != nil && !strings.Contains(err.Error(), m) {
						t.Errorf("Run(%q) error %q does not list candidate %s", c.query, err, m)
					}
				}
			case err != nil:
				t.Errorf("Run(%q): %v", c.query, err)
			case rec.ID != c.want:
				t.Errorf("Run(%q) = %s, want %s", c.query, rec.ID, c.want)
			}
		}
		summaries, err := a.RunsOfBlob(sha)
		if err != nil || len(summaries) != 17 || summaries[5].ID != benchrun.LegacyID(sha, 5) {
			t.Errorf("RunsOfBlob: %d runs, %v; want 17 in ordinal order", len(summaries), err)
		}
	})
}

func TestListRunsFilters(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		a := openArchive(t, e.path(t), Options{})
		tx := begin(t, a)
		sha := writeBlob(t, tx, []byte("filters"), "f.json")
		type spec struct {
			campaign, role, model, engine, gpu, count, date string
		}
		specs := []spec{
			{"Qwen3-Batch", "baseline", "Qwen/Qwen3-30B-A3B", "vllm", "NVIDIA H100 80GB HBM3", "1", "2025-10-09"},
			{"Qwen3-Batch", "tuned", "Qwen/Qwen3-30B-A3B", "vllm", "NVIDIA H100 80GB HBM3", "8", "2025-10-10T09:30:00Z"},
			{"llama-latency", "baseline", "meta-llama/Llama-3.1-8B", "sglang", "NVIDIA A100-SXM4-80GB", "2", "2025-09-30"},
			{"llama-latency", "Tuned", "meta-llama/Llama-3.1-8B", "SGLang", "NVIDIA A100-SXM4-80GB", "", "2024-12-31"},
			{"", "", "", "", "", "", ""},
		}
		ids := make([]string, len(specs))
		for i, s := range specs {
			run := sampleRun(i)
			run.Facts = nil
			var prov provenance.Record
			add := func(field, value string) {
				if value != "" {
					prov = append(prov, manifest(field, value))
				}
			}
			add("campaign", s.campaign)
			add("role", s.role)
			add("checkpoint.repository", s.model)
			add("runtime.engine", s.engine)
			add("hardware.gpu_model", s.gpu)
			add("hardware.gpu_count", s.count)
			add("measurement.date", s.date)
			rec := runRecord(sha, run, prov...)
			if err := tx.PutRun(rec); err != nil {
				t.Fatal(err)
			}
			ids[i] = rec.ID
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name string
			f    Filter
			want []int // indexes into specs, in the expected order
		}{
			{"all, by date", Filter{}, []int{4, 3, 2, 0, 1}},
			{"campaign substring, any case", Filter{Campaign: "qwen3"}, []int{0, 1}},
			{"model", Filter{Model: "LLAMA-3.1"}, []int{3, 2}},
			{"engine", Filter{Engine: "sglang"}, []int{3, 2}},
			{"gpu count prefix", Filter{GPU: "8 x"}, []int{1}},
			{"gpu model", Filter{GPU: "a100"}, []int{3, 2}},
			{"role exact, any case", Filter{Role: "tuned"}, []int{3, 1}},
			{"role is not a substring match", Filter{Role: "tune"}, nil},
			{"since day", Filter{Since: "2025-10-09"}, []int{0, 1}},
			{"until day includes RFC 3339 times that day", Filter{Until: "2025-10-10"}, []int{3, 2, 0, 1}},
			{"since month", Filter{Since: "2025-10"}, []int{0, 1}},
			{"until year", Filter{Until: "2024"}, []int{3}},
			{"window", Filter{Since: "2025-01-01", Until: "2025-09-30"}, []int{2}},
			{"combined", Filter{Campaign: "latency", Role: "baseline", Since: "2025"}, []int{2}},
			{"no match", Filter{Campaign: "nothing"}, nil},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				runs, err := a.ListRuns(c.f)
				if err != nil {
					t.Fatal(err)
				}
				var got, want []string
				for _, r := range runs {
					got = append(got, r.ID)
				}
				for _, i := range c.want {
					want = append(want, ids[i])
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("ListRuns(%+v) = %v, want %v", c.f, got, want)
				}
			})
		}
		runs, _ := a.ListRuns(Filter{Role: "baseline", Campaign: "qwen"})
		if len(runs) != 1 || runs[0].GPU != "NVIDIA H100 80GB HBM3" {
			t.Errorf("a single GPU gets no count prefix: %+v", runs)
		}
	})
}

func TestAddProvenance(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		a := openArchive(t, e.path(t), Options{})
		tx := begin(t, a)
		sha := writeBlob(t, tx, []byte("incomplete"), "i.json")
		rec := runRecord(sha, sampleRun(0), manifest("campaign", "draft"))
		if err := tx.PutRun(rec); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}

		tx = begin(t, a)
		more := provenance.Record{
			manifest("hardware.gpu_model", "NVIDIA H100 80GB HBM3"),
			manifest("hardware.gpu_count", "2"),
			manifest("campaign", "qwen3-batch"), // replaces the manifest value
			cli("runtime.version", "0.25.1"),
		}
		if err := tx.AddProvenance(rec.ID, more, true, nil); err != nil {
			t.Fatal(err)
		}
		if err := tx.AddProvenance(rec.ID, provenance.Record{{Field: "measurement.date", Value: "2020-01-01", Source: provenance.FromFile}}, true, nil); err == nil {
			t.Error("AddProvenance accepted an entry with source file")
		}
		if err := tx.AddProvenance("000000000000", more, true, nil); !errors.Is(err, ErrNotFound) {
			t.Errorf("AddProvenance to an unknown run = %v, want ErrNotFound", err)
		}
		if err := tx.AppendEvent(Event{Action: "provenance-completed", RunID: rec.ID}); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}

		got, err := a.Run(rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Publishable || got.Missing != nil {
			t.Errorf("Publishable %v, Missing %v; want true, none", got.Publishable, got.Missing)
		}
		eff := got.Provenance.Effective()
		if eff["campaign"] != "qwen3-batch" || eff["runtime.version"] != "0.25.1" || eff["measurement.date"] != "2025-10-09" {
			t.Errorf("effective provenance = %v", eff)
		}
		if len(got.Provenance) != len(sampleRun(0).Facts)+4 {
			t.Errorf("provenance has %d entries: %v", len(got.Provenance), got.Provenance)
		}
		runs, _ := a.ListRuns(Filter{Campaign: "qwen3-batch"})
		if len(runs) != 1 || runs[0].GPU != "2 x NVIDIA H100 80GB HBM3" || runs[0].EngineVersion != "0.25.1" || !runs[0].Publishable {
			t.Errorf("summary after AddProvenance = %+v", runs)
		}
	})
}

func TestEvents(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		a := openArchive(t, e.path(t), Options{})
		tx := begin(t, a)
		at := time.Date(2025, 10, 9, 8, 53, 0, 5, time.FixedZone("JST", 9*3600))
		evs := []Event{
			{At: at, Actor: "alice", ToolVersion: "v0.1.0", Action: "ingest", RunID: "aaaaaaaaaaaa", BlobSHA256: strings.Repeat("ab", 32), Detail: `{"file":"a.json","new":true}`},
			{Action: "ingest", RunID: "bbbbbbbbbbbb"},
			{Action: "reject", Detail: `{"file":"notes.txt","reason":"not a result"}`},
		}
		for _, ev := range evs {
			if err := tx.AppendEvent(ev); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.AppendEvent(Event{Action: "x", Detail: "{not json"}); err == nil {
			t.Error("AppendEvent accepted invalid JSON detail")
		}
		if err := tx.AppendEvent(Event{}); err == nil {
			t.Error("AppendEvent accepted an event without action")
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		all, err := a.Events("")
		if err != nil || len(all) != 3 {
			t.Fatalf("Events(\"\") = %v, %v", all, err)
		}
		first := all[0]
		if first.ID == 0 || !first.At.Equal(at) || first.At.Location() != time.UTC || first.Actor != "alice" ||
			first.ToolVersion != "v0.1.0" || first.RunID != evs[0].RunID || first.BlobSHA256 != evs[0].BlobSHA256 || first.Detail != evs[0].Detail {
			t.Errorf("first event = %+v", first)
		}
		if all[1].Actor == "" || all[1].ToolVersion == "" || all[1].At.IsZero() || all[1].Detail != "" || all[1].BlobSHA256 != "" {
			t.Errorf("defaults not filled: %+v", all[1])
		}
		if all[2].Action != "reject" || all[2].RunID != "" {
			t.Errorf("third event = %+v", all[2])
		}
		one, err := a.Events("bbbbbbbbbbbb")
		if err != nil || len(one) != 1 || one[0].ID != all[1].ID {
			t.Errorf("Events(run) = %+v, %v", one, err)
		}
	})
}

func TestBeginCancelledMidTransaction(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		path := e.path(t)
		a := openArchive(t, path, Options{})
		ctx, cancel := context.WithCancel(context.Background())
		tx, err := a.Begin(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.AppendEvent(Event{Action: "ingest"}); err != nil {
			t.Fatal(err)
		}
		cancel()
		if err := tx.Commit(); err == nil {
			t.Fatal("Commit after the context was cancelled succeeded")
		}
		tx.Rollback()
		if n := countRows(t, e.raw(t, path), "events"); n != 0 {
			t.Errorf("%d events stored from a cancelled transaction", n)
		}
	})
}
