package casestudy

import (
	"fmt"
	"math"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

// RunReader reads an archived run and its per-request records (report's
// Source, *store.Archive).
type RunReader interface {
	RunMeta(idOrPrefix string) (*store.RunRecord, error)
	Requests(runID string) ([]benchrun.Request, error)
}

// ChartRun is one run as the charts of a report plot it: its records and
// the figures recomputed from them (a summary-only run: its tool's stated
// figures, and no records).
type ChartRun struct {
	ID       string
	Eff      map[string]string
	Requests []benchrun.Request
	Figures  figures.RunFigures
}

// LoadChartRun reads a run and computes its figures by the definitions the
// evaluation uses (figures.RecomputeRun, figures.FromStated).
func LoadChartRun(src RunReader, id string) (*ChartRun, error) {
	rec, err := src.RunMeta(id)
	if err != nil {
		return nil, err
	}
	cr := &ChartRun{ID: rec.ID, Eff: provenance.Record(rec.Provenance).Effective()}
	if !rec.Run.HasRequests {
		cr.Figures = figures.FromStated(rec.Run)
		return cr, nil
	}
	if cr.Requests, err = src.Requests(rec.ID); err != nil {
		return nil, err
	}
	cr.Figures = figures.RecomputeRun(rec.Run, cr.Requests, cr.Eff)
	return cr, nil
}

// GPUs is the run's hardware.gpu_count (figures.GPUsOf); an error when it
// is not recorded as a positive number (a per-GPU rate needs it).
func (r *ChartRun) GPUs() (float64, error) {
	n := figures.GPUsOf(r.Eff)
	if n == 0 {
		return 0, fmt.Errorf("run %s: hardware.gpu_count %q is not a positive number: per-GPU throughput needs it", r.ID, r.Eff["hardware.gpu_count"])
	}
	return n, nil
}

// TradeOffPoint is the run's point on the trade-off curve
// (figures.PerGPU of its output throughput, figures.PerUserRate).
func (r *ChartRun) TradeOffPoint() (figures.TradeOffPoint, error) {
	gpus, err := r.GPUs()
	if err != nil {
		return figures.TradeOffPoint{}, err
	}
	p := figures.TradeOffPoint{RunIDs: []string{r.ID}, PerGPU: figures.PerGPU(r.Figures.OutputThroughput, gpus), PerUser: figures.PerUserRate(&r.Figures)}
	if math.IsNaN(p.PerGPU) || math.IsNaN(p.PerUser) {
		return p, fmt.Errorf("run %s: no output throughput or TPOT for the trade-off curve", r.ID)
	}
	return p, nil
}

// TradeOffOfSweep is a sweep's trade-off curve: one point per level, its
// repeats combined conservatively as the sweep combines them (the lowest
// per-GPU and the lowest per-user rate of the level's runs), labelled with
// the parameter's value by param; the frontier marked. chosen is the
// index of the sweep's recommended level (SweepResult.Recommended).
func TradeOffOfSweep(sw *SweepFigure, runs map[string]*ChartRun, param func(float64) string) (pts []figures.TradeOffPoint, chosen int, err error) {
	for _, lv := range sw.Result.Levels {
		p := figures.TradeOffPoint{Label: param(lv.Param), RunIDs: lv.RunIDs, PerGPU: math.Inf(1), PerUser: math.Inf(1)}
		for _, id := range lv.RunIDs {
			r := runs[id]
			if r == nil {
				return nil, 0, fmt.Errorf("sweep %s: run %s not loaded", sw.Name, id)
			}
			q, err := r.TradeOffPoint()
			if err != nil {
				return nil, 0, fmt.Errorf("sweep %s: %w", sw.Name, err)
			}
			p.PerGPU, p.PerUser = math.Min(p.PerGPU, q.PerGPU), math.Min(p.PerUser, q.PerUser)
		}
		pts = append(pts, p)
	}
	if err := figures.MarkFrontier(pts); err != nil {
		return nil, 0, fmt.Errorf("sweep %s: %w", sw.Name, err)
	}
	return pts, sw.Result.Recommended, nil
}

// TradeOffOfRuns is the trade-off curve of a set of runs, one point per
// run (in the given order, labelled by label), the frontier marked.
func TradeOffOfRuns(runs []*ChartRun, label func(id string) string) ([]figures.TradeOffPoint, error) {
	pts := make([]figures.TradeOffPoint, 0, len(runs))
	for _, r := range runs {
		p, err := r.TradeOffPoint()
		if err != nil {
			return nil, err
		}
		p.Label = label(r.ID)
		pts = append(pts, p)
	}
	if err := figures.MarkFrontier(pts); err != nil {
		return nil, err
	}
	return pts, nil
}

// Distribution is one run's distribution of a per-request latency metric
// (ttft, tpot or e2el): its empirical CDF (figures.ECDF, at most
// figures.MaxCDFPoints points) and its percentiles as the figures state
// them (figures.Percentiles by the run's percentile method).
type Distribution struct {
	RunID       string
	Metric      string
	CDF         []figures.CDFPoint
	Percentiles []float64           // in the order of RunFigures.Percentiles
	Values      map[float64]float64 // percentile → value
}

// DistributionOf is the run's distribution of metric; an error when the
// run has no per-request values of it (a summary-only run).
func (r *ChartRun) DistributionOf(metric string) (Distribution, error) {
	st, ok := r.Figures.StatOf(metric)
	if !ok {
		return Distribution{}, fmt.Errorf("run %s: %q is not a per-request latency metric", r.ID, metric)
	}
	vals := st.Values()
	if len(vals) == 0 {
		return Distribution{}, fmt.Errorf("run %s: no per-request %s values to draw", r.ID, metric)
	}
	d := Distribution{RunID: r.ID, Metric: metric, CDF: figures.ECDF(vals, figures.MaxCDFPoints), Values: map[float64]float64{}}
	for _, p := range r.Figures.Percentiles {
		if v, ok := st.P[p]; ok {
			d.Percentiles = append(d.Percentiles, p)
			d.Values[p] = v
		}
	}
	return d, nil
}

// InputPoint is one completed request's input length and TTFT.
type InputPoint struct {
	InputTokens int
	TTFT        float64
}

// MaxInputPoints bounds the requests TTFTByInput returns.
const MaxInputPoints = 1000

// TTFTByInput is each completed request's TTFT against its input length,
// every k-th request when there are more than MaxInputPoints (k returned);
// varies says whether the input lengths differ at all (when they do not,
// the chart would be one column).
func (r *ChartRun) TTFTByInput() (pts []InputPoint, k int, varies bool) {
	var all []InputPoint
	for i := range r.Requests {
		q := &r.Requests[i]
		if q.Failed() || q.InputTokens < 0 || !benchrun.IsKnown(q.TTFT) {
			continue
		}
		if len(all) > 0 && int(q.InputTokens) != all[0].InputTokens {
			varies = true
		}
		all = append(all, InputPoint{InputTokens: int(q.InputTokens), TTFT: q.TTFT})
	}
	k = max(1, (len(all)+MaxInputPoints-1)/MaxInputPoints)
	for i := 0; i < len(all); i += k {
		pts = append(pts, all[i])
	}
	return pts, k, varies
}
