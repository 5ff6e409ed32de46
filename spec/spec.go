// Package spec reads a case-study spec (casestudy.yaml): which archived runs
// a case study draws on — chosen by campaign, role, group and labels, never
// by database ids — and the figures, comparisons, sweeps, node aggregates
// and external references it shows. Evaluating a spec against an archive is
// package casestudy's work; this package only parses and checks.
package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/provenance"
)

// Spec is a parsed casestudy.yaml.
type Spec struct {
	Path string `yaml:"-"`
	// allowDirs are LoadOptions.AllowDirs.
	allowDirs []string
	ID        string `yaml:"id"`
	Campaign  string `yaml:"campaign"`
	// Runs names selections of archived runs.
	Runs map[string]Selector `yaml:"runs"`
	// Figures are single named figures of a selection.
	Figures map[string]Figure `yaml:"figures"`
	// Comparisons set a candidate against a baseline for one metric.
	Comparisons map[string]Comparison `yaml:"comparisons"`
	// Sweeps order a selection by a parameter and find its saturation point.
	Sweeps map[string]Sweep `yaml:"sweeps"`
	// Nodes aggregate replica runs over their common window.
	Nodes map[string]Node `yaml:"nodes"`
	// Headline lists, in order, the names shown first (figures,
	// comparisons, sweeps, nodes).
	Headline []string `yaml:"headline"`
	// Caveats configures the thresholds of data-derived caveats.
	Caveats CaveatSettings `yaml:"caveats"`
	// SLO declares the case study's service-level objective: the
	// per-request thresholds goodput and SLO attainment judge by, and the
	// attainment target of a sweep's SLO operating point.
	SLO SLO `yaml:"slo"`
	// Price is the price of a GPU-hour the cost estimates use (cost per
	// million output tokens); zero: no cost is estimated.
	Price figures.Price `yaml:"price"`
	// Layout chooses which tables and charts the report shows, in order.
	Layout Layout `yaml:"layout"`

	// Languages lists, in order, the locale tags the case study is
	// rendered in (LanguageTags); Parse fills in DefaultLanguages when the
	// spec names none.
	Languages []string `yaml:"languages"`
	// Title and Summary are the case study's title and one-paragraph
	// summary by locale tag. Once a spec has any text (title, summary,
	// narrative or languages), every language needs a title.
	Title   map[string]string `yaml:"title"`
	Summary map[string]string `yaml:"summary"`
	// Narrative maps a locale tag to a Markdown file, relative to the
	// spec file's folder (NarrativePath resolves it).
	Narrative map[string]string `yaml:"narrative"`
	// LinkHosts are the hosts the summary and narratives may link to
	// (http or https; a link fetches nothing when the page opens, and a
	// reader follows it or not). Images stay refused on any host: a page
	// or its PDF would fetch them (docs/casestudy.md).
	LinkHosts []string `yaml:"link_hosts"`
	// Claims declare figures stated in text the case study cannot change
	// (an already-published page, a customer's draft): benchledger audit
	// checks each against the computed figure it claims (check
	// claims.stated, docs/audit.md).
	Claims []Claim `yaml:"claims"`
	// Labels are readers' names, by locale tag, of the spec's selections,
	// figures, comparisons, sweeps and nodes and of a sweep's parameter
	// field: a report shows a label where it would otherwise have only a
	// machine name, and generates a localised description for a name
	// without one (docs/casestudy.md, "Labels"). A key "value:TEXT"
	// (ValueLabel) gives readers' texts of a free-text value recorded in
	// English in the manifest.
	Labels map[string]map[string]string `yaml:"labels"`
}

