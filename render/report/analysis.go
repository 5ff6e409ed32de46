package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/render/charts"
	"github.com/benchledger/benchledger/spec"
)

// The charts of issue 20: the trade-off curve (pareto), the overlaid
// distributions of a comparison (cdf), TTFT by input length (ttft-input)
// and a run's load over time (timeline). Every plotted value comes from
// casestudy and figures (docs/metrics.md names the definitions); this
// file only lays them out and labels them.

// chartTable is a chart's data as a table (the trade-off curve's points).
type chartTable struct {
	Head []string
	Rows [][]string
}

// distMetrics are the per-request metrics a comparison's CDFs show.
var distMetrics = []string{"ttft", "tpot", "e2el"}

// chartRun reads a run's records and figures once for every language.
func (b *builder) chartRun(id string) (*casestudy.ChartRun, error) {
	if r, ok := b.chartRuns[id]; ok {
		return r, nil
	}
	if !slices.Contains(b.res.RunIDs, id) {
		return nil, fmt.Errorf("report: a chart of run %s, which no figure of the report uses", id)
	}
	r, err := casestudy.LoadChartRun(b.src, id)
	if err != nil {
		return nil, fmt.Errorf("report: run %s: %w", id, err)
	}
	if b.chartRuns == nil {
		b.chartRuns = map[string]*casestudy.ChartRun{}
	}
	b.chartRuns[id] = r
	return r, nil
}

// captionRuns is the caption's line naming the runs a chart plots, by
// their readers' names (selections), never their ids.
func (b *builder) captionRuns(l locales.Locale, names ...string) string {
	var ls []string
	for _, n := range names {
		if t := b.label(l, n); !slices.Contains(ls, t) {
			ls = append(ls, t)
		}
	}
	return l.T("chart.caption.runs", "runs", l.List(ls))
}

// analysisChart adds the chart(s) of a pareto:, cdf:, ttft-input: or
// timeline: layout entry; false when entry is none of them.
func (b *builder) analysisChart(l locales.Locale, entry string, add func(charts.Chart, error, chartView) error) (bool, error) {
	switch {
	case strings.HasPrefix(entry, spec.ParetoChart):
		return true, b.paretoChart(l, strings.TrimPrefix(entry, spec.ParetoChart), true, add)
	case strings.HasPrefix(entry, spec.CDFChart):
		return true, b.cdfCharts(l, strings.TrimPrefix(entry, spec.CDFChart), add)
	case strings.HasPrefix(entry, spec.TTFTInputChart):
		return true, b.ttftInputChart(l, strings.TrimPrefix(entry, spec.TTFTInputChart), add)
	case strings.HasPrefix(entry, spec.LoadChart):
		return true, b.loadChart(l, strings.TrimPrefix(entry, spec.LoadChart), add)
	}
	return false, nil
}

