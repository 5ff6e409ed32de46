package figures

import (
	"fmt"
	"math"
)

// TradeOffPoint is one configuration on the throughput/interactivity
// trade-off curve (docs/metrics.md, "Trade-off curve"): what the server
// delivers per GPU against what each user sees.
type TradeOffPoint struct {
	// Label names the point for readers (a sweep's parameter value, a
	// configuration); RunIDs are the runs behind it.
	Label  string   `json:"label"`
	RunIDs []string `json:"run_ids"`
	// PerGPU is output tok/s per GPU: the output throughput over the
	// number of GPUs the run used (hardware.gpu_count).
	PerGPU float64 `json:"per_gpu"`
	// PerUser is output tok/s per user: 1 / mean TPOT, the decode speed a
	// user sees once the first token arrived.
	PerUser float64 `json:"per_user"`
	// Frontier is set when no other point is at least as good on both
	// axes and better on one (Pareto-optimal).
	Frontier bool `json:"frontier"`
}

// PerUserRate is the per-user output rate of a run in tok/s: 1 / mean TPOT
// (TPOT over the completed requests with more than one output token);
// NaN when the run has no TPOT.
func PerUserRate(f *RunFigures) float64 {
	if f.TPOT.N == 0 || !(f.TPOT.Mean > 0) {
		return math.NaN()
	}
	return 1 / f.TPOT.Mean
}

// Dominates reports whether a is at least as good as b on both axes and
// better on one: higher per-GPU and per-user rates are better.
func Dominates(a, b TradeOffPoint) bool {
	return a.PerGPU >= b.PerGPU && a.PerUser >= b.PerUser && (a.PerGPU > b.PerGPU || a.PerUser > b.PerUser)
}

// MarkFrontier sets Frontier on every point no other point dominates. A
// point with a missing value is an error: it could neither be dominated
// nor dominate honestly.
func MarkFrontier(pts []TradeOffPoint) error {
	for _, p := range pts {
		if math.IsNaN(p.PerGPU) || math.IsNaN(p.PerUser) || math.IsInf(p.PerGPU, 0) || math.IsInf(p.PerUser, 0) {
			return fmt.Errorf("trade-off point %s: per-GPU %v, per-user %v: both must be numbers", p.Label, p.PerGPU, p.PerUser)
		}
	}
	for i := range pts {
		pts[i].Frontier = true
		for j := range pts {
			if i != j && Dominates(pts[j], pts[i]) {
				pts[i].Frontier = false
				break
			}
		}
	}
	return nil
}
