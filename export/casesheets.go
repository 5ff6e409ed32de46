package export

// The sheets a case study adds to the workbook: its summary, comparisons,
// sweeps and operating points, node runs and cost estimates.

import (
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/caveat"
	"github.com/benchledger/benchledger/figures"
)

// comparisonNames lists the comparisons in headline order, then the rest
// by name.
func comparisonNames(res *casestudy.Result, headlineOnly bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range res.Spec.Headline {
		if _, ok := res.Comparisons[n]; ok && !seen[n] {
			out, seen[n] = append(out, n), true
		}
	}
	if headlineOnly && len(out) > 0 {
		return out
	}
	var rest []string
	for n := range res.Comparisons {
		if !seen[n] {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// confounderText lists a comparison's confounders: "Engine version: 1.1 →
// 1.3.0rc24", values in the language (an unrecorded one says so).
func (b *builder) confounderText(c figures.Comparison) string {
	side := func(field, v string) string {
		if v == "" {
			return b.l.T("value.not_recorded")
		}
		return b.value(field, v)
	}
	var parts []string
	for _, d := range c.Confounders {
		parts = append(parts, b.pair(d.Field, side(d.Field, d.Baseline)+" → "+side(d.Field, d.Candidate)))
	}
	return b.pairs(parts)
}

func caveatCodes(cs []caveat.Caveat) string {
	var codes []string
	for _, c := range cs {
		if !slices.Contains(codes, c.Code) {
			codes = append(codes, c.Code)
		}
	}
	return strings.Join(codes, ", ")
}

func (b *builder) summary(res *casestudy.Result) *Table {
	names := comparisonNames(res, true)
	if len(names) == 0 {
		return nil
	}
	l := b.l
	t := &Table{Name: SheetSummary, Title: l.T("export.sheet.summary"), Columns: []Column{
		b.nameCol("comparison", l.T("export.col.comparison")),
		b.nameCol("figure", l.T("table.figure")),
		b.col("unit", l.T("table.unit"), Text, "", 0),
		b.col("baseline", l.T("table.baseline"), Number, "", 2),
		b.col("candidate", l.T("table.candidate"), Number, "", 2),
		b.col("abs", l.T("export.col.abs"), Number, "", 2),
		b.col("pct", l.T("table.change"), Percent, "%", 2),
		b.col("ratio", l.T("table.ratio"), Ratio, "x", 2),
		b.col("confounders", l.T("table.confounders"), Text, "", 0),
		b.col("caveats", l.T("export.col.caveat_codes"), Text, "", 0),
	}}
	for _, n := range names {
		cf := res.Comparisons[n]
		c := cf.Comparison
		t.Rows = append(t.Rows, []Cell{WordCell(b.name(n), n), TextCell(capitalise(l.Figure(c.Metric))), WordCell(l.Cells().UnitLabel(c.Unit), c.Unit),
			num(c.Change.Baseline), num(c.Change.Candidate), num(c.Change.Abs), num(c.Change.Pct), num(c.Change.Ratio),
			TextCell(b.confounderText(c)), TextCell(caveatCodes(cf.Caveats))})
	}
	return t
}

func (b *builder) comparisons(res *casestudy.Result) *Table {
	names := comparisonNames(res, false)
	if len(names) == 0 {
		return nil
	}
	l := b.l
	t := &Table{Name: SheetComparisons, Title: l.T("export.sheet.comparisons"), Columns: []Column{
		b.nameCol("comparison", l.T("export.col.comparison")),
		b.nameCol("figure", l.T("table.figure")),
		b.col("unit", l.T("table.unit"), Text, "", 0),
		b.col("baseline_runs", l.T("export.col.baseline_runs"), Text, "", 0),
		b.col("candidate_runs", l.T("export.col.candidate_runs"), Text, "", 0),
		b.col("baseline", l.T("table.baseline"), Number, "", 2),
		b.col("candidate", l.T("table.candidate"), Number, "", 2),
		b.col("abs", l.T("export.col.abs"), Number, "", 2),
		b.col("pct", l.T("table.change"), Percent, "%", 2),
		b.col("ratio", l.T("table.ratio"), Ratio, "x", 2),
		b.col("n_baseline", l.T("export.col.n_baseline"), Integer, "", 0),
		b.col("n_candidate", l.T("export.col.n_candidate"), Integer, "", 0),
		b.col("p_value", l.T("export.col.p_value"), Number, "", 4),
		b.col("intended", l.T("export.col.intended"), Text, "", 0),
		b.col("held_fixed", l.T("table.held_fixed"), Text, "", 0),
		b.col("confounders", l.T("table.confounders"), Text, "", 0),
		b.col("caveats", l.T("export.col.caveat_codes"), Text, "", 0),
	}}
	for _, n := range names {
		cf := res.Comparisons[n]
		c := cf.Comparison
		side := func(s figures.Side, v casestudy.Value) Cell {
			if s.Reference != nil { // "External reference: <id>"; CSV "ref:<id>"
				return WordCell(l.Colon(capitalise(l.Term("external_reference")), s.Reference.ID), "ref:"+s.Reference.ID)
			}
			return TextCell(strings.Join(v.Runs, ", "))
		}
		nOf := func(s figures.Side) Cell {
			if s.IsReference() {
				return NullCell()
			}
			return IntCell(int64(max(s.N, 1)))
		}
		p := NullCell()
		if c.Significance != nil {
			p = num(c.Significance.P)
		}
		var intended, fixed []string
		for _, f := range c.Intended {
			intended = append(intended, l.FieldLabel(f))
		}
		if len(intended) > 0 {
			intended[0] = capitalise(intended[0])
		}
		for _, d := range c.Fixed {
			fixed = append(fixed, b.pair(d.Field, b.value(d.Field, d.Baseline)))
		}
		t.Rows = append(t.Rows, []Cell{WordCell(b.name(n), n), TextCell(capitalise(l.Figure(c.Metric))), WordCell(l.Cells().UnitLabel(c.Unit), c.Unit),
			side(c.Baseline, cf.Baseline), side(c.Candidate, cf.Candidate),
			num(c.Change.Baseline), num(c.Change.Candidate), num(c.Change.Abs), num(c.Change.Pct), num(c.Change.Ratio),
			nOf(c.Baseline), nOf(c.Candidate), p,
			TextCell(l.List(intended)), TextCell(b.pairs(fixed)),
			TextCell(b.confounderText(c)), TextCell(caveatCodes(cf.Caveats))})
	}
	return t
}

func (b *builder) sweeps(res *casestudy.Result) *Table {
	if len(res.Sweeps) == 0 {
		return nil
	}
	l := b.l
	t := &Table{Name: SheetSweeps, Title: l.T("export.sheet.sweeps"), Columns: []Column{
		b.col("sweep", l.T("export.col.sweep"), Text, "", 0),
		b.col("parameter", l.T("export.col.parameter"), Text, "", 0),
		b.col("value", l.T("table.value"), Number, "", 0),
		b.col("output_throughput", l.Figure("output_throughput"), Number, "tok/s", 0),
		b.col("e2el.median", l.Figure("e2el.median"), Number, "s", 2),
		b.col("runs", l.T("export.col.runs"), Integer, "", 0),
		b.col("saturation", l.T("export.col.saturation"), Bool, "", 0),
		b.col("recommended", l.T("export.col.recommended"), Bool, "", 0),
	}}
	names := sortedKeys(res.Sweeps)
	for _, n := range names {
		sw := res.Sweeps[n]
		r := sw.Result
		param := b.sweepParameter(sw.Parameter, r)
		for i, lv := range r.Levels {
			t.Rows = append(t.Rows, []Cell{WordCell(b.name(n), n), TextCell(param), num(lv.Param), num(lv.Throughput), num(lv.MedianLatency),
				IntCell(int64(lv.N())), BoolCell(r.SaturationFound && i == r.Saturation), BoolCell(i == r.Recommended)})
		}
	}
	series := ""
	if len(names) > 1 {
		series = "sweep"
	}
	t.Chart = &Chart{Title: l.T("export.chart.sweep"), X: "output_throughput", Y: "e2el.median", Series: series,
		XTitle: t.Columns[3].Header, YTitle: t.Columns[4].Header}
	return t
}

// operatingPoints is each sweep level as an operating point: its output
// throughput per GPU, with an SLO its goodput, attainment and whether it
// is the SLO operating point, with a price its estimated cost and the
// cost's inputs. Absent when no level has any of them (a sheet of its own:
// the Sweeps sheet prints on one page beside its chart).
func (b *builder) operatingPoints(res *casestudy.Result) *Table {
	slo := res.SLO != nil
	any := slo
	for _, sw := range res.Sweeps {
		for _, lv := range sw.Result.Levels {
			any = any || lv.ThroughputPerGPU != nil || lv.Cost != nil
		}
	}
	if len(res.Sweeps) == 0 || !any {
		return nil
	}
	l := b.l
	t := &Table{Name: SheetOperatingPoints, Title: l.T("export.sheet.operating_points"), Columns: []Column{
		b.col("sweep", l.T("export.col.sweep"), Text, "", 0),
		b.col("value", l.T("table.value"), Number, "", 0),
		b.col("output_throughput", l.Figure("output_throughput"), Number, "tok/s", 0),
		b.col("output_throughput_per_gpu", l.Figure("output_throughput_per_gpu"), Number, "tok/s/GPU", 0),
	}}
	if slo {
		t.Columns = append(t.Columns,
			b.col("goodput", l.Figure("goodput"), Number, "req/s", 2),
			b.col("slo_attainment", l.Figure("slo_attainment"), Percent, "%", 1),
			b.col("slo_point", capitalise(l.Term("sweep.slo_point")), Bool, "", 0))
	}
	t.Columns = append(t.Columns, b.costColumns(res)...)
	for _, n := range sortedKeys(res.Sweeps) {
		r := res.Sweeps[n].Result
		for i, lv := range r.Levels {
			row := []Cell{WordCell(b.name(n), n), num(lv.Param), num(lv.Throughput), ptrNum(lv.ThroughputPerGPU)}
			if slo {
				row = append(row, ptrNum(lv.Goodput), ptrNum(lv.SLOAttainment), BoolCell(r.SLOPointFound && i == r.SLOPoint))
			}
			t.Rows = append(t.Rows, append(row, costCells(res, lv.Cost)...))
		}
	}
	return t
}

// sweepParameter names what a sweep varies: the spec's label of the
// field in the language, else the field's label, or for sweep.value the
// name its runs give the parameter (sweep.parameter).
func (b *builder) sweepParameter(field string, r figures.SweepResult) string {
	if t := b.name(field); t != field {
		return t
	}
	if field == "sweep.value" {
		for _, lv := range r.Levels {
			for _, id := range lv.RunIDs {
				for _, run := range b.runs {
					if run.rec.ID == id && run.eff["sweep.parameter"] != "" {
						return b.field("sweep.parameter", run.eff["sweep.parameter"])
					}
				}
			}
		}
	}
	return b.l.FieldLabel(field)
}

func (b *builder) nodes(res *casestudy.Result) *Table {
	if len(res.Nodes) == 0 {
		return nil
	}
	l := b.l
	t := &Table{Name: SheetNode, Title: l.T("export.sheet.node"), Columns: []Column{
		b.col("node", l.T("export.col.node"), Text, "", 0),
		b.col("group", l.FieldLabel("group"), Text, "", 0),
		b.col("replicas", l.T("export.col.replicas"), Integer, "", 0),
		b.col("window", l.Term("common_window"), Number, "s", 2),
		b.col("sent", l.Term("sent"), Integer, "", 0),
		b.col("completed", l.Term("completed"), Integer, "", 0),
		b.col("failed", l.Term("failed"), Integer, "", 0),
		b.col("output_tokens", l.Term("total_output_tokens"), Integer, "", 0),
		b.col("output_throughput", l.Figure("output_throughput"), Number, "tok/s", 0),
		b.col("sum_of_rates", l.T("export.col.sum_of_rates"), Number, "tok/s", 0),
		b.col("overstatement", l.T("export.col.overstatement"), Percent, "%", 2),
		b.col("efficiency", l.T("export.col.efficiency"), Percent, "%", 2),
		b.col("conservative", l.T("export.col.conservative"), Bool, "", 0),
		b.col("output_throughput_per_gpu", l.Figure("output_throughput_per_gpu"), Number, "tok/s/GPU", 0),
	}}
	t.Columns = append(t.Columns, b.costColumns(res)...)
	names := sortedKeys(res.Nodes)
	for _, n := range names {
		nd := res.Nodes[n]
		eff := NullCell()
		if nd.Scaling != nil {
			eff = num(nd.Scaling.Pct)
		}
		for i, r := range nd.Runs {
			group := ""
			if i < len(nd.Groups) {
				group = nd.Groups[i]
			}
			e, perGPU, cost := NullCell(), NullCell(), (*figures.CostEstimate)(nil)
			if i == nd.Conservative {
				e, perGPU, cost = eff, ptrNum(nd.ThroughputPerGPU), nd.Cost
			}
			row := []Cell{WordCell(b.name(n), n), WordCell(b.name(group), group), IntCell(int64(r.Replicas)), num(r.Window),
				IntCell(int64(r.Sent)), IntCell(int64(r.Completed)), IntCell(int64(r.Failed)), IntCell(r.OutputTokens),
				num(r.OutputThroughput), num(r.SumOfRates), num(r.Overstatement), e, BoolCell(i == nd.Conservative), perGPU}
			t.Rows = append(t.Rows, append(row, costCells(res, cost)...))
		}
	}
	return t
}

// ptrNum is a number cell of an optional value.
func ptrNum(v *float64) Cell {
	if v == nil {
		return NullCell()
	}
	return num(*v)
}

// costColumns are the columns of a cost estimate, with its inputs, when
// the case study gives a price: the cost per million output tokens
// (marked an estimate in its header), the GPUs, the price, its currency
// and date.
func (b *builder) costColumns(res *casestudy.Result) []Column {
	if res.Price == nil {
		return nil
	}
	l := b.l
	var costs []float64
	for _, sw := range res.Sweeps {
		for _, lv := range sw.Result.Levels {
			if lv.Cost != nil {
				costs = append(costs, lv.Cost.PerMillionOutputTokens)
			}
		}
	}
	for _, nd := range res.Nodes {
		if nd.Cost != nil {
			costs = append(costs, nd.Cost.PerMillionOutputTokens)
		}
	}
	return []Column{
		b.col("cost_per_million_output_tokens", l.Term("cost_per_million_output_tokens"), Number, res.Price.Currency, costDecimals(costs)),
		b.col("gpus", l.FieldLabel("hardware.gpu_count"), Number, "", 0),
		b.col("price_per_gpu_hour", l.Term("price_per_gpu_hour"), Number, res.Price.Currency, 2),
		b.col("currency", l.T("export.col.currency"), Text, "", 0),
		b.col("price_date", l.T("export.col.price_date"), Text, "", 0),
	}
}

// costDecimals is how many decimals the cost column shows: the currency's
// two, or as many as give the smallest cost three significant digits
// (USD 0.0198 per million tokens, not 0.02), at most six.
func costDecimals(costs []float64) int {
	d := 2
	for _, c := range costs {
		if c > 0 && !math.IsInf(c, 0) {
			d = max(d, 2-int(math.Floor(math.Log10(c))))
		}
	}
	return min(d, 6)
}

// costCells are the cells of costColumns: the estimate's, or the price
// alone where no cost could be estimated (no GPU count).
func costCells(res *casestudy.Result, c *figures.CostEstimate) []Cell {
	if res.Price == nil {
		return nil
	}
	p := *res.Price
	if c == nil {
		return []Cell{NullCell(), NullCell(), num(p.PerGPUHour), TextCell(p.Currency), TextCell(p.Date)}
	}
	return []Cell{num(c.PerMillionOutputTokens), num(c.GPUs), num(p.PerGPUHour), TextCell(p.Currency), TextCell(p.Date)}
}
