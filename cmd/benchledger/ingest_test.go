package main

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"
)

// counts reads how many rows the archive's main tables hold, straight from
// SQLite, so tests see what is really stored.
func counts(t *testing.T, db string) map[string]int {
	t.Helper()
	conn, err := sql.Open("sqlite3", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	out := map[string]int{}
	for _, table := range []string{"blobs", "blob_chunks", "runs", "requests", "provenance", "events"} {
		var n int
		if err := conn.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
			t.Fatalf("counting %s: %v", table, err)
		}
		out[table] = n
	}
	return out
}

var idLine = regexp.MustCompile(`(?m)^([0-9a-f]{12})\s+(new|duplicate|completed)\s+(\S+)\s+(.+)$`)

func TestIngestCampaignFolderThenShow(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	camp := filepath.Join(dir, "camp")
	writeFile(t, filepath.Join(camp, "campaign.yaml"), manifest)
	writeFile(t, filepath.Join(camp, "notes.md"), "# notes\n")
	writeVLLM(t, filepath.Join(camp, "base.json"), vllmSpec{n: 40})
	writeVLLM(t, filepath.Join(camp, "tuned.json"), vllmSpec{n: 40, seed: 0.01})

	r := bl(t, "ingest", "--db", db, camp)
	if r.code != 0 {
		t.Fatalf("ingest: %v", r)
	}
	lines := idLine.FindAllStringSubmatch(r.stdout, -1)
	if len(lines) != 2 {
		t.Fatalf("want one line per run, got %v", r)
	}
	for _, l := range lines {
		if l[2] != "new" || l[3] != "vllm-serve-json" {
			t.Errorf("line %q: want new vllm-serve-json", l[0])
		}
	}
	if !strings.Contains(r.stderr, "skipped: "+filepath.Join(camp, "notes.md")) {
		t.Errorf("notes.md should be skipped with a note: %v", r)
	}

	// runs --json: the settled fields, publishable with the complete manifest.
	r = bl(t, "runs", "--db", db, "--json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list) != 2 {
		t.Fatalf("runs --json: %v (%v)", r, err)
	}
	for _, k := range []string{"id", "campaign", "role", "model", "engine", "engine_version", "gpu", "date", "format", "publishable"} {
		if _, ok := list[0][k]; !ok {
			t.Errorf("runs --json lacks %q", k)
		}
	}
	var baseID string
	for _, run := range list {
		if run["role"] == "baseline" {
			baseID = run["id"].(string)
		}
		if run["publishable"] != true || run["campaign"] != "testcamp" || run["engine"] != "vllm" {
			t.Errorf("run %v: want publishable vllm run of testcamp", run)
		}
	}
	if baseID == "" {
		t.Fatalf("no baseline role from the manifest's runs[] override: %v", list)
	}

	// show by unique prefix: recomputed output throughput from the records.
	r = bl(t, "show", "--db", db, baseID[:6])
	if r.code != 0 {
		t.Fatalf("show: %v", r)
	}
	// 40 requests x 5 tokens over the window from the first start (1000.00)
	// to the last completion (1000.39 + 0.05 + 6*0.001 + 4*0.0042).
	for _, want := range []string{"output throughput", "publishable  yes", "hardware.gpu_model", "manifest", "checkpoint.model_id", "sent 40, completed 40, failed 0"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("show output lacks %q:\n%s", want, r.stdout)
		}
	}
	r = bl(t, "show", "--db", db, "--json", baseID)
	var view struct {
		Figures []struct {
			Metric     string
			Recomputed *float64
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &view); err != nil {
		t.Fatal(err)
	}
	var tput float64
	for _, f := range view.Figures {
		if f.Metric == "output_throughput" && f.Recomputed != nil {
			tput = *f.Recomputed
		}
	}
	// window = last completion − first start; the last request (i=39) starts at
	// 1000.39 with latency 0.05+4*0.001+4*0.0042 (39%7 = 4).
	window := (1000.39 + 0.05 + 0.004 + 4*0.0042) - 1000
	if want := 200 / window; tput < want*0.999999 || tput > want*1.000001 {
		t.Errorf("recomputed output throughput %v, want %v", tput, want)
	}
}