// Claim is a figure stated as text outside the bindings: Value as written
// (in percent for a percentage, 2.32 for "2.32x"), with Unit ("%", "x",
// "tok/s", ...; empty for a plain count) and Figure, the binding name it
// claims ("scheduler_tuning.pct"; docs/casestudy.md "Narrative bindings").
type Claim struct {
	// Text says where the claim appears ("headline of the published page").
	Text   string  `yaml:"text"`
	Value  float64 `yaml:"value"`
	Unit   string  `yaml:"unit"`
	Figure string  `yaml:"figure"`
	// Lang is the locale tag of the text (default en).
	Lang string `yaml:"lang"`
	// Decimals is how many decimals the text shows; nil infers them from
	// Value's shortest decimal form (132 → 0, 8.2 → 1).
	Decimals *int `yaml:"decimals"`
}

// DefaultLanguages are the languages of a spec that names none.
var DefaultLanguages = []string{"en", "zh", "ja", "es-419"}

// LanguageTags lists the locale tags a spec may use: es is Spain's Spanish,
// es-419 Latin America's (docs/casestudy.md).
func LanguageTags() []string { return []string{"en", "zh", "ja", "es", "es-419"} }

// NarrativePath returns the absolute path of the narrative file for lang,
// resolved against the spec file's folder, or "" when the spec has none
// for that language.
func (s *Spec) NarrativePath(lang string) string {
	rel := s.Narrative[lang]
	if rel == "" {
		return ""
	}
	p := rel
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(s.Path), rel)
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// Selector picks runs whose effective provenance has every field equal to
// the given value ("role: baseline", "group: node-run-1",
// "labels.reference_for: node-1000-1000"). campaign defaults to the spec's.
type Selector map[string]string

// Figure is one figure of a selection: a metric of a run, or the conservative
// value over repeats (lower throughput, higher latency) when the selection
// holds several runs of one configuration.
type Figure struct {
	Of     string `yaml:"of"`
	Metric string `yaml:"metric"`
}

// Comparison: baseline and candidate are each a selection, a node
// ("node:NAME") or an external reference ("ref:ID"). Intended lists the
// provenance fields the comparison means to change; any other change is a
// confounder shown next to the figure.
type Comparison struct {
	Baseline  string   `yaml:"baseline"`
	Candidate string   `yaml:"candidate"`
	Metric    string   `yaml:"metric"`
	Intended  []string `yaml:"intended"`
	// Disclosed are confounders the author knows of and states in the
	// text: the audit warns about them instead of failing.
	Disclosed []string `yaml:"disclosed"`
}

// Sweep orders a selection by a numeric provenance field.
type Sweep struct {
	Of        string `yaml:"of"`
	Parameter string `yaml:"parameter"`
	// The saturation rule (docs/metrics.md); zero means the default.
	MaxGainPct          float64 `yaml:"max_gain_pct"`
	MinLatencyGrowthPct float64 `yaml:"min_latency_growth_pct"`
}

// Node aggregates replica runs: each group is a selection holding the
// replicas of one synchronised node run; with several groups the
// conservative (lowest) node throughput is the capacity figure. Reference
// names the single-replica run that scaling efficiency is measured against.
type Node struct {
	Groups    []string `yaml:"groups"`
	Reference string   `yaml:"reference"`
	// AllowFailures reports a node run whose replicas had failed requests
	// instead of refusing it (the failures are then shown and caveated).
	AllowFailures bool `yaml:"allow_failures"`
}

// Layout chooses what a report shows and in which order. Tables lists the
// names (comparisons, nodes, sweeps, figures) given a row in the results
// tables; Charts the names given a chart (comparisons, sweeps, nodes), plus
// "latency:SELECTION" for the latency histogram of a one-run selection and
// the entries of ParetoChart, CDFChart, TTFTInputChart and LoadChart.
// An empty list means everything: the headline first, then the rest, with
// each sweep's trade-off curve, and the distributions (CDFs) of the runs
// compared.
type Layout struct {
	Tables []string `yaml:"tables"`
	Charts []string `yaml:"charts"`
}

// LatencyChart is the prefix of a latency-distribution entry in Layout.Charts.
const LatencyChart = "latency:"

