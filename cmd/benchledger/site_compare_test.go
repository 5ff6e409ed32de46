package main

import (
	"encoding/json"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/figures"
)

// checkSiteComparison reads the demo's scheduler-tuning comparison page:
// what changed (the intended server arguments) and what was held fixed,
// every figure both runs have with better or worse by the Catalogue's
// direction (recomputed here from show --json), and the CDF charts of both
// runs' latencies (monotone, ending at 100 %, the median marked where the
// run's figures put it).
func checkSiteComparison(t *testing.T, db, out string) {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(out, "en", "compare", "qwen3-batch--scheduler_tuning.html"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	if !regexp.MustCompile(`<tr data-field="runtime.server_args"><td>[^<]+<br><code>runtime.server_args</code></td><td class="value">[^<]+</td><td class="value">[^<]+</td><td>intended</td></tr>`).MatchString(s) {
		t.Error("comparison page: the server arguments are not shown as the intended change with both values")
	}
	if !strings.Contains(s, `<table class="fixed">`) || !strings.Contains(s[strings.Index(s, `<table class="fixed">`):], `data-field="hardware.gpu_model"`) {
		t.Error("comparison page: the GPU model is not among the fields held fixed")
	}
	ids := regexp.MustCompile(`run ([0-9a-f]{12}) against run ([0-9a-f]{12})`).FindStringSubmatch(s)
	if ids == nil {
		t.Fatal("comparison page does not name the runs of its figures")
	}
	cand, base := ids[1], ids[2]
	bv, cv := recomputedFigures(t, db, base), recomputedFigures(t, db, cand)
	rows := map[string]string{}
	for _, m := range regexp.MustCompile(`<tr data-metric="([^"]+)" data-way="([a-z]*)">`).FindAllStringSubmatch(s, -1) {
		rows[m[1]] = m[2]
	}
	checked := 0
	for metric, b := range bv {
		c, ok := cv[metric]
		if !ok {
			continue
		}
		way, shown := rows[metric]
		if !shown {
			t.Errorf("comparison page: no row for %s, which both runs have", metric)
			continue
		}
		want := ""
		switch d := figures.DirectionOf(metric); {
		case d == figures.HigherIsBetter && c > b, d == figures.LowerIsBetter && c < b:
			want = "better"
		case d == figures.HigherIsBetter && c < b, d == figures.LowerIsBetter && c > b:
			want = "worse"
		}
		if way != want {
			t.Errorf("comparison page: %s from %v to %v is %q, want %q", metric, b, c, way, want)
		}
		checked++
	}
	if checked < 20 || !strings.Contains(s, `data-way="better"`) || !strings.Contains(s, `data-way="worse"`) {
		t.Errorf("comparison page: %d figures checked; better and worse both shown: %t", checked, strings.Contains(s, `data-way="worse"`))
	}

	// The distributions.
	for _, fam := range []string{"e2el", "ttft"} {
		m := regexp.MustCompile(`<figure data-chart-kind="cdf"><div class="chart" id="chart-cdf-` + fam + `"[^>]*></div><script type="application/json" id="option-cdf-` + fam + `">([^<]*)</script><figcaption>([^<]*)</figcaption>`).FindStringSubmatch(s)
		if m == nil {
			t.Errorf("comparison page: no %s CDF chart with its caption", fam)
			continue
		}
		if cap := html.UnescapeString(m[2]); !strings.Contains(cap, base) || !strings.Contains(cap, cand) {
			t.Errorf("%s CDF caption %q names not both runs", fam, cap)
		}
		var opt struct {
			Series []struct {
				Data      [][2]float64 `json:"data"`
				MarkPoint struct {
					Data []struct {
						Name  string     `json:"name"`
						Coord [2]float64 `json:"coord"`
					} `json:"data"`
				} `json:"markPoint"`
			} `json:"series"`
		}
		if err := json.Unmarshal([]byte(m[1]), &opt); err != nil {
			t.Fatal(err)
		}
		if len(opt.Series) != 2 {
			t.Fatalf("%s CDF: %d series, want both sides", fam, len(opt.Series))
		}
		for i, sr := range opt.Series {
			d := sr.Data
			if len(d) < 10 {
				t.Errorf("%s CDF series %d: %d points", fam, i, len(d))
				continue
			}
			for j := 1; j < len(d); j++ {
				if d[j][0] < d[j-1][0] || d[j][1] < d[j-1][1] {
					t.Errorf("%s CDF series %d not monotone at point %d: %v after %v", fam, i, j, d[j], d[j-1])
					break
				}
			}
			if last := d[len(d)-1][1]; last != 100 {
				t.Errorf("%s CDF series %d ends at %v %%", fam, i, last)
			}
			median := []map[string]float64{bv, cv}[i][fam+".median"]
			found := false
			for _, mp := range sr.MarkPoint.Data {
				if mp.Name == "p50" {
					found = true
					if math.Abs(mp.Coord[0]-median) > 1e-4 || mp.Coord[1] != 50 {
						t.Errorf("%s CDF series %d marks p50 at %v, the run's median is %v", fam, i, mp.Coord, median)
					}
				}
			}
			if !found {
				t.Errorf("%s CDF series %d: no p50 mark", fam, i)
			}
		}
	}
	// The headline table keeps its one row; a comparison with an external
	// reference has no runs to draw.
	ref, err := os.ReadFile(filepath.Join(out, "en", "compare", "qwen3-batch--nvidia_reference.html"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(ref), `data-chart-kind="cdf"`) || strings.Contains(string(ref), `<table class="metrics">`) {
		t.Error("the comparison with NVIDIA's published figure draws runs it does not have")
	}
}

// recomputedFigures are a run's figures as show --json recomputes them from
// its records, with its completion counts.
func recomputedFigures(t *testing.T, db, id string) map[string]float64 {
	t.Helper()
	var v struct {
		Figures []struct {
			Metric     string   `json:"metric"`
			Recomputed *float64 `json:"recomputed"`
		} `json:"figures"`
		Completion struct {
			Completed, Failed float64
		} `json:"completion"`
	}
	r := bl(t, "show", "--db", db, "--json", id)
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatal(err, r)
	}
	m := map[string]float64{"completed": v.Completion.Completed, "failed": v.Completion.Failed}
	for _, f := range v.Figures {
		if f.Recomputed != nil {
			m[f.Metric] = *f.Recomputed
		}
	}
	return m
}
