package store

import (
	"context"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/provenance"
)

// TestCorrections records two corrections of one run: the archived entries
// stay, the latest correction of each field is in effect for every reader
// (Run, ScanRuns, the listing columns), the events cannot be changed, and a
// corrected run keeps its id when a richer file would rename it.
func TestCorrections(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		a := openArchive(t, e.path(t), Options{})
		tx := begin(t, a)
		sha := writeBlob(t, tx, []byte("raw"), "baseline.json")
		rec := runRecord(sha, sampleRun(0), manifest("hardware.gpu_model", "NVIDIA H100 80GB HBM3"), manifest("role", "baseline"))
		if err := tx.PutRun(rec); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		tx = begin(t, a)
		err := tx.RecordCorrection([]Correction{
			{RunID: rec.ID, Field: "hardware.gpu_model", Old: "NVIDIA H100 80GB HBM3", HadOld: true, New: "NVIDIA H200", Reason: "wrong node", Actor: "ann"},
			{RunID: rec.ID, Field: "role", Old: "baseline", HadOld: true, Unset: true, Reason: "not a baseline", Actor: "ann"},
		}, false, []string{"role"})
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}

		got, err := a.RunMeta(rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		eff := got.Provenance.Effective()
		if eff["hardware.gpu_model"] != "NVIDIA H200" {
			t.Errorf("value in effect %q, want the correction", eff["hardware.gpu_model"])
		}
		if _, ok := eff["role"]; ok {
			t.Errorf("an unset field has a value in effect: %q", eff["role"])
		}
		archived := 0
		for _, e := range got.Provenance {
			if e.Source == provenance.FromManifest && (e.Field == "hardware.gpu_model" || e.Field == "role") {
				archived++
			}
		}
		if archived != 2 {
			t.Errorf("the archived manifest entries must stay: %+v", got.Provenance)
		}
		var scanned map[string]string
		if err := a.ScanRuns(context.Background(), nil, func(r *RunRecord) error {
			scanned = r.Provenance.Effective()
			return nil
		}); err != nil || scanned["hardware.gpu_model"] != "NVIDIA H200" {
			t.Errorf("ScanRuns does not lay the correction over: %v, %v", scanned, err)
		}
		if runs, _ := a.ListRuns(Filter{GPU: "H200"}); len(runs) != 1 || runs[0].Role != "" || runs[0].Publishable {
			t.Errorf("listing columns after the correction: %+v", runs)
		}
		cs, err := a.Corrections(rec.ID)
		if err != nil || len(cs) != 2 || cs[0].Actor != "ann" || cs[1].Unset != true || cs[1].Old != "baseline" || cs[0].At.IsZero() {
			t.Fatalf("corrections read back: %+v, %v", cs, err)
		}

		// Each refusal in its own transaction: on PostgreSQL a failed
		// statement ends its transaction.
		for _, q := range []string{"UPDATE corrections SET new_value = 'x'", "DELETE FROM corrections"} {
			tx = begin(t, a)
			if _, err := tx.tx.Exec(q); err == nil || !strings.Contains(err.Error(), "append-only") {
				t.Errorf("%s: %v", q, err)
			}
			tx.Rollback()
		}
		tx = begin(t, a)
		defer tx.Rollback()
		if renamed, err := tx.RekeyRun(rec.ID, "0123456789ab", "test"); err != nil || renamed {
			t.Errorf("a corrected run was renamed: %v, %v", renamed, err)
		}
	})
}

// TestCorrectionsInChain: a correction is a link of the archive's hash
// chain and re-links its run (whose listing columns it changes), so a
// clean chain stays clean after amend; a correction inserted by another
// SQLite client is found.
func TestCorrectionsInChain(t *testing.T) {
	t.Parallel()
	forEachEngine(t, func(t *testing.T, e engine) {
		a := openArchive(t, e.path(t), Options{})
		rec := putOneRun(t, a)
		tx := begin(t, a)
		if err := tx.RecordCorrection([]Correction{{RunID: rec.ID, Field: "hardware.gpu_model", Old: "NVIDIA H100 80GB HBM3", HadOld: true,
			New: "NVIDIA H200", Reason: "wrong node", Actor: "ann"}}, false, nil); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		rep, err := a.VerifyChain(context.Background())
		if err != nil || len(rep.Problems) != 0 {
			t.Fatalf("after an amend the chain must verify: %+v %v", rep.Problems, err)
		}
		var links int
		if err := a.r.QueryRow(`SELECT count(*) FROM chain WHERE kind = 'correction'`).Scan(&links); err != nil || links != 1 {
			t.Fatalf("correction links: %d, %v", links, err)
		}

		// Another client adds a correction the tool never recorded.
		if _, err := a.w.Exec(`INSERT INTO corrections (run_id, field, old_value, new_value, reason, actor, tool_version, at)
			VALUES (?, 'hardware.gpu_model', 'NVIDIA H200', 'NVIDIA B200', 'forged', 'mallory', 'x', '2026-12-01T00:00:00Z')`, rec.ID); err != nil {
			t.Fatal(err)
		}
		rep, err = a.VerifyChain(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, p := range rep.Problems {
			found = found || p.Kind == "correction" && p.Check == CheckChainExtra
		}
		if !found {
			t.Errorf("a forged correction is not reported: %+v", rep.Problems)
		}
	})
}