func TestIngestIsIdempotent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	f := filepath.Join(dir, "run.json")
	writeVLLM(t, f, vllmSpec{n: 30})
	first := bl(t, "ingest", "--db", db, f)
	if first.code != 0 {
		t.Fatal(first)
	}
	before := counts(t, db)
	second := bl(t, "ingest", "--db", db, f)
	if second.code != 0 {
		t.Fatal(second)
	}
	a, b := idLine.FindStringSubmatch(first.stdout), idLine.FindStringSubmatch(second.stdout)
	if a == nil || b == nil || a[1] != b[1] || b[2] != "duplicate" {
		t.Fatalf("re-ingest should name the same run as a duplicate:\n%v\n%v", first, second)
	}
	if after := counts(t, db); after["runs"] != before["runs"] || after["events"] != before["events"] || after["blobs"] != before["blobs"] {
		t.Errorf("a duplicate created rows: before %v after %v", before, after)
	}
	// The same bytes under another name are still the same run.
	g := filepath.Join(dir, "copy.json")
	data, _ := os.ReadFile(f)
	os.WriteFile(g, data, 0o644)
	if r := bl(t, "ingest", "--db", db, g); !strings.Contains(r.stdout, a[1]+"  duplicate") {
		t.Errorf("copy under another name: %v", r)
	}
}

func TestProvenanceConflictAndCompletion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	f := filepath.Join(dir, "run.json")
	writeVLLM(t, f, vllmSpec{n: 30})
	if r := bl(t, "ingest", "--db", db, "--set", "hardware.gpu_model=NVIDIA H100", f); r.code != 0 {
		t.Fatal(r)
	}
	r := bl(t, "show", "--db", db, "--json", idLine.FindStringSubmatch(bl(t, "ingest", "--db", db, f).stdout)[1])
	if !strings.Contains(r.stdout, `"publishable": false`) || !strings.Contains(r.stdout, "checkpoint.revision") {
		t.Fatalf("an incompletely described run must be unpublishable and say what is missing: %v", r)
	}
	before := counts(t, db)
	// Conflicting provenance for the same bytes is refused with the reason.
	r = bl(t, "ingest", "--db", db, "--set", "hardware.gpu_model=NVIDIA A100", f)
	if r.code != 3 || !strings.Contains(r.stderr, "hardware.gpu_model") || !strings.Contains(r.stderr, "NVIDIA H100") {
		t.Fatalf("conflict: want exit 3 naming the field and both values: %v", r)
	}
	if after := counts(t, db); after["provenance"] != before["provenance"] {
		t.Errorf("a refused conflict changed provenance rows")
	}
	// Adding what was missing completes the run.
	r = bl(t, "ingest", "--db", db, "--set", "checkpoint.revision=abc123", f)
	if r.code != 0 || !strings.Contains(r.stdout, "completed") || !strings.Contains(r.stderr, "checkpoint.revision") {
		t.Fatalf("completion: %v", r)
	}
	if after := counts(t, db); after["provenance"] != before["provenance"]+1 || after["events"] != before["events"]+1 {
		t.Errorf("completion should add one provenance row and one event: %v -> %v", before, after)
	}
}

func TestContradictionWithFileIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	camp := filepath.Join(dir, "camp")
	writeFile(t, filepath.Join(camp, "campaign.yaml"), manifest)
	writeVLLM(t, filepath.Join(camp, "base.json"), vllmSpec{n: 40, model: "meta-llama/Llama-3.1-8B-Instruct"})
	r := bl(t, "ingest", "--db", db, camp)
	if r.code != 3 || !strings.Contains(r.stderr, "meta-llama/Llama-3.1-8B-Instruct") || !strings.Contains(r.stderr, "base.json") {
		t.Fatalf("model id contradicting the manifest must be refused naming the file and values: %v", r)
	}
	if c := counts(t, db); c["runs"] != 0 || c["blobs"] != 0 {
		t.Errorf("a refused file left rows: %v", c)
	}
}

// TestUnpublishableWarningsFold: runs missing the same provenance are one
// warning with a count and the first few named; a run missing something
// else has its own line.
func TestUnpublishableWarningsFold(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	files := vllmFiles(t, dir, "run", 5, func(i int) vllmSpec { return vllmSpec{n: 10, seed: float64(i + 1)} })
	r := bl(t, append([]string{"ingest", "--db", db}, files...)...)
	if r.code != 0 {
		t.Fatal(r)
	}
	if n := strings.Count(r.stderr, "warning:"); n != 1 || !strings.Contains(r.stderr, "warning: 5 runs are archived but not publishable; missing: ") ||
		!strings.Contains(r.stderr, " and 2 more; benchledger show RUN") {
		t.Errorf("five runs missing the same fields: want one folded warning, got %d:\n%s", n, r.stderr)
	}
	other := filepath.Join(dir, "other.json")
	writeVLLM(t, other, vllmSpec{n: 10, seed: 99})
	r = bl(t, "ingest", "--db", db, "--set", "hardware.gpu_model=NVIDIA H100", other)
	if !strings.Contains(r.stderr, "warning: run ") || !strings.Contains(r.stderr, "("+other+") is archived but not publishable") {
		t.Errorf("one run: want its own line, got %s", r.stderr)
	}
}
