package report

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/caveat"
	"github.com/benchledger/benchledger/locales"
)

// caveatGroup gathers caveats that differ only in what they are about
// ("measured once": the baseline, the tuned run, ...) so that the page
// says it once, naming all of them (issue 18: caveats read as caveats).
type caveatGroup struct {
	key   string
	args  []any
	items []string
	// order, when set, sorts items by it (output lengths by number, not
	// by their text).
	order []float64
}

// limitations lists the case study's caveats as sentences: caveats of one
// kind become one sentence naming what they concern; a confounder the
// results table already shows beside its comparison is not said again.
func (b *builder) limitations(l locales.Locale, p *page) error {
	shown := map[string]string{} // caveat key -> comparison shown in the table with it
	for _, row := range p.Comparisons {
		for _, c := range b.res.Comparisons[row.Name].Caveats {
			shown[c.Key()] = row.Name
		}
		// The reference's dates and visibility are beside the row.
		if row.Ref != nil {
			for _, c := range b.res.Caveats {
				if id := c.Params["id"]; (c.Code == caveat.CodeReferenceNotVisible || c.Code == caveat.CodeReferenceStale) && refOf(b.res.Comparisons[row.Name]) == id {
					shown[c.Key()] = row.Name
				}
			}
		}
	}
	of := map[string]string{} // caveat key -> comparison it comes from
	for _, n := range slices.Sorted(maps.Keys(b.res.Comparisons)) {
		for _, c := range b.res.Comparisons[n].Caveats {
			if _, ok := of[c.Key()]; !ok {
				of[c.Key()] = n
			}
		}
	}
	var out []any // string or *caveatGroup, in caveat order
	groups := map[string]*caveatGroup{}
	join := func(gk, key string, args []any, item string) {
		g := groups[gk]
		if g == nil {
			g = &caveatGroup{key: key, args: args}
			groups[gk] = g
			out = append(out, g)
		}
		if !slices.Contains(g.items, item) {
			g.items = append(g.items, item)
		}
	}
	for _, c := range b.res.Caveats {
		k := c.Key()
		c = c.Redact(b.red)
		switch c.Code {
		case caveat.CodeSingleMeasurement:
			join(c.Code, "caveat_group.single_measurement", nil, b.label(l, c.Params["run"]))
			continue
		case caveat.CodeTooFewSamples:
			gk := strings.Join([]string{c.Code, c.Params["n"], c.Params["need"], c.Params["purpose"]}, "|")
			n, _ := strconv.Atoi(c.Params["n"])
			need, _ := strconv.Atoi(c.Params["need"])
			join(gk, "caveat_group.too_few_samples", []any{"n", n, "need", need}, b.label(l, c.Params["figure"]))
			continue
		case caveat.CodeFixedOutputLength:
			if v, err := strconv.ParseFloat(c.Params["output_len"], 64); err == nil {
				if g := groups[c.Code]; g == nil || !slices.Contains(g.order, v) {
					join(c.Code, "caveat_group.fixed_output_length", nil, l.Number(v, -1))
					groups[c.Code].order = append(groups[c.Code].order, v)
				}
				continue
			}
		case caveat.CodeFixedUnverified:
			if cmp := of[k]; cmp != "" && (c.Params["baseline"] == "") != (c.Params["candidate"] == "") {
				side := "caveat_group.side.candidate"
				if c.Params["baseline"] == "" {
					side = "caveat_group.side.baseline"
					if b.res.Comparisons[cmp].Comparison.Baseline.IsReference() {
						side = "caveat_group.side.reference"
					}
				}
				join(c.Code+"|"+cmp+"|"+side, "caveat_group.held_fixed_unverified",
					[]any{"comparison", b.label(l, cmp), "side", l.T(side)}, l.FieldLabel(c.Params["field"]))
				continue
			}
		case caveat.CodeReferenceNotVisible, caveat.CodeReferenceStale:
			if shown[k] != "" {
				continue
			}
		case caveat.CodeHardwareDiffers, caveat.CodeRuntimeDiffers, caveat.CodeCheckpointDiffers, caveat.CodePrecisionDiffers,
			caveat.CodeRequestSpecDiffers, caveat.CodeRequestCountDiffers, caveat.CodeLoadModeDiffers, caveat.CodeLoadDiffers,
			caveat.CodeClientDiffers, caveat.CodeConfounder:
			if shown[k] != "" {
				continue
			}
		}
		s, err := l.Caveat(b.readable(l, c))
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		if !slices.Contains(out, any(s)) {
			out = append(out, s)
		}
	}
	for _, o := range out {
		switch v := o.(type) {
		case string:
			p.Limitations = append(p.Limitations, v)
		case *caveatGroup:
			if len(v.order) == len(v.items) {
				idx := make([]int, len(v.items))
				for i := range idx {
					idx[i] = i
				}
				slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(v.order[a], v.order[b]) })
				sorted := make([]string, len(idx))
				for i, j := range idx {
					sorted[i] = v.items[j]
				}
				v.items = sorted
			}
			items := l.List(v.items)
			if len(v.items) == 2 {
				items = l.T("format.either", "a", v.items[0], "b", v.items[1])
				if v.key != "caveat_group.fixed_output_length" {
					items = l.T("caveat_group.pair", "a", v.items[0], "b", v.items[1])
				}
			}
			p.Limitations = append(p.Limitations, l.T(v.key, append(slices.Clone(v.args), "items", items)...))
		}
	}
	return nil
}

// readable replaces a caveat's machine names by readers' names: a figure
// or run by its label, an external reference's id by its title.
func (b *builder) readable(l locales.Locale, c caveat.Caveat) caveat.Caveat {
	out := caveat.Caveat{Code: c.Code, Params: maps.Clone(c.Params)}
	if f, ok := out.Params["figure"]; ok {
		out.Params["figure"] = b.label(l, f)
	}
	if r, ok := out.Params["run"]; ok {
		out.Params["run"] = b.label(l, r)
	}
	if id, ok := out.Params["id"]; ok {
		for _, cf := range b.res.Comparisons {
			if ref := cf.Comparison.Baseline.Reference; ref != nil && ref.ID == id && ref.Title != "" {
				out.Params["id"] = ref.Title
			}
			if ref := cf.Comparison.Candidate.Reference; ref != nil && ref.ID == id && ref.Title != "" {
				out.Params["id"] = ref.Title
			}
		}
	}
	return out
}

// refOf is the id of a comparison's external reference, or "".
func refOf(cf *casestudy.ComparisonFigure) string {
	if r := cf.Comparison.Baseline.Reference; r != nil {
		return r.ID
	}
	if r := cf.Comparison.Candidate.Reference; r != nil {
		return r.ID
	}
	return ""
}
