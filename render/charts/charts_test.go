package charts

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/figures"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json golden options")

const hostile = "</script><script>alert(1)</script>"

// Samples shaped like the demo case study (figures/ computes the real ones).

func sampleSweep(t testing.TB) figures.SweepResult {
	t.Helper()
	s, err := figures.Sweep([]figures.SweepPoint{
		{RunID: "r16", Param: 16, Throughput: 6100, MedianLatency: 9.8},
		{RunID: "r64", Param: 64, Throughput: 15000, MedianLatency: 13.1},
		{RunID: "r128", Param: 128, Throughput: 17961.5, MedianLatency: 20.04},
		{RunID: "r32", Param: 32, Throughput: 10900, MedianLatency: 10.5},
		{RunID: "r256", Param: 256, Throughput: 18125, MedianLatency: 29.85},
	}, figures.SaturationRule{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func sampleNode() figures.NodeResult {
	n := figures.NodeResult{Replicas: 4, WindowStart: 1000, WindowEnd: 1130, Window: 130, OutputThroughput: 60000}
	for k, se := range [][2]float64{{1000, 1100}, {1004, 1120}, {1010, 1130}, {1002, 1095}} {
		n.PerReplica = append(n.PerReplica, figures.ReplicaFigures{RunID: "rep" + string(rune('1'+k)), Replica: k + 1, Of: 4,
			Start: se[0], End: se[1], Window: se[1] - se[0], OutputThroughput: 1950000 / (se[1] - se[0])})
	}
	return n
}

func sampleLatencies() []float64 {
	var out []float64
	for i := 0; i < 200; i++ {
		// a skewed, deterministic spread between about 8 and 31 s
		x := float64(i) / 199
		out = append(out, 8+23*x*x)
	}
	return out
}

// all builds one chart of each kind with the given labels.
func all(t testing.TB, l Labels) []Chart {
	t.Helper()
	f := Format{Decimals: 1, Unit: "tok/s"}
	var out []Chart
	add := func(c Chart, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	add(Comparison("cmp-throughput", 7742.3, 17961.5, l, f))
	add(Sweep("sweep-concurrency", sampleSweep(t), l, Format{Decimals: -1}))
	add(Timeline("node-timeline", sampleNode(), l, Format{Decimals: 0, Unit: "tok/s"}))
	add(Latency("latency-e2e", sampleLatencies(), l, Format{Decimals: -1}))
	add(Pareto("pareto-sweep", sampleTradeOff(t), 2, l))
	add(CDF("cdf-e2el", sampleCDFs(), l, Format{Decimals: 2, Unit: "s"}))
	add(TTFTInput("ttft-input", []InputSeries{{Name: l.Candidate, Points: [][2]float64{{128, 0.05}, {512, 0.11}, {2048, 0.4}}}}, l))
	add(Load("load", sampleLoad(), l, l.Candidate))
	return out
}

var english = Labels{Title: "Output throughput", Subtitle: "baseline vs tuned", XAxis: "x", YAxis: "tok/s",
	Series: "throughput", Baseline: "baseline", Candidate: "tuned", Param: "c=", Saturation: "saturation",
	Replica: "replica", Window: "common window"}

func TestGolden(t *testing.T) {
	for _, c := range all(t, english) {
		var buf bytes.Buffer
		if err := json.Indent(&buf, c.Option, "", "  "); err != nil {
			t.Fatal(err)
		}
		buf.WriteByte('\n')
		path := filepath.Join("testdata", c.ID+".json")
		if *update {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./render/charts -update)", err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s: option differs from %s (go test ./render/charts -update to accept):\n%s", c.ID, path, buf.String())
		}
	}
}

func TestDeterministic(t *testing.T) {
	a, b := all(t, english), all(t, english)
	for i := range a {
		if a[i].ID != b[i].ID || !bytes.Equal(a[i].Option, b[i].Option) {
			t.Errorf("%s: two builds differ", a[i].ID)
		}
	}
}

// Text from ingested files must not be able to end the
// <script type="application/json"> block the HTML report puts options in.
func TestHostileLabelsStayInJSON(t *testing.T) {
	l := Labels{Title: hostile, Subtitle: hostile, XAxis: hostile, YAxis: hostile, Series: hostile, Baseline: hostile,
		Candidate: hostile, Param: hostile, Saturation: hostile, Replica: hostile, Window: hostile}
	for _, c := range all(t, l) {
		if bytes.ContainsAny(c.Option, "<>&") {
			t.Errorf("%s: option holds a raw <, > or &", c.ID)
		}
		var m map[string]any
		if err := json.Unmarshal(c.Option, &m); err != nil {
			t.Fatal(err)
		}
		title := m["title"].(map[string]any)
		if title["text"] != hostile {
			t.Errorf("%s: title = %q, want the label back intact", c.ID, title["text"])
		}
	}
}

// Caller text in ECharts label templates must not be read as {a}/{b}/{c}
// placeholders or rich-text styles.
func TestTemplateBracesNeutralised(t *testing.T) {
	l := english
	l.Saturation = "{b} {x|y}"
	c, err := Sweep("s", sampleSweep(t), l, Format{Decimals: -1})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(c.Option), "{x|y}") || !strings.Contains(string(c.Option), "｛b｝") {
		t.Errorf("braces not neutralised: %s", c.Option)
	}
}

func decode(t *testing.T, c Chart) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(c.Option, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func series(t *testing.T, m map[string]any) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, s := range m["series"].([]any) {
		out = append(out, s.(map[string]any))
	}
	return out
}

func TestComparison(t *testing.T) {
	c, err := ComparisonOf("cmp", figures.Comparison{Unit: "tok/s",
		Baseline: figures.Side{Value: 7742.3}, Candidate: figures.Side{Value: 17961.5}}, english, Format{Decimals: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, c)
	if m["animation"] != false {
		t.Error("animation must be off")
	}
	ss := series(t, m)
	if len(ss) != 1 || ss[0]["type"] != "bar" {
		t.Fatalf("series = %v", ss)
	}
	data := ss[0]["data"].([]any)
	var labels []string
	for _, d := range data {
		labels = append(labels, d.(map[string]any)["label"].(map[string]any)["formatter"].(string))
	}
	if strings.Join(labels, "|") != "7742.3 tok/s|17961.5 tok/s" {
		t.Errorf("value labels = %q", labels)
	}
	cats := m["xAxis"].([]any)[0].(map[string]any)["data"].([]any)
	if cats[0] != "baseline" || cats[1] != "tuned" {
		t.Errorf("categories = %v", cats)
	}
	if _, err := Comparison("x", math.NaN(), 1, english, Format{}); err == nil {
		t.Error("NaN accepted")
	}
}

func TestComparisonNumberHook(t *testing.T) {
	es := Format{Unit: "tok/s", Number: func(v float64) string { return strings.ReplaceAll(Format{Decimals: 1}.Num(v), ".", ",") }}
	c, err := Comparison("c", 1.5, 2.25, english, es)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(c.Option), `"1,5 tok/s"`) {
		t.Errorf("Format.Number not used: %s", c.Option)
	}
}

func TestSweep(t *testing.T) {
	s := sampleSweep(t)
	if !s.SaturationFound || s.Saturation != 3 {
		t.Fatalf("sample sweep: saturation %d found %v", s.Saturation, s.SaturationFound)
	}
	c, err := Sweep("sw", s, english, Format{Decimals: -1})
	if err != nil {
		t.Fatal(err)
	}
	ss := series(t, decode(t, c))
	data := ss[0]["data"].([]any)
	var names []string
	for i, d := range data {
		dm := d.(map[string]any)
		names = append(names, dm["name"].(string))
		if (dm["symbol"] == "diamond") != (i == 3) {
			t.Errorf("point %d symbol %v", i, dm["symbol"])
		}
	}
	if strings.Join(names, " ") != "c=16 c=32 c=64 c=128 c=256" {
		t.Errorf("points not in parameter order: %v", names)
	}
	mp := ss[0]["markPoint"].(map[string]any)["data"].([]any)[0].(map[string]any)
	if mp["name"] != "saturation" || mp["coord"].([]any)[1] != 17961.5 {
		t.Errorf("markPoint = %v", mp)
	}

	s.SaturationFound, s.Saturation = false, -1
	c, err = Sweep("sw", s, english, Format{Decimals: -1})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(c.Option), "markPoint") || strings.Contains(string(c.Option), "diamond") {
		t.Error("marker drawn without a saturation point")
	}
	if _, err := Sweep("e", figures.SweepResult{}, english, Format{}); !errors.Is(err, ErrNoData) {
		t.Errorf("empty sweep: %v", err)
	}
}

