package report

import "github.com/benchledger/benchledger/locales"

// The SLO and cost tables of a report (issue 20): a sweep's SLO operating
// point under the SLO in words, and the estimated cost of a million output
// tokens at each operating point with its inputs.

// sloRow is a sweep's SLO operating point (definition sweep.slo_point).
type sloRow struct {
	Name, Label, Parameter        string
	Param, Throughput, Attainment Num
	Goodput                       Num
}

// costRow is an operating point's estimated cost per million output
// tokens with its inputs (metrics.md, "Cost estimate").
type costRow struct {
	Label                              string
	Throughput, GPUs, Price, PriceDate Num
	Cost                               Num
}

// sloRule states the case study's SLO in words: each declared threshold
// and the attainment target.
func (b *builder) sloRule(l locales.Locale) string {
	var parts []string
	for _, m := range []string{"ttft", "tpot", "e2el"} {
		if _, ok := b.bind["slo."+m]; ok {
			parts = append(parts, l.T("report.slo.threshold", "metric", l.Term(m), "value", b.num(l, "slo."+m).Text))
		}
	}
	return l.T("report.slo.rule", "thresholds", l.List(parts), "target", b.num(l, "slo.target").Text)
}

// costs lists the operating points whose cost the case study estimates:
// each output-throughput figure, each sweep's recommended level and SLO
// operating point, each node.
func (b *builder) costs(l locales.Locale, p *page, n string) {
	add := func(label, cost, tput string) {
		if _, ok := b.bind[cost]; !ok {
			return
		}
		p.Costs = append(p.Costs, costRow{Label: label, Throughput: b.num(l, tput), GPUs: b.num(l, cost+".gpus"), Price: b.num(l, cost+".price"),
			PriceDate: b.num(l, cost+".price_date"), Cost: b.num(l, cost)})
		p.CostRule = l.T("report.cost.rule")
	}
	r := b.res
	switch {
	case r.Sweeps[n] != nil:
		point := l.Term("saturation_point")
		if !r.Sweeps[n].Result.SaturationFound {
			point = l.T("export.col.recommended")
		}
		add(l.Colon(b.label(l, n), point), n+".saturation.cost", n+".saturation.throughput")
		add(l.Colon(b.label(l, n), l.Term("sweep.slo_point")), n+".slo.cost", n+".slo.throughput")
	case r.Nodes[n] != nil:
		add(b.label(l, n), n+".cost", n)
	case r.Figures[n].Cost != nil:
		lbl := r.Spec.Label(n, l.Texts())
		if lbl == "" {
			lbl = b.label(l, r.Spec.Figures[n].Of)
		}
		add(lbl, n+".cost", n)
	}
}
