package svg

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/dop251/goja"

	"github.com/benchledger/benchledger/render/assets"
	"github.com/benchledger/benchledger/render/charts"
)

// TestSiteBundleDrawsEveryChart: the site's smaller ECharts build
// (assets.EChartsSite, from scripts/echarts-site.js) draws every chart
// benchledger makes exactly as the full build does: the golden option of
// each chart kind (render/charts/testdata), the sample charts with CJK and
// hostile labels, and the run page's request timeline. A chart type or
// component missing from the build would draw nothing, or less, and the
// SVG would differ.
func TestSiteBundleDrawsEveryChart(t *testing.T) {
	full := renderer(t)
	src, err := assets.EChartsSite()
	if errors.Is(err, assets.ErrNoECharts) {
		t.Skip("ECharts asset absent (placeholder build): run `make assets`")
	}
	if err != nil {
		t.Fatal(err)
	}
	prg, err := goja.Compile("echarts.site.js", string(src), false)
	if err != nil {
		t.Fatal(err)
	}
	site, err := newRenderer(prg, "echarts.site.js")
	if err != nil {
		t.Fatal(err)
	}
	options := map[string]json.RawMessage{}
	paths, err := filepath.Glob(filepath.Join("..", "charts", "testdata", "*.json"))
	if err != nil || len(paths) < 4 {
		t.Fatalf("golden chart options: %d, %v", len(paths), err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		options[filepath.Base(p)] = b
	}
	l := chinese
	l.Title, l.Baseline = hostile, hostile
	for _, c := range sampleCharts(t, l) {
		options["sample "+c.ID] = c.Option
	}
	var pts []charts.RequestPoint
	for i := range 200 {
		x := float64(i)
		pts = append(pts, charts.RequestPoint{Send: x / 10, TTFT: 0.05 + x/4000, Latency: 2 + x/100})
	}
	tl, _, err := charts.RequestTimeline("timeline", pts, charts.Labels{Title: "requests", XAxis: "s", YAxis: "s", Series: "latency"})
	if err != nil {
		t.Fatal(err)
	}
	options["run page timeline"] = tl.Option
	for name, o := range options {
		want, err := full.Render(o, 800, 450)
		if err != nil {
			t.Fatal(err)
		}
		got, err := site.Render(o, 800, 450)
		if err != nil {
			t.Fatalf("%s: the site's build: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the site's build draws %d bytes of SVG, the full build %d: a chart type or component is missing from scripts/echarts-site.js", name, len(got), len(want))
		}
	}
}

// TestTimelineRowsDrawLikePairs: the run page's request timeline, whose
// points are one table of rows (send time, end-to-end latency, TTFT) that
// each series picks its column from, draws the same SVG as the same chart
// given as two series of [send, value] pairs, the form it had before:
// requests that failed, that have one of the two values, and a run long
// enough to be drawn every k-th request.
func TestTimelineRowsDrawLikePairs(t *testing.T) {
	full := renderer(t)
	nan := math.NaN()
	var pts []charts.RequestPoint
	for i := range 150 {
		x := float64(i)
		p := charts.RequestPoint{Send: x / 7, TTFT: 0.05 + float64(i%13)/400, Latency: 1 + float64(i%17)/10}
		switch i % 11 {
		case 3:
			p.TTFT, p.Latency = nan, nan // failed
		case 5:
			p.Latency = nan
		case 7:
			p.TTFT = nan
		}
		pts = append(pts, p)
	}
	long := make([]charts.RequestPoint, 3*charts.MaxTimelinePoints+5)
	for i := range long {
		long[i] = charts.RequestPoint{Send: float64(i), TTFT: 0.1 + float64(i%5)/50, Latency: 2 + float64(i%9)/3}
	}
	e2eOnly := []charts.RequestPoint{{Send: 0, TTFT: nan, Latency: 1.5}, {Send: 1, TTFT: nan, Latency: 2.5}}
	ttftOnly := []charts.RequestPoint{{Send: 0, TTFT: 0.25, Latency: nan}, {Send: 2, TTFT: 0.5, Latency: nan}}
	labels := charts.Labels{Title: "Latency over the run", Baseline: "End-to-end latency", Candidate: "Time to first token", XAxis: "Send time (s)", YAxis: "Latency (s)"}
	for name, p := range map[string][]charts.RequestPoint{"mixed": pts, "long": long, "e2e only": e2eOnly, "ttft only": ttftOnly} {
		c, _, err := charts.RequestTimeline("timeline", p, labels)
		if err != nil {
			t.Fatal(err)
		}
		got, err := full.Render(c.Option, 800, 450)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := full.Render(asPairs(t, c.Option), 800, 450)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// A mark's data index counts rows, which include the requests
		// without the series' value; what is drawn is the same.
		got, want = dataIndex.ReplaceAll(got, nil), dataIndex.ReplaceAll(want, nil)
		if !bytes.Contains(got, []byte(`ecmeta_ssr_type="chart"`)) {
			t.Fatalf("%s: no marks drawn", name)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the rows draw %d bytes of SVG, the pairs %d", name, len(got), len(want))
		}
	}
}

var dataIndex = regexp.MustCompile(` ecmeta_data_index="[0-9]+"`)

// asPairs rewrites a timeline's option from its table of rows into a
// series of [send, value] pairs each, leaving out the rows without the
// series' value.
func asPairs(t *testing.T, option json.RawMessage) json.RawMessage {
	t.Helper()
	var o map[string]any
	if err := json.Unmarshal(option, &o); err != nil {
		t.Fatal(err)
	}
	rows := o["dataset"].(map[string]any)["source"].([]any)
	delete(o, "dataset")
	for _, s := range o["series"].([]any) {
		sm := s.(map[string]any)
		y := int(sm["encode"].(map[string]any)["y"].(float64))
		delete(sm, "encode")
		data := []any{}
		for _, r := range rows {
			row := r.([]any)
			if row[y] != nil {
				data = append(data, []any{row[0], row[y]})
			}
		}
		sm["data"] = data
	}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
