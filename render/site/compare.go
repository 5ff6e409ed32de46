package site

import (
	"github.com/benchledger/benchledger/casestudy"
	htmltemplate "html/template"
	"math"
	"slices"

	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/render/charts"
	"github.com/benchledger/benchledger/spec"
)

// A comparison page shows, beside the figure its spec names, every figure
// of the two runs behind its sides and their latency distributions. Both
// are read once per comparison and build (not per language): the runs are
// read from the archive again, since a rebuild need not have made them.

// cmpRuns is what a comparison page shows of the runs behind its sides.
type cmpRuns struct {
	// Base and Cand are the runs whose figures are shown: each side's run
	// (a repeat set's conservative run); "" when a side is no run of the
	// archive (an external reference, a node).
	Base, Cand string
	// Changes are every metric both runs have (figures.CompareAll).
	Changes []figures.MetricChange
	// Dists are the distributions of the latency families drawn, with
	// both runs' percentiles of the figures table.
	Dists []cmpDist
}

// cmpDist is one latency family of both runs, as a CDF chart draws it.
type cmpDist struct {
	Family string // "e2el", "ttft"
	Points [2][]figures.CDFPoint
	Marks  [2]map[float64]float64
}

// cdfFamilies are the latency families a comparison page draws, and the
// percentiles it marks on them (those of a run's figures table).
var (
	cdfFamilies    = []string{"e2el", "ttft"}
	cdfPercentiles = []float64{50, 90, 99}
)

// comparisonRuns reads the runs behind every comparison of the case
// studies given by spec, once for the build.
func (b *builder) comparisonRuns() error {
	b.cmpRuns = map[cmpRef]*cmpRuns{}
	for _, c := range b.cases {
		if c.c == nil {
			continue
		}
		res := c.c.Result
		for _, ref := range c.cmps {
			cmp := res.Comparisons[ref.Name].Comparison
			cr := &cmpRuns{}
			b.cmpRuns[ref] = cr
			if cmp.Baseline.IsReference() || cmp.Candidate.IsReference() ||
				!slices.Contains(res.RunIDs, cmp.Baseline.RunID) || !slices.Contains(res.RunIDs, cmp.Candidate.RunID) {
				continue
			}
			var fs [2]*figures.RunFigures
			for i, id := range []string{cmp.Baseline.RunID, cmp.Candidate.RunID} {
				rec, err := b.a.Run(id)
				if err != nil {
					return err
				}
				fs[i] = figures.Derive(rec.Run, rec.Run.Requests, provenance.Record(rec.Provenance).Effective()).Figures
			}
			if fs[0] == nil || fs[1] == nil {
				continue // a summary-only run: the spec's figure alone
			}
			cr.Base, cr.Cand = cmp.Baseline.RunID, cmp.Candidate.RunID
			cr.Changes = figures.CompareAll(fs[0], fs[1])
			for _, fam := range cdfFamilies {
				m, _ := figures.ParseMetric(fam + ".mean")
				d := cmpDist{Family: fam}
				for i, f := range fs {
					st := m.Metric.Family(f)
					d.Points[i] = figures.ECDF(st.Values(), 0)
					d.Marks[i] = map[float64]float64{}
					for _, p := range cdfPercentiles {
						d.Marks[i][p] = st.Percentile(p, f.PercentileMethod)
					}
				}
				if len(d.Points[0]) > 0 && len(d.Points[1]) > 0 {
					cr.Dists = append(cr.Dists, d)
				}
			}
		}
	}
	return nil
}

// Views of a comparison page's added parts.
type (
	// fieldRow is a provenance field of both sides; Intended marks a
	// change the comparison set out to make.
	fieldRow struct {
		Label, Field, Baseline, Candidate string
		Intended                          bool
		// BaselineLang and CandidateLang are "en" for free text recorded
		// in English on a page in another language.
		BaselineLang, CandidateLang string
	}
	// metricRow is one figure of both runs with its change and whether it
	// is better or worse for that figure (Way: "better", "worse", "").
	metricRow struct {
		Metric, Label, Baseline, Candidate, Change, Verdict, Way string
	}
)

// fieldValue is a provenance value as a reader of l reads it, as the
// report shows it (casestudy.ValueText; redacted first, as every
// provenance value): numbers, booleans, rates and engines in words, free
// text by the case study's label for it, and "en" when it is free text
// shown as recorded in English.
func (b *builder) fieldValue(l locales.Locale, s *spec.Spec, field, v string) (string, string) {
	v = b.redField(field, v)
	if v == "" {
		return v, ""
	}
	text, english := casestudy.ValueText(s, l, field, v)
	if english {
		return text, "en"
	}
	return text, ""
}

