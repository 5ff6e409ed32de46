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
	return RunFiguresWith(ctx, a, idOrPrefix, Options{})
}

// RunFiguresWith is RunFigures with options: Options.SLO judges the run's
// requests (goodput, SLO attainment).
func RunFiguresWith(ctx context.Context, a Source, idOrPrefix string, opt Options) (*store.RunRecord, *figures.RunFigures, []caveat.Caveat, error) {
	ev := &evaluator{ctx: ctx, a: a, s: &spec.Spec{}, opt: opt, byID: map[string]*runInfo{}, used: map[string]bool{}}
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
	cf, _, err := compareRuns(ctx, a, baseline, candidate, metric, intended, opt)
	return cf, err
}

// compareRuns is CompareRuns, with the evaluator that holds both runs'
// figures.
func compareRuns(ctx context.Context, a Source, baseline, candidate, metric string, intended []string, opt Options) (*ComparisonFigure, *evaluator, error) {
	if !spec.KnownMetric(metric) {
		return nil, nil, fmt.Errorf("unknown metric %q (known: %v)", metric, spec.Metrics())
	}
	s := &spec.Spec{Runs: map[string]spec.Selector{}}
	ev := &evaluator{ctx: ctx, a: a, s: s, opt: opt, byID: map[string]*runInfo{}, used: map[string]bool{}, nodes: map[string]*NodeFigure{},
		res: &Result{Comparisons: map[string]*ComparisonFigure{}}}
	for _, side := range []string{baseline, candidate} {
		rec, err := a.RunMeta(side)
		if err != nil {
			return nil, nil, err
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
		return nil, nil, err
	}
	cf := ev.res.Comparisons["compare"]
	cf.Caveats = caveat.Sort(ev.cavs)
	return cf, ev, nil
}

// AllComparison is every metric two runs both have, compared (figures.
// CompareAll), with what was held fixed and what changed between them.
type AllComparison struct {
	Baseline  string                 `json:"baseline"`
	Candidate string                 `json:"candidate"`
	Metrics   []figures.MetricChange `json:"metrics"`
	// The provenance of the comparison, which holds for every metric.
	Intended          []string            `json:"intended"`
	IntendedUnchanged []string            `json:"intended_unchanged"`
	Fixed             []figures.FieldDiff `json:"fixed"`
	Changed           []figures.FieldDiff `json:"changed"`
	Unknown           []figures.FieldDiff `json:"unknown"`
	Absent            []string            `json:"absent"`
	Confounders       []figures.FieldDiff `json:"confounders"`
	// CaveatsOf names the metric whose comparison gave the caveats
	// (output_throughput, else the first of the Catalogue both runs have):
	// the caveats about the runs and their provenance hold for every row.
	CaveatsOf string          `json:"caveats_of"`
	Caveats   []caveat.Caveat `json:"caveats"`
}

// CompareAllRuns compares every metric of the Catalogue both archived runs
// have a value for (ids or unique prefixes).
func CompareAllRuns(ctx context.Context, a Source, baseline, candidate string, intended []string, opt Options) (*AllComparison, error) {
	var first *ComparisonFigure
	var ev *evaluator
	var firstErr error
	// output_throughput first: the caveats of the headline figure.
	names := append([]string{"output_throughput"}, figures.MetricNames()...)
	for _, name := range names {
		cf, e, err := compareRuns(ctx, a, baseline, candidate, name, intended, opt)
		if err == nil {
			first, ev = cf, e
			break
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if first == nil {
		return nil, fmt.Errorf("no metric both runs have: %w", firstErr)
	}
	bf, cf := ev.runs[0].figs, ev.runs[1].figs
	c := first.Comparison
	return &AllComparison{Baseline: c.Baseline.RunID, Candidate: c.Candidate.RunID, Metrics: figures.CompareAll(bf, cf),
		Intended: c.Intended, IntendedUnchanged: c.IntendedUnchanged, Fixed: c.Fixed, Changed: c.Changed, Unknown: c.Unknown,
		Absent: c.Absent, Confounders: c.Confounders, CaveatsOf: c.Metric, Caveats: first.Caveats}, nil
}
