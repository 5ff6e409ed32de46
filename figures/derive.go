package figures

import (
	"strings"

	"github.com/benchledger/benchledger/benchrun"
)

// Derived is what the checks and the views of one run compute from it,
// computed once by Derive: its effective provenance, its figures
// recomputed from its records (nil without records), its stated figures
// checked against them, and those no run can have produced
// (ImpossibleStated).
type Derived struct {
	Effective  map[string]string `json:"effective"`
	Figures    *RunFigures       `json:"figures"`
	Stated     StatedAudit       `json:"stated"`
	Impossible []Impossible      `json:"impossible,omitempty"`
}

// Derive computes a run's Derived from its records reqs (the run's own, or
// streamed by the caller) and its effective provenance eff.
func Derive(r *benchrun.Run, reqs []benchrun.Request, eff map[string]string) *Derived {
	var f *RunFigures
	if r.HasRequests && len(reqs) > 0 {
		rf := RecomputeRun(r, reqs, eff)
		f = &rf
	}
	return DeriveWith(r, f, eff)
}

// DeriveWith is Derive from figures already recomputed from the run's
// records (RecomputeRun, or a RunRecomputer the records were streamed
// through); f is nil when the run has no records.
func DeriveWith(r *benchrun.Run, f *RunFigures, eff map[string]string) *Derived {
	d := &Derived{Effective: eff, Figures: f, Impossible: ImpossibleStated(r)}
	if f != nil {
		d.Stated = CheckStated(r.Stated, *f, StatedOptionsOf(r))
	}
	return d
}

// StatedOptionsOf says how a run's source printed its figures: a console
// block rounds to two decimals; JSON keeps full precision.
func StatedOptionsOf(r *benchrun.Run) StatedOptions {
	o := StatedOptions{SourceMethod: r.PercentileMethod, DurationIsWindow: durationIsWindow(r.Format), Tool: DefinitionsOfRun(r)}
	if tt := r.ToolTimes; tt != nil && tt.Latency != nil && len(tt.Latency) == len(r.Requests) {
		for i := range r.Requests {
			if !r.Requests[i].Failed() && benchrun.IsKnown(tt.Latency[i]) {
				o.ToolE2E = append(o.ToolE2E, tt.Latency[i])
			}
		}
	}
	if strings.HasSuffix(r.Format, "-console") {
		o.Rounded, o.Decimals = true, 2
		o.MetricDecimals = map[string]int{"completed": 0, "failed": 0, "total_input_tokens": 0, "total_output_tokens": 0}
	}
	// A figure printed rounded (a CSV, or a companion file's) is checked at
	// its own precision, whatever the run's main format.
	for _, s := range r.Stated {
		if s.Printed > 0 {
			if o.MetricDecimals == nil {
				o.MetricDecimals = map[string]int{}
			}
			if _, set := o.MetricDecimals[s.Metric]; !set {
				o.MetricDecimals[s.Metric] = s.Printed
			}
		}
	}
	return o
}

// durationIsWindow: the clients whose stated duration is defined as the
// records' window (first send to last completion), docs/metrics.md.
func durationIsWindow(format string) bool {
	for _, p := range []string{"aiperf-", "genai-perf-", "guidellm-", "gpustack-", "trtllm-bench-"} {
		if strings.HasPrefix(format, p) {
			return true
		}
	}
	return false
}
