package export

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/benchledger/benchledger/audit"
	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/caveat"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/internal/sitepath"
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/publish"
	"github.com/benchledger/benchledger/spec"
	"github.com/benchledger/benchledger/store"
)

// Redactor rewrites text before it leaves the archive (package redact).
type Redactor interface {
	Field(field, value string) string // a provenance value, by field name
	Text(s string) string             // free text
}

// Options say what to export.
type Options struct {
	Lang string // locale tag: en, zh, ja, es, es-419
	// Result is the evaluated case study; nil exports runs only.
	Result *casestudy.Result
	// RunIDs are the runs of the Runs, Provenance, Caveats and Requests
	// tables (exact ids, in this order).
	RunIDs []string
	// Requests adds the per-request table (streamed from the archive).
	Requests bool
	// BaseURL, when set, links each run id to its page of the static site
	// built at that address, in the export's language
	// (BaseURL/<lang>/run/<id>.html, sitepath), and the cover sheet to the
	// case study's page and report there.
	BaseURL string
	// Redact, when set, rewrites every text value from the archive.
	Redact Redactor
	// Audit and Publication are the case study's audit (nil: not audited)
	// and its version, for the cover sheet.
	Audit       *audit.Report
	Publication *publish.Publication
	// Exported is when the export was made (the cover sheet); zero means now.
	Exported time.Time
}

// Table names (Table.Name), in sheet order.
const (
	SheetCover       = "cover"
	SheetSummary     = "summary"
	SheetRuns        = "runs"
	SheetComparisons = "comparisons"
	SheetSweeps      = "sweeps"
	// SheetOperatingPoints is each sweep level's per-GPU throughput,
	// goodput, SLO attainment and cost estimate.
	SheetOperatingPoints = "operating_points"
	SheetNode            = "node"
	SheetCaveats         = "caveats"
	SheetProvenance      = "provenance"
	SheetRequests        = "requests"
)

// builder holds what the tables share.
type builder struct {
	ctx  context.Context
	a    *store.Archive
	opt  Options
	l    locales.Locale
	runs []runRow
}

type runRow struct {
	rec  *store.RunRecord
	eff  map[string]string
	figs *figures.RunFigures
	cavs []caveat.Caveat
}

// Build reads the runs and the case study and lays out the workbook's
// tables: with a Result, Summary, Runs, Comparisons, Sweeps and Node (those
// the case study has), Caveats and Provenance; without, Runs, Caveats and
// Provenance; Requests last when asked for.
func Build(ctx context.Context, a *store.Archive, opt Options) (*Workbook, error) {
	l, err := locales.Match(opt.Lang)
	if err != nil {
		return nil, err
	}
	b := &builder{ctx: ctx, a: a, opt: opt, l: l}
	for _, id := range opt.RunIDs {
		var copt casestudy.Options
		if opt.Result != nil && opt.Result.SLO != nil {
			copt.SLO = *opt.Result.SLO // the case study's goodput and attainment, run by run
		}
		rec, f, cavs, err := casestudy.RunFiguresWith(ctx, a, id, copt)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", id, err)
		}
		b.runs = append(b.runs, runRow{rec: rec, eff: provenance.Record(rec.Provenance).Effective(), figs: f, cavs: cavs})
	}
	sortRuns(b.runs)
	wb := &Workbook{Lang: l.Tag(), Yes: l.T("site.yes"), No: l.T("site.no"), Ratio: ratioSuffix(l)}
	if l.Texts() != l.Tag() { // a country whose numbers are not its texts' (es-AR)
		wb.LCID = lcids[l.Tag()]
	}
	add := func(t *Table) {
		if t != nil {
			wb.Tables = append(wb.Tables, t)
		}
	}
	add(b.cover())
	if res := opt.Result; res != nil {
		add(b.summary(res))
	}
	add(b.runsTable())
	if res := opt.Result; res != nil {
		add(b.comparisons(res))
		add(b.sweeps(res))
		add(b.operatingPoints(res))
		add(b.nodes(res))
	}
	add(b.caveats())
	add(b.provenance())
	if opt.Requests {
		add(b.requests())
	}
	for _, t := range wb.Tables {
		t.Title = sheetName(t.Title)
	}
	return wb, nil
}

// text redacts a free-text value.
func (b *builder) text(s string) string {
	if b.opt.Redact == nil || s == "" {
		return s
	}
	return b.opt.Redact.Text(s)
}

