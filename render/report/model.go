package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/benchledger/benchledger/caveat"
	"github.com/benchledger/benchledger/internal/escape"
	htmltemplate "html/template"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/publish"
	"github.com/benchledger/benchledger/render/charts"
	"github.com/benchledger/benchledger/spec"
)

// Num is one bound number as a page shows it: its binding name, the
// language-neutral value (data-value) and the locale's text.
type Num struct{ Name, Value, Text string }

type link struct {
	Tag, Name, Href, HrefMD string
	HTMLLang                string // the lang attribute: zh-Hans for zh
	Current                 bool
}

type cmpRow struct {
	// Name is the spec's name (an HTML id, never shown); Label the
	// reader's name of the row.
	Name, Label, Metric                  string
	Baseline, Candidate, Abs, Pct, Ratio Num
	// BaselineSource and CandidateSource say where each value comes from
	// (recomputed from N records, or stated by a tool).
	BaselineSource, CandidateSource string
	Confounders                     []phrase
	// Ref is set when one side is an external reference.
	Ref *refNote
}

type nodeRow struct {
	Name, Label, Basis                                                        string
	Throughput, Window, Replicas, Requests, Failed, SumOfRates, Overstatement Num
	Efficiency                                                                *Num
}

type sweepRow struct {
	Name, Label, Parameter     string
	Param, Throughput, Latency Num
	Next, Gain, Growth         *Num
}

type figRow struct {
	Name, Label, Metric string
	Value               Num
	Source              string // where the value comes from
	Of                  string // the reader's name of the selection
	Runs                []string
}

type chartView struct {
	ID, Title string
	// Kind is the chart's data-chart-kind (comparison, sweep, pareto, cdf,
	// ttft-input, timeline, replica-timeline, latency-histogram); Caption
	// says what is plotted and from which runs; Table, when set, is the
	// chart's data as a table.
	Kind    string
	Caption []string
	Table   *chartTable
	SVG     string // path relative to the output folder, with /
	Notes   []phrase
	Option  htmltemplate.JS
	option  json.RawMessage
	// Drawn is the chart as inline SVG for the HTML page (checked by
	// svg.Inline); set when the HTML page is written.
	Drawn htmltemplate.HTML
}

type item struct {
	Label, Value  string
	Unknown, Code bool
	// Lang is "en" when Value is free text recorded in English on a page
	// in another language; Parts, when set, replace Value: one value per
	// group of the case study's parts (method.go).
	Lang  string
	Parts []valuePart
	// Sep separates Parts in a line of Markdown.
	Sep string
	// Text is empty: it lets one template show an item or a valuePart.
	Text string
}

type group struct {
	Title string
	Items []item
}

type config struct {
	Name  string
	Items []item
	// Commands are the server and client command lines put together from
	// provenance; Value is unknown when they cannot be.
	Commands []item
}

type runRow struct {
	ID, Date, File string
	// Selections are the readers' names of the selections holding the run.
	Selections []string
	Corrected  []string // provenance fields corrected after ingest
}

// page is the view model of one language: everything already formatted.
type page struct {
	base string // file name without extension: <id>.<lang>
	// labelOf names a spec name for readers (builder.label), for the
	// audit page's messages.
	labelOf func(string) string
	// number formats chart axis numbers in the page's language.
	number      func(float64) string
	Lang, Title string
	HTMLLang    string // the lang attribute (locales.Locale.HTMLLang)
	L           map[string]string
	Switcher    []link
	Summary     htmltemplate.HTML
	SummaryMD   string
	Comparisons []cmpRow
	Nodes       []nodeRow
	Sweeps      []sweepRow
	// SLOs are the sweeps' SLO operating points, under SLORule (the
	// spec's SLO in words); none without an SLO or a level meeting it.
	SLOs    []sloRow
	SLORule string
	// Costs are the operating points with a cost estimate; CostRule says
	// how it is estimated.
	Costs       []costRow
	CostRule    string
	Figures     []figRow
	Narrative   htmltemplate.HTML
	NarrativeMD string
	Charts      []chartView
	Methodology []group
	// MethodContinues is set when the narrative ends with a section of
	// the generated one's title: the setup and limits continue it rather
	// than repeat the heading.
	MethodContinues bool
	Definitions     []string
	Limitations     []string
	Reproduce       []config
	Runs            []runRow
	DigestText      string
	RunIDs          []string
	// Audit is the audit line near the top, with a link to the audit page;
	// nil when the report was rendered without an audit.
	Audit *auditBox
	// Version is the version line under the title and Errata the errata
	// section; nil when the report was rendered without a publication.
	Version *versionView
	Errata  *errataView
	// Synthetic is the badge of a case study resting on generated data
	// (provenance synthetic: true); "" for measurements.
	Synthetic string
}

