package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/internal/testshared"
)

// publishedDir is the real public page shipped as a campaign
// (testdata/mistakes-published/SOURCE.md).
var publishedDir = filepath.Join("testdata", "mistakes-published")

// publishedBlocks are the page's result blocks: the line of each header
// and its Total Token throughput as printed.
var publishedBlocks = []struct {
	line int
	tps  float64
}{
	{89, 2352.82}, {122, 1690.84}, {155, 2659.50}, {192, 4005.32}, {226, 4284.68},
	{270, 2771.81}, {295, 2148.69}, {320, 3195.30}, {345, 4005.62},
	{378, 4068.16}, {403, 4929.16}, {428, 5901.95}, {453, 6826.33},
}

// publishedArchive ingests the page, named (a folder walk skips Markdown).
func publishedArchive(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "published.db")
	if r := bl(t, "ingest", "--db", db, filepath.Join(publishedDir, "qwen3-32b-h100.md")); r.code != 0 {
		t.Fatalf("ingest of the published page: %v", r)
	}
	return db
}

// TestPublishedPageIngests: the page gives one summary-only run per block,
// each at its block's line, with the manifest's provenance by ordinal, and
// `show` says where in the page the run is.
func TestPublishedPageIngests(t *testing.T) {
	t.Parallel()
	db := publishedArchive(t)
	r := bl(t, "runs", "--db", db, "--json")
	var runs []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &runs); err != nil || r.code != 0 {
		t.Fatalf("runs --json: %v\n%v", err, r)
	}
	if len(runs) != len(publishedBlocks) {
		t.Fatalf("%d runs, want one per block (%d)", len(runs), len(publishedBlocks))
	}
	// A folder walk skips the page as notes.
	if w := bl(t, "ingest", "--db", filepath.Join(t.TempDir(), "walk.db"), "--json", publishedDir); w.code != 0 || strings.Contains(w.stdout, `"new"`) {
		t.Errorf("a walk of the folder ingested the page: %v", w)
	}
	// One bad block is rejected alone at its place; the other twelve are
	// archived and ingest exits 3 (completed with problems).
	page, err := os.ReadFile(filepath.Join(publishedDir, "qwen3-32b-h100.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(page), "\n")
	lines[123] = "    Benchmark duration (s):                  247,94" // line 124, in the block at line 122
	bad := filepath.Join(t.TempDir(), "page.md")
	writeFile(t, bad, strings.Join(lines, "\n"))
	if r := bl(t, "ingest", "--db", filepath.Join(t.TempDir(), "bad.db"), bad); r.code != 3 || strings.Count(r.stdout, " new ") != len(publishedBlocks)-1 ||
		!strings.Contains(r.stderr, `page.md: ordinal 1: line 124: Benchmark duration (s): "247,94" is not a number`) {
		t.Errorf("a page with one bad block, want exit 3, %d runs and the block's rejection: %v", len(publishedBlocks)-1, r)
	}
	for _, run := range runs {
		id, _ := run["id"].(string)
		var v map[string]any
		s := bl(t, "show", "--db", db, "--json", id)
		if err := json.Unmarshal([]byte(s.stdout), &v); err != nil || s.code != 0 {
			t.Fatalf("show --json %s: %v\n%v", id, err, s)
		}
		ord := int(v["ordinal"].(float64))
		if ord < 0 || ord >= len(publishedBlocks) {
			t.Fatalf("run %s: ordinal %d", id, ord)
		}
		want := publishedBlocks[ord]
		if loc, _ := v["location"].(string); loc != "line "+strconv.Itoa(want.line) {
			t.Errorf("run %d: location %q, want line %d", ord, loc, want.line)
		}
		if v["format"] != "vllm-serve-console" {
			t.Errorf("run %d: format %v", ord, v["format"])
		}
		if has, _ := v["has_requests"].(bool); has {
			t.Errorf("run %d has per-request records", ord)
		}
		text := bl(t, "show", "--db", db, id).stdout
		if !strings.Contains(text, "(ordinal "+strconv.Itoa(ord)+": line "+strconv.Itoa(want.line)+")") {
			t.Errorf("run %d: show does not print its place:\n%s", ord, text)
		}
	}
	// The provenance by ordinal: block 3 is the "TensorRT-LLM" run launched
	// with SGLang.
	s := bl(t, "runs", "--db", db, "--json")
	if !strings.Contains(s.stdout, "tensorrt-llm") || !strings.Contains(s.stdout, "sglang") {
		t.Errorf("runs do not carry the engines of the manifest:\n%s", s.stdout)
	}
	// A manifest that declares that run TensorRT-LLM, as the page's heading
	// does, contradicts the serving command the page prints above it.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "qwen3-32b-h100.md"), string(page))
	manifest, err := os.ReadFile(filepath.Join(publishedDir, "campaign.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	claimed := strings.Replace(string(manifest), `runtime: {server_args: "python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B-FP8"}`,
		`runtime: {engine: tensorrt-llm, server_args: "python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B-FP8"}`, 1)
	if claimed == string(manifest) {
		t.Fatal("campaign.yaml no longer has the ordinal 3 entry this test edits")
	}
	writeFile(t, filepath.Join(dir, "campaign.yaml"), claimed)
	if r := bl(t, "ingest", "--db", filepath.Join(t.TempDir(), "claimed.db"), filepath.Join(dir, "qwen3-32b-h100.md")); r.code != 3 ||
		strings.Count(r.stdout, " new ") != len(publishedBlocks)-1 ||
		!strings.Contains(r.stderr, `qwen3-32b-h100.md: line 192: provenance contradicts the file: the file says runtime.engine = "sglang" (at line 187, the server command (sglang.launch_server)) but the manifest says "tensorrt-llm"`) {
		t.Errorf("a manifest calling the SGLang-launched run TensorRT-LLM: want it refused naming the command's line: %v", r)
	}
}

// TestPublishedPageRunChecks: the audit of the archive alone (no spec)
// finds no plausibility failure in figures the page printed consistently;
// the "TensorRT-LLM" run is archived as what its printed serving command
// launched, SGLang, stated by the file at that command's line.
func TestPublishedPageRunChecks(t *testing.T) {
	t.Parallel()
	db := publishedArchive(t)
	d, r := auditJSON(t, "--db", db)
	for _, f := range d.Findings {
		if f.Severity == "fail" {
			t.Errorf("unexpected failure %s: %s", f.Check, f.Message)
		}
	}
	if r.code != 0 {
		t.Errorf("audit exit %d\n%v", r.code, r)
	}
	s := bl(t, "runs", "--db", db, "--json")
	var runs []map[string]any
	if err := json.Unmarshal([]byte(s.stdout), &runs); err != nil {
		t.Fatal(err)
	}
	for _, run := range runs {
		id, _ := run["id"].(string)
		var v struct {
			Ordinal    int `json:"ordinal"`
			Provenance []struct {
				Field, Value, Source string
			} `json:"provenance"`
			Notes []string `json:"notes"`
		}
		if err := json.Unmarshal([]byte(bl(t, "show", "--db", db, "--json", id).stdout), &v); err != nil {
			t.Fatal(err)
		}
		if v.Ordinal != 3 {
			continue
		}
		var engine string
		for _, e := range v.Provenance {
			if e.Field == "runtime.engine" {
				engine = e.Value + " from " + e.Source
			}
		}
		if engine != "sglang from file" || !strings.Contains(strings.Join(v.Notes, "\n"), "the server command at line 187 (sglang.launch_server) is read as this run's") {
			t.Errorf("the fourth block's engine: %q, notes %q", engine, v.Notes)
		}
		return
	}
	t.Error("no run of ordinal 3")
}

// TestPublishedPageAudit: the audit of the case study over the page finds
// what SOURCE.md lists: the "+10.7%" that the page's figures make +46.8%,
// and the quantization gain "in TensorRT-LLM" measured against a run the
// page's own command launched with SGLang.
func TestPublishedPageAudit(t *testing.T) {
	t.Parallel()
	db := publishedArchive(t)
	spec := filepath.Join(publishedDir, "casestudy.yaml")
	// The page's runs are summary-only: their stated figures are the
	// evidence the claims are checked against.
	d, r := auditJSON(t, "--db", db, spec)
	if strings.Contains(r.stderr, "has no per-request records") {
		t.Fatalf("a summary-only case study must be audited from its stated figures: %v", r)
	}
	var claim, engine bool
	for _, f := range d.Findings {
		switch {
		case f.Check == "claims.stated" && f.Severity == "fail" && strings.Contains(f.Message, "46.8"):
			claim = true
		case f.Check == "comparison.confounded" && f.Severity == "fail" && strings.Contains(f.Message, "runtime.engine (tensorrt-llm → sglang)"):
			// "Quantization in TensorRT-LLM" compares a TensorRT-LLM run
			// with the one its serving script launched with SGLang.
			engine = true
		case f.Check == "claims.stated" && (strings.Contains(f.Message, "82.1") || strings.Contains(f.Message, "50.6")):
			t.Errorf("a claim the page's figures support fails: %s", f.Message)
		}
	}
	if !claim || !engine || r.code != exitProblems {
		t.Errorf("claim found %v, engine found %v, exit %d\n%v", claim, engine, r.code, r)
	}
}

// TestGPUStackRenderingAudit: GPUStack's rendering of a guidellm result
// ingests as a summary-only run, and the audit holds its "peak output
// token throughput" (20,132,659 tok/s from 281,412 generated tokens) to
// the label it is printed under.
func TestGPUStackRenderingAudit(t *testing.T) {
	t.Parallel()
	path := filepath.Join(testshared.Dir(t, "samples"), "gpustack", "gpustack_guidellm_rendered_console.txt")
	db := filepath.Join(t.TempDir(), "g.db")
	if r := bl(t, "ingest", "--db", db, path); r.code != 0 || !strings.Contains(r.stdout, "gpustack-console") {
		t.Fatalf("ingest: %v", r)
	}
	d, r := auditJSON(t, "--db", db)
	found := false
	for _, f := range d.Findings {
		found = found || f.Check == "plausibility.peak_throughput" && f.Severity == "fail" && strings.Contains(f.Message, "20132659.2")
	}
	if !found || r.code != exitProblems {
		t.Errorf("the impossible peak is not flagged (exit %d):\n%v", r.code, r)
	}
}

// TestMixedPageReparses: a page mixing vLLM, SGLang and GPUStack blocks
// re-parses to the runs archived from it, each under its own format id
// (the audit's integrity.records).
func TestMixedPageReparses(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "m.db")
	if r := bl(t, "ingest", "--db", db, filepath.Join("..", "..", "ingest", "format", "vllmconsole", "testdata", "mixed_page.md")); r.code != 0 {
		t.Fatalf("ingest: %v", r)
	}
	d, r := auditJSON(t, "--db", db)
	for _, f := range d.Findings {
		if strings.HasPrefix(f.Check, "integrity.") {
			t.Errorf("%s: %s", f.Check, f.Message)
		}
	}
	if r.code != exitProblems { // the GPUStack block's peak
		t.Errorf("exit %d\n%v", r.code, r)
	}
}
