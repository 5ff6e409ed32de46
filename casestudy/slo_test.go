package casestudy

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/spec"
)

// sloSpec adds an SLO, a price and SLO figures to smallSpec.
var sloSpec = strings.Replace(smallSpec, "comparisons:\n", "comparisons:\n  goodput_cmp: {baseline: baseline, candidate: tuned, metric: goodput}\n", 1) +
	`slo: {ttft_ms: 200, e2el_ms: 4000, attainment_pct: 100}
price: {per_gpu_hour: 2, currency: USD, date: 2026-08-01}
`

func evaluateSLO(t *testing.T, text string, extra ...string) *Result {
	t.Helper()
	text = strings.Replace(text, "figures:\n", "figures:\n  base_good: {of: baseline, metric: goodput}\n  base_att: {of: baseline, metric: slo_attainment}\n", 1)
	s, err := spec.Parse("casestudy.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Evaluate(context.Background(), s, campaign(extra...), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestEvaluateSLO: goodput and attainment of a selection, the sweep's SLO
// operating point, per-GPU figures and cost estimates, and their bindings,
// against values computed by hand from the campaign's records.
func TestEvaluateSLO(t *testing.T) {
	t.Parallel()
	res := evaluateSLO(t, sloSpec, "hardware.gpu_count", "2")
	// Baseline: TTFT 0.1 and 0.3 s against 0.2 s, E2E 2 and 3 s against
	// 4 s: one good request of two over the window 0 → 1+3 = 4 s.
	if v := res.Figures["base_good"]; v.Value != 0.25 || v.Unit != "req/s" {
		t.Errorf("goodput %+v, want 0.25 req/s", v)
	}
	if v := res.Figures["base_att"]; v.Value != 50 || v.Unit != "%" {
		t.Errorf("attainment %+v, want 50%%", v)
	}
	// 2 GPUs at 2 USD an hour for 50 tok/s: 4 / (50 × 3600) × 1e6.
	c := res.Figures["base_tput"].Cost
	if c == nil || math.Abs(c.PerMillionOutputTokens-4/(50*3600.0)*1e6) > 1e-9 || !c.Estimate || c.GPUs != 2 || c.Price.Currency != "USD" {
		t.Errorf("cost %+v", c)
	}
	// Sweep: every level meets the SLO (the 1-concurrency level's E2E of
	// 4 s is exactly on its threshold): the SLO point is the highest level.
	sw := res.Sweeps["load"].Result
	if !sw.SLOPointFound || sw.Levels[sw.SLOPoint].Param != 4 || sw.Rule.SLOAttainmentPct != 100 {
		t.Fatalf("SLO point %d found %v rule %+v", sw.SLOPoint, sw.SLOPointFound, sw.Rule)
	}
	lv := sw.Levels[sw.SLOPoint]
	if *lv.SLOAttainment != 100 || *lv.Goodput != 1 || lv.Cost == nil || *lv.ThroughputPerGPU != lv.Throughput/2 {
		t.Errorf("SLO level %+v", lv)
	}
	if nd := res.Nodes["pair"]; nd.GPUs != 4 || nd.ThroughputPerGPU == nil || nd.Cost == nil || nd.Cost.GPUs != 4 {
		t.Errorf("node %+v", nd)
	}
	// Tuned: both requests good (TTFT 0.1 s, E2E 1 s) over the window
	// 0 → 1+1 = 2 s: 1 req/s against the baseline's 0.25.
	if c := res.Comparisons["goodput_cmp"].Comparison; c.Change.Baseline != 0.25 || c.Change.Candidate != 1 || !c.Change.Improved {
		t.Errorf("goodput comparison %+v", c.Change)
	}
	b := Bindings(res)
	en := locales.MustMatch("en")
	for name, want := range map[string]string{
		"base_good": "0.25 req/s", "base_att": "50.0%", "base_tput.cost": "$22.22", "load.slo.param": "4", "load.slo.attainment": "100.0%",
		"load.slo.goodput": "1.00 req/s", "slo.ttft": "200 ms", "slo.e2el": "4,000 ms", "slo.target": "100%", "price.per_gpu_hour": "$2.00",
		"price.date": "1 August 2026",
	} {
		bd, ok := b[name]
		if !ok {
			t.Errorf("no binding %s", name)
			continue
		}
		if got := bd.Format(en); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if _, ok := b["slo.tpot"]; ok {
		t.Error("a binding for an undeclared threshold")
	}
	// Without GPU counts: no per-GPU figure and no cost, said by their absence.
	res = evaluateSLO(t, sloSpec)
	if res.Figures["base_tput"].Cost != nil || res.Sweeps["load"].Result.Levels[0].ThroughputPerGPU != nil || res.Nodes["pair"].Cost != nil {
		t.Error("a cost or per-GPU figure without GPU counts")
	}
	// A target the first level misses: no SLO point, no slo bindings.
	res = evaluateSLO(t, strings.Replace(sloSpec, "e2el_ms: 4000", "e2el_ms: 3999", 1))
	if sw := res.Sweeps["load"].Result; sw.SLOPointFound {
		t.Errorf("SLO point %d with the first level's E2E above the threshold", sw.SLOPoint)
	}
	if _, ok := Bindings(res)["load.slo.param"]; ok {
		t.Error("load.slo.param bound without an SLO point")
	}
}

// TestEvaluatePriceFromProvenance: without a spec price, the price the
// runs' provenance states (cost.*) estimates the cost; runs that state
// none, or an incomplete one, get none.
func TestEvaluatePriceFromProvenance(t *testing.T) {
	t.Parallel()
	res := evaluateSLO(t, strings.Replace(sloSpec, "price: {per_gpu_hour: 2, currency: USD, date: 2026-08-01}\n", "", 1),
		"hardware.gpu_count", "2", "cost.gpu_hour_price", "3", "cost.currency", "EUR", "cost.price_date", "2026-07-01")
	c := res.Figures["base_tput"].Cost
	if res.Price != nil || c == nil || c.Price.Currency != "EUR" || c.Price.Date != "2026-07-01" || math.Abs(c.PerMillionOutputTokens-6/(50*3600.0)*1e6) > 1e-9 {
		t.Errorf("price %+v, cost %+v", res.Price, c)
	}
	if l := res.Sweeps["load"].Result.Levels[0]; l.Cost == nil || l.Cost.Price.PerGPUHour != 3 {
		t.Errorf("sweep level cost %+v", l.Cost)
	}
	res = evaluateSLO(t, strings.Replace(sloSpec, "price: {per_gpu_hour: 2, currency: USD, date: 2026-08-01}\n", "", 1),
		"hardware.gpu_count", "2", "cost.gpu_hour_price", "3", "cost.currency", "EUR")
	if c := res.Figures["base_tput"].Cost; c != nil {
		t.Errorf("a cost from a price without its date: %+v", c)
	}
}
