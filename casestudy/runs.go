package casestudy

import (
	"context"
	"fmt"

	"github.com/benchledger/benchledger/caveat"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/spec"
	"github.com/benchledger/benchledger/store"
)

// RunFigures recomputes one archived run's figures from its records, with
// the caveats its own data raises.
func RunFigures(ctx context.Context, a Source, idOrPrefix string) (*store.RunRecord, *figures.RunFigures, []caveat.Caveat, error) {
	ev := &evaluator{ctx: ctx, a: a, s: &spec.Spec{}, byID: map[string]*runInfo{}, used: map[string]bool{}}
	rec, err := a.RunMeta(idOrPrefix)
	if err != nil {
		return nil, nil, nil, err
	}
	ri := &runInfo{rec: rec, eff: provenance.Record(rec.Provenance).Effective()}
	f, err := ev.figuresOf(ri)
	if err != nil {
		return rec, nil, nil, err
	}
	return rec, f, caveat.Sort(ev.cavs), nil
}

// CompareRuns compares one metric of two archived runs (ids or unique
// prefixes): the change, what was held fixed and what changed, the
// confounders beside the intended fields, and the caveats.
func CompareRuns(ctx context.Context, a Source, baseline, candidate, metric string, intended []string, opt Options) (*ComparisonFigure, error) {
	if !spec.KnownMetric(metric) {
		return nil, fmt.Errorf("unknown metric %q (known: %v)", metric, spec.Metrics())
	}
	s := &spec.Spec{Runs: map[string]spec.Selector{}}
	ev := &evaluator{ctx: ctx, a: a, s: s, opt: opt, byID: map[string]*runInfo{}, used: map[string]bool{}, nodes: map[string]*NodeFigure{},
		res: &Result{Comparisons: map[string]*ComparisonFigure{}}}
	for _, side := range []string{baseline, candidate} {
		rec, err := a.RunMeta(side)
		if err != nil {
			return nil, err
		}
		ri := &runInfo{rec: rec, eff: provenance.Record(rec.Provenance).Effective()}
		ev.runs = append(ev.runs, ri)
		ev.byID[rec.ID] = ri
		// A one-run selection by id: the same path as a spec's selections.
		s.Runs[rec.ID] = spec.Selector{"id": rec.ID}
		ri.eff["id"] = rec.ID
	}
	b, c := ev.runs[0].rec.ID, ev.runs[1].rec.ID
	if err := ev.comparison("compare", spec.Comparison{Baseline: b, Candidate: c, Metric: metric, Intended: intended}); err != nil {
		return nil, err
	}
	cf := ev.res.Comparisons["compare"]
	cf.Caveats = caveat.Sort(ev.cavs)
	return cf, nil
}
