package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// statedPage ingests the summary-only campaign testdata/stated-page
// (README.md there) into a fresh archive; it returns the archive, the spec
// and the run id of each file.
func statedPage(t *testing.T) (db, specPath string, runOf map[string]string) {
	t.Helper()
	dir := filepath.Join("testdata", "stated-page")
	db = filepath.Join(t.TempDir(), "stated.db")
	r := bl(t, "ingest", "--db", db, "--json", dir)
	if r.code != 0 {
		t.Fatalf("ingest of the stated-page campaign: %v", r)
	}
	var doc struct {
		Outcomes []struct {
			Status      string `json:"status"`
			RunID       string `json:"id"`
			File        string `json:"file"`
			Publishable bool   `json:"publishable"`
		} `json:"outcomes"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("ingest --json: %v\n%s", err, r.stdout)
	}
	runOf = map[string]string{}
	for _, o := range doc.Outcomes {
		if o.Status != "new" {
			continue
		}
		runOf[filepath.Base(o.File)] = o.RunID
		if !o.Publishable {
			t.Errorf("%s: a summary-only run with complete provenance is publishable", o.File)
		}
	}
	if len(runOf) != 4 {
		t.Fatalf("want 4 runs, got %v", runOf)
	}
	return db, filepath.Join(dir, "casestudy.yaml"), runOf
}

// TestStatedFiguresAreEvidence: a case study over summary-only runs
// evaluates from the figures their tool stated, and every value says so.
func TestStatedFiguresAreEvidence(t *testing.T) {
	t.Parallel()
	db, specPath, runOf := statedPage(t)

	r := bl(t, "figures", "--db", db, "--json", specPath)
	if r.code != 0 {
		t.Fatalf("figures over summary-only runs: %v", r)
	}
	var doc struct {
		Comparisons map[string]struct {
			Baseline, Candidate struct {
				Value       float64 `json:"value"`
				ValueSource string  `json:"value_source"`
				Sources     []struct {
					Run, ValueSource, Tool, SourceKey string
				} `json:"sources"`
			}
		} `json:"comparisons"`
		Figures map[string]struct {
			ValueSource string `json:"value_source"`
		} `json:"figures"`
		Caveats []struct {
			Code   string
			Params map[string]string
		} `json:"caveats"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	vl := doc.Comparisons["very_long"]
	if vl.Baseline.Value != 1000 || vl.Candidate.Value != 1468 {
		t.Errorf("very_long: %v → %v, want the stated 1000 → 1468 tok/s", vl.Baseline.Value, vl.Candidate.Value)
	}
	for name, c := range doc.Comparisons {
		for side, v := range map[string]string{"baseline": c.Baseline.ValueSource, "candidate": c.Candidate.ValueSource} {
			if v != "stated" {
				t.Errorf("%s.%s: value_source %q, want stated", name, side, v)
			}
		}
	}
	if f := doc.Figures["long_ttft"]; f.ValueSource != "stated" {
		t.Errorf("long_ttft: value_source %q, want stated", f.ValueSource)
	}
	stated := map[string]bool{}
	for _, c := range doc.Caveats {
		if c.Code == "stated_not_recomputed" {
			stated[c.Params["figure"]] = true
			if c.Params["tool"] != "vllm bench serve" || c.Params["key"] == "" {
				t.Errorf("stated_not_recomputed names the tool and key: %v", c.Params)
			}
		}
	}
	for _, f := range []string{"very_long.baseline", "very_long.candidate", "short.baseline", "short.candidate", "long_ttft"} {
		if !stated[f] {
			t.Errorf("no stated_not_recomputed caveat for %s: %v", f, doc.Caveats)
		}
	}
	text := bl(t, "figures", "--db", db, specPath)
	if !strings.Contains(text.stdout, "stated by vllm bench serve (output_throughput, full precision), not recomputable") {
		t.Errorf("figures' text does not say where the values come from:\n%s", text.stdout)
	}

	// compare of two summary-only runs.
	cmp := bl(t, "compare", "--db", db, "--metric", "output_throughput", runOf["long-baseline.json"], runOf["long-optimized.json"])
	if cmp.code != 0 || !strings.Contains(cmp.stdout, "+46.80%") || !strings.Contains(cmp.stdout, "stated by vllm bench serve") {
		t.Errorf("compare of summary-only runs: %v", cmp)
	}

	// Reports in every language say which values are stated.
	out := t.TempDir()
	rep := bl(t, "report", "--db", db, "--draft", "--no-audit", "--format", "md", "--out", out, specPath)
	if rep.code != 0 {
		t.Fatalf("report: %v", rep)
	}
	for lang, phrase := range map[string]string{
		"en":     "stated by vllm bench serve (output\\_throughput, full precision), not recomputable",
		"zh":     "由 vllm bench serve 报告（output\\_throughput，完整精度），无法重新计算",
		"ja":     "vllm bench serve の報告値（output\\_throughput、全桁）、再計算不可",
		"es-419": "declarado por vllm bench serve (output\\_throughput, precisión completa), no recalculable",
	} {
		data, err := os.ReadFile(filepath.Join(out, "stated-page."+lang+".md"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), phrase) {
			t.Errorf("%s report does not say %q", lang, phrase)
		}
	}

	// export, without and with a spec.
	for _, args := range [][]string{{}, {specPath}} {
		dir := t.TempDir()
		ex := bl(t, append([]string{"export", "--db", db, "--csv", dir}, args...)...)
		if ex.code != 0 {
			t.Errorf("export %v over summary-only runs: %v", args, ex)
			continue
		}
		data, _ := os.ReadFile(filepath.Join(dir, "runs.csv"))
		if !strings.Contains(string(data), "stated by the tool") {
			t.Errorf("export %v: runs.csv has no value source:\n%s", args, data)
		}
	}
}

// TestAuditStatedPage: the audit of a published page whose runs are
// summary-only checks its claims against the stated figures, and finds the
// launch command that names another engine.
func TestAuditStatedPage(t *testing.T) {
	t.Parallel()
	db, specPath, runOf := statedPage(t)
	d, r := auditJSON(t, "--db", db, specPath)
	if r.code != exitProblems {
		t.Fatalf("audit: exit %d, want %d\n%v", r.code, exitProblems, r)
	}
	var claim, engine, text bool
	for _, f := range d.Findings {
		switch {
		case f.Check == "claims.stated" && f.Severity == "fail" && f.Params["figure"] == "very_long.pct":
			claim = true
			for _, want := range []string{"+46.8%", "10.7%", "baseline 1,000 tok/s", "candidate 1,468 tok/s", "stated by vllm bench serve"} {
				if !strings.Contains(f.Message, want) {
					t.Errorf("claims.stated does not name %q: %s", want, f.Message)
				}
			}
		case f.Check == "provenance.engine" && f.Severity == "fail" && f.Run == runOf["long-optimized.json"]:
			engine = f.Params["field"] == "runtime.server_args"
		case f.Check == "claims.text" && f.Severity == "fail" && f.Params["token"] == "+10.7%":
			text = true
		case f.Check == "recompute.stated" || f.Check == "plausibility.stated":
			t.Errorf("a consistent summary-only run fails %s: %s", f.Check, f.Message)
		}
	}
	if !claim || !engine || !text {
		t.Errorf("claim %v, engine %v, text %v; findings:\n%s", claim, engine, text, r.stdout)
	}
}

// TestMixedArchive: export without a spec, the site and compare on an
// archive holding a detailed run beside summary-only ones.
func TestMixedArchive(t *testing.T) {
	t.Parallel()
	db, _, runOf := statedPage(t)
	detailed := filepath.Join(t.TempDir(), "detailed.json")
	writeVLLM(t, detailed, vllmSpec{n: 40})
	ing := bl(t, "ingest", "--db", db, "--set", "campaign=stated-page", detailed)
	if ing.code != 0 {
		t.Fatalf("ingest: %v", ing)
	}
	id := strings.Fields(ing.stdout)[0]
	if ex := bl(t, "export", "--db", db, "--csv", t.TempDir()); ex.code != 0 {
		t.Errorf("export without a spec on a mixed archive: %v", ex)
	}
	if ex := bl(t, "export", "--db", db, "--xlsx", filepath.Join(t.TempDir(), "x.xlsx")); ex.code != 0 {
		t.Errorf("export --xlsx without a spec on a mixed archive: %v", ex)
	}
	site := t.TempDir()
	if s := bl(t, "site", "--db", db, "--out", site); s.code != 0 {
		t.Fatalf("site on a mixed archive: %v", s)
	}
	runs, err := os.ReadFile(filepath.Join(site, "en", "runs.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(runs), "1,000 (stated by the tool)") {
		t.Errorf("the site's runs table does not mark the stated throughput")
	}
	cmp := bl(t, "compare", "--db", db, "--json", id, runOf["short-baseline.json"])
	if cmp.code != 0 || !strings.Contains(cmp.stdout, `"stated_and_recomputed_mixed"`) {
		t.Errorf("a comparison of a recomputed and a stated value says so: %v", cmp)
	}
}

// TestImpossibleStatedFigures: each impossible stated value is archived
// (ingest exit 0), fails plausibility.stated (audit exit 3), is marked by
// show and keeps the run unpublishable — summary-only and detailed runs.
func TestImpossibleStatedFigures(t *testing.T) {
	t.Parallel()
	summary, err := os.ReadFile(filepath.Join("testdata", "stated-page", "long-baseline.json"))
	if err != nil {
		t.Fatal(err)
	}
	detailedPath := filepath.Join(t.TempDir(), "detailed.json")
	writeVLLM(t, detailedPath, vllmSpec{n: 20})
	detailed, err := os.ReadFile(detailedPath)
	if err != nil {
		t.Fatal(err)
	}
	set := func(src []byte, key, value string) string {
		re := regexp.MustCompile(`"` + regexp.QuoteMeta(key) + `": [^,}\n]+`)
		if !re.Match(src) {
			t.Fatalf("no %s in the base file", key)
		}
		return re.ReplaceAllString(string(src), `"`+key+`": `+value)
	}
	for _, tc := range []struct {
		name, metric string
		file         string
	}{
		{"duration 0", "duration", set(summary, "duration", "0")},
		{"duration -5", "duration", set(summary, "duration", "-5")},
		{"duration 1e-400", "duration", set(summary, "duration", "1e-400")},
		{"duration NaN", "duration", set(summary, "duration", "NaN")},
		{"negative mean TTFT", "ttft.mean", set(summary, "mean_ttft_ms", "-12.5")},
		{"negative E2E p99", "e2el.p99", set(summary, "p99_e2el_ms", "-1")},
		{"p99 below the median", "ttft.p99", set(summary, "p99_ttft_ms", "1000")},
		{"negative request throughput", "request_throughput", set(summary, "request_throughput", "-2")},
		{"negative output throughput", "output_throughput", set(summary, "output_throughput", "-1000")},
		{"negative request rate", "request_rate", set(summary, "request_rate", "-2")},
		{"total throughput below output throughput", "total_token_throughput", set(summary, "total_token_throughput", "500")},
		{"detailed: duration -5", "duration", set(detailed, "duration", "-5")},
		{"detailed: p99 below the median", "ttft.p99", set(detailed, "p99_ttft_ms", "40.0")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "run.json")
			writeFile(t, path, tc.file)
			db := filepath.Join(t.TempDir(), "a.db")
			ing := bl(t, "ingest", "--db", db, "--set", "campaign=impossible", path)
			if ing.code != 0 {
				t.Fatalf("ingest must archive the evidence: %v", ing)
			}
			id := strings.Fields(ing.stdout)[0]
			d, r := auditJSON(t, "--db", db)
			if r.code != exitProblems {
				t.Errorf("audit: exit %d, want %d\n%s", r.code, exitProblems, r.stdout)
			}
			found := false
			for _, f := range d.Findings {
				found = found || f.Check == "plausibility.stated" && f.Severity == "fail" && f.Run == id && f.Params["metric"] == tc.metric
			}
			if !found {
				t.Errorf("no plausibility.stated fail for %s:\n%s", tc.metric, r.stdout)
			}
			if s := bl(t, "show", "--db", db, id); !strings.Contains(s.stdout, "IMPOSSIBLE "+tc.metric) {
				t.Errorf("show prints the impossible %s as if fine:\n%s", tc.metric, s.stdout)
			}
			var runs []struct {
				ID          string `json:"id"`
				Publishable bool   `json:"publishable"`
			}
			rj := bl(t, "runs", "--db", db, "--json")
			if err := json.Unmarshal([]byte(rj.stdout), &runs); err != nil || len(runs) != 1 || runs[0].Publishable {
				t.Errorf("runs --json: a run with an impossible stated figure is not publishable: %v %s", err, rj.stdout)
			}
		})
	}
}