// field redacts a provenance value.
func (b *builder) field(f, v string) string {
	if b.opt.Redact == nil || v == "" {
		return v
	}
	return b.opt.Redact.Field(f, v)
}

// header writes a column header with its unit as the language writes it
// in a table cell: "Output throughput (tok/s)", "输出吞吐量（token/s）",
// "出力スループット（トークン/秒）", "Latencia (s)". A ratio's unit is the
// language's sign ("x", "×"), left out where the name says it (倍数).
func (b *builder) header(name, unit string) string {
	name = capitalise(name)
	// A name that ends in a parenthesis takes the unit inside it:
	// "Cost per million output tokens (estimate, USD)", "（推定、USD）".
	if unit != "" && unit != "x" {
		u := b.l.Cells().UnitLabel(unit)
		for _, close := range []string{")", "）"} {
			if i := strings.LastIndex(name, close); i > 0 && i == len(name)-len(close) {
				return name[:i] + b.l.T("format.list_sep") + u + close
			}
		}
	}
	switch unit {
	case "x":
		unit = strings.TrimSpace(ratioSuffix(b.l))
		if strings.Contains(name, unit) {
			unit = ""
		}
	default:
		unit = b.l.Cells().UnitLabel(unit)
	}
	if unit == "" {
		return name
	}
	return b.l.T("export.header_unit", "name", name, "unit", unit)
}

// ratioSuffix is what follows a ratio's digits in the language: "x",
// " 倍" (zh, ja), "×" (es).
func ratioSuffix(l locales.Locale) string {
	return strings.TrimPrefix(l.RatioN(1, 2), l.Number(1, 2))
}

// lcids are the Windows locale ids of the countries whose number symbols
// differ from their texts' language (locales' regional variants: es-AR
// writes 17.961,25 with the es-419 texts).
var lcids = map[string]int{
	"es-AR": 0x2C0A, "es-BO": 0x400A, "es-CL": 0x340A, "es-CO": 0x240A, "es-CR": 0x140A, "es-CU": 0x5C0A,
	"es-DO": 0x1C0A, "es-EC": 0x300A, "es-GT": 0x100A, "es-HN": 0x480A, "es-MX": 0x080A, "es-NI": 0x4C0A,
	"es-PA": 0x180A, "es-PE": 0x280A, "es-PR": 0x500A, "es-PY": 0x3C0A, "es-SV": 0x440A, "es-US": 0x540A,
	"es-UY": 0x380A, "es-VE": 0x200A, "es-ES": 0x0C0A,
}

// value shows a run's recorded value of a field in the language
// (casestudy.ValueText: numbers and ranges in the locale's style, an
// unlimited rate and booleans in words, engines by name, English free
// text by the spec's label where it has one), after redaction.
func (b *builder) value(field, v string) string {
	var s *spec.Spec
	if b.opt.Result != nil {
		s = b.opt.Result.Spec
	}
	t, _ := casestudy.ValueText(s, b.l, field, b.field(field, v))
	return t
}

// name is the reader's name of a comparison, sweep, node or selection of
// the case study: the spec's label in the language, else the spec's name.
func (b *builder) name(n string) string {
	if res := b.opt.Result; res != nil && res.Spec != nil {
		if t := res.Spec.Label(n, b.l.Texts()); t != "" {
			return t
		}
	}
	return n
}

// fieldLabel names a provenance field as a table cell does, with a
// capital; a field without a label (labels.*) as recorded.
func (b *builder) fieldLabel(field string) string {
	if t := b.l.FieldLabel(field); t != field {
		return capitalise(t)
	}
	return field
}

// pair is "label: value" as the language writes it ("节点：x").
func (b *builder) pair(field, value string) string {
	return b.l.Colon(b.l.FieldLabel(field), value)
}

// pairs joins pairs with the language's separator of a line's parts
// ("; ", "；").
func (b *builder) pairs(ps []string) string {
	return strings.Join(ps, b.l.T("method.part_sep"))
}

// capitalise starts a header with a capital letter: figure names are
// written for the middle of a sentence ("output throughput").
func capitalise(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if unicode.IsLower(r) {
		return string(unicode.ToUpper(r)) + s[n:]
	}
	return s
}

