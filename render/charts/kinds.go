package charts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/internal/jsonw"
)

// Comparison draws baseline and candidate as two bars, each labelled with
// its value and unit.
func Comparison(id string, baseline, candidate float64, l Labels, f Format) (Chart, error) {
	if !finite(baseline, candidate) {
		return Chart{}, fmt.Errorf("chart %s: comparison values %v, %v: both must be numbers", id, baseline, candidate)
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(append(global(id, l, false),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: l.XAxis, NameLocation: "middle", NameGap: 30}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: l.YAxis}),
	)...)
	bar.SetXAxis([]string{l.Baseline, l.Candidate})
	item := func(v float64, color string) opts.BarData {
		return opts.BarData{Value: v, ItemStyle: &opts.ItemStyle{Color: color},
			Label: &opts.Label{Show: opts.Bool(true), Position: "top", Formatter: tpl(f.Value(v))}}
	}
	bar.AddSeries(l.Series, []opts.BarData{item(baseline, colorBaseline), item(candidate, colorCandidate)},
		charts.WithBarChartOpts(opts.BarChart{BarWidth: "40%"}))
	return encode(id, bar, yNameFromAxis)
}

// ComparisonOf draws a computed comparison; f.Unit defaults to its unit.
func ComparisonOf(id string, c figures.Comparison, l Labels, f Format) (Chart, error) {
	if f.Unit == "" {
		f.Unit = c.Unit
	}
	return Comparison(id, c.Baseline.Value, c.Candidate.Value, l, f)
}

// Sweep draws throughput (y) against median latency (x), one point per
// level joined in parameter order, each labelled with its parameter value
// (formatted by param); the saturation point, when one was found, gets a
// diamond symbol and a pin marker named l.Saturation.
func Sweep(id string, s figures.SweepResult, l Labels, param Format) (Chart, error) {
	if len(s.Levels) == 0 {
		return Chart{}, fmt.Errorf("chart %s: sweep: %w", id, ErrNoData)
	}
	data := make([]opts.LineData, 0, len(s.Levels))
	for i, lv := range s.Levels {
		if !finite(lv.Param, lv.Throughput, lv.MedianLatency) {
			return Chart{}, fmt.Errorf("chart %s: sweep level %d has a missing value", id, i)
		}
		if i > 0 && lv.Param <= s.Levels[i-1].Param {
			// figures.Sweep orders and merges levels; a line through an
			// unordered result would draw a path the sweep never took.
			return Chart{}, fmt.Errorf("chart %s: sweep levels are not in increasing parameter order", id)
		}
		d := opts.LineData{Name: tpl(l.Param + param.Num(lv.Param)), Value: []float64{lv.MedianLatency, lv.Throughput}}
		if s.SaturationFound && i == s.Saturation {
			d.Symbol, d.SymbolSize = "diamond", 16
		}
		data = append(data, d)
	}
	line := charts.NewLine()
	line.SetGlobalOptions(append(global(id, l, false),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: l.XAxis, NameLocation: "middle", NameGap: 30}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: l.YAxis}),
	)...)
	so := []charts.SeriesOpts{
		charts.WithLineChartOpts(opts.LineChart{Symbol: "circle", SymbolSize: 8, ShowSymbol: opts.Bool(true)}),
		// {b} is the point's name: the parameter label set above.
		charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "bottom", Formatter: "{b}"}),
	}
	if s.SaturationFound {
		if s.Saturation < 0 || s.Saturation >= len(s.Levels) {
			return Chart{}, fmt.Errorf("chart %s: saturation index %d out of range", id, s.Saturation)
		}
		sat := s.Levels[s.Saturation]
		so = append(so, charts.WithMarkPointNameCoordItemOpts(opts.MarkPointNameCoordItem{
			Name:       tpl(l.Saturation),
			Coordinate: []interface{}{sat.MedianLatency, sat.Throughput},
			Symbol:     "pin", SymbolSize: 44,
			ItemStyle: &opts.ItemStyle{Color: colorMark},
			Label:     &opts.Label{Show: opts.Bool(true), Position: "top", Formatter: "{b}", Color: colorMark},
		}))
	}
	line.AddSeries(l.Series, data, so...)
	return encode(id, line, yNameFromAxis)
}

