package charts

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/benchledger/benchledger/internal/jsonw"
)

// trendMap is AppendTrend as the site once wrote it, a map through
// json.Marshal: the reference the appended option must match byte for
// byte.
func trendMap(x []string, values []float64, flagged []int, l Labels) ([]byte, error) {
	vs := make([]any, 0, len(values))
	for _, v := range values {
		if math.IsNaN(v) {
			vs = append(vs, nil)
		} else {
			vs = append(vs, v)
		}
	}
	var fl []any
	for _, i := range flagged {
		fl = append(fl, []any{x[i], values[i]})
	}
	option := map[string]any{
		"animation": false,
		"title":     map[string]any{"text": l.Title, "left": "center"},
		"legend":    map[string]any{"show": true, "bottom": "0"},
		"grid":      map[string]any{"top": "60", "left": "3%", "right": "6%", "bottom": "70", "containLabel": true},
		"tooltip":   map[string]any{"show": true, "trigger": "axis"},
		"xAxis":     []any{map[string]any{"type": "category", "data": x, "name": l.XAxis, "nameLocation": "middle", "nameGap": 30}},
		"yAxis":     []any{map[string]any{"type": "value", "name": l.YAxis, "scale": true, "nameTextStyle": map[string]any{"align": "left"}}},
		"series": []any{
			map[string]any{"name": l.Title, "type": "line", "data": vs, "connectNulls": true, "itemStyle": map[string]any{"color": "#5470c6"}},
			map[string]any{"name": l.Flagged, "type": "scatter", "data": fl, "symbolSize": 14, "itemStyle": map[string]any{"color": "#ee6666"}},
		},
	}
	return json.Marshal(option)
}

// TestTrendMatchesMap: the appended option is the map's, for labels
// present, empty, hostile or not ASCII, runs without a value, values from
// tiny to huge (json.Marshal's exponents), and no flagged point or some.
func TestTrendMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	labels := []Labels{
		{},
		{Title: "Output throughput", XAxis: "date and engine version", YAxis: "Output throughput (tok/s)", Flagged: "outside the range"},
		{Title: hostile, XAxis: hostile, YAxis: hostile, Flagged: hostile, Subtitle: "unused"},
		{Title: "出力スループット", XAxis: "日付とエンジンのバージョン", YAxis: "出力スループット（トークン/秒）", Flagged: "範囲外\u2028"},
	}
	buf := []byte("left over from the last chart")
	for _, n := range []int{0, 1, 2, 7, 60} {
		for round := range 20 {
			x := make([]string, n)
			values := make([]float64, n)
			var flagged []int
			for i := range x {
				x[i] = "2026-0" + strconv.Itoa(1+i%9) + "-1" + strconv.Itoa(i%10) + " v0." + strconv.Itoa(i)
				if round%3 == 2 {
					x[i] += hostile
				}
				switch k := rng.IntN(10); {
				case k == 0:
					values[i] = math.NaN()
				case k == 1:
					values[i] = math.Round(rng.Float64()*1e6) / 1e12 // below 1e-6: an exponent
				case k == 2:
					values[i] = rng.Float64() * 1e22
				case k == 3:
					values[i] = 0
				default:
					values[i] = math.Round(rng.NormFloat64()*1e9) / 1e6
				}
				if !math.IsNaN(values[i]) && rng.IntN(4) == 0 {
					flagged = append(flagged, i)
				}
			}
			if n == 0 && round%2 == 1 {
				x, values = nil, nil // no labels: null, as json.Marshal writes a nil list
			}
			for _, l := range labels {
				got, err := AppendTrend(buf, "trend-0", x, values, flagged, l)
				if err != nil {
					t.Fatal(err)
				}
				want, err := trendMap(x, values, flagged, l)
				if err != nil {
					t.Fatal(err)
				}
				if got.ID != "trend-0" || string(got.Option) != string(want) {
					t.Fatalf("n=%d labels %+v:\ngot  %s\nwant %s", n, l, got.Option, want)
				}
				buf = got.Option
			}
		}
	}
}

// TestTrendRefuses: a value JSON cannot hold, a flagged point without a
// value and labels that do not match the values are errors.
func TestTrendRefuses(t *testing.T) {
	x := []string{"a", "b"}
	if _, err := AppendTrend(nil, "t", x, []float64{1, math.Inf(1)}, nil, Labels{}); !errors.Is(err, jsonw.ErrNotFinite) {
		t.Errorf("an infinite value: %v, want ErrNotFinite", err)
	}
	if _, err := AppendTrend(nil, "t", x, []float64{1, math.NaN()}, []int{1}, Labels{}); err == nil {
		t.Error("a flagged point without a value: no error")
	}
	if _, err := AppendTrend(nil, "t", x, []float64{1}, nil, Labels{}); err == nil {
		t.Error("one value for two labels: no error")
	}
}

// BenchmarkTrend: one trend chart of 143 runs (a 10,000-run site's series
// have 143 on average), appended into a buffer used again, and as the
// map it was once made as.
func BenchmarkTrend(b *testing.B) {
	const n = 143
	x, values := make([]string, n), make([]float64, n)
	for i := range x {
		x[i] = "2026-03-" + strconv.Itoa(10+i%20) + " 0." + strconv.Itoa(i)
		values[i] = math.Round(1234.5678*float64(i+1)*1e6) / 1e6
	}
	flagged := []int{3, 40, 99}
	l := Labels{Title: "Output throughput", XAxis: "date and engine version", YAxis: "Output throughput (tok/s)", Flagged: "outside the range"}
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			c, err := AppendTrend(buf, "trend-0", x, values, flagged, l)
			if err != nil {
				b.Fatal(err)
			}
			buf = c.Option
		}
	})
	b.Run("map", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := trendMap(x, values, flagged, l); err != nil {
				b.Fatal(err)
			}
		}
	})
}
