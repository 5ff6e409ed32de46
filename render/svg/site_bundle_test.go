package svg

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
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
