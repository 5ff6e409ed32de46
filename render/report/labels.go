package report

import (
	"fmt"
	htmltemplate "html/template"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/figures"

	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/spec"
)

// label is the reader's name of a spec name (selection, figure,
// comparison, sweep, node, sweep parameter) in l's language: the spec's
// label, else a description generated from what the name is — never the
// name itself (issue 18: no machine identifiers for readers).
func (b *builder) label(l locales.Locale, name string) string {
	s := b.res.Spec
	if t := s.Label(name, l.Texts()); t != "" {
		return t
	}
	if c, ok := s.Comparisons[name]; ok {
		return l.T("label.comparison", "baseline", b.sideLabel(l, c.Baseline), "candidate", b.sideLabel(l, c.Candidate))
	}
	if f, ok := s.Figures[name]; ok {
		return l.T("label.figure", "metric", l.Figure(f.Metric), "of", b.label(l, f.Of))
	}
	if sw, ok := s.Sweeps[name]; ok {
		return l.T("label.sweep", "parameter", b.paramLabel(l, sw.Parameter))
	}
	if nd, ok := s.Nodes[name]; ok {
		if len(nd.Groups) == 1 {
			return capFirst(l.Term("node"))
		}
		return l.T("label.node_runs", "count", len(nd.Groups))
	}
	if _, ok := s.Runs[name]; ok {
		return b.selectionLabel(l, name)
	}
	if slices.ContainsFunc(b.sweepParams(), func(p string) bool { return p == name }) {
		return b.paramLabel(l, name)
	}
	// A run id (a latency chart, a caveat's run).
	return b.runLabel(l, name)
}

func (b *builder) sweepParams() []string {
	var out []string
	for _, sw := range b.res.Spec.Sweeps {
		out = append(out, sw.Parameter)
	}
	return out
}

// Labeller names a case study's spec names — selections, comparisons,
// figures, comparison sides ("node:NAME", "ref:ID") — for readers in a
// language, as its report does (label): pages made outside the report (the
// site's comparison pages) say the same. roles are the runs' roles by id:
// a selection without a label is named by its runs' common role.
func Labeller(res *casestudy.Result, roles map[string]string) func(l locales.Locale, name string) string {
	b := &builder{res: res}
	for _, id := range res.RunIDs {
		b.runs = append(b.runs, runMeta{id: id, eff: map[string]string{"role": roles[id]}})
	}
	return b.sideLabel
}

// sideLabel names a comparison side: a selection, "node:NAME" or an
// external reference "ref:ID".
func (b *builder) sideLabel(l locales.Locale, side string) string {
	if n, ok := strings.CutPrefix(side, "node:"); ok {
		return b.label(l, n)
	}
	if strings.HasPrefix(side, "ref:") {
		return l.Term("external_reference")
	}
	return b.label(l, side)
}

// selectionLabel describes a selection without a label: the glossary term
// of its name or of its runs' common role (baseline, tuned), else its runs.
func (b *builder) selectionLabel(l locales.Locale, name string) string {
	if l.HasTerm(name) {
		return capFirst(l.Term(name))
	}
	ids := b.res.Selections[name]
	role := ""
	for i, id := range ids {
		r := b.meta(id)
		if r == nil || (i > 0 && r.eff["role"] != role) {
			role = ""
			break
		}
		role = r.eff["role"]
	}
	if role != "" && l.HasTerm(role) {
		return capFirst(l.Term(role))
	}
	if len(ids) == 1 {
		return l.T("label.run", "id", ids[0])
	}
	return l.T("label.runs", "count", len(ids))
}

// runLabel names a run by the smallest selection holding it (so a sweep
// point is named by its sweep's selection only when nothing narrower
// holds it), with its id; a run no selection holds is "run <id>".
func (b *builder) runLabel(l locales.Locale, id string) string {
	if sel := b.selectionOf(id); sel != "" {
		if len(b.res.Selections[sel]) == 1 {
			return b.label(l, sel)
		}
		return l.T("label.run_of", "of", b.label(l, sel), "id", id)
	}
	return l.T("label.run", "id", id)
}

// selectionOf is the smallest selection (then first by name) holding the
// run; "" when none does.
func (b *builder) selectionOf(id string) string {
	best := ""
	for _, n := range slices.Sorted(maps.Keys(b.res.Selections)) {
		ids := b.res.Selections[n]
		if slices.Contains(ids, id) && (best == "" || len(ids) < len(b.res.Selections[best])) {
			best = n
		}
	}
	return best
}

// paramLabel names a sweep's parameter field: the spec's label, the
// catalogue's field label, or "sweep parameter".
func (b *builder) paramLabel(l locales.Locale, field string) string {
	if t := b.res.Spec.Label(field, l.Texts()); t != "" {
		return t
	}
	if t := l.FieldLabel(field); t != field {
		return t
	}
	return l.T("label.sweep_parameter")
}

func (b *builder) meta(id string) *runMeta {
	for i := range b.runs {
		if b.runs[i].id == id {
			return &b.runs[i]
		}
	}
	return nil
}

// valueText is casestudy.ValueText of the case study's spec: a recorded
// value in the page's language, or marked English.
func (b *builder) valueText(l locales.Locale, field, v string) (string, bool) {
	return casestudy.ValueText(b.res.Spec, l, field, v)
}

