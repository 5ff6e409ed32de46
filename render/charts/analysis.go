package charts

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/benchledger/benchledger/figures"
)

// The charts of this file (trade-off curve, distributions, TTFT by input
// length, load over time) are written as plain JSON trees: they use a few
// options go-echarts has no field for (markPoint coordinates on a scatter,
// a second y axis), and plain maps encode in sorted key order.

// plain encodes an option tree with HTML escaping, as encode does.
func plain(id string, option map[string]any) (Chart, error) {
	b, err := json.Marshal(option)
	if err != nil {
		return Chart{}, fmt.Errorf("chart %s: %w", id, err)
	}
	return Chart{ID: id, Option: b}, nil
}

// shell is the part every plain chart shares: title, legend, grid, tooltip.
func shell(l Labels, legend bool, trigger string) map[string]any {
	return map[string]any{
		"animation": false,
		"title":     map[string]any{"text": l.Title, "subtext": l.Subtitle, "left": "center"},
		"legend":    map[string]any{"show": legend, "bottom": "0"},
		"grid":      map[string]any{"top": "70", "left": "3%", "right": "6%", "bottom": gridBottom(l, legend), "containLabel": true},
		"tooltip":   map[string]any{"show": true, "trigger": trigger},
	}
}

func valueAxis(name string, extra map[string]any) map[string]any {
	a := map[string]any{"type": "value", "name": name, "scale": true}
	if _, ok := extra["nameLocation"]; !ok {
		// A y axis's name (at its end) starts at the axis and runs
		// inwards: centred on it, a long name is cut at the chart's edge.
		a["nameTextStyle"] = map[string]any{"align": "left"}
	}
	for k, v := range extra {
		a[k] = v
	}
	return a
}

// round keeps d decimals: a chart cannot show more, and the page stays small.
func round(v float64, d int) float64 {
	p := math.Pow(10, float64(d))
	return math.Round(v*p) / p
}

// Pareto draws a trade-off curve: output tok/s per GPU (y) against output
// tok/s per user (x), one point per configuration labelled with its
// Label, the Pareto frontier joined by a line (series l.Series) and the
// chosen operating point (index chosen; -1 for none) pinned with the name
// l.Saturation. Points off the frontier are drawn paler (series
// l.Baseline names them, l.Candidate the frontier's points).
func Pareto(id string, pts []figures.TradeOffPoint, chosen int, l Labels) (Chart, error) {
	if len(pts) == 0 {
		return Chart{}, fmt.Errorf("chart %s: trade-off: %w", id, ErrNoData)
	}
	if chosen >= len(pts) {
		return Chart{}, fmt.Errorf("chart %s: chosen point %d of %d", id, chosen, len(pts))
	}
	var on, off, frontier []any
	var line []figures.TradeOffPoint
	for _, p := range pts {
		if !finite(p.PerGPU, p.PerUser) {
			return Chart{}, fmt.Errorf("chart %s: trade-off point %s has a missing value", id, p.Label)
		}
		d := map[string]any{"name": tpl(p.Label), "value": []float64{round(p.PerUser, 2), round(p.PerGPU, 1)}}
		if p.Frontier {
			on = append(on, d)
			line = append(line, p)
		} else {
			off = append(off, d)
		}
	}
	// The frontier runs from the most per-GPU throughput to the most
	// per-user speed: by x ascending.
	slices.SortStableFunc(line, func(a, b figures.TradeOffPoint) int { return cmp.Compare(a.PerUser, b.PerUser) })
	for _, p := range line {
		frontier = append(frontier, []float64{round(p.PerUser, 2), round(p.PerGPU, 1)})
	}
	label := map[string]any{"show": true, "position": "right", "formatter": "{b}"}
	series := []any{
		map[string]any{"name": l.Series, "type": "line", "data": frontier, "showSymbol": false, "silent": true,
			"lineStyle": map[string]any{"color": colorCandidate, "type": "dashed"}, "itemStyle": map[string]any{"color": colorCandidate}, "z": 1},
		map[string]any{"name": l.Candidate, "type": "scatter", "data": on, "symbolSize": 11, "label": label,
			"itemStyle": map[string]any{"color": colorCandidate}, "z": 3},
	}
	if len(off) > 0 {
		series = append(series, map[string]any{"name": l.Baseline, "type": "scatter", "data": off, "symbolSize": 9, "label": label,
			"itemStyle": map[string]any{"color": colorBaseline}, "z": 2})
	}
	if chosen >= 0 {
		c := pts[chosen]
		s := series[1].(map[string]any)
		if !c.Frontier {
			s = series[2].(map[string]any)
		}
		s["markPoint"] = map[string]any{"data": []any{map[string]any{
			"name": tpl(l.Saturation), "coord": []float64{round(c.PerUser, 2), round(c.PerGPU, 1)},
			"symbol": "pin", "symbolSize": 44, "itemStyle": map[string]any{"color": colorMark},
			"label": map[string]any{"show": true, "position": "right", "formatter": "{b}", "color": colorMark}}}}
	}
	o := shell(l, true, "item")
	o["xAxis"] = []any{valueAxis(l.XAxis, map[string]any{"nameLocation": "middle", "nameGap": 30})}
	o["yAxis"] = []any{valueAxis(l.YAxis, nil)}
	o["series"] = series
	return plain(id, o)
}

