package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/provenance"
)

// TestWriteToChangedRunRefused: a write that would change a run another
// program changed is refused with nothing written, and the error names the
// run, the audit check and the ways forward (docs/audit.md, "A write to a
// changed archive"); the chain still shows the change afterwards.
func TestWriteToChangedRunRefused(t *testing.T) {
	t.Parallel()
	a, rec := oneRunArchive(t)
	if _, err := a.w.Exec(`UPDATE runs SET model = 'forged' WHERE id = ?`, rec.ID); err != nil {
		t.Fatal(err)
	}
	links := func() (n int) {
		t.Helper()
		if err := a.r.QueryRow(`SELECT count(*) FROM chain`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := links()
	for name, write := range map[string]func(tx *Tx) error{
		"amend": func(tx *Tx) error {
			return tx.RecordCorrection([]Correction{{RunID: rec.ID, Field: "hardware.gpu_model", Old: "NVIDIA H100 80GB HBM3", HadOld: true,
				New: "NVIDIA H200", Reason: "r", Actor: "ann"}}, false, nil)
		},
		"provenance completed": func(tx *Tx) error {
			return tx.AddProvenance(rec.ID, provenance.Record{cli("hardware.node", "n1")}, false, nil)
		},
	} {
		tx := begin(t, a)
		if err := write(tx); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		err := tx.Commit()
		var te *TamperedError
		if !errors.As(err, &te) || !errors.Is(err, ErrTampered) {
			t.Fatalf("%s on a changed run: %v, want a TamperedError", name, err)
		}
		for _, want := range []string{"run " + rec.ID, "nothing was written", CheckChainChanged, "backup", "fresh archive"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %q lacks %q", name, err, want)
			}
		}
		if n := links(); n != before {
			t.Errorf("%s: the refused write added %d links", name, n-before)
		}
	}
	cs, err := a.Corrections(rec.ID)
	if err != nil || len(cs) != 0 {
		t.Errorf("corrections after the refused amend: %v, %v", cs, err)
	}
	rep, err := a.VerifyChain(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Check != CheckChainChanged || rep.Problems[0].Ref != rec.ID {
		t.Errorf("after the refusals the chain reports %+v, want the run's change alone", rep.Problems)
	}
}

// TestChainLinksWhatChanged: a transaction links the things it touched
// whose record differs from their latest link only: an event naming a run
// it does not change links the event alone, while a part that changes
// the run links both, each after the links it finds (one query for all).
func TestChainLinksWhatChanged(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		path := e.path(t)
		a := openArchive(t, path, Options{})
		tx := begin(t, a)
		writeFile(t, tx, 1)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		links := func() int { return countRows(t, e.raw(t, path), "chain") }
		if n := links(); n != 2 {
			t.Fatalf("a new run and its event: %d links, want 2", n)
		}
		runs, err := a.ListRuns(Filter{})
		if err != nil || len(runs) != 1 {
			t.Fatal(runs, err)
		}
		tx = begin(t, a)
		if err := tx.AppendEvent(Event{Action: "note", RunID: runs[0].ID, Detail: `{"seen": true}`}); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if n := links(); n != 3 {
			t.Errorf("an event naming an unchanged run: %d links, want 3 (the event's alone)", n)
		}
		tx = begin(t, a)
		if err := tx.AddProvenance(runs[0].ID, provenance.Record{manifest("runtime.engine", "vllm")}, false, []string{"x"}); err != nil {
			t.Fatal(err)
		}
		if err := tx.AppendEvent(Event{Action: "provenance-completed", RunID: runs[0].ID}); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if n := links(); n != 5 {
			t.Errorf("a run changed, with its event: %d links, want 5", n)
		}
		if rep, err := a.VerifyChain(context.Background()); err != nil {
			t.Fatal(err)
		} else if len(rep.Problems) > 0 {
			t.Errorf("chain: %v", rep.Problems)
		}
	})
}