// Timeline draws one horizontal bar per replica of a node run, from its
// own first send to its last completion in seconds since the node's common
// window start, each labelled with the replica's own rate (formatted by
// rate); the common window is a shaded area named l.Window. A reader sees
// the rates were timed over different windows, so they do not add up to
// the node's throughput.
func Timeline(id string, n figures.NodeResult, l Labels, rate Format) (Chart, error) {
	if len(n.PerReplica) == 0 {
		return Chart{}, fmt.Errorf("chart %s: timeline: %w", id, ErrNoData)
	}
	if !finite(n.WindowStart, n.Window) {
		return Chart{}, fmt.Errorf("chart %s: node window has a missing value", id)
	}
	names := make([]string, 0, len(n.PerReplica))
	offsets := make([]opts.BarData, 0, len(n.PerReplica))
	spans := make([]opts.BarData, 0, len(n.PerReplica))
	for _, r := range n.PerReplica {
		if !finite(r.Start, r.End, r.OutputThroughput) {
			return Chart{}, fmt.Errorf("chart %s: replica %s has a missing time or rate", id, r.RunID)
		}
		name := strconv.Itoa(r.Replica) + "/" + strconv.Itoa(r.Of)
		if l.Replica != "" {
			name = l.Replica + " " + name
		}
		names = append(names, name)
		offsets = append(offsets, opts.BarData{Value: r.Start - n.WindowStart})
		spans = append(spans, opts.BarData{Value: r.End - r.Start,
			Label: &opts.Label{Show: opts.Bool(true), Position: "insideRight", Formatter: tpl(rate.Value(r.OutputThroughput))}})
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(append(global(id, l, false),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: l.XAxis, NameLocation: "middle", NameGap: 30, Min: 0}),
		// Inverse puts replica 1 at the top, in reading order; the axis
		// name then belongs at the start, which is the top.
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Name: l.YAxis, NameLocation: "start", Inverse: opts.Bool(true)}),
	)...)
	bar.SetXAxis(names).XYReversal()
	// A stacked, invisible bar shifts each span to its start: ECharts bars
	// start at zero otherwise.
	bar.AddSeries("", offsets,
		charts.WithBarChartOpts(opts.BarChart{Stack: "replica"}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: "transparent"}),
	)
	bar.AddSeries(l.Series, spans,
		charts.WithBarChartOpts(opts.BarChart{Stack: "replica", BarWidth: "50%"}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: colorCandidate}),
		charts.WithMarkAreaStyleOpts(opts.MarkAreaStyle{
			ItemStyle: &opts.ItemStyle{Color: colorWindow},
			// Above the plot: inside it, the bars (drawn over the area)
			// would hide the name.
			Label: &opts.Label{Show: opts.Bool(true), Position: "top", Formatter: "{b}", Color: colorWindowText},
		}),
		charts.WithMarkAreaData([]opts.MarkAreaData{{Name: tpl(l.Window), XAxis: 0.0}, {XAxis: n.Window}}),
	)
	// go-echarts has no series "silent"; without it the invisible offset
	// bars would answer the mouse with a tooltip of their own.
	return encode(id, bar, yNameFromAxis, func(m map[string]any) {
		if ss, ok := m["series"].([]any); ok && len(ss) > 0 {
			if s0, ok := ss[0].(map[string]any); ok {
				s0["silent"] = true
				s0["tooltip"] = map[string]any{"show": false}
			}
		}
	})
}

// Latency draws a histogram of end-to-end latencies (seconds, any order):
// equal-width bins of a round width, each labelled with its count; bin
// edges are written with f.
//
// The option is written from plain structs in the field order go-echarts
// uses (kinds_test.go holds the go-echarts version and checks the bytes are
// the same): a site draws it for every run, and go-echarts' reflection
// over its defaults was most of the time.
func Latency(id string, seconds []float64, l Labels, f Format) (Chart, error) {
	return AppendLatency(nil, id, seconds, l, f)
}

