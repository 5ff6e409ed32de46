package main

import (
	"encoding/json"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

var (
	figureRE    = regexp.MustCompile(`<figure id="([^"]+)" data-chart-kind="([^"]*)">`)
	captionRE   = regexp.MustCompile(`(?s)<figcaption>(.*?)</figcaption>`)
	chartJSONRE = regexp.MustCompile(`(?s)<script type="application/json" id="option-([^"]+)">(.*?)</script>`)
	hexIDRE     = regexp.MustCompile(`\b[0-9a-f]{12}\b`)
)

// chartKinds maps each chart of an HTML report to its data-chart-kind.
func chartKinds(page []byte) map[string]string {
	kinds := map[string]string{}
	for _, m := range figureRE.FindAllStringSubmatch(string(page), -1) {
		kinds[m[1]] = m[2]
	}
	return kinds
}

// chartOption is the part of a chart's option the checks read.
type chartOption struct {
	Series []struct {
		Name      string          `json:"name"`
		Type      string          `json:"type"`
		Data      json.RawMessage `json:"data"`
		MarkPoint *struct {
			Data []struct {
				Name  string    `json:"name"`
				Coord []float64 `json:"coord"`
			} `json:"data"`
		} `json:"markPoint"`
	} `json:"series"`
}

// TestReportChartsFromRecords renders the demo report and recomputes what
// its trade-off, distribution and timeline charts plot from the archived
// per-request records, by hand and without the chart code: each sweep
// level's output tok/s per GPU and 1 / mean TPOT, the Pareto frontier (a
// point on the line that another point beats fails), each CDF rising to
// 100 % at the largest value with every point's share recounted, and the
// timeline's completions. Every chart carries its kind and a caption that
// names runs by label, never by id.
func TestReportChartsFromRecords(t *testing.T) {
	t.Parallel()
	demo := sharedDemo(t)
	out := t.TempDir()
	if r := bl(t, "report", "--db", demo.db, "--out", out, "--lang", "en", "--format", "html", "--no-audit", demo.spec()); r.code != 0 {
		t.Fatal(r)
	}
	page, err := os.ReadFile(filepath.Join(out, "qwen3-batch.en.html"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := chartKinds(page)
	options := map[string]chartOption{}
	for _, m := range chartJSONRE.FindAllStringSubmatch(string(page), -1) {
		var o chartOption
		if err := json.Unmarshal([]byte(m[2]), &o); err != nil {
			t.Fatalf("chart %s: %v", m[1], err)
		}
		options[m[1]] = o
		if kinds[m[1]] == "" {
			t.Errorf("chart %s has no data-chart-kind", m[1])
		}
	}
	for kind, id := range map[string]string{"pareto": "pareto-saturation", "cdf": "cdf-scheduler_tuning-e2el", "timeline": "load-tuned",
		"comparison": "cmp-scheduler_tuning", "sweep": "sweep-saturation", "replica-timeline": "timeline-node"} {
		if kinds[id] != kind {
			t.Errorf("chart %s: kind %q, want %q", id, kinds[id], kind)
		}
	}
	figs := strings.Split(string(page), "<figure id=")[1:]
	if len(figs) != len(options) {
		t.Errorf("%d figures for %d charts", len(figs), len(options))
	}
	for _, f := range figs {
		c := captionRE.FindStringSubmatch(f)
		if c == nil || !strings.Contains(c[1], `class="chart-caption"`) || !strings.Contains(c[1], "Runs: ") {
			t.Errorf("figure %.40s: no caption naming its runs", f)
			continue
		}
		if id := hexIDRE.FindString(c[1]); id != "" {
			t.Errorf("figure %.40s: caption names run %s by its id: %s", f, id, c[1])
		}
	}

	a, err := store.Open(demo.db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	sums, err := a.ListRuns(store.Filter{Campaign: "qwen3-batch"})
	if err != nil {
		t.Fatal(err)
	}
	type level struct {
		param, perGPU, perUser float64
	}
	var levels []level
	runOf := map[string]string{} // role → run id
	for _, s := range sums {
		rec, err := a.RunMeta(s.ID)
		if err != nil {
			t.Fatal(err)
		}
		eff := provenance.Record(rec.Provenance).Effective()
		if eff["role"] == "baseline" || eff["role"] == "tuned" {
			runOf[eff["role"]] = s.ID
		}
		if eff["group"] != "saturation-sweep" {
			continue
		}
		reqs, err := a.Requests(s.ID)
		if err != nil {
			t.Fatal(err)
		}
		first, last, out, tpotSum, tpotN := math.Inf(1), math.Inf(-1), 0.0, 0.0, 0.0
		for _, q := range reqs {
			first = math.Min(first, q.Start)
			if q.Failed() {
				continue
			}
			last = math.Max(last, q.Start+q.Latency)
			out += float64(q.OutputTokens)
			if q.OutputTokens > 1 {
				tpotSum += (q.Latency - q.TTFT) / float64(q.OutputTokens-1)
				tpotN++
			}
		}
		gpus, _ := strconv.ParseFloat(eff["hardware.gpu_count"], 64)
		p, _ := strconv.ParseFloat(eff["sweep.value"], 64)
		levels = append(levels, level{param: p, perGPU: out / (last - first) / gpus, perUser: tpotN / tpotSum})
	}
	if len(levels) != 5 {
		t.Fatalf("%d sweep runs, want the demo's 5", len(levels))
	}
	sort.Slice(levels, func(i, j int) bool { return levels[i].param < levels[j].param })

	// The trade-off curve: every point where the records put it.
	po := options["pareto-saturation"]
	type pt struct {
		Name  string     `json:"name"`
		Value [2]float64 `json:"value"`
	}
	var drawn []pt
	var line [][2]float64
	for _, s := range po.Series {
		switch s.Type {
		case "scatter":
			var ps []pt
			if err := json.Unmarshal(s.Data, &ps); err != nil {
				t.Fatal(err)
			}
			drawn = append(drawn, ps...)
		case "line":
			if err := json.Unmarshal(s.Data, &line); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(drawn) != len(levels) {
		t.Fatalf("trade-off chart: %d points, want one per sweep level (%d)", len(drawn), len(levels))
	}
	for _, lv := range levels {
		name := strconv.FormatFloat(lv.param, 'f', 0, 64)
		if lv.param >= 1000 {
			name = name[:len(name)-3] + "," + name[len(name)-3:]
		}
		i := slices.IndexFunc(drawn, func(p pt) bool { return p.Name == name })
		if i < 0 {
			t.Errorf("no trade-off point labelled %s", name)
			continue
		}
		if d := drawn[i].Value; math.Abs(d[0]-lv.perUser) > 0.006 || math.Abs(d[1]-lv.perGPU) > 0.06 {
			t.Errorf("level %s drawn at (%v, %v); the records give (%.3f tok/s per user, %.2f tok/s per GPU)", name, d[0], d[1], lv.perUser, lv.perGPU)
		}
	}
	// The frontier line holds exactly the points no other point beats.
	dominated := func(x [2]float64) bool {
		for _, p := range drawn {
			if p.Value[0] >= x[0] && p.Value[1] >= x[1] && p.Value != x {
				return true
			}
		}
		return false
	}
	want := 0
	for _, p := range drawn {
		if !dominated(p.Value) {
			want++
		}
	}
	for _, x := range line {
		if dominated(x) {
			t.Errorf("frontier point %v is beaten by another point of the chart", x)
		}
	}
	if len(line) != want {
		t.Errorf("frontier line has %d points, %d points are not beaten", len(line), want)
	}
	if !strings.Contains(string(page), "operating point") {
		t.Error("the trade-off chart does not label the operating point")
	}

	// The distributions: each side's points recounted from its records.
	for _, m := range []string{"ttft", "tpot", "e2el"} {
		o, ok := options["cdf-scheduler_tuning-"+m]
		if !ok {
			t.Errorf("no %s distribution chart", m)
			continue
		}
		if len(o.Series) != 2 {
			t.Errorf("%s: %d series, want baseline and tuned", m, len(o.Series))
			continue
		}
		for i, role := range []string{"baseline", "tuned"} {
			s := o.Series[i]
			reqs, err := a.Requests(runOf[role])
			if err != nil {
				t.Fatal(err)
			}
			var vals []float64
			for _, q := range reqs {
				if q.Failed() {
					continue
				}
				switch {
				case m == "ttft" && benchrun.IsKnown(q.TTFT):
					vals = append(vals, q.TTFT)
				case m == "tpot" && q.OutputTokens > 1:
					vals = append(vals, (q.Latency-q.TTFT)/float64(q.OutputTokens-1))
				case m == "e2el":
					vals = append(vals, q.Latency)
				}
			}
			sort.Float64s(vals)
			var pts [][2]float64
			if err := json.Unmarshal(s.Data, &pts); err != nil {
				t.Fatal(err)
			}
			if len(pts) > 201 {
				t.Errorf("%s %s: %d points, want at most 201", m, role, len(pts))
			}
			for j, p := range pts {
				if j > 0 && (p[0] < pts[j-1][0] || p[1] < pts[j-1][1]) {
					t.Fatalf("%s %s: point %d %v falls from %v", m, role, j, p, pts[j-1])
				}
				// The x values are rounded to 10 µs: the share lies
				// between the counts just below and just above.
				lo := sort.SearchFloat64s(vals, p[0]-5e-6)
				hi := sort.Search(len(vals), func(k int) bool { return vals[k] > p[0]+5e-6 })
				if share := p[1] / 100 * float64(len(vals)); share < float64(lo)-0.01 || share > float64(hi)+0.01 {
					t.Fatalf("%s %s: point %v says %.1f of %d values are at most %v; the records have %d to %d", m, role, p, share, len(vals), p[0], lo, hi)
				}
			}
			if end := pts[len(pts)-1]; end[1] != 100 || math.Abs(end[0]-vals[len(vals)-1]) > 1e-5 {
				t.Errorf("%s %s ends at %v, want (%v, 100)", m, role, end, vals[len(vals)-1])
			}
			if s.MarkPoint == nil || len(s.MarkPoint.Data) == 0 || s.MarkPoint.Data[0].Name != "p50" {
				t.Errorf("%s %s: percentiles not marked", m, role)
			}
		}
	}

	// The timeline ends with every completed request of the tuned run.
	lo := options["load-tuned"]
	var done [][2]float64
	if len(lo.Series) != 2 || json.Unmarshal(lo.Series[1].Data, &done) != nil || len(done) == 0 {
		t.Fatalf("timeline series %+v", lo.Series)
	}
	reqs, _ := a.Requests(runOf["tuned"])
	completed := 0
	for _, q := range reqs {
		if !q.Failed() {
			completed++
		}
	}
	if got := done[len(done)-1][1]; got != float64(completed) {
		t.Errorf("timeline ends at %v completed, the records have %d", got, completed)
	}
	// Without a layout, a sweep is followed by its trade-off curve and the
	// runs compared are shown as distributions, not histograms.
	specPath := demoSpecCopy(t)
	data, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	noLayout := regexp.MustCompile(`(?m)^layout:\n  charts: .*\n`).ReplaceAllString(string(data), "")
	if noLayout == string(data) {
		t.Fatal("the demo spec has no layout.charts line to remove")
	}
	writeFile(t, specPath, noLayout)
	out2 := t.TempDir()
	if r := bl(t, "report", "--db", demo.db, "--out", out2, "--lang", "en", "--format", "html", "--no-audit", specPath); r.code != 0 {
		t.Fatal(r)
	}
	page2, _ := os.ReadFile(filepath.Join(out2, "qwen3-batch.en.html"))
	var ids []string
	for _, m := range figureRE.FindAllStringSubmatch(string(page2), -1) {
		ids = append(ids, m[1])
	}
	sweep := slices.Index(ids, "sweep-saturation")
	if sweep < 0 || sweep+1 >= len(ids) || ids[sweep+1] != "pareto-saturation" {
		t.Errorf("default layout %v: the sweep is not followed by its trade-off curve", ids)
	}
	for _, id := range []string{"cdf-scheduler_tuning-ttft", "cdf-scheduler_tuning-tpot", "cdf-scheduler_tuning-e2el"} {
		if !slices.Contains(ids, id) {
			t.Errorf("default layout %v lacks %s", ids, id)
		}
	}
	for _, id := range ids {
		// median_latency compares the same two runs: their CDFs once.
		if strings.HasPrefix(id, "latency-") || strings.HasPrefix(id, "cdf-nvidia_reference") || strings.HasPrefix(id, "cdf-median_latency") {
			t.Errorf("default layout draws %s", id)
		}
	}

	// The trade-off table says the same as the chart.
	if !strings.Contains(html.UnescapeString(string(page)), `<table class="chart-data">`) {
		t.Error("no table of the trade-off points")
	}
}