// CDFSeries is one run's distribution on a CDF chart: its name (a run
// label), its points and its percentiles to mark (percentile → value).
type CDFSeries struct {
	Name        string
	Points      []figures.CDFPoint
	Percentiles []float64
	Values      map[float64]float64
}

// cdfColors: the first series (a comparison's baseline) pale, the second
// (the candidate) strong, as in the comparison bars.
var cdfColors = []string{colorBaseline, colorCandidate, "#fac858", "#ee6666"}

// CDF overlays the empirical distributions of several runs on one axis
// scale: x is the metric (written with f), y the share of requests in
// percent at most x. Each run's percentiles are marked on its curve at
// (value, percentile), labelled "p50", "p90", ...
func CDF(id string, ss []CDFSeries, l Labels, f Format) (Chart, error) {
	if len(ss) == 0 {
		return Chart{}, fmt.Errorf("chart %s: distribution: %w", id, ErrNoData)
	}
	var series []any
	for i, s := range ss {
		if len(s.Points) == 0 {
			return Chart{}, fmt.Errorf("chart %s: distribution of %s: %w", id, s.Name, ErrNoData)
		}
		data := make([]any, 0, len(s.Points))
		for _, p := range s.Points {
			if !finite(p.X, p.P) {
				return Chart{}, fmt.Errorf("chart %s: distribution of %s has a missing value", id, s.Name)
			}
			data = append(data, []float64{round(p.X, 5), round(100*p.P, 3)})
		}
		color := cdfColors[i%len(cdfColors)]
		var marks []any
		for _, p := range s.Percentiles {
			v := s.Values[p]
			if !finite(v) {
				continue
			}
			name := "p" + strconv.FormatFloat(p, 'f', -1, 64)
			marks = append(marks, map[string]any{"name": name, "coord": []float64{round(v, 5), p}, "value": tpl(f.Value(v)),
				"symbol": "circle", "symbolSize": 7,
				"label": map[string]any{"show": true, "position": "left", "formatter": "{b}", "fontSize": 10, "color": color}})
		}
		sr := map[string]any{"name": s.Name, "type": "line", "data": data, "showSymbol": false, "lineStyle": map[string]any{"width": 2},
			"itemStyle": map[string]any{"color": color}}
		if len(marks) > 0 {
			sr["markPoint"] = map[string]any{"data": marks, "itemStyle": map[string]any{"color": color}}
		}
		series = append(series, sr)
	}
	o := shell(l, true, "axis")
	o["xAxis"] = []any{valueAxis(l.XAxis, map[string]any{"nameLocation": "middle", "nameGap": 30, "min": 0, "scale": false})}
	o["yAxis"] = []any{valueAxis(l.YAxis, map[string]any{"min": 0, "max": 100, "scale": false})}
	o["series"] = series
	return plain(id, o)
}

