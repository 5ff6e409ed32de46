package report

import (
	"slices"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/locales"
)

// valuePart is one value of a methodology fact with the parts of the case
// study it holds for ("vLLM 0.25.1 (vllm/vllm-openai:v0.25.1)" — "scheduler
// tuning, saturation sweep").
type valuePart struct {
	Text, Where string
	// Lang is "en" for free text recorded in English on a page in another
	// language.
	Lang    string
	Unknown bool
	// Paren: Text ends in a parenthesis of its own pattern ("vLLM 0.25.1
	// (vllm/vllm-openai:v0.25.1)"), which the parts it holds for may join;
	// a recorded text's own parenthesis ("1,000 out (ignore_eos)") is not.
	Paren bool
}

// casePart is a part of the case study whose runs share a setup: a
// comparison, sweep or node, or a figure on runs no other part covers.
type casePart struct {
	label string
	runs  []runMeta
	// node is set for a node aggregate: its GPU count is the sum over the
	// replicas of one node run, not one replica's.
	node  bool
	nodes [][]runMeta
}

// caseParts lists the parts in report order (headline first); a part
// whose runs earlier parts already cover (the latency comparison on the
// throughput comparison's runs) is left out, so a fact names each part
// once.
func (b *builder) caseParts(l locales.Locale) []casePart {
	r, s := b.res, b.res.Spec
	covered := map[string]bool{}
	var out []casePart
	add := func(name string, ids []string, node bool, groups [][]string) {
		fresh := false
		var runs []runMeta
		for _, id := range ids {
			if m := b.meta(id); m != nil {
				runs = append(runs, *m)
				fresh = fresh || !covered[id]
			}
		}
		if !fresh {
			return
		}
		for _, id := range ids {
			covered[id] = true
		}
		p := casePart{label: b.label(l, name), runs: runs, node: node}
		for _, g := range groups {
			var rs []runMeta
			for _, id := range g {
				if m := b.meta(id); m != nil {
					rs = append(rs, *m)
				}
			}
			p.nodes = append(p.nodes, rs)
		}
		out = append(out, p)
	}
	for _, n := range b.order {
		switch {
		case r.Comparisons[n] != nil:
			c := r.Comparisons[n]
			add(n, append(slices.Clone(c.Baseline.Runs), c.Candidate.Runs...), false, nil)
		case r.Sweeps[n] != nil:
			add(n, r.Selections[s.Sweeps[n].Of], false, nil)
		case r.Nodes[n] != nil:
			var ids []string
			var groups [][]string
			for _, g := range s.Nodes[n].Groups {
				ids = append(ids, r.Selections[g]...)
				groups = append(groups, r.Selections[g])
			}
			add(n, ids, true, groups)
		default:
			if f, ok := r.Figures[n]; ok {
				add(n, f.Runs, false, nil)
			}
		}
	}
	return out
}

// fact states one fact per part: each distinct value once, with the parts
// it holds for when the parts differ ("1 GPU (comparison, sweep) / 8 GPUs
// (node)"); one value for all is shown alone.
func fact(l locales.Locale, label string, parts []casePart, value func(casePart) valuePart) item {
	it := item{Label: capFirst(label)} // a label starts its line: sentence case
	var vals []valuePart
	var where [][]string
	for _, p := range parts {
		v := value(p)
		i := slices.IndexFunc(vals, func(x valuePart) bool { return x.Text == v.Text })
		if i < 0 {
			vals, where = append(vals, v), append(where, nil)
			i = len(vals) - 1
		}
		where[i] = append(where[i], p.label)
	}
	if len(vals) == 1 {
		it.Value, it.Lang, it.Unknown = vals[0].Text, vals[0].Lang, vals[0].Unknown
		return it
	}
	it.Sep = l.T("method.part_sep")
	for i, v := range vals {
		v.Where = l.T("method.where", "where", l.List(where[i]))
		// A value that ends in its own parenthesis ("vLLM 0.25.1
		// (vllm/vllm-openai:v0.25.1)") takes the parts into it, after a
		// separator: one group, never two side by side.
		if open, close, ok := parenGroup(v.Where); ok && v.Paren && strings.HasSuffix(v.Text, close) && strings.Contains(v.Text, open) {
			v.Text = strings.TrimSuffix(v.Text, close)
			v.Where = l.T("method.where_inside", "where", l.List(where[i]))
		}
		it.Parts = append(it.Parts, v)
	}
	return it
}

// parenGroup reports whether where is a parenthesised group (ASCII or
// full-width), and its parentheses.
func parenGroup(where string) (open, close string, ok bool) {
	w := strings.TrimLeft(where, " ")
	for _, p := range [][2]string{{"(", ")"}, {"（", "）"}} {
		if strings.HasPrefix(w, p[0]) && strings.HasSuffix(w, p[1]) {
			return p[0], p[1], true
		}
	}
	return "", "", false
}

// fieldValue is a field's values over a part's runs (runsValue).
func (b *builder) fieldValue(l locales.Locale, field string) func(casePart) valuePart {
	return func(p casePart) valuePart { return b.runsValue(l, p.runs, field, "value.not_recorded") }
}

// runsValue is a field's distinct values over runs, in number order, in
// the page's language, with unknownKey's text for runs that do not record
// it (alone when none does); marked English when every value is free text
// recorded in English.
func (b *builder) runsValue(l locales.Locale, runs []runMeta, field, unknownKey string) valuePart {
	vals, missing := values(runs, field)
	if len(vals) == 0 {
		return valuePart{Text: l.T(unknownKey), Unknown: true}
	}
	texts := make([]string, 0, len(vals)+1)
	en := true
	for _, v := range vals {
		t, isEN := b.valueText(l, field, v)
		texts = append(texts, t)
		en = en && isEN
	}
	if missing {
		texts = append(texts, l.T(unknownKey))
	}
	v := valuePart{Text: l.List(texts)}
	if en && !missing {
		v.Lang = "en"
	}
	return v
}