// ValueLabel is the prefix of a label of a recorded free-text value: the
// key "value:NVIDIA reference system" gives readers' texts, by language, of
// that text wherever the manifest recorded it (a dataset, a node, an
// external reference's title or setup). The report checks that each such
// key quotes a value its runs or references record.
const ValueLabel = "value:"

// SLO is the spec's service-level objective (docs/casestudy.md, "SLO"):
// thresholds in ms as vLLM's --goodput takes them (a request is good when
// every declared one holds, value ≤ threshold), and the share of requests
// that must be good at a sweep's SLO operating point.
type SLO struct {
	TTFTms        float64 `yaml:"ttft_ms"`
	TPOTms        float64 `yaml:"tpot_ms"`
	E2ELms        float64 `yaml:"e2el_ms"`
	AttainmentPct float64 `yaml:"attainment_pct"`
}

// Thresholds are the SLO's thresholds in seconds.
func (s SLO) Thresholds() figures.SLO {
	return figures.SLO{TTFT: s.TTFTms / 1000, TPOT: s.TPOTms / 1000, E2EL: s.E2ELms / 1000}
}

// sloMetrics are the metrics only an SLO defines.
var sloMetrics = map[string]bool{"goodput": true, "slo_attainment": true}

// Prefixes of the other chart entries in Layout.Charts (docs/casestudy.md,
// "Charts"): the trade-off curve of a sweep or of a selection's runs
// ("pareto:NAME"), the overlaid CDFs of TTFT, TPOT and E2E latency of both
// sides of a run-vs-run comparison ("cdf:COMPARISON"), TTFT against input
// length of a selection's runs ("ttft-input:SELECTION") and the
// concurrency and completions over time of a one-run selection
// ("timeline:SELECTION").
const (
	ParetoChart    = "pareto:"
	CDFChart       = "cdf:"
	TTFTInputChart = "ttft-input:"
	LoadChart      = "timeline:"
)

// CaveatSettings are the thresholds of data-derived caveats.
type CaveatSettings struct {
	InteractiveLatencyS float64 `yaml:"interactive_latency_s"`
	ReferenceMaxAgeDays int     `yaml:"reference_max_age_days"`
}

// Load reads and checks a spec.
func Load(path string) (*Spec, error) { return LoadWith(path, LoadOptions{}) }

