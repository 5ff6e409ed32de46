package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"testing"
)

// The HTML report draws each chart as SVG when it is written and reads
// tooltips from the option in the page (report.html.tmpl): what that
// covers, by series type and by the option's top-level keys. A key not
// listed is a component the page cannot honour (a dataZoom slider that
// does not slide, a legend that hides nothing, a toolbox): such a chart
// needs the tooltip script and docs/casestudy.md ("Charts in the HTML
// report") first.
var (
	tooltipSeries = []string{"bar", "line", "scatter"}
	staticKeys    = []string{"animation", "color", "grid", "legend", "series", "title", "tooltip", "xAxis", "yAxis"}
	// seriesMarks are the series' own components the tooltip tells apart.
	seriesMarks = []string{"markPoint", "markLine", "markArea"}
)

// TestChartOptionsFitTheStaticPage: every chart option the charts package
// emits (its golden options, render/charts/testdata, one per chart kind)
// uses only series types and components the report's static charts
// handle; a new kind with another type fails here, not silently in a
// reader's browser.
func TestChartOptionsFitTheStaticPage(t *testing.T) {
	t.Parallel()
	paths, err := filepath.Glob(filepath.Join("..", "charts", "testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 4 {
		t.Fatalf("%d golden chart options in render/charts/testdata, want one per chart kind (at least 4)", len(paths))
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, problem := range staticChartProblems(data) {
			t.Errorf("%s: %s", filepath.Base(p), problem)
		}
	}
}

// staticChartProblems lists what in option the static page cannot show.
func staticChartProblems(option []byte) []string {
	var o map[string]json.RawMessage
	if err := json.Unmarshal(option, &o); err != nil {
		return []string{err.Error()}
	}
	var out []string
	for k := range o {
		if !slices.Contains(staticKeys, k) {
			out = append(out, "component "+k+" is not one the static charts handle")
		}
	}
	var series []map[string]json.RawMessage
	if err := json.Unmarshal(o["series"], &series); err != nil {
		out = append(out, "series: "+err.Error())
	}
	for i, s := range series {
		var typ string
		if err := json.Unmarshal(s["type"], &typ); err != nil || !slices.Contains(tooltipSeries, typ) {
			out = append(out, "series "+string(s["type"])+" has no tooltip in the static charts")
		}
		for k := range s {
			if len(k) > 4 && k[:4] == "mark" && !slices.Contains(seriesMarks, k) {
				out = append(out, "series "+strconv.Itoa(i)+": "+k+" is not a mark the tooltip tells apart")
			}
		}
	}
	sort.Strings(out)
	return out
}

func TestStaticChartProblems(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		option string
		want   int
	}{
		{`{"series":[{"type":"line","markPoint":{}}],"xAxis":{},"yAxis":{},"tooltip":{}}`, 0},
		{`{"series":[{"type":"boxplot"}]}`, 1},
		{`{"series":[{"type":"bar"}],"dataZoom":[{"type":"slider"}]}`, 1},
		{`{"series":[{"type":"scatter"}],"toolbox":{},"visualMap":{}}`, 2},
		{`{"series":[{"type":"line","markCircle":{}}]}`, 1},
	} {
		if got := staticChartProblems([]byte(c.option)); len(got) != c.want {
			t.Errorf("%s: %q, want %d problems", c.option, got, c.want)
		}
	}
}