// gpuCount is a part's GPU count: a node run's is the sum over its
// replicas.
func (b *builder) gpuCount(l locales.Locale) func(casePart) valuePart {
	per := b.fieldValue(l, "hardware.gpu_count")
	return func(p casePart) valuePart {
		if !p.node {
			return per(p)
		}
		var totals []string
		for _, g := range p.nodes {
			sum := 0
			for _, r := range g {
				n, err := strconv.Atoi(r.eff["hardware.gpu_count"])
				if err != nil {
					return per(p)
				}
				sum += n
			}
			if t := l.Number(float64(sum), 0); !slices.Contains(totals, t) {
				totals = append(totals, t)
			}
		}
		return valuePart{Text: l.List(totals)}
	}
}

// pairValue states each run's values of a few fields together, through
// the catalogue pattern key ("vLLM 0.25.1 (vllm/vllm-openai:v0.25.1)"),
// so a reader never has to pair a list of engines with a list of versions;
// a field a run does not record reads as missing[i].
func (b *builder) pairValue(l locales.Locale, key string, fields, names, missing []string) func(casePart) valuePart {
	return func(p casePart) valuePart {
		var texts []string
		for _, r := range p.runs {
			args := make([]any, 0, 2*len(fields))
			for i, f := range fields {
				v := r.eff[f]
				if v == "" {
					v = l.T(missing[i])
				} else {
					v, _ = b.valueText(l, f, v)
				}
				args = append(args, names[i], v)
			}
			if t := l.T(key, args...); !slices.Contains(texts, t) {
				texts = append(texts, t)
			}
		}
		return valuePart{Text: l.List(texts), Paren: len(texts) == 1}
	}
}

// methodology states the setup fact by fact, each paired with the parts
// of the case study it holds for (issue 18).
func (b *builder) methodology(l locales.Locale, p *page) {
	parts := b.caseParts(l)
	f := func(field string) item { return fact(l, l.FieldLabel(field), parts, b.fieldValue(l, field)) }
	p.Methodology = []group{
		{Title: l.T("method.hardware"), Items: []item{f("hardware.gpu_model"), fact(l, l.FieldLabel("hardware.gpu_count"), parts, b.gpuCount(l)),
			f("hardware.gpu_memory_gb"), f("hardware.node"), f("hardware.driver")}},
		{Title: l.T("method.runtime_image"), Items: []item{fact(l, l.T("method.runtime"), parts, b.pairValue(l, "method.runtime_value",
			[]string{"runtime.engine", "runtime.version", "runtime.image"}, []string{"engine", "version", "image"},
			[]string{"value.not_recorded", "value.version_not_recorded", "value.image_not_recorded"})), f("runtime.image_digest")}},
		{Title: l.T("method.checkpoint_revision"), Items: []item{f("checkpoint.repository"), f("checkpoint.revision")}},
		{Title: l.T("method.precision"), Items: []item{f("checkpoint.precision"), f("checkpoint.kv_cache_dtype")}},
		{Title: l.T("method.request_spec"), Items: []item{f("workload.dataset"), f("workload.input_len"), f("workload.output_len"),
			f("workload.fixed_output"), f("workload.request_count"), f("workload.concurrency"), f("workload.request_rate"),
			f("workload.temperature"), f("workload.thinking")}},
		{Title: l.T("method.measurement_definition"), Items: []item{fact(l, l.FieldLabel("measurement.client"), parts, b.pairValue(l, "method.client_value",
			[]string{"measurement.client", "measurement.client_version"}, []string{"client", "version"},
			[]string{"value.not_recorded", "value.version_not_recorded"}))}},
	}
	// Dates: the first and last measurement day.
	var days []string
	for _, r := range b.runs {
		if d := r.eff["measurement.date"]; len(d) >= 10 {
			days = append(days, d[:10])
		}
	}
	dates := group{Title: l.T("method.dates")}
	it := item{Label: l.T("method.dates")}
	if len(days) == 0 {
		it.Value, it.Unknown = l.T("value.not_recorded"), true
	} else {
		slices.Sort(days)
		first, err1 := l.DateString(days[0])
		last, err2 := l.DateString(days[len(days)-1])
		switch {
		case err1 != nil || err2 != nil:
			it.Value = days[0] + " – " + days[len(days)-1]
		case first == last:
			it.Value = first
		default:
			it.Value = first + " – " + last
		}
		if len(days) < len(b.runs) {
			it.Value += l.T("format.list_sep") + l.T("value.not_recorded")
		}
	}
	dates.Items = append(dates.Items, it)
	p.Methodology = append(p.Methodology, dates)
	p.Definitions = []string{l.T("method.throughput_definition")}
	if anyStated(b.res) {
		p.Definitions = append(p.Definitions, l.T("method.stated_definition"))
	}
	if len(b.res.Nodes) > 0 {
		p.Definitions = append(p.Definitions, l.T("method.node_definition"))
	}
}

// values lists the distinct values of a field over runs, in order, and
// whether some run does not record it.
func values(runs []runMeta, field string) (vals []string, missing bool) {
	seen := map[string]bool{}
	for _, r := range runs {
		v := r.eff[field]
		if v == "" {
			missing = true
			continue
		}
		if !seen[v] {
			seen[v] = true
			vals = append(vals, v)
		}
	}
	slices.SortFunc(vals, func(a, b string) int {
		x, e1 := strconv.ParseFloat(a, 64)
		y, e2 := strconv.ParseFloat(b, 64)
		if e1 == nil && e2 == nil {
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
		}
		return strings.Compare(a, b)
	})
	return vals, missing
}