func TestTimeline(t *testing.T) {
	c, err := Timeline("tl", sampleNode(), english, Format{Unit: "tok/s"})
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, c)
	ss := series(t, m)
	if len(ss) != 2 || ss[0]["stack"] != "replica" || ss[1]["stack"] != "replica" || ss[0]["silent"] != true {
		t.Fatalf("series = %v", ss)
	}
	var starts, spans []float64
	for i := range 4 {
		starts = append(starts, ss[0]["data"].([]any)[i].(map[string]any)["value"].(float64))
		spans = append(spans, ss[1]["data"].([]any)[i].(map[string]any)["value"].(float64))
	}
	if want := []float64{0, 4, 10, 2}; !equal(starts, want) {
		t.Errorf("relative starts = %v, want %v", starts, want)
	}
	if want := []float64{100, 116, 120, 93}; !equal(spans, want) {
		t.Errorf("spans = %v, want %v", spans, want)
	}
	area := ss[1]["markArea"].(map[string]any)["data"].([]any)[0].([]any)
	if area[0].(map[string]any)["xAxis"] != 0.0 || area[1].(map[string]any)["xAxis"] != 130.0 ||
		area[0].(map[string]any)["name"] != "common window" {
		t.Errorf("common window area = %v", area)
	}
	y := m["yAxis"].([]any)[0].(map[string]any)
	if y["type"] != "category" || y["inverse"] != true || y["data"].([]any)[0] != "replica 1/4" {
		t.Errorf("yAxis = %v", y)
	}
	if !strings.Contains(string(c.Option), `"19500 tok/s"`) {
		t.Error("replica 1's own rate label missing")
	}
	if _, err := Timeline("e", figures.NodeResult{}, english, Format{}); !errors.Is(err, ErrNoData) {
		t.Errorf("empty node: %v", err)
	}
}