// comparisonParts adds to a comparison page what changed and what was held
// fixed (values redacted as every provenance value), every figure of the
// two runs with its change, and their latency distributions.
//
// sides are the reader's names of the baseline and the candidate.
func (b *builder) comparisonParts(l locales.Locale, s *spec.Spec, p *compareView, ref cmpRef, cmp figures.Comparison, sides [2]string) error {
	intended := map[string]bool{}
	for _, f := range cmp.Intended {
		intended[f] = true
	}
	for _, f := range cmp.Changed {
		row := fieldRow{Label: locales.CapFirst(l.FieldLabel(f.Field)), Field: f.Field, Intended: intended[f.Field]}
		row.Baseline, row.BaselineLang = b.fieldValue(l, s, f.Field, f.Baseline)
		row.Candidate, row.CandidateLang = b.fieldValue(l, s, f.Field, f.Candidate)
		p.Changed = append(p.Changed, row)
	}
	for _, f := range cmp.Fixed {
		row := fieldRow{Label: locales.CapFirst(l.FieldLabel(f.Field)), Field: f.Field}
		row.Baseline, row.BaselineLang = b.fieldValue(l, s, f.Field, f.Baseline)
		p.Fixed = append(p.Fixed, row)
	}
	cr := b.cmpRuns[ref]
	if cr == nil || cr.Base == "" {
		return nil
	}
	p.EveryOf = l.T("site.cmp.every_of", "baseline", cr.Base, "candidate", cr.Cand)
	cl := l.Cells() // a unit's short form in a cell: es "15.91 s"
	for _, c := range cr.Changes {
		vs := valuesIn(cl, c.Unit, c.Baseline, c.Candidate)
		row := metricRow{Metric: c.Metric, Label: locales.CapFirst(b.figureName(l, c.Metric)), Baseline: vs[0], Candidate: vs[1], Change: "–"}
		if c.Pct != nil {
			row.Change = l.Percent(*c.Pct, casestudy.PctDecimals(*c.Pct), true)
		}
		switch {
		case c.Direction == 0:
			row.Verdict = l.T("site.cmp.neutral")
		case c.Better == nil:
			row.Verdict = l.T("site.cmp.equal")
		case *c.Better:
			row.Verdict, row.Way = l.T("site.cmp.better"), "better"
		default:
			row.Verdict, row.Way = l.T("site.cmp.worse"), "worse"
		}
		p.Every = append(p.Every, row)
	}
	msg := b.labels(l)
	names := sides
	for _, d := range cr.Dists {
		title, x := msg["chart_cdf_e2e_title"], msg["chart_latency_x"]
		if d.Family == "ttft" {
			title, x = msg["chart_cdf_ttft_title"], msg["chart_cdf_ttft_x"]
		}
		var ss []charts.CDFSeries
		for i := range d.Points {
			ss = append(ss, charts.CDFSeries{Name: names[i], Points: d.Points[i], Percentiles: cdfPercentiles, Values: d.Marks[i]})
		}
		c, err := charts.CDF("cdf-"+d.Family, ss, charts.Labels{Title: title, XAxis: x, YAxis: msg["chart_cdf_y"]},
			charts.Format{Decimals: 3, Unit: "s", Fixed: func(v float64, dec int) string { return l.Number(v, dec) }})
		if err != nil {
			return err
		}
		p.Charts = append(p.Charts, chartView{ID: c.ID, Kind: "cdf", Title: title, Option: htmltemplate.JS(c.Option),
			Caption: l.T("site.chart.cdf_caption", "metric", l.Term(d.Family), "baseline", l.Paren(sides[0], cr.Base), "candidate", l.Paren(sides[1], cr.Cand))})
	}
	p.ChartFigures = chartFigures(p.Charts)
	return nil
}

// valuesIn writes values of one unit in l's number style with one unit for
// all of them: seconds as ms when every value is below one second (a row
// of a table compares its cells).
func valuesIn(l locales.Locale, unit string, vs ...float64) []string {
	ms, whole := unit == "s", unit == "requests"
	for _, v := range vs {
		if math.Abs(v) >= 1 {
			ms = false
		}
		if v != math.Trunc(v) {
			whole = false
		}
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		switch {
		case ms:
			out[i] = l.Quantity(v*1000, 2, "ms")
		case unit == "s":
			out[i] = l.Quantity(v, 3, "s")
		case whole:
			out[i] = l.Number(v, 0) // a count of requests
		default:
			out[i] = valueIn(l, &v, unit)
		}
	}
	return out
}