// LoadWith is Load with options.
func LoadWith(path string, o LoadOptions) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parse(path, data, o)
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// hostRE is a host name or IPv4 address of link_hosts.
var hostRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$`)

// Parse checks a spec's text. Errors name the file and, where YAML knows
// it, the line.
func Parse(path string, data []byte) (*Spec, error) { return parse(path, data, LoadOptions{}) }

func parse(path string, data []byte, o LoadOptions) (*Spec, error) {
	s := &Spec{Path: path, allowDirs: o.AllowDirs}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty case-study spec", path)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	hasText := len(s.Languages) > 0 || len(s.Title) > 0 || len(s.Summary) > 0 || len(s.Narrative) > 0
	if len(s.Languages) == 0 {
		s.Languages = slices.Clone(DefaultLanguages)
	}
	if err := s.check(hasText); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// check validates the spec; hasText says whether it declares any language
// or text (a spec without is a figures-only spec and needs no title).
func (s *Spec) check(hasText bool) error {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if s.ID == "" || !nameRE.MatchString(s.ID) {
		bad("id %q: want lower-case letters, digits, - and _", s.ID)
	}
	if len(s.Runs) == 0 {
		bad("runs: no selections")
	}
	for i, h := range s.LinkHosts {
		if !hostRE.MatchString(h) {
			bad("link_hosts[%d] %q: want a host name alone, lower-case (docs.vllm.ai, 127.0.0.1): no scheme, port, path or wildcard", i, h)
		}
	}
	names := map[string]string{}
	claim := func(kind, name string) {
		if !nameRE.MatchString(name) {
			bad("%s %q: names are lower-case letters, digits, - and _", kind, name)
		}
		if prev, ok := names[name]; ok {
			bad("%s %q: the name is also used by %s", kind, name, prev)
		}
		names[name] = kind
	}
	for _, n := range sortedKeys(s.Runs) {
		if len(s.Runs[n]) == 0 {
			bad("runs.%s: an empty selector would select every run", n)
		}
		for f, v := range s.Runs[n] {
			if err := provenance.Validate(provenance.Entry{Field: f, Value: v, Source: provenance.FromManifest}); err != nil {
				bad("runs.%s: %v", n, err)
			}
		}
	}
	selection := func(where, name string) {
		if _, ok := s.Runs[name]; !ok {
			bad("%s: no selection named %q in runs (known: %s)", where, name, strings.Join(sortedKeys(s.Runs), ", "))
		}
	}
	for _, n := range sortedKeys(s.Figures) {
		claim("figure", n)
		f := s.Figures[n]
		selection("figures."+n+".of", f.Of)
		if !KnownMetric(f.Metric) {
			bad("figures.%s.metric: unknown metric %q (known: %s)", n, f.Metric, strings.Join(Metrics(), ", "))
		}
	}
	for _, n := range sortedKeys(s.Nodes) {
		claim("node", n)
		nd := s.Nodes[n]
		if len(nd.Groups) == 0 {
			bad("nodes.%s.groups: no node runs", n)
		}
		for _, g := range nd.Groups {
			selection("nodes."+n+".groups", g)
		}
		if nd.Reference != "" {
			selection("nodes."+n+".reference", nd.Reference)
		}
	}
	side := func(where, v string) {
		switch {
		case strings.HasPrefix(v, "ref:"):
			if strings.TrimPrefix(v, "ref:") == "" {
				bad("%s: ref: needs a reference id", where)
			}
		case strings.HasPrefix(v, "node:"):
			if _, ok := s.Nodes[strings.TrimPrefix(v, "node:")]; !ok {
				bad("%s: no node named %q", where, strings.TrimPrefix(v, "node:"))
			}
		default:
			selection(where, v)
		}
	}
	for _, n := range sortedKeys(s.Comparisons) {
		claim("comparison", n)
		c := s.Comparisons[n]
		side("comparisons."+n+".baseline", c.Baseline)
		side("comparisons."+n+".candidate", c.Candidate)
		if !KnownMetric(c.Metric) {
			bad("comparisons.%s.metric: unknown metric %q", n, c.Metric)
		}
		for _, f := range c.Intended {
			if _, ok := provenance.Lookup(f); !ok && !strings.HasPrefix(f, "labels.") {
				bad("comparisons.%s.intended: unknown provenance field %q", n, f)
			}
		}
		for _, f := range c.Disclosed {
			if _, ok := provenance.Lookup(f); !ok && !strings.HasPrefix(f, "labels.") && f != figures.LoadModeField {
				bad("comparisons.%s.disclosed: unknown provenance field %q", n, f)
			}
		}
	}
	for _, n := range sortedKeys(s.Sweeps) {
		claim("sweep", n)
		sw := s.Sweeps[n]
		selection("sweeps."+n+".of", sw.Of)
		if _, ok := provenance.Lookup(sw.Parameter); !ok && !strings.HasPrefix(sw.Parameter, "labels.") {
			bad("sweeps.%s.parameter: unknown provenance field %q", n, sw.Parameter)
		}
		if sw.MaxGainPct < 0 || sw.MinLatencyGrowthPct < 0 {
			bad("sweeps.%s: thresholds must not be negative", n)
		}
	}
	for _, h := range s.Headline {
		if _, ok := names[h]; !ok {
			bad("headline: %q is not a figure, comparison, sweep or node of this spec", h)
		}
	}
	for _, t := range s.Layout.Tables {
		if _, ok := names[t]; !ok {
			bad("layout.tables: %q is not a figure, comparison, sweep or node of this spec", t)
		}
	}
	for _, c := range s.Layout.Charts {
		if sel, ok := strings.CutPrefix(c, LatencyChart); ok {
			selection("layout.charts", sel)
			continue
		}
		if sel, ok := strings.CutPrefix(c, TTFTInputChart); ok {
			selection("layout.charts", sel)
			continue
		}
		if sel, ok := strings.CutPrefix(c, LoadChart); ok {
			selection("layout.charts", sel)
			continue
		}
		if n, ok := strings.CutPrefix(c, ParetoChart); ok {
			if _, sel := s.Runs[n]; !sel && names[n] != "sweep" {
				bad("layout.charts: %q: %q is neither a sweep nor a selection of this spec", c, n)
			}
			continue
		}
		if n, ok := strings.CutPrefix(c, CDFChart); ok {
			cmp, isCmp := s.Comparisons[n]
			switch {
			case !isCmp:
				bad("layout.charts: %q: %q is not a comparison of this spec", c, n)
			case strings.Contains(cmp.Baseline, ":") || strings.Contains(cmp.Candidate, ":"):
				bad("layout.charts: %q: comparison %s has a reference or node side, without per-request records to draw", c, n)
			}
			continue
		}
		if k := names[c]; k != "comparison" && k != "sweep" && k != "node" {
			bad("layout.charts: %q is not a comparison, sweep or node of this spec, nor latency:, pareto:, cdf:, ttft-input: or timeline: with a name", c)
		}
	}
	s.checkSLO(bad)
	if s.Price.Declared() {
		if err := s.Price.Check(); err != nil {
			bad("%v", err)
		}
	}
	if s.Caveats.InteractiveLatencyS < 0 || s.Caveats.ReferenceMaxAgeDays < 0 {
		bad("caveats: thresholds must not be negative")
	}
	s.checkTexts(hasText, names, bad)
	for i, c := range s.Claims {
		if strings.TrimSpace(c.Figure) == "" {
			bad("claims[%d].figure: empty; name the binding the claim states (e.g. scheduler_tuning.pct)", i)
		}
		if math.IsNaN(c.Value) || math.IsInf(c.Value, 0) {
			bad("claims[%d].value: %v is not a finite number", i, c.Value)
		}
		if c.Decimals != nil && (*c.Decimals < 0 || *c.Decimals > 12) {
			bad("claims[%d].decimals: %d is not between 0 and 12", i, *c.Decimals)
		}
		if c.Lang != "" && !slices.Contains(LanguageTags(), c.Lang) {
			bad("claims[%d].lang: unsupported language %q (supported: %s)", i, c.Lang, strings.Join(LanguageTags(), ", "))
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// checkSLO validates the SLO and that the metrics only it defines are
// used with one.
func (s *Spec) checkSLO(bad func(string, ...any)) {
	o := s.SLO
	for _, t := range []struct {
		key string
		v   float64
	}{{"ttft_ms", o.TTFTms}, {"tpot_ms", o.TPOTms}, {"e2el_ms", o.E2ELms}} {
		if t.v < 0 || math.IsNaN(t.v) || math.IsInf(t.v, 0) {
			bad("slo.%s: %v is not a threshold in ms ≥ 0", t.key, t.v)
		}
	}
	declared := o.Thresholds().Declared()
	if o.AttainmentPct < 0 || o.AttainmentPct > 100 || math.IsNaN(o.AttainmentPct) {
		bad("slo.attainment_pct: %v is not a share of requests between 0 and 100", o.AttainmentPct)
	}
	if o.AttainmentPct > 0 && !declared {
		bad("slo.attainment_pct: no threshold (ttft_ms, tpot_ms, e2el_ms) to attain")
	}
	if declared {
		return
	}
	use := func(where, metric string) {
		if sloMetrics[metric] {
			bad("%s: %s needs an SLO: declare slo.ttft_ms, slo.tpot_ms or slo.e2el_ms", where, metric)
		}
	}
	for _, n := range sortedKeys(s.Figures) {
		use("figures."+n+".metric", s.Figures[n].Metric)
	}
	for _, n := range sortedKeys(s.Comparisons) {
		use("comparisons."+n+".metric", s.Comparisons[n].Metric)
	}
}

// checkTexts validates languages, titles, summaries and narrative files.
// names are the spec's figure, comparison, sweep and node names, which
// labels may name.
func (s *Spec) checkTexts(hasText bool, names map[string]string, bad func(string, ...any)) {
	known := strings.Join(LanguageTags(), ", ")
	langs := map[string]bool{}
	for _, l := range s.Languages {
		switch {
		case !slices.Contains(LanguageTags(), l):
			bad("languages: unsupported language %q (supported: %s)", l, known)
		case langs[l]:
			bad("languages: %q is listed twice", l)
		}
		langs[l] = true
	}
	keys := func(field string, m map[string]string) {
		for _, l := range sortedKeys(m) {
			switch {
			case !slices.Contains(LanguageTags(), l):
				bad("%s.%s: unsupported language %q (supported: %s)", field, l, l, known)
			case !langs[l]:
				bad("%s.%s: %q is not in languages (%s)", field, l, l, strings.Join(s.Languages, ", "))
			case strings.TrimSpace(m[l]) == "":
				bad("%s.%s: empty", field, l)
			}
		}
	}
	keys("title", s.Title)
	keys("summary", s.Summary)
	keys("narrative", s.Narrative)
	for _, n := range sortedKeys(s.Labels) {
		_, named := names[n]
		_, sel := s.Runs[n]
		if v, ok := strings.CutPrefix(n, ValueLabel); ok {
			if strings.TrimSpace(v) == "" {
				bad("labels.%s: no recorded text after %q", n, ValueLabel)
			}
		} else if !named && !sel && !s.sweepParameter(n) {
			bad("labels.%s: no selection, figure, comparison, sweep, node or sweep parameter named %q", n, n)
		}
		keys("labels."+n, s.Labels[n])
	}
	if hasText {
		for _, l := range s.Languages {
			if _, ok := s.Title[l]; !ok && slices.Contains(LanguageTags(), l) {
				bad("title: no title for language %q", l)
			}
		}
	}
	for _, l := range sortedKeys(s.Narrative) {
		p := s.NarrativePath(l)
		if p == "" {
			continue
		}
		switch _, err := s.confined(s.Narrative[l]); {
		case errors.Is(err, os.ErrNotExist):
			bad("narrative.%s: file %s not found (looked for %s)", l, s.Narrative[l], p)
		case err != nil:
			bad("narrative.%s: %v", l, err)
		}
	}
}

// sweepParameter reports whether some sweep orders its runs by field.
func (s *Spec) sweepParameter(field string) bool {
	for _, sw := range s.Sweeps {
		if sw.Parameter == field {
			return true
		}
	}
	return false
}

// Label is the reader's name of a spec name in lang, or "" when the spec
// gives none.
func (s *Spec) Label(name, lang string) string { return s.Labels[name][lang] }

// ValueLabels lists the recorded texts the spec's labels translate
// ("value:TEXT" keys), sorted.
func (s *Spec) ValueLabels() []string {
	var out []string
	for _, n := range sortedKeys(s.Labels) {
		if v, ok := strings.CutPrefix(n, ValueLabel); ok {
			out = append(out, v)
		}
	}
	return out
}

// Metrics lists the metric names a spec may use by name (docs/metrics.md):
// figures.MetricNames. Any percentile of a latency family (e2el.p99.9) is
// accepted too.
func Metrics() []string { return figures.MetricNames() }

// KnownMetric reports whether a spec may name this metric: whether the
// catalogue of package figures reads it.
func KnownMetric(m string) bool {
	_, ok := figures.ParseMetric(m)
	return ok
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
