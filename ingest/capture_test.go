package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/provenance"
)

// capturedManifest is what benchledger capture writes, with one
// hand-written default below it.
const capturedManifest = `capture:
  taken_at: "2025-10-02T10:14:00Z"
  clock: system real-time clock
  tool: benchledger test
  facts:
    - {field: hardware.gpu_model, value: NVIDIA H100 80GB HBM3, how: "nvidia-smi -q -x: product_name of all 1 <gpu> element"}
    - {field: hardware.gpu_count, value: "1", how: "nvidia-smi -q -x: the host has one GPU"}
    - {field: runtime.engine, value: vllm, how: "GET http://127.0.0.1:8000/v1/models: owned_by \"vllm\""}
    - {field: checkpoint.repository, value: Qwen/Qwen3-8B, how: "the engine's model Qwen/Qwen3-8B"}
%s
defaults:
  workload.dataset: random
`

// TestIngestCapturedManifest: a capture document ingests like any
// manifest (--meta), its facts archived as the run's provenance and its
// bytes as a blob the ingest event names; a --set or a result file that
// contradicts a captured fact is refused, naming both values.
func TestIngestCapturedManifest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		extra  string // more captured facts
		set    []string
		reject string // "" = archived
	}{
		{"archived", "", nil, ""},
		{"agreeing --set", "", []string{"hardware.gpu_count=1"}, ""},
		{"--set contradicts", "", []string{"hardware.gpu_count=8"}, "--set hardware.gpu_count=8 contradicts the value captured in"},
		{"file contradicts", `    - {field: measurement.backend, value: openai, how: "record: the client's --backend"}`, nil, `measurement.backend`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			meta := filepath.Join(dir, "capture.yaml")
			if err := os.WriteFile(meta, []byte(strings.Replace(capturedManifest, "%s\n", tt.extra+"\n", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			res := filepath.Join(dir, "run=0.json")
			if err := os.WriteFile(res, []byte(sweepObject(0, "")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			var set provenance.Record
			for _, s := range tt.set {
				e, err := provenance.ParseSet(s)
				if err != nil {
					t.Fatal(err)
				}
				set = append(set, e)
			}
			a := openTestArchive(t)
			var outs []Outcome
			if err := Batch(context.Background(), []string{res}, Options{Archive: a, Manifest: meta, Set: set}, func(o Outcome) { outs = append(outs, o) }); err != nil {
				t.Fatal(err)
			}
			if len(outs) != 1 {
				t.Fatalf("outcomes: %+v", outs)
			}
			o := outs[0]
			if tt.reject != "" {
				if o.Status != StatusRejected || !strings.Contains(o.Reason, tt.reject) {
					t.Fatalf("outcome %+v, want rejected with %q", o, tt.reject)
				}
				return
			}
			if o.Status != StatusNew {
				t.Fatalf("outcome %+v", o)
			}
			rec, err := a.Run(o.RunID)
			if err != nil {
				t.Fatal(err)
			}
			eff := provenance.Record(rec.Provenance).Effective()
			if eff["hardware.gpu_model"] != "NVIDIA H100 80GB HBM3" || eff["workload.dataset"] != "random" {
				t.Errorf("effective provenance: %v", eff)
			}
			evs, err := a.Events(o.RunID)
			if err != nil || len(evs) != 1 || !strings.Contains(evs[0].Detail, `"manifest":"`) {
				t.Fatalf("ingest event %+v (%v): want it to name the archived capture", evs, err)
			}
		})
	}
}