// TestStatedNodeAndSweep: a node over summary-only runs is refused naming
// the run (a stated duration places no common window), and a sweep over
// them uses the stated figures with their caveats.
func TestStatedNodeAndSweep(t *testing.T) {
	t.Parallel()
	db, specPath, runOf := statedPage(t)
	dir := t.TempDir()
	node := filepath.Join(dir, "node.yaml")
	writeFile(t, node, `id: stated-node
campaign: stated-page
runs:
  long: {group: very-long}
nodes:
  very_long_node: {groups: [long]}
languages: [en]
title: {en: "Stated"}
`)
	r := bl(t, "figures", "--db", db, node)
	if r.code == 0 || !strings.Contains(r.stderr, "no common window") ||
		!(strings.Contains(r.stderr, runOf["long-baseline.json"]) || strings.Contains(r.stderr, runOf["long-optimized.json"])) {
		t.Errorf("a node over summary-only runs must be refused naming the run: %v", r)
	}
	sweep := filepath.Join(dir, "sweep.yaml")
	writeFile(t, sweep, `id: stated-sweep
campaign: stated-page
runs:
  baselines: {role: baseline}
sweeps:
  by_count: {of: baselines, parameter: workload.request_count}
languages: [en]
title: {en: "Stated"}
`)
	r = bl(t, "figures", "--db", db, "--json", sweep)
	if r.code != 0 {
		t.Errorf("a sweep over summary-only runs: %v", r)
	} else if !strings.Contains(r.stdout, `"stated_not_recomputed"`) || !strings.Contains(r.stdout, `"by_count.output_throughput"`) {
		t.Errorf("sweep points resting on stated figures carry stated_not_recomputed: %s", r.stdout)
	}
	// figures --json lists no unpublishable run on the consistent page.
	fj := bl(t, "figures", "--db", db, "--json", specPath)
	if !strings.Contains(fj.stdout, `"unpublishable": {}`) {
		t.Errorf("figures --json: unpublishable must be empty: %s", fj.stdout[:min(400, len(fj.stdout))])
	}
}
