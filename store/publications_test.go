package store

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func digestOf(s string) string { return sha256Hex([]byte(s)) }

// publish records a publication and fails the test on an error.
func publish(t *testing.T, a *Archive, p NewPublication, errata ...Erratum) (Publication, bool, int) {
	t.Helper()
	calls := 0
	pub, rec, err := a.Publish(context.Background(), p, func(latest Publication) ([]Erratum, error) {
		calls++
		return errata, nil
	})
	if err != nil {
		t.Fatalf("Publish(%+v): %v", p, err)
	}
	return pub, rec, calls
}

// TestPublishVersions runs one case study through publications that change
// or do not, each in its own transaction, and reads the history back.
func TestPublishVersions(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		path := e.path(t)
		a := openArchive(t, path, Options{})
		day1 := time.Date(2026, 8, 18, 10, 15, 0, 123, time.FixedZone("CEST", 2*3600))
		v1 := NewPublication{CaseID: "qwen3-batch", Digest: digestOf("a"), Snapshot: `{"figures": {"x": "1"}}`, At: day1, ToolVersion: "test"}

		pub, rec, calls := publish(t, a, v1)
		if !rec || pub.Version != 1 || calls != 0 || !pub.RecordedAt.Equal(day1) || pub.RecordedAt.Location() != time.UTC || len(pub.Errata) != 0 {
			t.Fatalf("first publication = %+v, recorded %v, changes called %d times; want version 1 at %v UTC, no errata, changes not called",
				pub, rec, calls, day1)
		}

		// The same digest and snapshot: nothing written, changes not asked.
		same := v1
		same.At = day1.Add(24 * time.Hour)
		pub, rec, calls = publish(t, a, same, Erratum{Kind: "figure", Name: "x"})
		if rec || pub.Version != 1 || calls != 0 || !pub.RecordedAt.Equal(day1) {
			t.Errorf("unchanged publication = %+v, recorded %v, changes called %d times; want version 1 as first recorded", pub, rec, calls)
		}

		// Same digest, a snapshot that differs in form only (the caller finds
		// no change): nothing written.
		form := v1
		form.Snapshot = `{"figures":{"x":"1"}}`
		if pub, rec, calls = publish(t, a, form); rec || pub.Version != 1 || calls != 1 {
			t.Errorf("a snapshot differing in form = %+v, recorded %v, changes called %d times; want version 1 kept", pub, rec, calls)
		}

		// A change without errata under a new digest is refused.
		bare := v1
		bare.Digest = digestOf("b")
		if _, _, err := a.Publish(context.Background(), bare, func(Publication) ([]Erratum, error) { return nil, nil }); !errors.Is(err, ErrNoChanges) {
			t.Errorf("new digest, no errata: %v, want ErrNoChanges", err)
		}
		// An error of the caller's diff writes nothing.
		boom := errors.New("boom")
		if _, _, err := a.Publish(context.Background(), bare, func(Publication) ([]Erratum, error) { return nil, boom }); !errors.Is(err, boom) {
			t.Errorf("failing changes: %v, want it passed on", err)
		}

		// A real change: version 2 with the errata in the order given, diffed
		// against version 1.
		day2 := day1.Add(48 * time.Hour)
		v2 := NewPublication{CaseID: "qwen3-batch", Digest: digestOf("b"), Snapshot: `{"figures": {"x": "2"}}`, At: day2}
		var seen Publication
		pub, rec, err := a.Publish(context.Background(), v2, func(latest Publication) ([]Erratum, error) {
			seen = latest
			return []Erratum{{Kind: "figure", Name: "x", Old: "1 s", New: "2 s"}, {Kind: "text", Name: "narrative.en", Old: "aaaa", New: "bbbb"}}, nil
		})
		if err != nil || !rec || pub.Version != 2 || len(pub.Errata) != 2 || pub.Errata[0].Seq != 1 || pub.Errata[1].Seq != 2 {
			t.Fatalf("changed publication = %+v, recorded %v, %v; want version 2 with errata 1 and 2", pub, rec, err)
		}
		if seen.Version != 1 || seen.Snapshot != v1.Snapshot || seen.Digest != v1.Digest {
			t.Errorf("changes saw %+v, want version 1", seen)
		}
		// Publishing version 2 again changes nothing; another case id starts
		// at 1.
		if pub, rec, _ = publish(t, a, v2); rec || pub.Version != 2 || len(pub.Errata) != 2 {
			t.Errorf("version 2 again = %+v, recorded %v", pub, rec)
		}
		other := NewPublication{CaseID: "other", Digest: digestOf("b"), Snapshot: `{}`}
		if pub, rec, _ = publish(t, a, other); !rec || pub.Version != 1 {
			t.Errorf("another case study = %+v, recorded %v; want its version 1", pub, rec)
		}
		// Going back to version 1's content is a change too: history only grows.
		v3 := v1
		v3.At = day2.Add(time.Hour)
		if pub, rec, _ = publish(t, a, v3, Erratum{Kind: "figure", Name: "x", Old: "2 s", New: "1 s"}); !rec || pub.Version != 3 {
			t.Errorf("back to version 1's content = %+v, recorded %v; want version 3", pub, rec)
		}

		for _, bad := range []NewPublication{
			{CaseID: "", Digest: digestOf("a"), Snapshot: "{}"},
			{CaseID: "x", Digest: "ABC", Snapshot: "{}"},
			{CaseID: "x", Digest: digestOf("a"), Snapshot: "[1]"},
			{CaseID: "x", Digest: digestOf("a"), Snapshot: "{"},
		} {
			if _, _, err := a.Publish(context.Background(), bad, nil); err == nil {
				t.Errorf("Publish(%+v) accepted", bad)
			}
		}
		a.Close()

		// The history, read-only, oldest first.
		ro := openArchive(t, path, Options{ReadOnly: true})
		pubs, err := ro.Publications("qwen3-batch")
		if err != nil {
			t.Fatal(err)
		}
		var versions []int
		for _, p := range pubs {
			versions = append(versions, p.Version)
		}
		if !slices.Equal(versions, []int{1, 2, 3}) {
			t.Fatalf("versions %v, want 1 2 3", versions)
		}
		if len(pubs[0].Errata) != 0 || len(pubs[1].Errata) != 2 || pubs[1].Errata[0] != (Erratum{Seq: 1, Kind: "figure", Name: "x", Old: "1 s", New: "2 s"}) ||
			!pubs[1].RecordedAt.Equal(day2) || pubs[1].Snapshot != v2.Snapshot || pubs[1].Digest != v2.Digest || len(pubs[2].Errata) != 1 {
			t.Errorf("history read back: %+v", pubs)
		}
		if pubs, err := ro.Publications("never"); err != nil || len(pubs) != 0 {
			t.Errorf("Publications of an unpublished case = %+v, %v", pubs, err)
		}
		if _, _, err := ro.Publish(context.Background(), v2, nil); !errors.Is(err, ErrReadOnly) {
			t.Errorf("Publish on a read-only archive: %v, want ErrReadOnly", err)
		}
		// Each recorded version is an event of the archive's history.
		evs, err := ro.Events("")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, ev := range evs {
			if ev.Action == "publish" {
				n++
			}
		}
		if n != 4 {
			t.Errorf("%d publish events, want 4 (three versions and the other case study)", n)
		}
	})
}

