package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/figures"
)

// TestCompareNamesConfounders compares two runs where the intended knob and
// one more field changed: the change is computed from the recomputed
// figures, and the other field is a confounder.
func TestCompareNamesConfounders(t *testing.T) {
	t.Parallel()
	// More tokens per request in the same windows: faster.
	db, ida, idb := comparedPair(t, vllmSpec{n: 40}, vllmSpec{n: 40, gaps: 8}, []string{"--set", "workload.output_len=5"},
		[]string{"--set", "runtime.server_args=--max-num-seqs 64", "--set", "runtime.version=0.25.1"},
		[]string{"--set", "runtime.server_args=--max-num-seqs 256", "--set", "runtime.version=0.26.0"})

	r := bl(t, "compare", "--db", db, "--metric", "output_throughput", "--intended", "runtime.server_args", "--json", ida, idb)
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
	text := bl(t, "compare", "--db", db, "--metric", "output_throughput", "--intended", "runtime.server_args", ida, idb)
	if !strings.Contains(text.stdout, "changed (confounder): runtime.version: 0.25.1 → 0.26.0") {
		t.Errorf("text output should name the confounder:\n%s", text.stdout)
	}
	if r := bl(t, "compare", "--db", db, "--metric", "speed", ida, idb); r.code != 2 {
		t.Errorf("unknown metric: want usage exit 2, got %v", r)
	}
}

// TestCompareEveryMetric: compare without --metric lists every metric of
// the catalogue both runs have, each with both values, the change and
// whether it is better for that metric: every direction of the catalogue
// is checked against the values printed.
func TestCompareEveryMetric(t *testing.T) {
	t.Parallel()
	db, ida, idb := comparedPair(t, vllmSpec{n: 40}, vllmSpec{n: 40, gaps: 8, failEach: 10, seed: 2},
		[]string{"--set", "hardware.gpu_count=2", "--set", "workload.output_len=5"},
		[]string{"--set", "runtime.server_args=--max-num-seqs 64"}, []string{"--set", "runtime.server_args=--max-num-seqs 256"})

	r := bl(t, "compare", "--db", db, "--json", "--intended", "runtime.server_args", ida, idb)
	if r.code != 0 {
		t.Fatal(r)
	}
	var doc struct {
		SchemaVersion int `json:"schema_version"`
		Metrics       []struct {
			Metric, Unit, Direction string
			Baseline, Candidate     float64
			Abs                     float64
			Pct                     *float64
			Better                  *bool
		}
		Fixed       []struct{ Field string }
		Confounders []struct{ Field string }
		CaveatsOf   string `json:"caveats_of"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	ways := map[string]string{}
	for _, name := range figures.MetricNames() {
		m, _ := figures.ParseMetric(name)
		ways[name] = map[figures.Direction]string{figures.HigherIsBetter: "higher-is-better", figures.LowerIsBetter: "lower-is-better", 0: "neutral"}[m.Metric.Direction]
	}
	seen := map[string]bool{}
	for _, m := range doc.Metrics {
		seen[m.Metric] = true
		if m.Direction != ways[m.Metric] {
			t.Errorf("%s: direction %q, want %q", m.Metric, m.Direction, ways[m.Metric])
		}
		if math.Abs(m.Abs-(m.Candidate-m.Baseline)) > 1e-9*math.Max(1, math.Abs(m.Baseline)) {
			t.Errorf("%s: abs %v for %v → %v", m.Metric, m.Abs, m.Baseline, m.Candidate)
		}
		if m.Baseline != 0 && (m.Pct == nil || math.Abs(*m.Pct-(m.Candidate-m.Baseline)/m.Baseline*100) > 1e-6) {
			t.Errorf("%s: pct %v for %v → %v", m.Metric, m.Pct, m.Baseline, m.Candidate)
		}
		var want *bool
		if m.Candidate != m.Baseline && m.Direction != "neutral" {
			up := m.Candidate > m.Baseline
			w := up == (m.Direction == "higher-is-better")
			want = &w
		}
		if (want == nil) != (m.Better == nil) || want != nil && *want != *m.Better {
			t.Errorf("%s (%s): %v → %v better %v, want %v", m.Metric, m.Direction, m.Baseline, m.Candidate, ptrText(m.Better), ptrText(want))
		}
	}
	// Every metric these runs have: all but the SLO figures (no SLO
	// outside a case study).
	for name := range ways {
		if !seen[name] && name != "goodput" && name != "slo_attainment" {
			t.Errorf("%s not compared", name)
		}
	}
	if !seen["failed"] || !seen["output_throughput_per_gpu"] || doc.CaveatsOf != "output_throughput" || doc.SchemaVersion != snakeCaseSchemaVersion {
		t.Errorf("failed %v per-GPU %v caveats of %q schema %d", seen["failed"], seen["output_throughput_per_gpu"], doc.CaveatsOf, doc.SchemaVersion)
	}
	if len(doc.Confounders) != 0 || len(doc.Fixed) == 0 {
		t.Errorf("fixed %v confounders %v", doc.Fixed, doc.Confounders)
	}
	// With an SLO: goodput and attainment too; a bad SLO is a usage error.
	slo := bl(t, "compare", "--db", db, "--json", "--slo", "e2el:100000", ida, idb)
	if slo.code != 0 || !strings.Contains(slo.stdout, `"metric": "goodput"`) || !strings.Contains(slo.stdout, `"metric": "slo_attainment"`) {
		t.Errorf("compare --slo: %v", slo)
	}
	if r := bl(t, "compare", "--db", db, "--metric", "goodput", ida, idb); r.code != 2 || !strings.Contains(r.stderr, "needs --slo") {
		t.Errorf("compare --metric goodput without --slo: want usage exit 2, got %v", r)
	}
	if r := bl(t, "compare", "--db", db, "--metric", "slo_attainment", "--slo", "e2el:100000", "--json", ida, idb); r.code != 0 || !strings.Contains(r.stdout, `"metric": "slo_attainment"`) {
		t.Errorf("compare --metric slo_attainment --slo: %v", r)
	}
	if r := bl(t, "compare", "--db", db, "--slo", "ttft=5", ida, idb); r.code != 2 {
		t.Errorf("compare --slo ttft=5: want usage exit 2, got %v", r)
	}
	text := bl(t, "compare", "--db", db, ida, idb)
	t.Log(text.stdout)
	for _, want := range []string{"every metric both runs have", "failed", "worse", "better", "changed (confounder): runtime.server_args"} {
		if !strings.Contains(text.stdout, want) {
			t.Errorf("text output lacks %q:\n%s", want, text.stdout)
		}
	}
}

func ptrText(b *bool) string {
	if b == nil {
		return "null"
	}
	return strconv.FormatBool(*b)
}

// comparedPair archives two generated vLLM runs on an H100 with the
// provenance common to both and each one's own, and returns the archive
// and the two run ids.
func comparedPair(t *testing.T, sa, sb vllmSpec, common, setA, setB []string) (db, ida, idb string) {
	t.Helper()
	dir := t.TempDir()
	db = filepath.Join(dir, "a.db")
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	writeVLLM(t, a, sa)
	writeVLLM(t, b, sb)
	common = append([]string{"ingest", "--db", db, "--set", "hardware.gpu_model=NVIDIA H100"}, common...)
	ra := bl(t, slices.Concat(common, setA, []string{a})...)
	rb := bl(t, slices.Concat(common, setB, []string{b})...)
	return db, idLine.FindStringSubmatch(ra.stdout)[1], idLine.FindStringSubmatch(rb.stdout)[1]
}