// freeTextSpan is a recorded free-text value (a reference's title, a
// confounder's values) as a span of a phrase: the spec's label in the
// page's language, else the text as recorded, marked English on a page in
// another language.
func (b *builder) freeTextSpan(l locales.Locale, v string) span {
	if t := b.res.Spec.Label(spec.ValueLabel+v, l.Texts()); t != "" {
		return span{Text: t}
	}
	if l.Tag() != "en" && v != "" {
		return span{Text: v, Lang: "en"}
	}
	return span{Text: v}
}

// checkValueLabels: every "value:TEXT" label of the spec quotes a text the
// case study's runs or references record (before redaction), so a
// misspelt key is an error and not a translation that never shows.
func (b *builder) checkValueLabels(recorded map[string]bool) error {
	var bad []string
	for _, v := range b.res.Spec.ValueLabels() {
		if !recorded[v] {
			bad = append(bad, strconv.Quote(spec.ValueLabel+v))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("report: labels %s: no run or external reference of the case study records this text (a label of a recorded value quotes it exactly)", strings.Join(bad, ", "))
	}
	return nil
}

// recordedTexts are the free-text values the case study's runs (raw
// provenance) and external references record: what "value:" labels may
// translate.
func recordedTexts(raw []map[string]string, refs []*figures.ExternalReference) map[string]bool {
	out := map[string]bool{}
	for _, eff := range raw {
		for f, v := range eff {
			if v != "" && locales.FreeTextField(f) {
				out[v] = true
			}
		}
	}
	for _, r := range refs {
		if r.Title != "" {
			out[r.Title] = true
		}
		for _, v := range r.Provenance {
			out[v] = true
		}
	}
	return out
}

// span is a piece of a phrase; Lang is "en" for text recorded in English
// on a page in another language.
type span struct{ Text, Lang string }

// phrase is a text some of whose pieces are recorded free text: the HTML
// marks those with their language, the Markdown shows the plain text.
type phrase []span

func (p phrase) String() string {
	var sb strings.Builder
	for _, s := range p {
		sb.WriteString(s.Text)
	}
	return sb.String()
}

// HTML is the phrase escaped, with lang="en" around English pieces.
func (p phrase) HTML() htmltemplate.HTML {
	var sb strings.Builder
	for _, s := range p {
		if s.Lang != "" {
			sb.WriteString(`<span lang="` + htmltemplate.HTMLEscapeString(s.Lang) + `">` + htmltemplate.HTMLEscapeString(s.Text) + `</span>`)
		} else {
			sb.WriteString(htmltemplate.HTMLEscapeString(s.Text))
		}
	}
	return htmltemplate.HTML(sb.String())
}

// layoutLatencySelection names the selection of a "latency:SELECTION"
// layout entry that picked the run, or "".
func (b *builder) layoutLatencySelection(id string) string {
	for _, c := range b.res.Spec.Layout.Charts {
		if sel, ok := strings.CutPrefix(c, spec.LatencyChart); ok && slices.Contains(b.res.Selections[sel], id) {
			return sel
		}
	}
	return ""
}

// configLabel names a configuration of the reproduce section (runs of one
// group or role): the selection holding exactly those runs, else the
// smallest holding them all, else their count.
func (b *builder) configLabel(l locales.Locale, runs []runMeta) string {
	ids := make([]string, 0, len(runs))
	for _, r := range runs {
		ids = append(ids, r.id)
	}
	slices.Sort(ids)
	best := ""
	for _, n := range slices.Sorted(maps.Keys(b.res.Selections)) {
		sel := b.res.Selections[n]
		if !containsAll(sel, ids) {
			continue
		}
		if len(sel) == len(ids) {
			return b.label(l, n)
		}
		if best == "" || len(sel) < len(b.res.Selections[best]) {
			best = n
		}
	}
	if best != "" {
		return b.label(l, best)
	}
	if len(ids) == 1 {
		return l.T("label.run", "id", ids[0])
	}
	return l.T("label.runs", "count", len(ids))
}

func containsAll(set, ids []string) bool {
	for _, id := range ids {
		if !slices.Contains(set, id) {
			return false
		}
	}
	return true
}

// refNote says where an external reference compared on the page comes
// from and when it was captured and re-checked (issue 18: trust signals
// where the figure is compared, not only on the audit page).
type refNote struct {
	Text phrase
	URL  string
}

func (b *builder) refNoteOf(l locales.Locale, c *figures.Comparison) *refNote {
	r := c.Baseline.Reference
	if r == nil {
		r = c.Candidate.Reference
	}
	if r == nil {
		return nil
	}
	day := func(t time.Time) string {
		if t.IsZero() {
			return l.T("value.not_recorded")
		}
		return l.Date(t)
	}
	state := "ref.still_shown"
	if !r.Visible {
		state = "ref.no_longer_shown"
	}
	title := span{Text: capFirst(l.Term("external_reference"))}
	if r.Title != "" {
		title = b.freeTextSpan(l, r.Title)
	}
	// The catalogue's sentence around the title, which may stay English.
	before, after, _ := strings.Cut(l.T("ref.note", "title", "\x00", "captured", day(r.Captured), "checked", day(r.Checked), "state", l.T(state)), "\x00")
	return &refNote{URL: r.Source, Text: phrase{{Text: before}, title, {Text: after}}}
}
