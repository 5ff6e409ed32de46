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
	// GPUs serving the run (0: not stated); SLO the run's requests judged
	// against the case study's SLO (nil: no SLO declared).
	GPUs float64  `json:"gpus,omitempty"`
	SLO  *Goodput `json:"-"`
}

// SaturationRule says when more load stops paying: a step that gains less
// than MaxGainPct throughput while median latency grows by at least
// MinLatencyGrowthPct.
type SaturationRule struct {
	MaxGainPct          float64 `json:"max_gain_pct"`
	MinLatencyGrowthPct float64 `json:"min_latency_growth_pct"`
	// SLOAttainmentPct is the SLO attainment target (%) of the SLO
	// operating point (definition "sweep.slo_point"); 0: none.
	SLOAttainmentPct float64 `json:"slo_attainment_pct,omitempty"`
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
	// GPUs serving each run of the level (0: not stated, or the runs
	// disagree) and ThroughputPerGPU = Throughput / GPUs (nil without GPUs).
	GPUs             float64  `json:"gpus,omitempty"`
	ThroughputPerGPU *float64 `json:"throughput_per_gpu,omitempty"`
	// Goodput (req/s) and SLOAttainment (%) of the level, the lowest over
	// its runs; nil without an SLO or when the records cannot judge it.
	Goodput       *float64 `json:"goodput,omitempty"`
	SLOAttainment *float64 `json:"slo_attainment,omitempty"`
	// Cost is the estimated cost of a million output tokens at this level
	// (a case study with a price; casestudy sets it).
	Cost *CostEstimate `json:"cost,omitempty"`
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
	// SLOPoint is the SLO operating point (definition "sweep.slo_point"):
	// the highest level that, with every lower level, meets
	// Rule.SLOAttainmentPct; -1 when no level does or no target or SLO was
	// given (SLOPointFound false).
	SLOPoint      int  `json:"slo_point"`
	SLOPointFound bool `json:"slo_point_found"`
}

// RecommendedLevel returns the recommended operating level.
func (s SweepResult) RecommendedLevel() SweepLevel { return s.Levels[s.Recommended] }

// Sweep orders points by Param, combines points with the same Param
// conservatively, computes each step's marginal throughput gain and median
// latency growth, and finds the first step that meets rule (the zero rule
// means DefaultSaturationRule).
func Sweep(points []SweepPoint, rule SaturationRule) (SweepResult, error) {
	if rule.MaxGainPct == 0 && rule.MinLatencyGrowthPct == 0 {
		rule.MaxGainPct, rule.MinLatencyGrowthPct = DefaultSaturationRule.MaxGainPct, DefaultSaturationRule.MinLatencyGrowthPct
	}
	if len(points) == 0 {
		return SweepResult{}, fmt.Errorf("sweep: no points")
	}
	if !(rule.MaxGainPct >= 0) || !(rule.MinLatencyGrowthPct >= 0) || !(rule.SLOAttainmentPct >= 0 && rule.SLOAttainmentPct <= 100) {
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
	r := SweepResult{Rule: rule, Saturation: -1, SLOPoint: -1}
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
			if l.GPUs != p.GPUs {
				l.GPUs = 0
			}
			l.Goodput = lowest(l.Goodput, p.SLO, func(g *Goodput) float64 { return g.Goodput })
			l.SLOAttainment = lowest(l.SLOAttainment, p.SLO, func(g *Goodput) float64 { return g.Attainment })
			continue
		}
		r.Levels = append(r.Levels, SweepLevel{Param: p.Param, Throughput: p.Throughput, MedianLatency: p.MedianLatency,
			RunIDs: []string{p.RunID}, ThroughputRun: p.RunID, LatencyRun: p.RunID, GPUs: p.GPUs,
			Goodput:       lowest(nil, p.SLO, func(g *Goodput) float64 { return g.Goodput }),
			SLOAttainment: lowest(nil, p.SLO, func(g *Goodput) float64 { return g.Attainment })})
	}
	for i := range r.Levels {
		l := &r.Levels[i]
		if l.GPUs > 0 {
			v := l.Throughput / l.GPUs
			l.ThroughputPerGPU = &v
		}
		if len(l.RunIDs) > 1 && !allJudged(ps, l.Param) {
			l.Goodput, l.SLOAttainment = nil, nil // a run of the level could not be judged
		}
	}
	r.sloPoint()
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

// lowest keeps the lower of a level's value so far (nil: none yet) and the
// value of a run's SLO judgement; nil when the run has none.
func lowest(cur *float64, g *Goodput, of func(*Goodput) float64) *float64 {
	if g == nil || !g.Recomputable() {
		return cur
	}
	v := of(g)
	if cur != nil && *cur <= v {
		return cur
	}
	return &v
}

// allJudged reports whether every point at param had its SLO judged.
func allJudged(ps []SweepPoint, param float64) bool {
	for _, p := range ps {
		if p.Param == param && (p.SLO == nil || !p.SLO.Recomputable()) {
			return false
		}
	}
	return true
}

// sloPoint finds the SLO operating point: the highest level that, with
// every lower level, meets the attainment target.
func (r *SweepResult) sloPoint() {
	if r.Rule.SLOAttainmentPct <= 0 {
		return
	}
	for i, l := range r.Levels {
		if l.SLOAttainment == nil || *l.SLOAttainment < r.Rule.SLOAttainmentPct {
			break
		}
		r.SLOPoint = i
	}
	r.SLOPointFound = r.SLOPoint >= 0
}