func (b *builder) col(key, label string, kind Kind, unit string, decimals int) Column {
	return Column{Key: key, Header: b.header(label, unit), Kind: kind, Decimals: decimals}
}

// nameWrap is the width at which the names of the Summary and Comparisons
// sheets (the spec's labels, figure names) wrap, so that the Summary
// prints on one page in every language.
const nameWrap = 24

// nameCol is a text column of names that wraps at nameWrap.
func (b *builder) nameCol(key, label string) Column {
	c := b.col(key, label, Text, "", 0)
	c.Wrap = nameWrap
	return c
}

// runCell is the run id, linked to its page when a base URL is given.
func (b *builder) runCell(id string) Cell {
	if b.opt.BaseURL == "" {
		return TextCell(id)
	}
	return LinkCell(id, b.siteURL(sitepath.InLang(b.l.Tag(), sitepath.Run(id))))
}

// siteURL is a page of the static site under the base URL (sitepath: the
// paths render/site writes).
func (b *builder) siteURL(rel string) string {
	return strings.TrimRight(b.opt.BaseURL, "/") + "/" + rel
}

func (b *builder) runKind() Kind {
	if b.opt.BaseURL == "" {
		return Text
	}
	return Link
}

// num is a number cell, empty when the value is unknown or not finite.
func num(v float64) Cell {
	if !benchrun.IsKnown(v) || math.IsNaN(v) || math.IsInf(v, 0) {
		return NullCell()
	}
	return NumCell(v)
}

func ms(v float64) Cell {
	if !benchrun.IsKnown(v) || math.IsNaN(v) || math.IsInf(v, 0) {
		return NullCell()
	}
	return NumCell(v * 1000)
}

// provenance fields of the Runs table, in column order.
var runFields = []string{"campaign", "role", "group", "sweep.value", "replica", "checkpoint.repository", "checkpoint.precision", "runtime.engine",
	"runtime.version", "hardware.gpu_model", "hardware.gpu_count", "hardware.node", "measurement.date", "workload.dataset",
	"workload.input_len", "workload.output_len", "workload.request_count", "workload.concurrency", "workload.request_rate",
	"measurement.client"}

