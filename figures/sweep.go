package figures

import (
	"fmt"
	"math"
	"slices"
)

// SweepPoint is one run of a sweep over a load or server parameter.
type SweepPoint struct {
	RunID         string  `json:"run_id"`
	Param         float64 `json:"param"`          // the swept parameter's value (max concurrency, rate, ...)
	Throughput    float64 `json:"throughput"`     // output tok/s
	MedianLatency float64 `json:"median_latency"` // median E2E latency, s
}

// SaturationRule says when more load stops paying: a step that gains less
// than MaxGainPct throughput while median latency grows by at least
// MinLatencyGrowthPct.
type SaturationRule struct {
	MaxGainPct          float64 `json:"max_gain_pct"`
	MinLatencyGrowthPct float64 `json:"min_latency_growth_pct"`
}

// DefaultSaturationRule: under 2% more throughput for at least 20% more
// median latency. The published step (+0.91%, 20.04 s → 29.85 s = +49%)
// is well inside it; a noisy +3% or a +10% latency step is not.
var DefaultSaturationRule = SaturationRule{MaxGainPct: 2.0, MinLatencyGrowthPct: 20.0}

// SweepLevel is one parameter value of a sweep, its repeats combined
// conservatively: the lowest throughput and the highest median latency.
type SweepLevel struct {
	Param         float64  `json:"param"`
	Throughput    float64  `json:"throughput"`
	MedianLatency float64  `json:"median_latency"`
	RunIDs        []string `json:"run_ids"` // the runs at this value, in input order
	// ThroughputRun and LatencyRun are the runs the conservative values
	// came from.
	ThroughputRun string `json:"throughput_run"`
	LatencyRun    string `json:"latency_run"`
}

// N is the number of runs at this level.
func (l SweepLevel) N() int { return len(l.RunIDs) }

// SweepStep is the move from level From to level From+1.
type SweepStep struct {
	From              int     `json:"from"`
	To                int     `json:"to"` // indices into SweepResult.Levels
	ThroughputGainPct float64 `json:"throughput_gain_pct"`
	LatencyGrowthPct  float64 `json:"latency_growth_pct"`
	// Saturating: the step meets the rule (little gain, much more waiting).
	Saturating bool `json:"saturating"`
}

// SweepResult is a sweep's steps and its saturation point.
type SweepResult struct {
	Rule   SaturationRule `json:"rule"`
	Levels []SweepLevel   `json:"levels"` // ordered by Param
	Steps  []SweepStep    `json:"steps"`
	// Saturation is the index of the saturation point (the level whose next
	// step saturates), -1 when none was found.
	Saturation int `json:"saturation"`
	// Recommended is the recommended operating level: the saturation point
	// (the last level that still bought throughput), or the last level when
	// no saturation was found (SaturationFound false says so).
	Recommended     int  `json:"recommended"`
	SaturationFound bool `json:"saturation_found"`
}

// RecommendedLevel returns the recommended operating level.
func (s SweepResult) RecommendedLevel() SweepLevel { return s.Levels[s.Recommended] }

// Sweep orders points by Param, combines points with the same Param
// conservatively, computes each step's marginal throughput gain and median
// latency growth, and finds the first step that meets rule (the zero rule
// means DefaultSaturationRule).
func Sweep(points []SweepPoint, rule SaturationRule) (SweepResult, error) {
	if rule == (SaturationRule{}) {
		rule = DefaultSaturationRule
	}
	if len(points) == 0 {
		return SweepResult{}, fmt.Errorf("sweep: no points")
	}
	if !(rule.MaxGainPct >= 0) || !(rule.MinLatencyGrowthPct >= 0) {
		return SweepResult{}, fmt.Errorf("sweep: saturation rule %+v: thresholds must be ≥ 0", rule)
	}
	for _, p := range points {
		for _, v := range []float64{p.Param, p.Throughput, p.MedianLatency} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return SweepResult{}, fmt.Errorf("sweep: run %s has a missing value", p.RunID)
			}
		}
		if p.Throughput <= 0 || p.MedianLatency <= 0 {
			return SweepResult{}, fmt.Errorf("sweep: run %s: throughput and median latency must be positive", p.RunID)
		}
	}
	ps := slices.Clone(points)
	slices.SortStableFunc(ps, func(a, b SweepPoint) int {
		switch {
		case a.Param < b.Param:
			return -1
		case a.Param > b.Param:
			return 1
		}
		return 0
	})
	r := SweepResult{Rule: rule, Saturation: -1}
	for _, p := range ps {
		if n := len(r.Levels); n > 0 && r.Levels[n-1].Param == p.Param {
			l := &r.Levels[n-1]
			l.RunIDs = append(l.RunIDs, p.RunID)
			if p.Throughput < l.Throughput {
				l.Throughput, l.ThroughputRun = p.Throughput, p.RunID
			}
			if p.MedianLatency > l.MedianLatency {
				l.MedianLatency, l.LatencyRun = p.MedianLatency, p.RunID
			}
			continue
		}
		r.Levels = append(r.Levels, SweepLevel{Param: p.Param, Throughput: p.Throughput, MedianLatency: p.MedianLatency,
			RunIDs: []string{p.RunID}, ThroughputRun: p.RunID, LatencyRun: p.RunID})
	}
	for i := 0; i+1 < len(r.Levels); i++ {
		a, b := r.Levels[i], r.Levels[i+1]
		st := SweepStep{From: i, To: i + 1,
			ThroughputGainPct: (b.Throughput - a.Throughput) / a.Throughput * 100,
			LatencyGrowthPct:  (b.MedianLatency - a.MedianLatency) / a.MedianLatency * 100}
		st.Saturating = st.ThroughputGainPct < rule.MaxGainPct && st.LatencyGrowthPct >= rule.MinLatencyGrowthPct
		if st.Saturating && r.Saturation < 0 {
			r.Saturation = i
		}
		r.Steps = append(r.Steps, st)
	}
	r.SaturationFound = r.Saturation >= 0
	r.Recommended = len(r.Levels) - 1
	if r.SaturationFound {
		r.Recommended = r.Saturation
	}
	return r, nil
}