// paretoChart draws the trade-off curve of a sweep (one point per level,
// the recommended level labelled) or of a selection (one point per run).
// In the default layout (strict false) a sweep whose runs give no curve
// (no GPU count, no TPOT) is left out.
func (b *builder) paretoChart(l locales.Locale, name string, strict bool, add func(charts.Chart, error, chartView) error) error {
	var pts []figures.TradeOffPoint
	chosen := -1
	var what, of, head string
	if sw := b.res.Sweeps[name]; sw != nil {
		runs := map[string]*casestudy.ChartRun{}
		for _, lv := range sw.Result.Levels {
			for _, id := range lv.RunIDs {
				r, err := b.chartRun(id)
				if err != nil {
					return err
				}
				runs[id] = r
			}
		}
		var err error
		if pts, chosen, err = casestudy.TradeOffOfSweep(sw, runs, func(v float64) string { return l.Number(v, -1) }); err != nil {
			if !strict {
				return nil
			}
			return fmt.Errorf("report: chart pareto:%s: %w", name, err)
		}
		what, of = l.T("chart.caption.pareto_sweep", "param", b.paramLabel(l, sw.Parameter)), b.res.Spec.Sweeps[name].Of
		head = b.paramLabel(l, sw.Parameter)
	} else {
		ids := b.res.Selections[name]
		var runs []*casestudy.ChartRun
		for _, id := range ids {
			r, err := b.chartRun(id)
			if err != nil {
				return err
			}
			runs = append(runs, r)
		}
		var err error
		if pts, err = casestudy.TradeOffOfRuns(runs, func(id string) string { return b.runLabel(l, id) }); err != nil {
			return fmt.Errorf("report: chart pareto:%s: %w", name, err)
		}
		what, of, head = l.T("chart.caption.pareto_runs"), name, l.T("table.configuration")
	}
	title := l.T("chart.tradeoff")
	perUser, perGPU := l.T("axis.per_user", "unit", l.UnitLabel("tok/s")), l.T("axis.per_gpu", "unit", l.UnitLabel("tok/s"))
	op := l.T("chart.operating_point")
	ch, err := charts.Pareto("pareto-"+name, pts, chosen, charts.Labels{Title: title, Subtitle: b.label(l, name),
		XAxis: perUser, YAxis: perGPU, Series: l.T("chart.frontier"), Candidate: l.T("chart.on_frontier"),
		Baseline: l.T("chart.off_frontier"), Saturation: op})
	cl := l.Cells()
	t := &chartTable{Head: []string{capFirst(head), perUser, perGPU, l.T("chart.frontier")}}
	for i, p := range pts {
		lbl := p.Label
		if i == chosen {
			lbl = cl.Paren(lbl, op)
		}
		on := "—"
		if p.Frontier {
			on = "✓"
		}
		t.Rows = append(t.Rows, []string{lbl, cl.Number(p.PerUser, 1), cl.Number(p.PerGPU, 0), on})
	}
	return add(ch, err, chartView{Kind: "pareto", Title: l.Colon(title, b.label(l, name)),
		Caption: []string{what, b.captionRuns(l, of)}, Table: t})
}

// cdfCharts draws the distributions of TTFT, TPOT and E2E latency of both
// sides of a run-vs-run comparison, one chart per metric, both runs on one
// axis scale. In the default layout (strict false) a comparison or metric
// without per-request values is left out.
func (b *builder) cdfCharts(l locales.Locale, name string, add func(charts.Chart, error, chartView) error) error {
	return b.cdfChartsOf(l, name, true, add)
}

func (b *builder) cdfChartsOf(l locales.Locale, name string, strict bool, add func(charts.Chart, error, chartView) error) error {
	c := b.res.Comparisons[name]
	sc := b.res.Spec.Comparisons[name]
	if c == nil || c.Comparison.Baseline.RunID == "" || c.Comparison.Candidate.RunID == "" ||
		strings.Contains(sc.Baseline, ":") || strings.Contains(sc.Candidate, ":") {
		if strict {
			return fmt.Errorf("report: chart cdf:%s: not a comparison of two runs", name)
		}
		return nil
	}
	sides := []struct{ id, sel string }{{c.Comparison.Baseline.RunID, sc.Baseline}, {c.Comparison.Candidate.RunID, sc.Candidate}}
	for _, m := range distMetrics {
		var ss []charts.CDFSeries
		for _, s := range sides {
			r, err := b.chartRun(s.id)
			if err != nil {
				if !strict {
					return nil
				}
				return err
			}
			d, err := r.DistributionOf(m)
			if err != nil {
				if !strict {
					continue
				}
				return fmt.Errorf("report: chart cdf:%s: %w", name, err)
			}
			ss = append(ss, charts.CDFSeries{Name: b.label(l, s.sel), Points: d.CDF, Percentiles: d.Percentiles, Values: d.Values})
		}
		if len(ss) == 0 {
			continue
		}
		term := l.Term(m)
		title := l.T("chart.cdf", "metric", term)
		ps := percentileNames(l, ss[0].Percentiles)
		ch, err := charts.CDF("cdf-"+name+"-"+m, ss, charts.Labels{Title: title, Subtitle: b.label(l, name),
			XAxis: l.Paren(capFirst(term), l.UnitLabel("s")), YAxis: l.T("axis.share_at_most")},
			charts.Format{Decimals: -1, Unit: l.UnitLabel("s"), Number: func(v float64) string { return l.Number(v, 3) }})
		if err := add(ch, err, chartView{Kind: "cdf", Title: l.Colon(title, b.label(l, name)),
			Caption: []string{l.T("chart.caption.cdf", "metric", term, "percentiles", l.List(ps)), b.captionRuns(l, sc.Baseline, sc.Candidate)}}); err != nil {
			return err
		}
	}
	return nil
}