// AppendLatency is Latency with its option written in dst's room (a
// buffer used again once the option is written out).
func AppendLatency(dst []byte, id string, seconds []float64, l Labels, f Format) (Chart, error) {
	names, counts, labelled, err := latencyBins(id, seconds, f)
	if err != nil {
		return Chart{}, err
	}
	// The option is written here, key by key in encoding/json's order for
	// the map go-echarts makes (latency_ref_test.go compares the bytes): a
	// site draws this chart for every run.
	b := slices.Grow(dst[:0], 640+len(counts)*24)
	b = append(b, `{"animation":false,"color":[`...)
	for i, c := range echartsPalette {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.AppendString(b, c)
	}
	b = append(b, `],"grid":[{"left":"3%","top":"70","right":"6%","bottom":`...)
	b = jsonw.AppendString(b, gridBottom(l, false))
	b = append(b, `,"containLabel":true}],"legend":{"show":false,"bottom":"0"},"series":[{`...)
	if l.Series != "" {
		b = append(jsonw.AppendString(append(b, `"name":`...), l.Series), ',')
	}
	b = append(b, `"type":"bar","barCategoryGap":"8%","data":[`...)
	for i, c := range counts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(strconv.AppendInt(append(b, `{"value":`...), int64(c), 10), '}')
	}
	b = append(b, `],"itemStyle":{"color":`...)
	b = jsonw.AppendString(b, colorCandidate)
	b = append(strconv.AppendBool(append(b, `},"label":{"show":`...), labelled), `,"position":"top"}}],"title":{`...)
	if l.Title != "" {
		b = append(jsonw.AppendString(append(b, `"text":`...), l.Title), ',')
	}
	if l.Subtitle != "" {
		b = append(jsonw.AppendString(append(b, `"subtext":`...), l.Subtitle), ',')
	}
	b = append(b, `"left":"center"},"tooltip":{"show":true,"trigger":"item"},"xAxis":[{"type":"category",`...)
	if l.XAxis != "" {
		b = append(jsonw.AppendString(append(b, `"name":`...), l.XAxis), ',')
	}
	b = jsonw.AppendStrings(append(b, `"nameLocation":"middle","nameGap":30,"data":`...), names)
	b = append(b, `}],"yAxis":[{`...)
	if l.YAxis != "" {
		b = append(jsonw.AppendString(append(b, `"name":`...), l.YAxis), ',')
	}
	b = append(b, `"type":"value","minInterval":1}]}`...)
	return Chart{ID: id, Option: b}, nil
}

// echartsPalette is the colour list go-echarts writes into every option.
var echartsPalette = []string{"#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de", "#3ba272", "#fc8452", "#9a60b4", "#ea7ccc"}

