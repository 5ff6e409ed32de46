package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareNamesConfounders compares two runs where the intended knob and
// one more field changed: the change is computed from the recomputed
// figures, and the other field is a confounder.
func TestCompareNamesConfounders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	writeVLLM(t, a, vllmSpec{n: 40})
	writeVLLM(t, b, vllmSpec{n: 40, gaps: 8}) // more tokens per request in the same windows: faster
	common := []string{"--set", "hardware.gpu_model=NVIDIA H100", "--set", "workload.output_len=5"}
	ra := bl(t, append(append([]string{"ingest", "--db", db}, common...), "--set", "runtime.server_args=--max-num-seqs 64", "--set", "runtime.version=0.25.1", a)...)
	rb := bl(t, append(append([]string{"ingest", "--db", db}, common...), "--set", "runtime.server_args=--max-num-seqs 256", "--set", "runtime.version=0.26.0", b)...)
	ida, idb := idLine.FindStringSubmatch(ra.stdout)[1], idLine.FindStringSubmatch(rb.stdout)[1]

	r := bl(t, "compare", "--db", db, "--intended", "runtime.server_args", "--json", ida, idb)
	if r.code != 0 {
		t.Fatal(r)
	}
	var cf struct {
		Comparison struct {
			Baseline, Candidate struct{ Value float64 }
			Change              struct{ Pct, Ratio float64 }
			Confounders         []struct{ Field, Baseline, Candidate string }
		}
		Caveats []struct{ Code string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &cf); err != nil {
		t.Fatal(err)
	}
	c := cf.Comparison
	if want := (c.Candidate.Value - c.Baseline.Value) / c.Baseline.Value * 100; math.Abs(c.Change.Pct-want) > 1e-9 || c.Change.Pct <= 0 {
		t.Errorf("pct %v, want %v (>0)", c.Change.Pct, want)
	}
	if len(c.Confounders) != 1 || c.Confounders[0].Field != "runtime.version" || c.Confounders[0].Candidate != "0.26.0" {
		t.Errorf("confounders %+v, want runtime.version only", c.Confounders)
	}
	codes := map[string]bool{}
	for _, cv := range cf.Caveats {
		codes[cv.Code] = true
	}
	if !codes["single_measurement"] || !codes["runtime_differs"] {
		t.Errorf("caveats %v: want single_measurement and runtime_differs", cf.Caveats)
	}
	text := bl(t, "compare", "--db", db, "--intended", "runtime.server_args", ida, idb)
	if !strings.Contains(text.stdout, "changed (confounder): runtime.version: 0.25.1 → 0.26.0") {
		t.Errorf("text output should name the confounder:\n%s", text.stdout)
	}
	if r := bl(t, "compare", "--db", db, "--metric", "speed", ida, idb); r.code != 2 {
		t.Errorf("unknown metric: want usage exit 2, got %v", r)
	}
}