// TestPublicationsAppendOnly: what another tool does through SQL cannot
// rewrite or remove a recorded version or erratum, or skip a version.
func TestPublicationsAppendOnly(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		path := e.path(t)
		a := openArchive(t, path, Options{})
		publish(t, a, NewPublication{CaseID: "c", Digest: digestOf("a"), Snapshot: `{"v": 1}`})
		publish(t, a, NewPublication{CaseID: "c", Digest: digestOf("b"), Snapshot: `{"v": 2}`}, Erratum{Kind: "figure", Name: "x", Old: "1", New: "2"})
		a.Close()

		db := e.raw(t, path)
		for _, s := range []string{
			`UPDATE publications SET digest = '` + digestOf("c") + `' WHERE version = 1`,
			`UPDATE publications SET recorded_at = '2020-01-01T00:00:00Z'`,
			`DELETE FROM publications WHERE version = 2`,
			`DELETE FROM publications`,
			`UPDATE errata SET new = '3'`,
			`DELETE FROM errata`,
		} {
			_, err := db.Exec(s)
			if err == nil || !strings.Contains(err.Error(), "append-only") {
				t.Errorf("%s: %v, want refused as append-only", s, err)
			}
		}
		if _, err := db.Exec(`INSERT INTO publications VALUES ('c', 4, '2026-08-18T00:00:00Z', ?, '{}')`, digestOf("d")); err == nil {
			t.Error("version 4 after version 2 was accepted")
		}
		if countRows(t, db, "publications") != 2 || countRows(t, db, "errata") != 1 {
			t.Errorf("after the refused statements: %d publications, %d errata; want 2, 1",
				countRows(t, db, "publications"), countRows(t, db, "errata"))
		}
		var old, new string
		if err := db.QueryRow(`SELECT old, new FROM errata`).Scan(&old, &new); err != nil || old != "1" || new != "2" {
			t.Errorf("erratum after the refused statements: %q → %q, %v", old, new, err)
		}
	})
}