func (b *builder) runsTable() *Table {
	l := b.l
	t := &Table{Name: SheetRuns, Title: l.T("export.sheet.runs")}
	t.Columns = append(t.Columns, b.col("run", l.T("table.run"), b.runKind(), "", 0))
	for _, f := range runFields {
		kind := Text
		if f == "hardware.gpu_count" || f == "workload.request_count" {
			kind = Integer
		}
		t.Columns = append(t.Columns, b.col(f, l.FieldLabel(f), kind, "", 0))
	}
	stat := func(metric string) string { return l.Figure(metric) }
	t.Columns = append(t.Columns,
		b.col("publishable", l.T("export.col.publishable"), Bool, "", 0),
		b.col("value_source", l.T("export.col.value_source"), Text, "", 0),
		b.col("sent", l.Term("sent"), Integer, "", 0),
		b.col("completed", l.Term("completed"), Integer, "", 0),
		b.col("failed", l.Term("failed"), Integer, "", 0),
		b.col("window", l.Term("window"), Number, "s", 2),
		b.col("output_tokens", l.Term("total_output_tokens"), Integer, "", 0),
		b.col("output_throughput", stat("output_throughput"), Number, "tok/s", 0),
		b.col("total_token_throughput", stat("total_token_throughput"), Number, "tok/s", 0),
		b.col("request_throughput", stat("request_throughput"), Number, "req/s", 2),
		b.col("output_throughput_per_gpu", stat("output_throughput_per_gpu"), Number, "tok/s/GPU", 0),
		b.col("ttft.mean", stat("ttft.mean"), Number, "ms", 1),
		b.col("ttft.median", stat("ttft.median"), Number, "ms", 1),
		b.col("ttft.p99", stat("ttft.p99"), Number, "ms", 1),
		b.col("tpot.mean", stat("tpot.mean"), Number, "ms", 2),
		b.col("tpot.median", stat("tpot.median"), Number, "ms", 2),
		b.col("tpot.p99", stat("tpot.p99"), Number, "ms", 2),
		b.col("e2el.mean", stat("e2el.mean"), Number, "s", 2),
		b.col("e2el.median", stat("e2el.median"), Number, "s", 2),
		b.col("e2el.p99", stat("e2el.p99"), Number, "s", 2),
		b.col("percentile_method", l.T("export.col.percentile_method"), Text, "", 0),
		b.col("ingested_at", l.T("export.col.ingested_at"), Time, "UTC", 0),
		b.col("file", l.T("export.col.file"), Text, "", 0),
		b.col("sha256", l.T("export.col.sha256"), Text, "", 0),
	)
	slo := b.opt.Result != nil && b.opt.Result.SLO != nil
	if slo {
		t.Columns = append(t.Columns,
			b.col("goodput", stat("goodput"), Number, "req/s", 2),
			b.col("slo_attainment", stat("slo_attainment"), Percent, "%", 1))
	}
	for _, r := range b.runs {
		row := []Cell{b.runCell(r.rec.ID)}
		for _, f := range runFields {
			v := r.eff[f]
			if f == "hardware.gpu_count" || f == "workload.request_count" {
				var n int64
				if _, err := fmt.Sscan(v, &n); err == nil && v != "" {
					row = append(row, IntCell(n))
				} else {
					row = append(row, NullCell())
				}
				continue
			}
			switch {
			case v == "":
				row = append(row, NullCell())
			case f == "role": // a word of the roles' vocabulary, in the language
				row = append(row, WordCell(b.l.Word("role", strings.ToLower(v)), v))
			default:
				row = append(row, WordCell(b.value(f, v), b.field(f, v)))
			}
		}
		row = append(row, BoolCell(r.rec.Publishable))
		f := r.figs
		if f == nil {
			row = append(row, NullCell())
		} else {
			row = append(row, TextCell(l.T("value_source.kind."+f.Source)))
		}
		if f == nil {
			tail := 4 // method, ingested, file, SHA-256
			if slo {
				tail += 2 // goodput, attainment
			}
			for len(row) < len(t.Columns)-tail {
				row = append(row, NullCell())
			}
		} else {
			p99 := func(s figures.Stat) float64 {
				if v, ok := s.P[99]; ok {
					return v
				}
				return benchrun.Unknown
			}
			count := func(n int64) Cell {
				if n < 0 {
					return NullCell() // a summary that does not state it
				}
				return IntCell(n)
			}
			row = append(row, count(int64(f.Sent)), count(int64(f.Completed)), count(int64(f.Failed)),
				num(f.Window), count(f.OutputTokens), num(f.OutputThroughput), num(f.TotalTokenThroughput), num(f.RequestThroughput),
				num(figures.PerGPU(f.OutputThroughput, f.GPUs)), ms(f.TTFT.Mean), ms(f.TTFT.Median), ms(p99(f.TTFT)),
				ms(f.TPOT.Mean), ms(f.TPOT.Median), ms(p99(f.TPOT)),
				num(f.E2EL.Mean), num(f.E2EL.Median), num(p99(f.E2EL)))
			if f.Completed == 0 {
				for i := len(row) - 9; i < len(row); i++ {
					row[i] = NullCell()
				}
			}
		}
		method := ""
		if f != nil {
			method = string(f.PercentileMethod)
		}
		row = append(row, WordCell(b.l.Word("percentile_method", method), method), TimeCell(r.rec.IngestedAt), TextCell(b.text(r.rec.FileName)), TextCell(r.rec.BlobSHA256))
		if slo {
			g := (*figures.Goodput)(nil)
			if f != nil {
				g = f.SLO
			}
			if g == nil || !g.Recomputable() {
				row = append(row, NullCell(), NullCell())
			} else {
				row = append(row, num(g.Goodput), num(g.Attainment))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func (b *builder) caveats() *Table {
	l := b.l
	t := &Table{Name: SheetCaveats, Title: l.T("export.sheet.caveats"), Columns: []Column{
		b.col("code", l.T("export.col.code"), Text, "", 0),
		b.col("where", l.T("export.col.where"), Text, "", 0),
		b.col("sentence", l.T("export.col.sentence"), Text, "", 0),
	}}
	add := func(where string, cs []caveat.Caveat) {
		for _, c := range cs {
			s, err := l.Caveat(c.Redact(b.opt.Redact))
			if err != nil {
				s = c.Code
			}
			t.Rows = append(t.Rows, []Cell{TextCell(c.Code), WordCell(b.name(where), where), TextCell(b.text(s))})
		}
	}
	if res := b.opt.Result; res != nil {
		for _, n := range comparisonNames(res, false) {
			add(n, res.Comparisons[n].Caveats)
		}
		for _, n := range sortedKeys(res.Nodes) {
			add(n, res.Nodes[n].Caveats)
		}
		for _, n := range sortedKeys(res.Sweeps) {
			add(n, res.Sweeps[n].Caveats)
		}
	}
	for _, r := range b.runs {
		add(r.rec.ID, r.cavs)
	}
	return t
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (b *builder) provenance() *Table {
	l := b.l
	t := &Table{Name: SheetProvenance, Title: l.T("export.sheet.provenance"), Columns: []Column{
		b.col("run", l.T("table.run"), b.runKind(), "", 0),
		b.col("field", l.T("export.col.field"), Text, "", 0),
		b.col("label", l.T("export.col.label"), Text, "", 0),
		b.col("value", l.T("table.value"), Text, "", 0),
		b.col("source", l.T("export.col.source"), Text, "", 0),
		b.col("effective", l.T("export.col.effective"), Bool, "", 0),
	}}
	for _, r := range b.runs {
		entries := slices.Clone(r.rec.Provenance)
		sort.SliceStable(entries, func(i, j int) bool { return entries[i].Field < entries[j].Field })
		for _, e := range entries {
			t.Rows = append(t.Rows, []Cell{b.runCell(r.rec.ID), TextCell(e.Field), TextCell(b.fieldLabel(e.Field)),
				TextCell(b.field(e.Field, e.Value)), WordCell(b.l.Word("provenance.source", string(e.Source)), string(e.Source)), BoolCell(r.eff[e.Field] == e.Value)})
		}
	}
	return t
}

// RequestColumns is the width of the requests table.
const RequestColumns = 10

func (b *builder) requests() *Table {
	l := b.l
	t := &Table{Name: SheetRequests, Title: l.T("export.sheet.requests"), Columns: []Column{
		b.col("run", l.T("table.run"), Text, "", 0),
		b.col("index", l.T("export.col.index"), Integer, "", 0),
		b.col("start", l.T("export.col.start"), Number, "s", 6),
		b.col("ttft", l.Term("ttft"), Number, "ms", 2),
		b.col("e2el", l.Term("e2el"), Number, "s", 4),
		b.col("tpot", l.Term("tpot"), Number, "ms", 3),
		b.col("input_tokens", l.Term("total_input_tokens"), Integer, "", 0),
		b.col("output_tokens", l.Term("total_output_tokens"), Integer, "", 0),
		b.col("itl_mean", l.Figure("itl.mean"), Number, "ms", 3),
		b.col("error", l.T("export.col.error"), Text, "", 0),
	}}
	t.Stream = func(yield func([]Cell) error) error {
		row := make([]Cell, RequestColumns)
		for _, r := range b.runs {
			if !r.rec.Run.HasRequests {
				continue
			}
			id := r.rec.ID
			err := b.a.EachRequest(b.ctx, id, func(q *benchrun.Request) error {
				row[0], row[1], row[2] = TextCell(id), IntCell(int64(q.Index)), num(q.Start)
				row[3], row[4] = ms(q.TTFT), num(q.Latency)
				row[5] = NullCell()
				if !q.Failed() && q.OutputTokens > 1 && benchrun.IsKnown(q.TTFT) && benchrun.IsKnown(q.Latency) {
					row[5] = ms((q.Latency - q.TTFT) / float64(q.OutputTokens-1))
				}
				row[6], row[7] = count(q.InputTokens), count(q.OutputTokens)
				row[8] = NullCell()
				if q.Gaps.Count > 0 {
					row[8] = ms(q.Gaps.Sum / float64(q.Gaps.Count))
				}
				row[9] = NullCell()
				if q.Error != "" {
					row[9] = TextCell(b.text(q.Error))
				}
				return yield(row)
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
	return t
}

func count(v int32) Cell {
	if v < 0 {
		return NullCell()
	}
	return IntCell(int64(v))
}

// sheetName makes a title a valid, at most 31-character sheet name.
func sheetName(s string) string {
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune(`[]:*?/\`, r) {
			return '_'
		}
		return r
	}, s)
	s = strings.Trim(s, "'")
	if r := []rune(s); len(r) > 31 {
		s = string(r[:31])
	}
	if s == "" {
		s = "Sheet"
	}
	return s
}