// ttftInputChart draws TTFT against input length for a selection's runs.
func (b *builder) ttftInputChart(l locales.Locale, sel string, add func(charts.Chart, error, chartView) error) error {
	var ss []charts.InputSeries
	varies, step := false, 1
	for _, id := range b.res.Selections[sel] {
		r, err := b.chartRun(id)
		if err != nil {
			return err
		}
		pts, k, v := r.TTFTByInput()
		varies, step = varies || v, max(step, k)
		s := charts.InputSeries{Name: b.runLabel(l, id)}
		for _, p := range pts {
			s.Points = append(s.Points, [2]float64{float64(p.InputTokens), p.TTFT})
		}
		ss = append(ss, s)
	}
	if !varies {
		return fmt.Errorf("report: chart ttft-input:%s: the input lengths of its requests do not vary", sel)
	}
	title := l.T("chart.ttft_input")
	caption := []string{l.T("chart.caption.ttft_input")}
	if step > 1 {
		caption = append(caption, l.T("chart.caption.sampled", "k", l.Number(float64(step), 0)))
	}
	ch, err := charts.TTFTInput("ttft-input-"+sel, ss, charts.Labels{Title: title, Subtitle: b.label(l, sel),
		XAxis: l.T("axis.input_length"), YAxis: l.Paren(l.Term("ttft"), l.UnitLabel("s"))})
	return add(ch, err, chartView{Kind: "ttft-input", Title: l.Colon(title, b.label(l, sel)), Caption: append(caption, b.captionRuns(l, sel))})
}

// loadChart draws a one-run selection's requests in flight and completed
// over time.
func (b *builder) loadChart(l locales.Locale, sel string, add func(charts.Chart, error, chartView) error) error {
	ids := b.res.Selections[sel]
	if len(ids) != 1 {
		return fmt.Errorf("report: layout chart %s%s: selection %s picks %d runs; a timeline shows one", spec.LoadChart, sel, sel, len(ids))
	}
	r, err := b.chartRun(ids[0])
	if err != nil {
		return err
	}
	pts := figures.LoadOverTime(r.Requests, figures.MaxLoadPoints)
	title := l.T("chart.load")
	ch, err := charts.Load("load-"+sel, pts, charts.Labels{Title: title, Subtitle: b.label(l, sel),
		XAxis: l.T("axis.time", "unit", l.UnitLabel("s")), YAxis: l.T("chart.in_flight"),
		Baseline: l.T("chart.in_flight"), Candidate: l.T("chart.completed_so_far")}, l.T("chart.completed_so_far"))
	return add(ch, err, chartView{Kind: "timeline", Title: l.Colon(title, b.label(l, sel)),
		Caption: []string{l.T("chart.caption.load", "n", l.Number(float64(len(pts)), 0)), b.captionRuns(l, sel)}})
}

// percentileNames names percentiles as the language's tables do: p50, p99
// (zh P50, P99, the glossary's terms; a percentile without a term, p99.9,
// with the letter the language writes p50 with).
func percentileNames(l locales.Locale, ps []float64) []string {
	letter := "p"
	if l.HasTerm("p50") {
		letter = l.Term("p50")[:1]
	}
	var out []string
	for _, p := range ps {
		pt := "p" + strconv.FormatFloat(p, 'f', -1, 64)
		if l.HasTerm(pt) {
			pt = l.Term(pt)
		} else {
			pt = letter + pt[1:]
		}
		out = append(out, pt)
	}
	return out
}
