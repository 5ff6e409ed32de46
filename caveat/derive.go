package caveat

import (
	"math"
	"strconv"
	"strings"

	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/provenance"
)

// ForRun derives a run's own caveats from its recomputed figures and its
// effective provenance: failed requests, short outputs, a fixed output
// length, missing required provenance (the publishability rule of package
// provenance).
func ForRun(runID string, f figures.RunFigures, prov map[string]string) []Caveat {
	var cs []Caveat
	if f.Failed > 0 {
		cs = append(cs, New(CodeFailuresPresent, "run", runID, "failed", strconv.Itoa(f.Failed), "sent", strconv.Itoa(f.Sent)))
	}
	if f.Short > 0 {
		cs = append(cs, New(CodeShortOutputs, "run", runID, "short", strconv.Itoa(f.Short), "completed", strconv.Itoa(f.Completed)))
	}
	if strings.EqualFold(strings.TrimSpace(prov["workload.fixed_output"]), "true") {
		cs = append(cs, New(CodeFixedOutputLength, "output_len", strings.TrimSpace(prov["workload.output_len"])))
	}
	if missing := provenance.Missing(prov); len(missing) > 0 {
		cs = append(cs, New(CodeProvenanceIncomplete, "run", runID, "missing", strings.Join(missing, ",")))
	}
	return Sort(cs)
}

// ForStated flags a figure resting on a value its run's tool stated
// (figures.Origin of a summary-only run): it cannot be recomputed.
func ForStated(figure string, o figures.Origin) Caveat {
	prec := "full"
	if o.Printed > 0 {
		prec = strconv.Itoa(o.Printed) + " " + o.SourceUnit
	}
	return New(CodeStatedNotRecomputed, "figure", figure, "run", o.RunID, "tool", o.Tool, "key", orDash(o.Key), "precision", prec)
}

// ForRepeats flags a figure that rests on one measurement, and benchmath's
// too-few-samples conditions for the others.
func ForRepeats(figure string, r figures.RepeatStats) []Caveat {
	if r.Single() {
		return []Caveat{New(CodeSingleMeasurement, "figure", figure, "run", first(r.RunIDs))}
	}
	var cs []Caveat
	for _, w := range r.Warnings {
		if w.Code == figures.WarnTooFewForCI {
			cs = append(cs, New(CodeTooFewSamples, "figure", figure, "n", strconv.Itoa(r.N), "need", strconv.Itoa(w.Need), "purpose", "confidence_interval"))
		}
	}
	return Sort(cs)
}

// fieldCodes maps a compared provenance field to its confounder code; a
// field not listed is a generic CodeConfounder.
var fieldCodes = map[string]string{
	"hardware.gpu_model": CodeHardwareDiffers, "hardware.gpu_count": CodeHardwareDiffers,
	"hardware.gpu_memory_gb": CodeHardwareDiffers, "hardware.node": CodeHardwareDiffers,
	"hardware.driver": CodeHardwareDiffers,
	"runtime.engine":  CodeRuntimeDiffers, "runtime.version": CodeRuntimeDiffers, "runtime.image": CodeRuntimeDiffers,
	"runtime.image_digest": CodeRuntimeDiffers, "runtime.server_args": CodeRuntimeDiffers,
	"checkpoint.repository": CodeCheckpointDiffers, "checkpoint.revision": CodeCheckpointDiffers,
	"checkpoint.precision": CodePrecisionDiffers, "checkpoint.kv_cache_dtype": CodePrecisionDiffers,
	"workload.input_len": CodeRequestSpecDiffers, "workload.output_len": CodeRequestSpecDiffers,
	"workload.dataset": CodeRequestSpecDiffers, "workload.temperature": CodeRequestSpecDiffers,
	"workload.thinking": CodeRequestSpecDiffers, "workload.fixed_output": CodeRequestSpecDiffers,
	"workload.request_count": CodeRequestCountDiffers,
	figures.LoadModeField:    CodeLoadModeDiffers,
	"workload.concurrency":   CodeLoadDiffers, "workload.request_rate": CodeLoadDiffers,
	"workload.burstiness": CodeLoadDiffers,
	"measurement.client":  CodeClientDiffers, "measurement.client_version": CodeClientDiffers,
}

// FieldCode returns the confounder code for a provenance field.
func FieldCode(field string) string {
	if c, ok := fieldCodes[field]; ok {
		return c
	}
	return CodeConfounder
}