// InputSeries is one run's requests on a TTFT-by-input chart.
type InputSeries struct {
	Name   string
	Points [][2]float64 // input tokens, TTFT in seconds
}

// TTFTInput draws each request's TTFT (y) against its input length (x), one
// scatter series per run.
func TTFTInput(id string, ss []InputSeries, l Labels) (Chart, error) {
	var series []any
	for i, s := range ss {
		data := make([]any, 0, len(s.Points))
		for _, p := range s.Points {
			if finite(p[0], p[1]) {
				data = append(data, []float64{p[0], round(p[1], 4)})
			}
		}
		if len(data) == 0 {
			continue
		}
		series = append(series, map[string]any{"name": s.Name, "type": "scatter", "data": data, "symbolSize": 4,
			"itemStyle": map[string]any{"color": cdfColors[(i+1)%len(cdfColors)], "opacity": 0.6}})
	}
	if len(series) == 0 {
		return Chart{}, fmt.Errorf("chart %s: TTFT by input length: %w", id, ErrNoData)
	}
	o := shell(l, true, "item")
	o["xAxis"] = []any{valueAxis(l.XAxis, map[string]any{"nameLocation": "middle", "nameGap": 30})}
	o["yAxis"] = []any{valueAxis(l.YAxis, map[string]any{"min": 0, "scale": false})}
	o["series"] = series
	return plain(id, o)
}

// Load draws a run's requests in flight (left axis, series l.Baseline) and
// completed requests so far (right axis, series l.Candidate) against time
// since its first send.
func Load(id string, pts []figures.LoadPoint, l Labels, right string) (Chart, error) {
	if len(pts) == 0 {
		return Chart{}, fmt.Errorf("chart %s: load over time: %w", id, ErrNoData)
	}
	inflight, done := make([]any, 0, len(pts)), make([]any, 0, len(pts))
	peak := 0
	for i, p := range pts {
		t := round(p.T, 3)
		inflight = append(inflight, []float64{t, float64(p.InFlight)})
		done = append(done, []float64{t, float64(p.Completed)})
		if p.InFlight > pts[peak].InFlight {
			peak = i
		}
	}
	// The lines carry no symbols (200 samples each); the most requests in
	// flight and the last count of completions are marked, so that a
	// reader (and the static page's tooltip) has a point to hover.
	mark := func(p []float64) map[string]any {
		return map[string]any{"symbol": "circle", "symbolSize": 7, "label": map[string]any{"show": false},
			"data": []any{map[string]any{"coord": p, "value": p[1]}}}
	}
	o := shell(l, true, "axis")
	o["xAxis"] = []any{valueAxis(l.XAxis, map[string]any{"nameLocation": "middle", "nameGap": 30, "min": 0, "scale": false})}
	o["yAxis"] = []any{valueAxis(l.YAxis, map[string]any{"min": 0, "scale": false, "minInterval": 1}),
		valueAxis(right, map[string]any{"min": 0, "scale": false, "minInterval": 1, "splitLine": map[string]any{"show": false},
			"nameTextStyle": map[string]any{"align": "right"}})}
	o["series"] = []any{
		map[string]any{"name": l.Baseline, "type": "line", "data": inflight, "showSymbol": false, "step": "end",
			"itemStyle": map[string]any{"color": colorCandidate}, "areaStyle": map[string]any{"opacity": 0.15},
			"markPoint": mark(inflight[peak].([]float64))},
		map[string]any{"name": l.Candidate, "type": "line", "yAxisIndex": 1, "data": done, "showSymbol": false,
			"itemStyle": map[string]any{"color": colorMark}, "markPoint": mark(done[len(done)-1].([]float64))},
	}
	return plain(id, o)
}
