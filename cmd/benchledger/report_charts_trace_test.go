package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportTTFTInputChart: a run whose prompts vary in length gets the
// TTFT-by-input chart its layout asks for, with every completed request
// at (input tokens, TTFT), its timeline and its one-point trade-off
// curve; the same chart for a run of one prompt length is refused.
func TestReportTTFTInputChart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(`{"benchledger_trace": 1, "clock": "monotonic", "client": "probe", "requests": 40, "date": "2026-11-02"}` + "\n")
	for i := range 40 {
		start := 1000 + 0.1*float64(i)
		in := 100 + 50*i
		ttft := 0.02 + float64(in)/20000
		fmt.Fprintf(&b, `{"i": %d, "start": %.3f, "first_token": %.6f, "end": %.6f, "input_tokens": %d, "output_tokens": 64}`+"\n",
			i, start, start+ttft, start+ttft+0.63, in)
	}
	writeFile(t, filepath.Join(dir, "run.trace.jsonl"), b.String())
	writeFile(t, filepath.Join(dir, "campaign.yaml"), "campaign: probe\ndefaults:\n  role: other\n  hardware: {gpu_count: 2}\n")
	db := filepath.Join(t.TempDir(), "a.db")
	if r := bl(t, "ingest", "--db", db, dir); r.code != 0 {
		t.Fatal(r)
	}
	spec := `id: probe
campaign: probe
runs:
  probe: {role: other}
figures:
  tput: {of: probe, metric: output_throughput}
labels:
  probe: {en: "Probe run"}
layout:
  charts: ["ttft-input:probe", "timeline:probe", "pareto:probe"]
`
	specPath := filepath.Join(dir, "casestudy.yaml")
	writeFile(t, specPath, spec)
	out := t.TempDir()
	if r := bl(t, "report", "--db", db, "--out", out, "--lang", "en", "--no-audit", specPath); r.code != 0 {
		t.Fatal(r)
	}
	page, err := os.ReadFile(filepath.Join(out, "probe.en.html"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := chartKinds(page)
	if kinds["ttft-input-probe"] != "ttft-input" || kinds["load-probe"] != "timeline" || kinds["pareto-probe"] != "pareto" {
		t.Fatalf("charts %v, want the layout's three", kinds)
	}
	opt := ""
	for _, m := range chartJSONRE.FindAllStringSubmatch(string(page), -1) {
		if m[1] == "ttft-input-probe" {
			opt = m[2]
		}
	}
	// Every request, at its own input length and TTFT (rounded to 0.1 ms).
	for _, i := range []int{0, 17, 39} {
		in := 100 + 50*i
		want := fmt.Sprintf("[%d,%s]", in, strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", 0.02+float64(in)/20000), "0"), "."))
		if !strings.Contains(opt, want) {
			t.Errorf("TTFT-by-input chart lacks request %d at %s: %.300s", i, want, opt)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "charts", "ttft-input-probe.en.svg")); err != nil {
		t.Errorf("no SVG of the chart for the Markdown report: %v", err)
	}
	// The same chart over prompts of one length says why it cannot be drawn.
	flat := strings.NewReplacer(`"input_tokens": `, `"input_tokens": 7, "x": `).Replace(b.String())
	dir2 := t.TempDir()
	writeFile(t, filepath.Join(dir2, "run.trace.jsonl"), flat)
	writeFile(t, filepath.Join(dir2, "campaign.yaml"), "campaign: probe\ndefaults:\n  role: other\n  hardware: {gpu_count: 2}\n")
	db2 := filepath.Join(t.TempDir(), "a.db")
	if r := bl(t, "ingest", "--db", db2, dir2); r.code != 0 {
		t.Fatal(r)
	}
	if r := bl(t, "report", "--db", db2, "--out", t.TempDir(), "--lang", "en", "--no-audit", specPath); r.code == 0 || !strings.Contains(r.stderr, "input lengths of its requests do not vary") {
		t.Errorf("a TTFT-by-input chart over one input length: %v", r)
	}
}