type runMeta struct {
	id, file string // SHA-256 of the raw file
	eff      map[string]string
	// corrected are the provenance fields a correction (benchledger
	// amend) put in effect, sorted.
	corrected []string
}

// builder holds what every language shares.
type builder struct {
	ctx        context.Context
	res        *casestudy.Result
	src        Source
	bind       map[string]casestudy.Binding
	runs       []runMeta
	digest     string
	narratives map[string][]byte
	latencies  map[string][]float64
	// latencyOrder is the order of the latency charts.
	latencyOrder []string
	// chartRuns are the runs the analysis charts read (analysis.go), by id.
	chartRuns map[string]*casestudy.ChartRun
	order     []string // headline first, then the rest sorted
	pub       *publish.Publication
	// red, when set, redacts every text derived from provenance: the runs'
	// values (and so the reproduce commands), confounders, caveats.
	red caveat.Redactor
	// redacted pairs each provenance value the redactor changed with what
	// it became (old, new, ...), for texts made before redaction (audit
	// messages quote values: "hardware.node (gpu-a → gpu-b)").
	redacted []string
}

// redField and redText apply b.red when set.
func (b *builder) redField(f, v string) string {
	if b.red == nil || v == "" {
		return v
	}
	return b.red.Field(f, v)
}

func newBuilder(ctx context.Context, res *casestudy.Result, src Source, red caveat.Redactor) (*builder, error) {
	b := &builder{ctx: ctx, res: res, src: src, red: red, bind: casestudy.Bindings(res), narratives: map[string][]byte{}, latencies: map[string][]float64{}}
	var raw []map[string]string // provenance before redaction, for checkValueLabels
	for _, id := range res.RunIDs {
		rec, err := src.RunMeta(id)
		if err != nil {
			return nil, fmt.Errorf("report: run %s: %w", id, err)
		}
		var corrected []string
		for _, e := range rec.Provenance {
			if e.Source == provenance.FromAmend {
				corrected = append(corrected, e.Field)
			}
		}
		eff := provenance.Record(rec.Provenance).Effective()
		raw = append(raw, maps.Clone(eff))
		for k, v := range eff {
			if eff[k] = b.redField(k, v); eff[k] != v && len(v) >= 3 {
				b.redacted = append(b.redacted, v, eff[k])
			}
		}
		b.runs = append(b.runs, runMeta{id: id, file: rec.BlobSHA256, eff: eff, corrected: corrected})
	}
	var refs []*figures.ExternalReference
	for _, c := range res.Comparisons {
		for _, r := range []*figures.ExternalReference{c.Comparison.Baseline.Reference, c.Comparison.Candidate.Reference} {
			if r != nil {
				refs = append(refs, r)
			}
		}
	}
	if err := b.checkValueLabels(recordedTexts(raw, refs)); err != nil {
		return nil, err
	}
	b.digest = res.Digest
	for _, lang := range slices.Sorted(maps.Keys(res.Spec.Narrative)) {
		p, data, err := res.Spec.ReadNarrative(lang)
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		if p == "" {
			continue
		}
		b.narratives[lang] = data
	}
	seen := map[string]bool{}
	for _, n := range res.Spec.Headline {
		if !seen[n] {
			seen[n] = true
			b.order = append(b.order, n)
		}
	}
	var rest []string
	for _, m := range []map[string]bool{keysOf(res.Comparisons), keysOf(res.Nodes), keysOf(res.Sweeps), keysOf(res.Figures)} {
		for n := range m {
			if !seen[n] {
				rest = append(rest, n)
			}
		}
	}
	slices.Sort(rest)
	b.order = append(b.order, rest...)
	// Latency histograms: the runs the layout names. (The default layout
	// shows the distributions of the runs compared as CDFs instead, on one
	// scale: analysis.go.)
	var latencyRuns []string
	for _, c := range res.Spec.Layout.Charts {
		if sel, ok := strings.CutPrefix(c, spec.LatencyChart); ok {
			ids := res.Selections[sel]
			if len(ids) != 1 {
				return nil, fmt.Errorf("report: layout chart %s: selection %s picks %d runs; a latency chart shows one", c, sel, len(ids))
			}
			latencyRuns = append(latencyRuns, ids[0])
		}
	}
	for _, id := range latencyRuns {
		if _, done := b.latencies[id]; done {
			continue
		}
		if !slices.Contains(res.RunIDs, id) {
			if len(res.Spec.Layout.Charts) > 0 {
				return nil, fmt.Errorf("report: a latency chart of run %s, which no figure of the report uses", id)
			}
			continue
		}
		reqs, err := src.Requests(id)
		if err != nil {
			return nil, fmt.Errorf("report: requests of run %s: %w", id, err)
		}
		var lat []float64
		for _, r := range reqs {
			if !r.Failed() {
				lat = append(lat, r.Latency)
			}
		}
		b.latencies[id] = lat
		b.latencyOrder = append(b.latencyOrder, id)
	}
	return b, nil
}