func TestLatencyBins(t *testing.T) {
	lat := sampleLatencies()
	c, err := Latency("lat", lat, english, Format{Decimals: -1})
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, c)
	cats := m["xAxis"].([]any)[0].(map[string]any)["data"].([]any)
	data := series(t, m)[0]["data"].([]any)
	total := 0.0
	for _, d := range data {
		total += d.(map[string]any)["value"].(float64)
	}
	if total != float64(len(lat)) || len(cats) != len(data) {
		t.Errorf("%d bins, %d categories, %v counted of %d", len(data), len(cats), total, len(lat))
	}
	if len(cats) != 10 || cats[0] != "7.5–10.0" || cats[len(cats)-1] != "30.0–32.5" {
		t.Errorf("bin edges %v … %v", cats[0], cats[len(cats)-1])
	}

	for _, tc := range []struct {
		lo, hi float64
		n      int
		width  float64
		first  float64
		dec    int
	}{
		{0.1, 0.9, 100, 0.1, 0.1, 1},    // 8 bins span 0.8 → 0.1
		{12, 12, 10, 2.5, 10, 1},        // one value: one bin
		{0, 1000, 1000, 100, 0, 0},      // 11 bins → 100
		{0.31, 0.52, 50, 0.025, 0.3, 3}, // 2.5 steps need one more digit
	} {
		b := bins(tc.lo, tc.hi, tc.n)
		if math.Abs(b.width-tc.width) > 1e-12 || math.Abs(b.lo-tc.first) > 1e-12 || b.decimals != tc.dec {
			t.Errorf("bins(%v, %v, %d) = %+v, want width %v from %v, %d decimals", tc.lo, tc.hi, tc.n, b, tc.width, tc.first, tc.dec)
		}
		if b.index(tc.hi) != b.n-1 || b.index(tc.lo) != 0 {
			t.Errorf("bins(%v, %v): extremes fall outside", tc.lo, tc.hi)
		}
	}
	if b := (binning{lo: 0, width: 0.1, n: 10}); b.index(0.3) != 3 {
		t.Errorf("0.3 on an edge went to bin %d, want 3", b.index(0.3))
	}
	if _, err := Latency("e", nil, english, Format{}); !errors.Is(err, ErrNoData) {
		t.Errorf("no latencies: %v", err)
	}
	if _, err := Latency("e", []float64{1, math.Inf(1)}, english, Format{}); err == nil {
		t.Error("Inf accepted")
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9 {
			return false
		}
	}
	return true
}

