package charts

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// latencyGoECharts is Latency as go-echarts writes it, the reference the
// hand-written option must match byte for byte.
func latencyGoECharts(id string, seconds []float64, l Labels, f Format) (Chart, error) {
	names, counts, labelled, err := latencyBins(id, seconds, f)
	if err != nil {
		return Chart{}, err
	}
	data := make([]opts.BarData, len(counts))
	for i, c := range counts {
		data[i] = opts.BarData{Value: c}
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(append(global(id, l, false),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: l.XAxis, NameLocation: "middle", NameGap: 30}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: l.YAxis, MinInterval: 1}),
	)...)
	bar.SetXAxis(names)
	bar.AddSeries(l.Series, data,
		charts.WithBarChartOpts(opts.BarChart{BarCategoryGap: "8%"}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: colorCandidate}),
		charts.WithLabelOpts(opts.Label{Show: opts.Bool(labelled), Position: "top"}),
	)
	return encode(id, bar)
}

// TestLatencyMatchesGoECharts: the hand-written option is the one
// go-echarts writes, for labels present or empty, hostile or not, few bins
// or many.
func TestLatencyMatchesGoECharts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	labels := []Labels{
		{},
		{Title: "E2E", XAxis: "s", YAxis: "requests", Series: "requests"},
		{Title: hostile, Subtitle: hostile, XAxis: hostile, YAxis: hostile, Series: hostile},
		{Title: "端到端延迟分布", XAxis: "端到端延迟（秒）", YAxis: "请求数", Series: "请求数"},
	}
	for n := 1; n <= 5000; n *= 3 {
		secs := make([]float64, n)
		for i := range secs {
			secs[i] = rng.ExpFloat64() * 3
		}
		for _, l := range labels {
			for _, f := range []Format{{Decimals: 1}, {Decimals: -1}, {Fixed: func(v float64, d int) string { return strconv.FormatFloat(v, 'f', max(d, 0), 64) }}} {
				got, err := Latency("latency", secs, l, f)
				if err != nil {
					t.Fatal(err)
				}
				want, err := latencyGoECharts("latency", secs, l, f)
				if err != nil {
					t.Fatal(err)
				}
				if string(got.Option) != string(want.Option) {
					t.Fatalf("n=%d labels %+v:\ngot  %s\nwant %s", n, l, got.Option, want.Option)
				}
			}
		}
	}
}
