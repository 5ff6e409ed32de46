package casestudy

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/provenance"
)

// withGPUs is the small campaign with every run on n GPUs.
func withGPUs(n string) *memory {
	m := campaign()
	for _, rec := range m.runs {
		rec.Provenance = append(rec.Provenance, provenance.Entry{Field: "hardware.gpu_count", Value: n, Source: provenance.FromManifest})
	}
	return m
}

// The sweep's trade-off points by hand: each request of the small
// campaign decodes 99 tokens after its first, so TPOT = (lat − 0.1) / 99.
//
//	c=1: 200 tok / 4 s = 50 tok/s over 2 GPUs = 25; per user 99 / 3.9 = 25.38
//	c=2: 200 tok / 2 s → 50 per GPU;               per user 99 / 1.9 = 52.11
//	c=4: 200 tok / 3 s → 33.33 per GPU;            per user 99 / 1.89 = 52.38 (the 0-token request has no TPOT)
//
// c=2 beats c=1 on both axes; c=2 and c=4 each win on one.
func TestTradeOffOfSweep(t *testing.T) {
	res := evaluate(t, smallSpec)
	src := withGPUs("2")
	runs := map[string]*ChartRun{}
	for _, lv := range res.Sweeps["load"].Result.Levels {
		for _, id := range lv.RunIDs {
			r, err := LoadChartRun(src, id)
			if err != nil {
				t.Fatal(err)
			}
			runs[id] = r
		}
	}
	pts, chosen, err := TradeOffOfSweep(res.Sweeps["load"], runs, func(v float64) string { return "c=" + formatG(v) })
	if err != nil {
		t.Fatal(err)
	}
	want := []figures.TradeOffPoint{
		{Label: "c=1", PerGPU: 25, PerUser: 99 / 3.9},
		{Label: "c=2", PerGPU: 50, PerUser: 99 / 1.9, Frontier: true},
		{Label: "c=4", PerGPU: 200.0 / 3 / 2, PerUser: 99 / 1.89, Frontier: true},
	}
	if len(pts) != len(want) {
		t.Fatalf("%d points, want %d: %+v", len(pts), len(want), pts)
	}
	for i, w := range want {
		p := pts[i]
		if p.Label != w.Label || p.Frontier != w.Frontier || math.Abs(p.PerGPU-w.PerGPU) > 1e-9 || math.Abs(p.PerUser-w.PerUser) > 1e-9 {
			t.Errorf("point %d = %+v, want %+v", i, p, w)
		}
	}
	if chosen != res.Sweeps["load"].Result.Recommended {
		t.Errorf("chosen %d, want the sweep's recommended level %d", chosen, res.Sweeps["load"].Result.Recommended)
	}
	// Without a GPU count there is no per-GPU rate.
	r, err := LoadChartRun(campaign(), "cccc0001")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := TradeOffOfSweep(res.Sweeps["load"], map[string]*ChartRun{"cccc0001": r, "cccc0002": r, "cccc0004": r}, formatG); err == nil ||
		!strings.Contains(err.Error(), "hardware.gpu_count") {
		t.Errorf("a sweep without GPU counts: %v", err)
	}
}

func formatG(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// TradeOffOfRuns: one point per run, labelled by the caller.
func TestTradeOffOfRuns(t *testing.T) {
	src := withGPUs("1")
	var runs []*ChartRun
	for _, id := range []string{"aaaa0001", "aaaa0002"} {
		r, err := LoadChartRun(src, id)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	pts, err := TradeOffOfRuns(runs, func(id string) string { return "run " + id })
	if err != nil {
		t.Fatal(err)
	}
	// aaaa0002: 100 tok/s, TPOT 0.9/99 beats aaaa0001: 50 tok/s, TPOT (1.9/99 + 2.7/99)/2.
	if len(pts) != 2 || pts[0].Frontier || !pts[1].Frontier || pts[1].Label != "run aaaa0002" || pts[1].PerGPU != 100 {
		t.Errorf("points %+v", pts)
	}
}

// A distribution comes with the figures' percentiles and ends at 1.
func TestDistributionOf(t *testing.T) {
	r, err := LoadChartRun(campaign(), "cccc0004")
	if err != nil {
		t.Fatal(err)
	}
	d, err := r.DistributionOf("e2el")
	if err != nil {
		t.Fatal(err)
	}
	if last := d.CDF[len(d.CDF)-1]; last.P != 1 || last.X != 3 {
		t.Errorf("CDF ends at %+v, want (3 s, 1)", last)
	}
	if len(d.Percentiles) != len(figures.Percentiles) || d.Values[50] != r.Figures.E2EL.Median {
		t.Errorf("percentiles %v %v, want the figures' (median %v)", d.Percentiles, d.Values, r.Figures.E2EL.Median)
	}
	if _, err := r.DistributionOf("output_throughput"); err == nil {
		t.Error("a distribution of a run-level figure")
	}
	pts, k, varies := r.TTFTByInput()
	if varies || k != 1 || len(pts) != 3 {
		t.Errorf("TTFT by input: %d points, every %d, varies %v; want 3 equal inputs", len(pts), k, varies)
	}
}