func TestRequestTimeline(t *testing.T) {
	nan := math.NaN()
	pts := []RequestPoint{{0, 0.1, 1.5}, {0.5, 0.2, nan}, {1, nan, 2.25}}
	c, step, err := RequestTimeline("timeline", pts, Labels{Title: "<b>t</b>", Baseline: "E2E", Candidate: "TTFT", XAxis: "x", YAxis: "y"})
	if err != nil {
		t.Fatal(err)
	}
	if step != 1 {
		t.Errorf("step %d for 3 points", step)
	}
	if strings.Contains(string(c.Option), "<b>") {
		t.Error("label not escaped in the option")
	}
	m := decode(t, c)
	ss := series(t, m)
	if len(ss) != 2 || ss[0]["name"] != "E2E" || ss[1]["name"] != "TTFT" {
		t.Fatalf("series %v", ss)
	}
	// One row a request: send, E2E latency, TTFT; an unknown value is null.
	rows, err := json.Marshal(m["dataset"].(map[string]any)["source"])
	if err != nil {
		t.Fatal(err)
	}
	if want := `[[0,1.5,0.1],[0.5,null,0.2],[1,2.25,null]]`; string(rows) != want {
		t.Errorf("rows %s, want %s", rows, want)
	}
	// The failed/unknown values are left out, each series keeps its own.
	if e2e := timelinePoints(t, m, 0); len(e2e) != 2 || e2e[1][1] != 2.25 {
		t.Errorf("E2E points %v", e2e)
	}
	if tt := timelinePoints(t, m, 1); len(tt) != 2 || tt[1][0] != 0.5 {
		t.Errorf("TTFT points %v", tt)
	}
	// One series alone, in each order, and a second chart of the same
	// labels (its option shell comes from the cache) with its own points.
	labels := Labels{Title: "t", Baseline: "E2E", Candidate: "TTFT"}
	for _, tc := range []struct {
		pts       []RequestPoint
		name      string
		wantFirst float64
	}{
		{[]RequestPoint{{0, nan, 1.5}, {1, nan, 2.5}}, "E2E", 1.5},
		{[]RequestPoint{{0, 0.25, nan}, {1, 0.5, nan}}, "TTFT", 0.25},
		{[]RequestPoint{{0, nan, 3.5}}, "E2E", 3.5},
		{[]RequestPoint{{0, 0.75, nan}}, "TTFT", 0.75},
	} {
		c, _, err := RequestTimeline("timeline", tc.pts, labels)
		if err != nil {
			t.Fatal(err)
		}
		m := decode(t, c)
		ss := series(t, m)
		if len(ss) != 1 || ss[0]["name"] != tc.name {
			t.Fatalf("points %v: series %v, want %s alone", tc.pts, ss, tc.name)
		}
		data := timelinePoints(t, m, 0)
		if len(data) != len(tc.pts) || data[0][1] != tc.wantFirst {
			t.Errorf("points %v: %s data %v", tc.pts, tc.name, data)
		}
		// The table has the column of the one series drawn only.
		for _, r := range m["dataset"].(map[string]any)["source"].([]any) {
			if len(r.([]any)) != 2 {
				t.Errorf("points %v: row %v, want send and %s", tc.pts, r, tc.name)
			}
		}
	}
	// A long run is drawn every k-th request.
	many := make([]RequestPoint, 5*MaxTimelinePoints+1)
	for i := range many {
		many[i] = RequestPoint{float64(i), 0.1, 1}
	}
	c, step, err = RequestTimeline("timeline", many, Labels{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(timelinePoints(t, decode(t, c), 0)); step != 6 || n > MaxTimelinePoints {
		t.Errorf("step %d, %d points drawn", step, n)
	}
	if _, _, err := RequestTimeline("timeline", []RequestPoint{{nan, nan, nan}}, Labels{}); !errors.Is(err, ErrNoData) {
		t.Errorf("no drawable point: %v", err)
	}
	// A request without a send time is drawn in neither series.
	if _, _, err := RequestTimeline("timeline", []RequestPoint{{nan, 0.1, 1}}, Labels{}); !errors.Is(err, ErrNoData) {
		t.Errorf("no send time: %v", err)
	}
	c, _, err = RequestTimeline("timeline", []RequestPoint{{nan, 0.1, 1}, {2, 0.2, 3}}, labels)
	if err != nil {
		t.Fatal(err)
	}
	m = decode(t, c)
	for i, s := range series(t, m) {
		if data := timelinePoints(t, m, i); len(data) != 1 || data[0][0] != 2 {
			t.Errorf("%s: %v, want the one point sent at 2 s", s["name"], data)
		}
	}
}

// timelinePoints is what series i of a request timeline draws: the [send,
// value] of each row of the option's table with a value in the series'
// column (encode.y), as ECharts reads it.
func timelinePoints(t *testing.T, m map[string]any, i int) [][2]float64 {
	t.Helper()
	enc := series(t, m)[i]["encode"].(map[string]any)
	x, y := int(enc["x"].(float64)), int(enc["y"].(float64))
	if tip := enc["tooltip"].([]any); len(tip) != 2 || int(tip[0].(float64)) != x || int(tip[1].(float64)) != y {
		t.Errorf("series %d: tooltip columns %v, want its x and y (%d, %d)", i, tip, x, y)
	}
	var out [][2]float64
	for _, r := range m["dataset"].(map[string]any)["source"].([]any) {
		row := r.([]any)
		if row[y] != nil {
			out = append(out, [2]float64{row[x].(float64), row[y].(float64)})
		}
	}
	return out
}

func TestAppendTenthMs(t *testing.T) {
	for _, x := range []float64{0, 1, 0.5, 0.00004, 0.00005, -0.25, 12.3456789, 1234567.89012, 0.1 + 0.2, -0.00004, 3e14} {
		got, err := strconv.ParseFloat(string(appendTenthMs(nil, x)), 64)
		if want := math.Round(x*1e4) / 1e4; err != nil || got != want {
			t.Errorf("%v: wrote %q, want %v", x, appendTenthMs(nil, x), want)
		}
	}
	if s := string(appendTenthMs(nil, 2.5)); s != "2.5" {
		t.Errorf("2.5 written %q", s)
	}
}