// ForComparison derives a comparison's caveats: one per confounder (a
// changed field the comparison did not intend), fields held fixed that
// cannot be verified, an intended field that did not change, differing
// percentile methods or clocks, single measurements on either of our sides,
// a non-significant difference between repeat groups, and the status of an
// external reference side.
func ForComparison(c figures.Comparison, opt Options) []Caveat {
	var cs []Caveat
	for _, d := range c.Confounders {
		cs = append(cs, New(FieldCode(d.Field), "field", d.Field, "baseline", d.Baseline, "candidate", d.Candidate))
	}
	for _, d := range c.Unknown {
		cs = append(cs, New(CodeFixedUnverified, "field", d.Field, "baseline", d.Baseline, "candidate", d.Candidate))
	}
	for _, f := range c.IntendedUnchanged {
		cs = append(cs, New(CodeIntendedUnchanged, "field", f))
	}
	if c.PercentileMethodDiffers {
		cs = append(cs, New(CodePercentileMethodDiffers, "baseline_method", c.Baseline.PercentileMethod, "candidate_method", c.Candidate.PercentileMethod))
	}
	if !c.ClocksComparable {
		cs = append(cs, New(CodeClocksNotComparable, "runs", c.Baseline.RunID+","+c.Candidate.RunID))
	}
	if b, d := c.Baseline, c.Candidate; c.SourceDefinitionsDiffer {
		cs = append(cs, New(CodeSourceDefinitionsDiffer, "figure", c.Metric, "baseline_tool", b.SourceTool, "candidate_tool", d.SourceTool,
			"baseline_key", orDash(b.SourceKey), "candidate_key", orDash(d.SourceKey),
			"baseline_method", orDash(b.SourcePercentileMethod), "candidate_method", orDash(d.SourcePercentileMethod)))
	}
	if c.SourcesMixed {
		cs = append(cs, New(CodeSourcesMixed, "figure", c.Metric, "baseline_source", c.Baseline.ValueSource, "candidate_source", c.Candidate.ValueSource))
	}
	for _, s := range []figures.Side{c.Baseline, c.Candidate} {
		if s.IsReference() {
			cs = append(cs, ForReference(*s.Reference, opt)...)
			continue
		}
		if s.N == 1 {
			cs = append(cs, New(CodeSingleMeasurement, "figure", c.Metric, "run", s.RunID))
		}
	}
	if g := c.Significance; g != nil {
		if !g.Significant {
			cs = append(cs, New(CodeNotSignificant, "figure", c.Metric, "p", num(g.P), "alpha", num(g.Alpha)))
		}
		for _, w := range g.Warnings {
			if w.Code == figures.WarnTooFewToCompare {
				cs = append(cs, New(CodeTooFewSamples, "figure", c.Metric, "n", strconv.Itoa(min(g.N1, g.N2)),
					"need", strconv.Itoa(w.Need), "purpose", "comparison"))
			}
		}
	}
	return Sort(cs)
}

// ForSweep flags a recommended operating point whose median latency is above
// the interactive threshold (the throughput configuration needs a long
// queue), and a sweep that never saturated.
func ForSweep(s figures.SweepResult, opt Options) []Caveat {
	if len(s.Levels) == 0 {
		return nil
	}
	var cs []Caveat
	rec := s.RecommendedLevel()
	if th := opt.interactive(); rec.MedianLatency > th {
		cs = append(cs, New(CodeSaturationLatency, "median_s", num(rec.MedianLatency), "threshold_s", num(th), "param", num(rec.Param)))
	}
	if !s.SaturationFound {
		cs = append(cs, New(CodeSaturationNotFound, "param", num(rec.Param)))
	}
	return Sort(cs)
}

// ForNode flags failed requests and short outputs per replica (a node
// aggregated with NodeOptions.AllowFailures).
func ForNode(n figures.NodeResult) []Caveat {
	var cs []Caveat
	for _, r := range n.PerReplica {
		if r.Failed > 0 {
			cs = append(cs, New(CodeFailuresPresent, "run", r.RunID, "failed", strconv.Itoa(r.Failed), "sent", strconv.Itoa(r.Sent)))
		}
		if r.Short > 0 {
			cs = append(cs, New(CodeShortOutputs, "run", r.RunID, "short", strconv.Itoa(r.Short), "completed", strconv.Itoa(r.Completed)))
		}
	}
	return Sort(cs)
}

// ForReference flags an external reference no longer visible at its source,
// and one whose last re-check is older than the maximum age at opt.Now.
func ForReference(ref figures.ExternalReference, opt Options) []Caveat {
	var cs []Caveat
	checked := ref.Checked
	if checked.IsZero() {
		checked = ref.Captured
	}
	if !ref.Visible {
		cs = append(cs, New(CodeReferenceNotVisible, "id", ref.ID, "checked", date(checked)))
	}
	if !opt.Now.IsZero() && !checked.IsZero() {
		days := int(math.Floor(opt.Now.Sub(checked).Hours() / 24))
		if days > opt.maxAge() {
			cs = append(cs, New(CodeReferenceStale, "id", ref.ID, "checked", date(checked),
				"age_days", strconv.Itoa(days), "max_days", strconv.Itoa(opt.maxAge())))
		}
	}
	return Sort(cs)
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// orDash: a source that did not state the figure.
func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
