package charts

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/figures"
)

// sampleTradeOff: five levels of a sweep; "3" is dominated by "4" (more
// per GPU and more per user).
func sampleTradeOff(t testing.TB) []figures.TradeOffPoint {
	t.Helper()
	pts := []figures.TradeOffPoint{
		{Label: "1", PerGPU: 35012, PerUser: 37.6},
		{Label: "2", PerGPU: 41786, PerUser: 22.8},
		{Label: "3", PerGPU: 44000, PerUser: 12.1},
		{Label: "4", PerGPU: 46262, PerUser: 13.1},
		{Label: "5", PerGPU: 46683, PerUser: 9.3},
	}
	if err := figures.MarkFrontier(pts); err != nil {
		t.Fatal(err)
	}
	return pts
}

func sampleCDFs() []CDFSeries {
	var base, tuned []float64
	for i := range 500 {
		x := float64(i) / 499
		base, tuned = append(base, 4+24*x), append(tuned, 11.5+0.3*x*x)
	}
	side := func(name string, v []float64) CDFSeries {
		st := figures.Summarise(v)
		return CDFSeries{Name: name, Points: figures.ECDF(v, 0), Percentiles: figures.Percentiles, Values: st.P}
	}
	return []CDFSeries{side("baseline", base), side("tuned", tuned)}
}

func sampleLoad() []figures.LoadPoint {
	var reqs []benchrun.Request
	for i := range 64 {
		reqs = append(reqs, benchrun.Request{Start: float64(i%8) * 0.1, Latency: 2 + float64(i)*0.05})
	}
	return figures.LoadOverTime(reqs, 50)
}

type seriesJSON struct {
	Name      string          `json:"name"`
	Type      string          `json:"type"`
	Data      json.RawMessage `json:"data"`
	MarkPoint *struct {
		Data []struct {
			Name  string    `json:"name"`
			Coord []float64 `json:"coord"`
		} `json:"data"`
	} `json:"markPoint"`
}

func seriesOf(t *testing.T, c Chart) []seriesJSON {
	t.Helper()
	var o struct {
		Series []seriesJSON `json:"series"`
	}
	if err := json.Unmarshal(c.Option, &o); err != nil {
		t.Fatal(err)
	}
	return o.Series
}

// The frontier line joins exactly the points no other beats, by per-user
// speed; the dominated point is drawn apart; the pin sits on the chosen
// point.
func TestParetoOption(t *testing.T) {
	pts := sampleTradeOff(t)
	c, err := Pareto("p", pts, 3, english)
	if err != nil {
		t.Fatal(err)
	}
	ss := seriesOf(t, c)
	if len(ss) != 3 || ss[0].Type != "line" || ss[1].Type != "scatter" || ss[2].Type != "scatter" {
		t.Fatalf("series %+v, want the frontier line, its points and the dominated points", ss)
	}
	var line [][2]float64
	if err := json.Unmarshal(ss[0].Data, &line); err != nil {
		t.Fatal(err)
	}
	want := [][2]float64{{9.3, 46683}, {13.1, 46262}, {22.8, 41786}, {37.6, 35012}}
	if len(line) != len(want) {
		t.Fatalf("frontier %v, want %v", line, want)
	}
	for i := range want {
		if line[i] != want[i] {
			t.Errorf("frontier point %d = %v, want %v", i, line[i], want[i])
		}
	}
	var off []struct {
		Name  string     `json:"name"`
		Value [2]float64 `json:"value"`
	}
	if err := json.Unmarshal(ss[2].Data, &off); err != nil {
		t.Fatal(err)
	}
	if len(off) != 1 || off[0].Name != "3" {
		t.Errorf("dominated points %+v, want level 3 alone", off)
	}
	if mp := ss[1].MarkPoint; mp == nil || len(mp.Data) != 1 || mp.Data[0].Coord[0] != 13.1 || mp.Data[0].Coord[1] != 46262 || mp.Data[0].Name != english.Saturation {
		t.Errorf("operating point mark %+v, want level 4 at (13.1, 46262)", mp)
	}
	if _, err := Pareto("p", nil, -1, english); !errors.Is(err, ErrNoData) {
		t.Errorf("no points: %v", err)
	}
	if _, err := Pareto("p", pts, 5, english); err == nil {
		t.Error("a chosen point past the end was accepted")
	}
}

// Each CDF series rises to 100 % and marks its percentiles at (value, p).
func TestCDFOption(t *testing.T) {
	in := sampleCDFs()
	c, err := CDF("c", in, english, Format{Decimals: 2, Unit: "s"})
	if err != nil {
		t.Fatal(err)
	}
	ss := seriesOf(t, c)
	if len(ss) != 2 {
		t.Fatalf("%d series, want both sides", len(ss))
	}
	for i, s := range ss {
		var pts [][2]float64
		if err := json.Unmarshal(s.Data, &pts); err != nil {
			t.Fatal(err)
		}
		for j := 1; j < len(pts); j++ {
			if pts[j][0] < pts[j-1][0] || pts[j][1] < pts[j-1][1] {
				t.Fatalf("%s: point %d %v falls from %v", s.Name, j, pts[j], pts[j-1])
			}
		}
		if last := pts[len(pts)-1]; last[1] != 100 {
			t.Errorf("%s ends at %v %%, want 100", s.Name, last[1])
		}
		if s.MarkPoint == nil || len(s.MarkPoint.Data) != len(figures.Percentiles) {
			t.Fatalf("%s: marks %+v, want one per percentile", s.Name, s.MarkPoint)
		}
		for k, m := range s.MarkPoint.Data {
			p := figures.Percentiles[k]
			if m.Coord[1] != p || m.Coord[0] != round(in[i].Values[p], 5) {
				t.Errorf("%s: mark %s at %v, want (%v, %v)", s.Name, m.Name, m.Coord, in[i].Values[p], p)
			}
		}
	}
	if _, err := CDF("c", []CDFSeries{{Name: "x"}}, english, Format{}); !errors.Is(err, ErrNoData) {
		t.Errorf("a side without points: %v", err)
	}
}

// The load chart draws in-flight and completed counts on two axes.
func TestLoadOption(t *testing.T) {
	pts := sampleLoad()
	c, err := Load("l", pts, english, "done")
	if err != nil {
		t.Fatal(err)
	}
	ss := seriesOf(t, c)
	var done [][2]float64
	if err := json.Unmarshal(ss[1].Data, &done); err != nil {
		t.Fatal(err)
	}
	if len(done) != len(pts) || done[len(done)-1][1] != 64 {
		t.Errorf("completions end at %v, want all 64 requests", done[len(done)-1])
	}
	if _, err := Load("l", nil, english, ""); !errors.Is(err, ErrNoData) {
		t.Errorf("no points: %v", err)
	}
}
