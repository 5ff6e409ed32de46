package casestudy

import (
	"context"
	"fmt"

	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/spec"
	"github.com/benchledger/benchledger/store"
)

// Trends reads the runs a filter picks, their metric recomputed from their
// records (a summary-only run: its tool's stated value), and groups them
// into series of one configuration judged by rule (figures.Trends;
// docs/metrics.md, "Trends"). The site draws them.
func Trends(ctx context.Context, a Source, f store.Filter, metric string, rule figures.TrendRule) ([]figures.TrendSeries, error) {
	m, ok := figures.ParseMetric(metric)
	if !ok {
		return nil, fmt.Errorf("unknown metric %q (known: %v)", metric, spec.Metrics())
	}
	list, err := a.ListRuns(f)
	if err != nil {
		return nil, err
	}
	var runs []figures.TrendRun
	for _, sum := range list {
		rec, figs, _, err := RunFigures(ctx, a, sum.ID)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", sum.ID, err)
		}
		eff := provenance.Record(rec.Provenance).Effective()
		runs = append(runs, figures.TrendRun{RunID: rec.ID, Date: eff["measurement.date"], EngineVersion: eff["runtime.version"],
			Value: m.Of(figs), Provenance: eff})
	}
	return figures.Trends(runs, metric, rule), nil
}
