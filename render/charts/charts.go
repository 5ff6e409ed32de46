// Package charts defines the case study's charts as ECharts options, built
// with go-echarts' option builders from the evaluated figures. The same
// option feeds the HTML report (inlined as JSON, drawn by echarts.min.js)
// and the Markdown report (rendered to SVG by package render/svg).
//
// go-echarts' page renderer is not used: it emits the option unescaped into
// a <script> (GO-STACK.md §1.3). Options here are encoded with
// encoding/json's HTML escaping, so text from ingested files ("<", ">",
// "&") cannot close the <script type="application/json"> block they are
// placed in. No option holds a JavaScript function: formatters are strings.
//
// Every chart is deterministic: a fixed id, series and data in a stable
// order, animation off, JSON object keys sorted by encoding/json.
package charts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Chart is one chart: a stable id (for the HTML element and the SVG file
// name) and its ECharts option as JSON.
type Chart struct {
	ID     string
	Option json.RawMessage
}

// Labels carry every text a chart shows, already localised by the caller.
// Fields a chart kind does not use are ignored.
type Labels struct {
	Title    string
	Subtitle string
	XAxis    string // axis names
	YAxis    string
	// Series names the chart's data series in the tooltip and legend.
	Series string
	// Comparison: the two bars.
	Baseline, Candidate string
	// Sweep: Param prefixes each point's parameter value ("c=" gives
	// "c=64"); Saturation names the saturation point's marker.
	Param      string
	Saturation string
	// Timeline: Replica prefixes each row ("Replica" gives "Replica 1/4");
	// Window names the common window's shaded area.
	Replica string
	Window  string
	// Trend: Flagged names the series of the points outside the range of
	// the runs before them.
	Flagged string
}

// Format tells how values are written in labels. (Value-axis ticks are
// localised when drawn: by Intl in the HTML bootstrap, by the caller's
// formatter in svg.RenderNumbers.)
type Format struct {
	// Decimals after the point; negative means as few as needed.
	Decimals int
	// Unit follows the number after a space ("tok/s"); empty for none.
	Unit string
	// Number, when set, formats a number for the locale (for example a
	// golang.org/x/text message.Printer); Decimals is then its business.
	Number func(float64) string
	// Fixed, when set (and Number is not), formats a number for the locale
	// with the given decimals, which the chart may choose (histogram edges).
	Fixed func(v float64, decimals int) string
}

// Num writes v without unit.
func (f Format) Num(v float64) string {
	if f.Number != nil {
		return f.Number(v)
	}
	if f.Fixed != nil {
		return f.Fixed(v, f.Decimals)
	}
	return strconv.FormatFloat(v, 'f', f.Decimals, 64)
}

// Value writes v with its unit.
func (f Format) Value(v float64) string {
	if f.Unit == "" {
		return f.Num(v)
	}
	return f.Num(v) + " " + f.Unit
}

// Palette: ECharts' default first colours, fixed here so a theme change
// in a later ECharts does not change the bytes of our options.
const (
	colorBaseline   = "#91a7c9"
	colorCandidate  = "#5470c6"
	colorMark       = "#ee6666"
	colorWindow     = "rgba(250, 200, 88, 0.25)"
	colorWindowText = "#8a6d1f"
)

// ErrNoData is returned for a chart with nothing to draw.
var ErrNoData = errors.New("charts: no data")

// tpl makes caller text safe inside an ECharts label template, where
// "{a}", "{b}", "{c}" and rich-text "{style|text}" are interpreted; the
// fullwidth braces look the same to a reader and mean nothing to ECharts.
func tpl(s string) string {
	return strings.NewReplacer("{", "｛", "}", "｝").Replace(s)
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// base options every chart shares.
func global(id string, l Labels, legend bool) []charts.GlobalOpts {
	return []charts.GlobalOpts{
		// A fixed ChartID keeps go-echarts from drawing a random one.
		charts.WithInitializationOpts(opts.Initialization{ChartID: id}),
		charts.WithTitleOpts(opts.Title{Title: l.Title, Subtitle: l.Subtitle, Left: "center"}),
		charts.WithAnimation(false),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(legend), Bottom: "0"}),
		charts.WithGridOpts(opts.Grid{Top: "70", Left: "3%", Right: "6%", Bottom: gridBottom(l, legend), ContainLabel: opts.Bool(true)}),
	}
}

// gridBottom leaves room under the plot for the x axis name (drawn below
// the tick labels) and the legend.
func gridBottom(l Labels, legend bool) string {
	b := 15
	if l.XAxis != "" {
		b += 30
	}
	if legend {
		b += 25
	}
	return strconv.Itoa(b)
}

// yNameFromAxis starts the y axis's name at the axis line and runs it
// over the plot: centred on the line (ECharts' default), a long name
// ("出力スループット（トークン/秒）") runs past the chart's left edge, which
// containLabel does not count, and is cut.
func yNameFromAxis(m map[string]any) {
	axes, _ := m["yAxis"].([]any)
	for _, a := range axes {
		if ax, ok := a.(map[string]any); ok && ax["name"] != nil {
			ax["nameTextStyle"] = map[string]any{"align": "left"}
		}
	}
}

// option is what each chart kind hands to encode: go-echarts' Validate
// (which moves axis data into place) and JSON (the option map).
type option interface {
	Validate()
	JSON() map[string]interface{}
}

// encode validates the chart, drops the parts go-echarts always emits that
// we do not use (an empty toolbox), applies patches for options go-echarts
// has no field for, and encodes it with HTML escaping.
func encode(id string, c option, patches ...func(map[string]any)) (Chart, error) {
	c.Validate()
	m := c.JSON()
	delete(m, "toolbox")
	b, err := json.Marshal(m) // escapes <, >, & as \u003c, \u003e, \u0026
	if err != nil {
		return Chart{}, fmt.Errorf("chart %s: %w", id, err)
	}
	if len(patches) > 0 {
		// Patch the plain JSON tree, not go-echarts' structs; UseNumber
		// keeps every number's text as it was.
		var g map[string]any
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if err := d.Decode(&g); err != nil {
			return Chart{}, fmt.Errorf("chart %s: %w", id, err)
		}
		for _, p := range patches {
			p(g)
		}
		if b, err = json.Marshal(g); err != nil {
			return Chart{}, fmt.Errorf("chart %s: %w", id, err)
		}
	}
	return Chart{ID: id, Option: b}, nil
}