// layoutOr is the layout's list when the spec gives one, else every name
// in the default order.
func (b *builder) layoutOr(list []string) []string {
	if len(list) > 0 {
		return list
	}
	return b.order
}

func keysOf[V any](m map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

func (b *builder) num(l locales.Locale, name string) Num {
	v, ok := b.bind[name]
	if !ok {
		return Num{Name: name, Value: "", Text: "—"}
	}
	return Num{Name: name, Value: v.DataValue(), Text: v.Format(l)}
}

func (b *builder) optNum(l locales.Locale, name string) *Num {
	if _, ok := b.bind[name]; !ok {
		return nil
	}
	n := b.num(l, name)
	return &n
}

// labels are the texts of the templates, from the catalogue and glossary.
// labels are the page's headings and table headers, in sentence case (a
// glossary term is lower case for use inside sentences).
func labels(l locales.Locale) map[string]string {
	m := map[string]string{
		"switcher": l.T("switcher.label"), "summary": l.T("section.summary"), "results": l.T("section.results"),
		"methodology": l.T("section.methodology"), "limitations": l.T("section.limitations"), "method_limits": l.T("section.method_limits"),
		"reproduce": l.T("section.reproduce"), "runs": l.T("section.runs"), "digest": l.T("section.archive_digest"),
		"figure": l.T("table.figure"), "baseline": l.T("table.baseline"), "candidate": l.T("table.candidate"),
		"change_abs": l.Term("change.abs"), "change_pct": l.Term("change.pct"), "ratio": l.T("table.ratio"),
		"confounders": l.T("table.confounders"), "value": l.T("table.value"), "run": l.T("table.run"),
		"node": l.Term("node"), "node_throughput": l.Term("node.output_throughput"), "node_window": l.Term("node.window"),
		"replicas": l.T("table.replicas"), "sent": l.Term("completed"), "failed": l.Term("failed"),
		"sum_of_rates": l.Term("node.sum_of_rates"), "overstatement": l.Term("node.overstatement"),
		"efficiency": l.Term("scaling_efficiency"), "sweep": l.Term("sweep"),
		"saturation_point": l.Term("saturation_point"), "throughput": l.Term("output_throughput"),
		"median_latency": l.Term("median_request_latency"), "next": l.T("table.next_throughput"),
		"marginal_gain": l.Term("sweep.marginal_gain"), "latency_growth": l.Term("sweep.latency_growth"),
		"slo_point": l.Term("sweep.slo_point"), "slo_attainment": l.Term("slo_attainment"), "goodput": l.Term("goodput"),
		"operating_point": l.Term("operating_point"), "gpus": l.FieldLabel("hardware.gpu_count"),
		"price_per_gpu_hour": l.Term("price_per_gpu_hour"), "cost": l.Term("cost_per_million_output_tokens"),
		"dates": l.T("method.dates"), "file": "SHA-256", "selection": l.T("table.selection"), "corrected": l.T("runs.corrected"),
	}
	for k, v := range m {
		m[k] = capFirst(v)
	}
	maps.Copy(m, l.Punct())
	return m
}

// capFirst upper-cases the first letter (no effect on CJK text).
func capFirst(s string) string { return locales.CapFirst(s) }

// page builds the view model of one language.
func (b *builder) page(l locales.Locale) (*page, error) {
	s := b.res.Spec
	tag := l.Tag()
	p := &page{base: s.ID + "." + tag, Lang: tag, HTMLLang: l.HTMLLang(), L: labels(l), RunIDs: b.res.RunIDs, labelOf: func(n string) string { return b.label(l, n) },
		number: func(v float64) string { return l.Number(v, -1) }}
	// The switcher lists the spec's languages in the spec's order (and this
	// one), whatever --lang asked for, so a page does not depend on which
	// other pages were rendered with it.
	sib := slices.Clone(s.Languages)
	if len(sib) == 0 {
		sib = slices.Clone(spec.DefaultLanguages)
	}
	if !slices.Contains(sib, tag) {
		sib = append(sib, tag)
	}
	for _, t := range sib {
		ll := locales.MustMatch(t)
		href := s.ID + "." + t + ".html"
		p.Switcher = append(p.Switcher, link{Tag: t, Name: ll.Name(), Href: href, HrefMD: s.ID + "." + t + ".md", HTMLLang: ll.HTMLLang(), Current: t == tag})
	}
	// Title and summary may name figures too. A regional variant (es-AR)
	// reads the texts of its parent (es-419) with its own number rules.
	texts := l.Texts()
	title := s.Title[texts]
	if title == "" {
		title = s.ID
	}
	t, err := substitute("title."+texts, title, b.bind, cjkSpacing(l), func(_ string, v casestudy.Binding) string { return v.Format(l) })
	if err != nil {
		return nil, err
	}
	p.Title = t
	if sum := s.Summary[texts]; sum != "" {
		if p.SummaryMD, p.Summary, err = b.markdown(l, "summary."+texts, []byte(sum)); err != nil {
			return nil, err
		}
	}
	if data, ok := b.narratives[texts]; ok {
		if p.NarrativeMD, p.Narrative, err = b.markdown(l, s.NarrativePath(texts), data); err != nil {
			return nil, err
		}
	}
	b.tables(l, p)
	if err := b.charts(l, p); err != nil {
		return nil, err
	}
	b.methodology(l, p)
	p.MethodContinues = lastHeading(p.NarrativeMD) == p.L["method_limits"]
	if err := b.limitations(l, p); err != nil {
		return nil, err
	}
	b.reproduce(l, p)
	b.runTable(l, p)
	p.DigestText = l.T("footer.digest", "digest", b.digest)
	b.publication(l, p)
	for _, r := range b.runs {
		if strings.EqualFold(r.eff["synthetic"], "true") {
			p.Synthetic = l.T("badge.synthetic")
			break
		}
	}
	return p, nil
}

var md = goldmark.New(goldmark.WithExtensions(extension.GFM, extension.CJK))

// markdown substitutes the bindings of a narrative: as text for the
// Markdown report, and as <span class="fig"> elements in the HTML that
// goldmark (safe mode: raw HTML and dangerous links dropped) makes of it.
func (b *builder) markdown(l locales.Locale, file string, src []byte) (string, htmltemplate.HTML, error) {
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	if err := checkRemote(file, []byte(text), b.res.Spec.LinkHosts); err != nil {
		return "", "", err
	}
	mdText, err := substitute(file, text, b.bind, cjkSpacing(l), func(_ string, v casestudy.Binding) string { return nbspUnit(v.Format(l)) })
	if err != nil {
		return "", "", err
	}
	// Placeholders of letters and digits only survive Markdown untouched.
	var spans []string
	ph, _ := substitute(file, text, b.bind, cjkSpacing(l), func(name string, v casestudy.Binding) string {
		// The unrounded, signed value under its plain name, whatever
		// precision the text chose: the same in every language.
		n := Num{Name: name, Value: b.bind[name].DataValue(), Text: v.Format(l)}
		spans = append(spans, `<span class="fig" data-name="`+htmltemplate.HTMLEscapeString(n.Name)+`" data-value="`+
			htmltemplate.HTMLEscapeString(n.Value)+`">`+htmltemplate.HTMLEscapeString(n.Text)+`</span>`)
		return "BLFIG" + strconv.Itoa(len(spans)-1) + "X"
	})
	var buf bytes.Buffer
	if err := md.Convert([]byte(ph), &buf); err != nil {
		return "", "", fmt.Errorf("%s: %w", file, err)
	}
	out := buf.String()
	for i := len(spans) - 1; i >= 0; i-- { // BLFIG1X before BLFIG10X cannot clash: X ends each
		out = strings.ReplaceAll(out, "BLFIG"+strconv.Itoa(i)+"X", spans[i])
	}
	return strings.TrimRight(mdText, "\n"), htmltemplate.HTML(out), nil
}

func (b *builder) tables(l locales.Locale, p *page) {
	l = l.Cells() // 15,91 s in a cell, 15,91 segundos in a sentence
	r := b.res
	for _, n := range b.layoutOr(r.Spec.Layout.Tables) {
		switch {
		case r.Comparisons[n] != nil:
			c := r.Comparisons[n]
			row := cmpRow{Name: n, Label: b.label(l, n), Metric: capFirst(l.Figure(c.Comparison.Metric)), Baseline: b.num(l, n+".baseline"), Candidate: b.num(l, n+".candidate"),
				Abs: b.num(l, n+".abs"), Pct: b.num(l, n+".pct"), Ratio: b.num(l, n+".ratio"),
				BaselineSource: sourceText(l, c.Baseline), CandidateSource: sourceText(l, c.Candidate), Ref: b.refNoteOf(l, &c.Comparison)}
			for _, f := range c.Comparison.Confounders {
				row.Confounders = append(row.Confounders, b.confounder(l, f.Field, b.redField(f.Field, f.Baseline), b.redField(f.Field, f.Candidate)))
			}
			p.Comparisons = append(p.Comparisons, row)
		case r.Nodes[n] != nil:
			nd := r.Nodes[n]
			basis := l.Term("repeat.conservative")
			if len(nd.Runs) == 1 {
				basis = l.T("table.node_single_run") // not "node" under a node's name
			}
			p.Nodes = append(p.Nodes, nodeRow{Name: n, Label: b.label(l, n), Basis: capFirst(basis), Throughput: b.num(l, n), Window: b.num(l, n+".window"),
				Replicas: b.num(l, n+".replicas"), Requests: b.num(l, n+".requests"), Failed: b.num(l, n+".failed"),
				SumOfRates: b.num(l, n+".sum_of_rates"), Overstatement: b.num(l, n+".overstatement"), Efficiency: b.optNum(l, n+".efficiency")})
		case r.Sweeps[n] != nil:
			sw := r.Sweeps[n]
			p.Sweeps = append(p.Sweeps, sweepRow{Name: n, Label: b.label(l, n), Parameter: capFirst(b.paramLabel(l, sw.Parameter)), Param: b.num(l, n+".saturation.param"),
				Throughput: b.num(l, n+".saturation.throughput"), Latency: b.num(l, n+".saturation.latency"),
				Next: b.optNum(l, n+".next.throughput"), Gain: b.optNum(l, n+".step.gain"), Growth: b.optNum(l, n+".step.latency_growth")})
			if _, ok := b.bind[n+".slo.param"]; ok {
				p.SLOs = append(p.SLOs, sloRow{Name: n, Label: b.label(l, n), Parameter: capFirst(b.paramLabel(l, sw.Parameter)), Param: b.num(l, n+".slo.param"),
					Throughput: b.num(l, n+".slo.throughput"), Attainment: b.num(l, n+".slo.attainment"), Goodput: b.num(l, n+".slo.goodput")})
				p.SLORule = b.sloRule(l)
			}
		default:
			if f, ok := r.Figures[n]; ok {
				// The metric is shown under the label: a figure without
				// one of its own is named by its selection.
				lbl := r.Spec.Label(n, l.Texts())
				if lbl == "" {
					lbl = b.label(l, r.Spec.Figures[n].Of)
				}
				p.Figures = append(p.Figures, figRow{Name: n, Label: lbl, Metric: capFirst(l.Figure(f.Metric)), Value: b.num(l, n), Source: sourceText(l, f),
					Of: b.label(l, r.Spec.Figures[n].Of), Runs: f.Runs})
			}
		}
		b.costs(l, p, n)
	}
}

// sourceText says where a value comes from, in the page's language: one
// phrase per distinct origin of the runs behind it ("recomputed from 200
// records", "stated by guidellm (…), not recomputable"); "" for an
// external reference, whose column says what it is.
func sourceText(l locales.Locale, v casestudy.Value) string {
	if v.Reference != "" {
		return ""
	}
	var parts []string
	for _, o := range v.Sources {
		if t := l.Origin(o); !slices.Contains(parts, t) {
			parts = append(parts, t)
		}
	}
	return l.List(parts)
}

// anyStated reports whether a value of the case study rests on a stated
// figure.
func anyStated(r *casestudy.Result) bool {
	vals := []casestudy.Value{}
	for _, f := range r.Figures {
		vals = append(vals, f)
	}
	for _, c := range r.Comparisons {
		vals = append(vals, c.Baseline, c.Candidate)
	}
	for _, v := range vals {
		if v.Reference == "" && v.ValueSource == figures.SourceStated {
			return true
		}
	}
	return false
}

// confounder is a results table's cell of one confounder: "Node: a → b",
// the field's label in sentence case (it starts its line).
func (b *builder) confounder(l locales.Locale, field, base, cand string) phrase {
	return append(phrase{{Text: capFirst(l.Colon(l.FieldLabel(field), ""))}}, b.confounderValues(l, field, base, cand)...)
}

// confounderNote is a chart's note of one confounder: "Confounder: node
// (a → b)", one colon, the field's values in parentheses (never two
// labels' colons in a row, "混杂因素：节点：a → b").
func (b *builder) confounderNote(l locales.Locale, field, base, cand string) phrase {
	before, after, _ := strings.Cut(l.Colon(l.T("chart.confounder"), l.Paren(l.FieldLabel(field), "\x00")), "\x00")
	return append(append(phrase{{Text: before}}, b.confounderValues(l, field, base, cand)...), span{Text: after})
}

// confounderValues are "a → b", each value in the page's words where the
// spec or the catalogue has them.
func (b *builder) confounderValues(l locales.Locale, field, base, cand string) phrase {
	side := func(v string) span {
		if v == "" {
			return span{Text: l.T("value.not_recorded")}
		}
		if locales.FreeTextField(field) {
			return b.freeTextSpan(l, v)
		}
		t, _ := l.FieldText(field, v)
		return span{Text: t}
	}
	return phrase{side(base), {Text: " → "}, side(cand)}
}

func orUnknown(l locales.Locale, v string) string {
	if v == "" {
		return l.T("value.not_recorded")
	}
	return v
}

func (b *builder) charts(l locales.Locale, p *page) error {
	r := b.res
	add := func(c charts.Chart, err error, v chartView) error {
		if err != nil {
			return err
		}
		v.ID, v.SVG, v.Option, v.option = c.ID, "charts/"+c.ID+"."+p.Lang+".svg", htmltemplate.JS(c.Option), c.Option
		p.Charts = append(p.Charts, v)
		return nil
	}
	def := len(r.Spec.Layout.Charts) == 0
	numF := func(d int, unit string) charts.Format {
		return charts.Format{Decimals: d, Unit: l.UnitLabel(unit), Number: func(v float64) string { return l.Number(v, d) }}
	}
	for _, n := range b.layoutOr(r.Spec.Layout.Charts) {
		if ok, err := b.analysisChart(l, n, add); ok || err != nil {
			if err != nil {
				return err
			}
			continue
		}
		if c := r.Comparisons[n]; c != nil {
			unit := c.Comparison.Unit
			title := l.T("chart.baseline_vs_tuned")
			base, cand := l.Term("baseline"), l.Term("tuned")
			if c.Comparison.Baseline.IsReference() || c.Comparison.Candidate.IsReference() {
				title = capFirst(l.Term("dated_comparison"))
				base, cand = l.Term("external_reference"), l.Term("local_run")
			}
			title = l.Colon(title, l.Figure(c.Comparison.Metric))
			var notes []phrase
			for _, f := range c.Comparison.Confounders {
				notes = append(notes, b.confounderNote(l, f.Field, b.redField(f.Field, f.Baseline), b.redField(f.Field, f.Candidate)))
			}
			if r := b.refNoteOf(l, &c.Comparison); r != nil {
				// The note ends in "Source:" or a full-width "来源：", which takes no space (sentence_sep).
				notes = append(notes, append(slices.Clone(r.Text), span{Text: l.Punct()["sentence_sep"] + r.URL}))
			}
			ch, err := charts.ComparisonOf("cmp-"+n, c.Comparison, charts.Labels{Title: title, Subtitle: b.label(l, n), Baseline: base, Candidate: cand,
				YAxis: l.Paren(l.Figure(c.Comparison.Metric), l.UnitLabel(unit))}, numF(casestudy.UnitDecimals(unit), unit))
			sc := r.Spec.Comparisons[n]
			caption := []string{l.T("chart.caption.comparison", "metric", l.Figure(c.Comparison.Metric)),
				l.T("chart.caption.runs", "runs", l.List([]string{capFirst(b.sideLabel(l, sc.Baseline)), capFirst(b.sideLabel(l, sc.Candidate))}))}
			if err := add(ch, err, chartView{Kind: "comparison", Title: title, Caption: caption, Notes: notes}); err != nil {
				return err
			}
		}
		if sw := r.Sweeps[n]; sw != nil {
			title := l.T("chart.throughput_vs_latency")
			ch, err := charts.Sweep("sweep-"+n, sw.Result, charts.Labels{Title: title, Subtitle: b.label(l, n),
				XAxis: l.T("axis.median_latency", "unit", l.UnitLabel("s")), YAxis: l.T("axis.output_throughput", "unit", l.UnitLabel("tok/s")),
				Series: l.Term("output_throughput"), Saturation: l.Term("saturation_point")}, numF(0, ""))
			caption := []string{l.T("chart.caption.sweep", "param", b.paramLabel(l, sw.Parameter)), b.captionRuns(l, r.Spec.Sweeps[n].Of)}
			if err := add(ch, err, chartView{Kind: "sweep", Title: title, Caption: caption}); err != nil {
				return err
			}
			if def {
				// The default layout follows a sweep with its trade-off
				// curve, where its runs allow one.
				if err := b.paretoChart(l, n, false, add); err != nil {
					return err
				}
			}
		}
		if nd := r.Nodes[n]; nd != nil {
			title := l.T("chart.replica_timeline")
			cons := nd.Runs[nd.Conservative]
			ch, err := charts.Timeline("timeline-"+n, cons, charts.Labels{Title: title, Subtitle: b.label(l, n) + " · " + b.label(l, nd.Groups[nd.Conservative]),
				XAxis: l.T("axis.time", "unit", l.UnitLabel("s")), YAxis: l.T("axis.replica"), Series: l.Term("output_throughput"),
				Replica: capFirst(l.Term("replica")), Window: capFirst(l.T("chart.common_window"))}, numF(0, "tok/s"))
			caption := []string{l.T("chart.caption.replicas"), b.captionRuns(l, nd.Groups[nd.Conservative])}
			if err := add(ch, err, chartView{Kind: "replica-timeline", Title: title, Caption: caption}); err != nil {
				return err
			}
		}
	}
	if def {
		// The distributions of the runs compared, on one scale each, once
		// per pair of runs (two metrics of one pair draw the same CDFs).
		seen := map[[2]string]bool{}
		for _, n := range b.order {
			if c := r.Comparisons[n]; c != nil {
				pair := [2]string{c.Comparison.Baseline.RunID, c.Comparison.Candidate.RunID}
				if seen[pair] {
					continue
				}
				seen[pair] = true
				if err := b.cdfChartsOf(l, n, false, add); err != nil {
					return err
				}
			}
		}
	}
	for _, id := range b.latencyOrder {
		lat := b.latencies[id]
		if len(lat) == 0 {
			continue
		}
		who := b.runLabel(l, id)
		if sel := b.layoutLatencySelection(id); sel != "" {
			who = b.label(l, sel)
		}
		title := l.Colon(l.T("chart.latency_distribution"), who)
		ch, err := charts.Latency("latency-"+id, lat, charts.Labels{Title: l.T("chart.latency_distribution"), Subtitle: who,
			XAxis: l.T("axis.latency", "unit", l.UnitLabel("s")), YAxis: l.Term("completed"), Series: l.Term("completed")},
			charts.Format{Decimals: -1, Fixed: l.Number})
		caption := []string{l.T("chart.caption.latency"), l.T("chart.caption.runs", "runs", who)}
		if err := add(ch, err, chartView{Kind: "latency-histogram", Title: title, Caption: caption}); err != nil {
			return err
		}
	}
	return nil
}

func (b *builder) fieldItem(l locales.Locale, runs []runMeta, field, unknownKey string) item {
	v := b.runsValue(l, runs, field, unknownKey)
	return item{Label: capFirst(l.FieldLabel(field)), Value: v.Text, Unknown: v.Unknown, Lang: v.Lang}
}

// reproduce lists, per configuration (the runs' group, else role), what a
// reader needs to run it again; what is not recorded is said to be unknown.
func (b *builder) reproduce(l locales.Locale, p *page) {
	byCfg := map[string][]runMeta{}
	for _, r := range b.runs {
		k := r.eff["group"]
		if k == "" {
			k = r.eff["role"]
		}
		if k == "" {
			k = r.id
		}
		byCfg[k] = append(byCfg[k], r)
	}
	fields := []struct {
		f    string
		code bool
	}{
		{"runtime.engine", false}, {"runtime.version", false}, {"runtime.image", true}, {"runtime.image_digest", true},
		{"runtime.server_args", true}, {"checkpoint.repository", true}, {"checkpoint.revision", true},
		{"checkpoint.precision", false}, {"measurement.client", true}, {"measurement.client_version", false},
		{"workload.dataset", false}, {"workload.input_len", false}, {"workload.output_len", false},
		{"workload.request_count", false}, {"workload.concurrency", false}, {"workload.request_rate", false},
	}
	for _, k := range slices.Sorted(maps.Keys(byCfg)) {
		cfg := config{Name: b.configLabel(l, byCfg[k])}
		for _, f := range fields {
			it := b.fieldItem(l, byCfg[k], f.f, "value.not_recorded")
			it.Code = f.code && !it.Unknown
			cfg.Items = append(cfg.Items, it)
		}
		cfg.Commands = commands(l, byCfg[k])
		p.Reproduce = append(p.Reproduce, cfg)
	}
}

func (b *builder) runTable(l locales.Locale, p *page) {
	for _, r := range b.runs {
		row := runRow{ID: r.id, File: r.file, Corrected: r.corrected}
		if d := r.eff["measurement.date"]; len(d) >= 10 {
			if s, err := l.DateString(d[:10]); err == nil {
				row.Date = s
			} else {
				row.Date = d
			}
		} else {
			row.Date = l.T("value.not_recorded")
		}
		for _, n := range slices.Sorted(maps.Keys(b.res.Spec.Runs)) {
			match := true
			for f, v := range b.res.Spec.Runs[n] {
				if r.eff[f] != v {
					match = false
					break
				}
			}
			if match {
				row.Selections = append(row.Selections, b.label(l, n))
			}
		}
		p.Runs = append(p.Runs, row)
	}
}

// lastHeading is the text of a Markdown text's last level-2 heading.
func lastHeading(md string) string {
	h := ""
	for _, line := range strings.Split(md, "\n") {
		if t, ok := strings.CutPrefix(line, "## "); ok {
			h = strings.TrimSpace(t)
		}
	}
	return h
}

// cjkSpacing: zh and ja space CJK text from numbers (GLOSSARY.md).
func cjkSpacing(l locales.Locale) func(casestudy.Binding) string {
	if l.Tag() != "zh" && l.Tag() != "ja" {
		return nil
	}
	return func(v casestudy.Binding) string { return v.Format(l) }
}

// commands puts together the server and client command lines of one
// configuration from its provenance, for engines and clients whose command
// shape is known. Values that differ between the configuration's runs, or
// were not recorded, are left out; a command that cannot be formed at all
// is said to be unknown.
func commands(l locales.Locale, runs []runMeta) []item {
	same := func(f string) string {
		v := runs[0].eff[f]
		for _, r := range runs[1:] {
			if r.eff[f] != v {
				return ""
			}
		}
		return v
	}
	unknown := l.T("value.unknown")
	srv := item{Label: l.T("method.server_command"), Value: unknown, Unknown: true}
	// Every value from provenance is shell-quoted (escape.ShellWord, and
	// the server arguments word by word with escape.ShellArgs): a line
	// shown for copying must run what it says and nothing else
	// (`whoami` in server_args stays text).
	repo, rev, args, image := same("checkpoint.repository"), same("checkpoint.revision"), same("runtime.server_args"), same("runtime.image")
	q := escape.ShellWord
	var parts []string
	switch same("runtime.engine") {
	case "vllm":
		if image != "" {
			parts = append(parts, "docker run --gpus all --ipc=host", q(image), "--model", q(repo))
		} else {
			parts = append(parts, "vllm serve", q(repo))
		}
	case "tensorrt-llm":
		parts = append(parts, "trtllm-serve", q(repo))
		args = strings.TrimSpace(strings.TrimPrefix(args, "trtllm-serve"))
	}
	if len(parts) > 0 && repo != "" {
		if rev != "" {
			parts = append(parts, "--revision", q(rev))
		}
		if args != "" {
			parts = append(parts, escape.ShellArgs(args))
		}
		srv = item{Label: srv.Label, Value: strings.Join(parts, " "), Code: true}
	}
	cli := item{Label: l.T("method.client_command"), Value: unknown, Unknown: true}
	if rec := same("metadata.record.command"); rec != "" {
		// The command benchledger record ran, as it ran (re-quoted word by
		// word), instead of one rebuilt from provenance.
		cli = item{Label: l.T("method.client_command_recorded"), Value: escape.ShellArgs(rec), Code: true}
	} else if same("measurement.client") == "vllm bench serve" {
		model := same("checkpoint.model_id")
		if model == "" {
			model = repo
		}
		c := []string{"vllm bench serve", "--model", escape.ShellWord(model)}
		for _, o := range []struct{ flag, field string }{
			{"--num-prompts", "workload.request_count"}, {"--max-concurrency", "workload.concurrency"},
			{"--request-rate", "workload.request_rate"}, {"--label", "measurement.label"},
		} {
			if v := same(o.field); v != "" {
				c = append(c, o.flag, escape.ShellWord(v))
			}
		}
		c = append(c, "--save-result", "--save-detailed")
		cli = item{Label: cli.Label, Value: strings.Join(c, " "), Code: true}
	}
	note := l.T("method.command_note")
	if cli.Label == l.T("method.client_command_recorded") {
		note = l.T("method.command_note_recorded")
	}
	return []item{srv, cli, {Label: "", Value: note}}
}
