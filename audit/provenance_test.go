package audit

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/ingest"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

// historyArchive builds a run with every kind of later provenance: AIPerf's
// per-request JSONL ingested alone (no manifest), its CSV arriving later
// beside a manifest (a complete event), its JSON ingested with --set (a
// complete event with a cli value), the same CSV again under another
// manifest that adds a field (provenance-completed), and two corrections
// (benchledger amend). It returns the archive's path and the run's id.
func historyArchive(t *testing.T) (string, string) {
	t.Helper()
	src := filepath.Join("..", "ingest", "format", "aiperf", "testdata", "aiperf")
	dir := t.TempDir()
	cp := func(name string) string {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	db := filepath.Join(t.TempDir(), "a.db")
	a, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	var id string
	in := func(opt ingest.Options, paths ...string) {
		t.Helper()
		opt.Archive, opt.ToolVersion, opt.Actor = a, "test", "test"
		if err := ingest.Batch(context.Background(), paths, opt, func(o ingest.Outcome) {
			if o.Status == ingest.StatusRejected {
				t.Fatalf("rejected %s: %s %s", o.File, o.Place, o.Reason)
			}
			id = o.RunID
		}); err != nil {
			t.Fatal(err)
		}
	}
	in(ingest.Options{}, cp("current_profile_export.jsonl"))
	writeFile(t, filepath.Join(dir, "campaign.yaml"), historyManifest)
	in(ingest.Options{}, cp("current_profile_export_aiperf.csv"))
	in(ingest.Options{Set: provenance.Record{{Field: "hardware.node", Value: "node-7", Source: provenance.FromCLI}}},
		cp("current_profile_export_aiperf.json"))
	other := filepath.Join(t.TempDir(), "more.yaml")
	writeFile(t, other, historyManifest+"  labels: {batch: second}\n")
	in(ingest.Options{Manifest: other}, filepath.Join(dir, "current_profile_export_aiperf.csv"))
	for _, am := range []ingest.Amendment{
		{Set: provenance.Record{{Field: "checkpoint.repository", Value: "mirror/Qwen3-0.6B"}}, Reason: "wrong repository"},
		{Set: provenance.Record{{Field: "runtime.version", Value: "0.25.2"}}, Reason: "wrong version"},
	} {
		am.Run, am.Actor, am.ToolVersion = id, "test", "test"
		if _, err := ingest.Amend(context.Background(), a, am); err != nil {
			t.Fatal(err)
		}
	}
	evs, err := a.Events(id)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, ev := range evs {
		actions = append(actions, ev.Action)
	}
	if got := strings.Join(actions, " "); !strings.Contains(got, "complete") || !strings.Contains(got, "provenance-completed") {
		t.Fatalf("the run's events are %q: the test needs a complete and a provenance-completed event", got)
	}
	return db, id
}

// historyManifest declares what AIPerf's files do not state.
const historyManifest = `campaign: history
defaults:
  hardware: {gpu_model: NVIDIA H100 80GB HBM3, gpu_count: 1}
  runtime: {engine: vllm, version: 0.25.1}
  checkpoint: {repository: Qwen/Qwen3-0.6B, revision: 2538ded2a4edb247b4d2b4a8ba24e44bd4c017c3, precision: bf16}
`

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestProvenanceRecomputedOverHistory: provenance.recomputed replays every
// event and correction of a run (issue 17): the honest history is clean,
// and a value changed behind the tool's back — by any source, in a
// correction, in a listing column, in the flag — is reported with its
// field, the stored and the recomputed value.
func TestProvenanceRecomputedOverHistory(t *testing.T) {
	t.Parallel()
	db, id := historyArchive(t)
	audit := func(t *testing.T, db string) *Finding {
		t.Helper()
		a, err := store.Open(db, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		return find(findings(t, a), CheckProvenanceRecomputed, id)
	}
	if f := audit(t, db); f != nil {
		t.Fatalf("the honest history: %s", f.Message)
	}
	run := "run_id = '" + id + "'"
	cases := []struct {
		name                     string
		stmts                    []string
		field, stored, recompute string
	}{
		{"a manifest value a companion file added", []string{`UPDATE provenance SET value = 'H200' WHERE field = 'hardware.gpu_model' AND ` + run},
			"hardware.gpu_model", `"H200"`, `"NVIDIA H100 80GB HBM3"`},
		{"a --set value", []string{`UPDATE provenance SET value = 'node-8' WHERE field = 'hardware.node' AND source = 'cli' AND ` + run},
			"hardware.node", `"node-8"`, `"node-7"`},
		{"a value the second manifest added", []string{`DELETE FROM provenance WHERE field = 'labels.batch' AND ` + run},
			"labels.batch", "(none)", `"second"`},
		{"a fact of the file", []string{`UPDATE provenance SET value = 'other/model' WHERE source = 'file' AND field = 'checkpoint.model_id' AND ` + run},
			"checkpoint.model_id", `"other/model"`, ""},
		{"a corrected field's listing column", []string{`UPDATE runs SET model = 'Qwen/Qwen3-0.6B' WHERE id = '` + id + `'`},
			"runs.model", "Qwen/Qwen3-0.6B", "mirror/Qwen3-0.6B"},
		{"a correction's value", []string{`DROP TRIGGER corrections_no_update`, `UPDATE corrections SET new_value = '0.26.0' WHERE field = 'runtime.version'`},
			"runs.engine_version", "0.25.2", "0.26.0"},
		{"a correction's value before", []string{`DROP TRIGGER corrections_no_update`, `UPDATE corrections SET old_value = '0.24.0' WHERE field = 'runtime.version'`},
			"runtime.version", `"0.24.0"`, `"0.25.1"`},
		{"the manifest's archived bytes", []string{`UPDATE blob_chunks SET data = X'00' WHERE blob IN (SELECT sha256 FROM blobs WHERE name LIKE '%campaign.yaml')`},
			"manifest", "", ""},
		{"the publishable flag", []string{`UPDATE runs SET publishable = 1 - publishable WHERE id = '` + id + `'`},
			"publishable", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(db)
			if err != nil {
				t.Fatal(err)
			}
			cp := filepath.Join(t.TempDir(), "a.db")
			writeFile(t, cp, string(data))
			raw, err := sql.Open("sqlite3", "file:"+cp+"?mode=rw")
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range c.stmts {
				if _, err := raw.Exec(s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
			raw.Close()
			f := audit(t, cp)
			if f == nil || f.Severity != Fail {
				t.Fatalf("no provenance.recomputed failure")
			}
			if f.Params["field"] != c.field || c.stored != "" && f.Params["stored"] != c.stored ||
				c.recompute != "" && f.Params["recomputed"] != c.recompute {
				t.Errorf("finding %v (%s), want field %s stored %s recomputed %s", f.Params, f.Message, c.field, c.stored, c.recompute)
			}
		})
	}
}
