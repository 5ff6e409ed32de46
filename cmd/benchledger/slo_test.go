package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// sloCampaign is a three-level concurrency sweep on 2 GPUs with a spec
// that declares an SLO and a price.
func sloCampaign(t *testing.T) (db, specPath string) {
	t.Helper()
	dir := t.TempDir()
	db = filepath.Join(dir, "a.db")
	for i, c := range []string{"8", "16", "32"} {
		p := filepath.Join(dir, "c"+c+".json")
		writeVLLM(t, p, vllmSpec{n: 30, gaps: 4 + 2*i, seed: float64(i)})
		if r := bl(t, "ingest", "--db", db, "--set", "campaign=slo", "--set", "group=sweep", "--set", "hardware.gpu_count=2",
			"--set", "sweep.value="+c, p); r.code != 0 {
			t.Fatal(r)
		}
	}
	specPath = filepath.Join(dir, "casestudy.yaml")
	writeFile(t, specPath, `id: slo
campaign: slo
runs:
  sweep: {group: sweep}
  low: {group: sweep, sweep.value: "8"}
figures:
  low_tput: {of: low, metric: output_throughput}
  low_good: {of: low, metric: goodput}
sweeps:
  load: {of: sweep, parameter: sweep.value}
slo: {e2el_ms: 100000, attainment_pct: 90}
price: {per_gpu_hour: 3, currency: EUR, date: 2026-08-01}
`)
	return db, specPath
}

// TestFiguresSLOAndCost: figures --json carries goodput, the sweep's SLO
// operating point and cost estimates with their inputs; the CSV export's
// operating points table has them, each cost equal to the formula over the row's own
// throughput and GPUs.
func TestFiguresSLOAndCost(t *testing.T) {
	t.Parallel()
	db, specPath := sloCampaign(t)
	r := bl(t, "figures", "--db", db, "--json", specPath)
	if r.code != 0 {
		t.Fatal(r)
	}
	var doc struct {
		Figures map[string]struct {
			Value float64
			Cost  *struct {
				PerMillionOutputTokens float64 `json:"per_million_output_tokens"`
				Estimate               bool
				GPUs                   float64
				Price                  struct{ Currency, Date string }
			}
		}
		Sweeps map[string]struct {
			Result struct {
				SLOPoint      int  `json:"slo_point"`
				SLOPointFound bool `json:"slo_point_found"`
				Levels        []struct {
					Param         float64
					SLOAttainment *float64 `json:"slo_attainment"`
				}
			}
		}
		SLO   *struct{ E2EL float64 } `json:"slo"`
		Price *struct{ Currency string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	low := doc.Figures["low_tput"]
	if c := low.Cost; c == nil || !c.Estimate || c.GPUs != 2 || c.Price.Currency != "EUR" || c.Price.Date != "2026-08-01" ||
		math.Abs(c.PerMillionOutputTokens-3*2/(low.Value*3600)*1e6) > 1e-9 {
		t.Errorf("cost of low_tput %+v (throughput %v)", low.Cost, low.Value)
	}
	if g := doc.Figures["low_good"].Value; !(g > 0) {
		t.Errorf("goodput %v", g)
	}
	sw := doc.Sweeps["load"].Result
	if !sw.SLOPointFound || sw.SLOPoint != 2 || sw.Levels[2].SLOAttainment == nil || *sw.Levels[2].SLOAttainment != 100 {
		t.Errorf("sweep SLO point %d found %v levels %+v", sw.SLOPoint, sw.SLOPointFound, sw.Levels)
	}
	if doc.SLO == nil || doc.SLO.E2EL != 100 || doc.Price == nil {
		t.Errorf("slo %+v price %+v", doc.SLO, doc.Price)
	}

	dir := t.TempDir()
	if r := bl(t, "export", "--no-audit", "--db", db, "--csv", dir, specPath); r.code != 0 {
		t.Fatal(r)
	}
	rows := csvRows(t, filepath.Join(dir, "operating_points.csv"))
	col := func(prefix string) int {
		for i, h := range rows[0] {
			if strings.HasPrefix(h, prefix) {
				return i
			}
		}
		t.Fatalf("operating_points.csv has no column %q: %q", prefix, rows[0])
		return -1
	}
	tput, cost, gpus, perGPU := col("Output throughput (tok/s)"), col("Cost per million output tokens (estimate, EUR)"), col("GPU count"), col("Output throughput per GPU")
	point, att := col("SLO operating point"), col("SLO attainment")
	if len(rows) != 4 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, row := range rows[1:] {
		x, _ := strconv.ParseFloat(row[tput], 64)
		c, _ := strconv.ParseFloat(row[cost], 64)
		g, _ := strconv.ParseFloat(row[gpus], 64)
		pg, _ := strconv.ParseFloat(row[perGPU], 64)
		if g != 2 || math.Abs(c-3*g/(x*3600)*1e6) > 1e-6*c || math.Abs(pg-x/2) > 1e-9*x || row[att] != "100" {
			t.Errorf("row %d: throughput %v cost %v GPUs %v per GPU %v attainment %q", i, x, c, g, pg, row[att])
		}
		if want := fmt.Sprint(i == 2); !strings.EqualFold(row[point], want) {
			t.Errorf("row %d: SLO point %q, want %s", i, row[point], want)
		}
	}
	runs := csvRows(t, filepath.Join(dir, "runs.csv"))
	if !strings.Contains(strings.Join(runs[0], "|"), "Goodput (req/s)") {
		t.Errorf("runs.csv has no goodput column: %q", runs[0])
	}
}

func csvRows(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestAuditStatedGoodput: a stated request_goodput is checked against the
// records judged by the SLO the client used (measurement.goodput): the
// right value passes, one good request too many is a recompute.stated
// failure, and without the SLO it is not checked (figures.CheckStated's
// tests say with which reason).
func TestAuditStatedGoodput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.json")
	// Latencies 0.0668 + 0.001·(i mod 7) s: with e2el ≤ 70 ms, i mod 7 in
	// 0..3 are good: 20 of 35.
	writeVLLM(t, src, vllmSpec{n: 35})
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`"duration": ([0-9.e+-]+), `).FindSubmatch(raw)
	if m == nil {
		t.Fatal("no duration")
	}
	dur, _ := strconv.ParseFloat(string(m[1]), 64)
	for _, c := range []struct {
		name, slo string
		good      int
		fails     bool
	}{{"right", "e2el:70", 20, false}, {"wrong", "e2el:70", 21, true}, {"no-slo", "", 21, false}} {
		p := filepath.Join(dir, c.name+".json")
		stated := strconv.FormatFloat(float64(c.good)/dur, 'g', -1, 64)
		writeFile(t, p, strings.Replace(string(raw), string(m[0]), string(m[0])+`"request_goodput": `+stated+`, `, 1))
		db := filepath.Join(dir, c.name+".db")
		args := []string{"ingest", "--db", db, "--set", "hardware.gpu_model=NVIDIA H100"}
		if c.slo != "" {
			args = append(args, "--set", "measurement.goodput="+c.slo)
		}
		r := bl(t, append(args, p)...)
		if r.code != 0 {
			t.Fatal(r)
		}
		d, _ := auditJSON(t, "--db", db, "--check", "recompute.stated")
		failed := false
		for _, f := range d.Findings {
			if f.Check == "recompute.stated" && f.Severity == "fail" && strings.Contains(f.Message, "request_goodput") {
				failed = true
			}
		}
		if failed != c.fails {
			t.Errorf("%s: request_goodput failure %v, want %v: %+v", c.name, failed, c.fails, d.Findings)
		}
	}
}
