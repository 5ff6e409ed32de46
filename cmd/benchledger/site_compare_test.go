package main

import (
	"encoding/json"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/spec"
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

// checkSiteComparisonNames reads the scheduler-tuning comparison page in
// every language as a reader would (issue 18): the comparison and its runs
// are named by their labels, the run id secondary ("Baseline
// (3c189106530a)"), never by the spec's keys ("baseline: 3c18…",
// "Comparison scheduler_tuning"); every row label starts with a capital
// (es "Rendimiento de salida"); cells write a unit as its symbol next to
// the number (es "15.910 s", not "segundos").
func checkSiteComparisonNames(t *testing.T, out string) {
	t.Helper()
	tags := regexp.MustCompile(`<[^>]+>`)
	for _, lang := range siteLangs {
		data, err := os.ReadFile(filepath.Join(out, lang, "compare", "qwen3-batch--scheduler_tuning.html"))
		if err != nil {
			t.Fatal(err)
		}
		s := string(data)
		h1 := regexp.MustCompile(`<h1>([^<]*)</h1>`).FindStringSubmatch(s)
		if h1 == nil || strings.Contains(h1[1], "scheduler_tuning") {
			t.Errorf("%s comparison page: title %q names the spec key", lang, h1)
		}
		i := strings.LastIndex(s, "<ul>")
		if i < 0 {
			t.Fatalf("%s comparison page: no list of runs", lang)
		}
		runs := regexp.MustCompile(`<li><a href="[^"]*run/([0-9a-f]{12})\.html">([^<]*)</a></li>`).FindAllStringSubmatch(s[i:], -1)
		if len(runs) != 2 {
			t.Fatalf("%s comparison page: runs %q, want the baseline and the candidate", lang, runs)
		}
		for _, r := range runs {
			text := html.UnescapeString(r[2])
			name, _, _ := strings.Cut(text, r[1])
			if name = strings.TrimRight(name, " (（"); name == "" || strings.Contains(strings.ToLower(name), "baseline:") ||
				name == "baseline" || name == "tuned" || !strings.Contains(text, r[1]) {
				t.Errorf("%s comparison page: run %s listed as %q, want its label with the id secondary", lang, r[1], text)
			}
		}
		for _, m := range regexp.MustCompile(`<tr[^>]*><td>(.*?)</td>`).FindAllStringSubmatch(s, -1) {
			label := html.UnescapeString(tags.ReplaceAllString(m[1], " "))
			if r := []rune(strings.TrimSpace(label)); len(r) > 0 && unicode.IsLower(r[0]) {
				t.Errorf("%s comparison page: row label %q starts in lower case", lang, label)
			}
		}
		for _, m := range regexp.MustCompile(`<td class="num">([^<]*)</td>`).FindAllStringSubmatch(s, -1) {
			if strings.Contains(m[1], "segundo") || strings.Contains(m[1], "second") {
				t.Errorf("%s comparison page: cell %q spells the unit out", lang, m[1])
			}
		}
	}
}

// checkSiteComparisonReads reads the Japanese scheduler-tuning comparison
// page as its reader does: recorded values in words and the language's
// number style (63–66, 2,048, an unlimited rate in words, vLLM), free text
// by the spec's label for it as the report shows it, else as recorded and
// marked lang="en", caveats without their codes in the text, and each
// change written as the report writes it (three significant digits: +132%,
// not +131.9%).
func checkSiteComparisonReads(t *testing.T, db, specPath, out string) {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(out, "ja", "compare", "qwen3-batch--scheduler_tuning.html"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	l := locales.MustMatch("ja")
	fixed := s[strings.Index(s, `<table class="fixed">`):]
	fixed = fixed[:strings.Index(fixed, "</table>")]
	values := map[string]string{}
	for _, m := range regexp.MustCompile(`<tr data-field="([^"]+)">.*?<td class="value"( lang="en")?>([^<]*)</td>`).FindAllStringSubmatch(fixed, -1) {
		values[m[1]] = html.UnescapeString(m[3])
		if m[2] != "" {
			values[m[1]+" lang"] = "en"
		}
	}
	ids := regexp.MustCompile(`<a href="../run/([0-9a-f]{12}).html">`).FindAllStringSubmatch(s, -1)
	if len(ids) < 2 {
		t.Fatal("ja comparison page: no links to its two runs")
	}
	// The values as recorded (the baseline's; held fixed, both agree).
	var shown struct {
		Provenance []struct{ Field, Value string }
	}
	if err := json.Unmarshal([]byte(bl(t, "show", "--db", db, "--json", ids[0][1]).stdout), &shown); err != nil {
		t.Fatal(err)
	}
	recorded := map[string]string{}
	for _, p := range shown.Provenance {
		recorded[p.Field] = p.Value
	}
	num := func(field string) string {
		v, err := strconv.ParseFloat(recorded[field], 64)
		if err != nil {
			t.Fatalf("%s recorded as %q", field, recorded[field])
		}
		return l.Number(v, -1)
	}
	sp, err := spec.Load(specPath)
	if err != nil {
		t.Fatal(err)
	}
	dataset := sp.Label(spec.ValueLabel+recorded["workload.dataset"], "ja")
	if dataset == "" {
		t.Fatalf("the spec has no ja label for the dataset %q: the check below checks nothing", recorded["workload.dataset"])
	}
	lo, hi, _ := strings.Cut(recorded["workload.input_len"], "-")
	loV, _ := strconv.ParseFloat(lo, 64)
	hiV, _ := strconv.ParseFloat(hi, 64)
	for field, want := range map[string]string{
		"workload.request_count": num("workload.request_count"),
		"workload.input_len":     l.Number(loV, -1) + "–" + l.Number(hiV, -1),
		"workload.request_rate":  l.T("value.unlimited_rate"),
		"runtime.engine":         "vLLM",
		"workload.dataset":       dataset,
		"hardware.node lang":     "en", // a free text the spec gives no label
	} {
		if values[field] != want {
			t.Errorf("ja comparison page: held fixed %s = %q, want %q (recorded %q)", field, values[field], want, recorded[strings.TrimSuffix(field, " lang")])
		}
	}
	if strings.Contains(s[strings.Index(s, `class="caveats"`):], "<code>") {
		t.Error("ja comparison page: a caveat shows its code to the reader")
	}
	base, cand := recomputedFigures(t, db, ids[0][1]), recomputedFigures(t, db, ids[1][1])
	pct := (cand["output_throughput"]/base["output_throughput"] - 1) * 100
	want := l.Percent(pct, casestudy.PctDecimals(pct), true)
	row := regexp.MustCompile(`<tr data-metric="output_throughput"[^>]*>.*?</tr>`).FindString(s)
	if !strings.Contains(html.UnescapeString(row), ">"+want+"<") {
		t.Errorf("ja comparison page: the throughput change is not %q: %s", want, row)
	}
}