// latencyBins bins the latencies: each bin's edge label and count, and
// whether the counts are written on the bars (not past 24 bins).
func latencyBins(id string, seconds []float64, f Format) (names []string, counts []int, labelled bool, err error) {
	if len(seconds) == 0 {
		return nil, nil, false, fmt.Errorf("chart %s: latency: %w", id, ErrNoData)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range seconds {
		if !finite(v) || v < 0 {
			return nil, nil, false, fmt.Errorf("chart %s: latency %v is not a duration", id, v)
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	b := bins(lo, hi, len(seconds))
	counts = make([]int, b.n)
	for _, v := range seconds {
		counts[b.index(v)]++
	}
	edge := f
	if edge.Number == nil && edge.Decimals < b.decimals {
		edge.Decimals = b.decimals // so adjacent edges never print alike
	}
	names = make([]string, b.n)
	first := math.Round(b.lo / b.width) // edges as multiples of the width: less rounding drift
	// Each edge is written once: a bin's upper edge is the next one's lower.
	lower := edge.Num(first * b.width)
	for i := range counts {
		upper := edge.Num((first + float64(i+1)) * b.width)
		names[i] = lower + "–" + upper
		lower = upper
	}
	return names, counts, b.n <= 24, nil
}

// binning is a histogram's bins: n of width from lo.
type binning struct {
	lo, width float64
	n         int
	decimals  int // digits after the point that tell the edges apart
}

// bins picks about Sturges' number of bins (log2 n + 1, 5 to 30) with the
// nearest round width (1, 2, 2.5 or 5 × 10^k) and edges on multiples of it, so the
// axis reads naturally and the result depends on the data only.
func bins(lo, hi float64, n int) binning {
	k := int(math.Ceil(math.Log2(float64(n)))) + 1
	k = max(5, min(30, k))
	span := hi - lo
	if span <= 0 {
		span = math.Max(math.Abs(hi), 1) // all equal: one bin around them
	}
	raw := span / float64(k)
	exp := math.Floor(math.Log10(raw))
	mag := math.Pow(10, exp)
	// Nearest round step (not the next larger), so the bin count stays
	// near k instead of halving.
	var step, extra float64
	switch r := raw / mag; {
	case r < 1.4:
		step = 1
	case r < 2.2:
		step = 2
	case r < 3.5:
		step, extra = 2.5, 1
	case r < 7:
		step = 5
	default:
		step = 10
	}
	w := step * mag
	b := binning{width: w, lo: math.Floor(lo/w) * w}
	b.n = b.index0(hi) + 1
	b.decimals = max(0, int(-exp+extra))
	if step == 10 {
		b.decimals = max(0, int(-exp-1))
	}
	return b
}

func (b binning) index0(v float64) int {
	// The small allowance keeps a value on an edge (0.3 / 0.1 =
	// 2.9999999999999996) in the bin it starts.
	return int(math.Floor((v-b.lo)/b.width + 1e-9))
}

func (b binning) index(v float64) int { return max(0, min(b.n-1, b.index0(v))) }

// MaxTimelinePoints bounds the points RequestTimeline draws per series: a
// page stays small and quick to draw for a run of a million requests.
const MaxTimelinePoints = 2000

// RequestPoint is one request on a run's timeline: its send time in seconds
// since the run's first send, its time to first token and end-to-end
// latency in seconds (NaN when unknown; a failed request has no latency).
type RequestPoint struct {
	Send, TTFT, Latency float64
}

// RequestTimeline draws each request's end-to-end latency and TTFT (two
// series, named l.Baseline and l.Candidate) against its send time, so a
// reader sees the run warm up, saturate or stall. Runs of more than
// MaxTimelinePoints requests are drawn every k-th request (k is returned;
// the caller says so in l.Subtitle).
func RequestTimeline(id string, pts []RequestPoint, l Labels) (Chart, int, error) {
	return AppendRequestTimeline(nil, id, pts, l)
}

// AppendRequestTimeline is RequestTimeline with its option written in
// dst's room (a buffer used again once the option is written out).
func AppendRequestTimeline(dst []byte, id string, pts []RequestPoint, l Labels) (Chart, int, error) {
	if len(pts) == 0 {
		return Chart{}, 0, fmt.Errorf("chart %s: request timeline: %w", id, ErrNoData)
	}
	step := (len(pts) + MaxTimelinePoints - 1) / MaxTimelinePoints
	// The option is written directly rather than through go-echarts: a
	// site draws this chart for every run, and the reflection go-echarts
	// does per point was most of the time.
	// Which series have points decides the shell; the rows are then
	// written straight into the option, between its two parts.
	hasE2E, hasTTFT := false, false
	for i := 0; i < len(pts); i += step {
		if p := &pts[i]; finite(p.Send) {
			hasE2E, hasTTFT = hasE2E || finite(p.Latency), hasTTFT || finite(p.TTFT)
		}
	}
	if !hasE2E && !hasTTFT {
		return Chart{}, 0, fmt.Errorf("chart %s: request timeline: %w", id, ErrNoData)
	}
	shell, err := timelineShell(l, hasE2E, hasTTFT)
	if err != nil {
		return Chart{}, 0, fmt.Errorf("chart %s: %w", id, err)
	}
	n := (len(pts) + step - 1) / step
	b := slices.Grow(dst[:0], len(shell[0])+len(shell[1])+n*24+2)
	b = append(b, shell[0]...)
	b = appendRows(b, pts, step, hasE2E, hasTTFT)
	return Chart{ID: id, Option: append(b, shell[1]...)}, step, nil
}

// timelineShellKey is what a timeline's option depends on besides its
// points.
type timelineShellKey struct {
	l         Labels
	e2e, ttft bool
}

// timelineShells caches the option around the rows: a site draws a
// timeline for every run in a handful of label sets, and encoding the same
// option again was most of the chart's time.
var timelineShells sync.Map

// timelineShell is a timeline's option cut where its rows go: the part
// before and the part after. The points are one table (the option's
// dataset) of a row per request: its send time, then its end-to-end
// latency and its TTFT (each column only when its series is drawn), which
// each series picks its column from (encode). Two series of [send, y]
// pairs wrote every send time twice; the table makes a run page a third
// smaller, and ECharts draws the same marks from it.
func timelineShell(l Labels, hasE2E, hasTTFT bool) ([2][]byte, error) {
	key := timelineShellKey{l, hasE2E, hasTTFT}
	if v, ok := timelineShells.Load(key); ok {
		return v.([2][]byte), nil
	}
	type encode struct {
		X       int   `json:"x"`
		Y       int   `json:"y"`
		Tooltip []int `json:"tooltip"`
	}
	type series struct {
		Name       string         `json:"name"`
		Type       string         `json:"type"`
		Encode     encode         `json:"encode"`
		SymbolSize int            `json:"symbolSize"`
		ItemStyle  map[string]any `json:"itemStyle"`
	}
	var ss []series
	col := 1
	if hasE2E {
		ss = append(ss, series{l.Baseline, "scatter", encode{0, col, []int{0, col}}, 5, map[string]any{"color": colorCandidate}})
		col++
	}
	if hasTTFT {
		ss = append(ss, series{l.Candidate, "scatter", encode{0, col, []int{0, col}}, 4, map[string]any{"color": colorMark}})
	}
	axis := func(name string, extra map[string]any) []map[string]any {
		a := map[string]any{"type": "value", "name": name, "min": 0}
		for k, v := range extra {
			a[k] = v
		}
		return []map[string]any{a}
	}
	option := map[string]any{
		"title":     map[string]any{"text": l.Title, "subtext": l.Subtitle, "left": "center"},
		"animation": false,
		"dataset":   map[string]any{"sourceHeader": false, "source": rowsPlaceholder},
		"legend":    map[string]any{"show": true, "bottom": "0"},
		"grid":      map[string]any{"top": "70", "left": "3%", "right": "6%", "bottom": gridBottom(l, true), "containLabel": true},
		"tooltip":   map[string]any{"show": true, "trigger": "item"},
		"xAxis":     axis(l.XAxis, map[string]any{"nameLocation": "middle", "nameGap": 30}),
		"yAxis":     axis(l.YAxis, nil),
		"series":    ss,
	}
	b, err := json.Marshal(option) // escapes <, >, & as in encode
	if err != nil {
		return [2][]byte{}, err
	}
	// The rows are spliced in where the placeholder was.
	before, after, ok := bytes.Cut(b, placeholderJSON(rowsPlaceholder))
	if !ok {
		return [2][]byte{}, fmt.Errorf("request timeline: option without its %q placeholder", rowsPlaceholder)
	}
	shell := [2][]byte{before, after}
	if n := timelineShellCount.Add(1); n <= 64 {
		timelineShells.Store(key, shell)
	}
	return shell, nil
}

var timelineShellCount atomic.Int32

// appendRows writes a timeline's rows as a JSON array of [send, e2e,
// ttft] (the columns of the series drawn; an unknown value is null, which
// ECharts draws no mark for), every step-th request from the first; a
// request without a send time, or without a value in any column drawn,
// has no row.
func appendRows(b []byte, pts []RequestPoint, step int, e2e, ttft bool) []byte {
	sep := byte('[')
	for i := 0; i < len(pts); i += step {
		p := &pts[i]
		if !finite(p.Send) || !(e2e && finite(p.Latency) || ttft && finite(p.TTFT)) {
			continue
		}
		b = append(b, sep, '[')
		sep = ','
		b = appendTenthMs(b, p.Send)
		if e2e {
			b = appendCell(append(b, ','), p.Latency)
		}
		if ttft {
			b = appendCell(append(b, ','), p.TTFT)
		}
		b = append(b, ']')
	}
	if sep == '[' {
		b = append(b, '[')
	}
	return append(b, ']')
}

// appendCell writes a row's value: seconds to 0.0001, or null.
func appendCell(b []byte, x float64) []byte {
	if !finite(x) {
		return append(b, "null"...)
	}
	return appendTenthMs(b, x)
}

// appendTenthMs writes seconds rounded to 0.0001 as a JSON number, with
// integer arithmetic (the shortest-float formatting was a third of a run
// page's chart time).
func appendTenthMs(b []byte, x float64) []byte {
	if math.Abs(x) >= 1e14 {
		return strconv.AppendFloat(b, math.Round(x*1e4)/1e4, 'f', -1, 64)
	}
	v := int64(math.Round(x * 1e4))
	if v < 0 {
		b = append(b, '-')
		v = -v
	}
	b = strconv.AppendInt(b, v/10000, 10)
	frac := v % 10000
	if frac == 0 {
		return b
	}
	digits := []byte{'.', byte('0' + frac/1000), byte('0' + frac/100%10), byte('0' + frac/10%10), byte('0' + frac%10)}
	for digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	return append(b, digits...)
}

// The placeholder starts with U+2028, which encoding/json always escapes:
// no label a person writes reads like it.
const rowsPlaceholder = "\u2028bl-rows\u2028"

func placeholderJSON(p string) []byte {
	b, _ := json.Marshal(p)
	return b
}

// AppendTrend writes, in dst's room, the option of a trend page's chart of
// one figure over a series' runs: a line through values at the category
// labels x (values[i] is run i's; NaN, a run without one, is null, and the
// line goes on over it; a nil x is null), and the points at the indexes
// flagged as a scatter series of their own (each [x[i], values[i]]; none:
// null).
// l.Title names the chart and the line, l.Flagged the scatter series,
// l.XAxis and l.YAxis the axes.
//
// The option is written key by key in the order json.Marshal gives the
// map it was once made as (trend_ref_test.go compares the bytes): a
// 10,000-run site draws two for each of its ~70 series, in every
// language.
func AppendTrend(dst []byte, id string, x []string, values []float64, flagged []int, l Labels) (Chart, error) {
	if len(values) != len(x) {
		return Chart{}, fmt.Errorf("chart %s: trend: %d values for %d labels", id, len(values), len(x))
	}
	n := 640 + len(l.Title)*2 + len(l.Flagged) + len(l.XAxis) + len(l.YAxis)
	for _, s := range x {
		n += len(s) + 16
	}
	b := slices.Grow(dst[:0], n+len(flagged)*32)
	b = append(b, `{"animation":false,"grid":{"bottom":"70","containLabel":true,"left":"3%","right":"6%","top":"60"},"legend":{"bottom":"0","show":true},"series":[{"connectNulls":true,"data":[`...)
	var err error
	for i, v := range values {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(v) {
			b = append(b, "null"...)
		} else if b, err = jsonw.AppendFloat(b, v); err != nil {
			return Chart{}, fmt.Errorf("chart %s: trend value %v: %w", id, v, err)
		}
	}
	b = append(b, `],"itemStyle":{"color":`...)
	b = jsonw.AppendString(b, colorCandidate)
	b = jsonw.AppendString(append(b, `},"name":`...), l.Title)
	b = append(b, `,"type":"line"},{"data":`...)
	if flagged == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for k, i := range flagged {
			if k > 0 {
				b = append(b, ',')
			}
			if i < 0 || i >= len(x) || math.IsNaN(values[i]) {
				return Chart{}, fmt.Errorf("chart %s: trend: flagged point %d has no value", id, i)
			}
			b = append(jsonw.AppendString(append(b, '['), x[i]), ',')
			b, _ = jsonw.AppendFloat(b, values[i]) // finite: written above
			b = append(b, ']')
		}
		b = append(b, ']')
	}
	b = append(b, `,"itemStyle":{"color":`...)
	b = jsonw.AppendString(b, colorMark)
	b = jsonw.AppendString(append(b, `},"name":`...), l.Flagged)
	b = append(b, `,"symbolSize":14,"type":"scatter"}],"title":{"left":"center","text":`...)
	b = jsonw.AppendString(b, l.Title)
	b = jsonw.AppendStrings(append(b, `},"tooltip":{"show":true,"trigger":"axis"},"xAxis":[{"data":`...), x)
	b = jsonw.AppendString(append(b, `,"name":`...), l.XAxis)
	b = append(b, `,"nameGap":30,"nameLocation":"middle","type":"category"}],"yAxis":[{"name":`...)
	b = jsonw.AppendString(b, l.YAxis)
	b = append(b, `,"nameTextStyle":{"align":"left"},"scale":true,"type":"value"}]}`...)
	return Chart{ID: id, Option: b}, nil
}
