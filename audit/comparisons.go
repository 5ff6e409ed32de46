package audit

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/spec"
	"github.com/benchledger/benchledger/store"
)

// isRate: a load-bound comparison is about a rate (throughput).
func isRate(metric string) bool {
	m, ok := figures.ParseMetric(metric)
	return ok && m.Metric.Class == figures.ClassRate
}

// comparisonFindings checks each comparison of the case study: confounders
// (fail unless the spec discloses them), intended changes that did not
// happen, definitions that differ between the sides, and throughput
// compared at a fixed offered load both runs kept up with.
func comparisonFindings(ctx context.Context, a *store.Archive, res *casestudy.Result, s *spec.Spec) ([]Finding, error) {
	var out []Finding
	names := make([]string, 0, len(res.Comparisons))
	for n := range res.Comparisons {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		cf := res.Comparisons[n]
		c := cf.Comparison
		disclosed := map[string]bool{}
		for _, f := range s.Comparisons[n].Disclosed {
			disclosed[f] = true
		}
		add := func(sev, key, msg string, params map[string]string) {
			params["comparison"] = n
			params["metric"], params["pct"] = c.Metric, pctText(c.Change.Pct)
			out = append(out, Finding{Check: CheckConfounded, Severity: sev, File: s.Path, Message: "comparison " + n + ": " + msg, Params: params, MessageKey: key})
		}
		var hidden, open []string
		for _, d := range c.Confounders {
			desc := fmt.Sprintf("%s (%s → %s)", d.Field, d.Baseline, d.Candidate)
			if disclosed[d.Field] {
				open = append(open, desc)
			} else {
				hidden = append(hidden, desc)
			}
		}
		intended := "nothing is declared as intended"
		if len(c.Intended) > 0 {
			intended = "intended: " + strings.Join(c.Intended, ", ")
		}
		if len(hidden) > 0 {
			add(Fail, MsgConfoundedHidden, fmt.Sprintf("%s changed besides what the comparison sets out to vary (%s), and the spec does not disclose it: the %s change of %s cannot be attributed to the intended change",
				strings.Join(hidden, ", "), intended, c.Metric, pctText(c.Change.Pct)),
				map[string]string{"confounders": fieldsOf(hidden), "intended": strings.Join(c.Intended, ",")})
		}
		if len(open) > 0 {
			add(Warn, MsgConfoundedDisclosed, fmt.Sprintf("%s also changed (%s); the spec discloses it, so the report names it beside the %s change of %s",
				strings.Join(open, ", "), intended, c.Metric, pctText(c.Change.Pct)),
				map[string]string{"confounders": fieldsOf(open), "disclosed": "true"})
		}
		if len(c.IntendedUnchanged) > 0 {
			add(Warn, MsgIntendedUnchanged, fmt.Sprintf("%s did not change between the runs although the comparison sets out to vary it: the %s change of %s is not its effect",
				strings.Join(c.IntendedUnchanged, ", "), c.Metric, pctText(c.Change.Pct)),
				map[string]string{"intended_unchanged": strings.Join(c.IntendedUnchanged, ",")})
		}
		if c.PercentileMethodDiffers {
			add(Warn, MsgPercentileMethods, fmt.Sprintf("the two sides' %s use different percentile methods (%q and %q)", c.Metric, c.Baseline.PercentileMethod, c.Candidate.PercentileMethod),
				map[string]string{"baseline_method": c.Baseline.PercentileMethod, "candidate_method": c.Candidate.PercentileMethod})
		}
		if !c.ClocksComparable {
			add(Warn, MsgClocksDiffer, "the two sides' windows come from different clocks, so their durations and rates are not measured alike", map[string]string{"clocks": "differ"})
		}
		if isRate(c.Metric) {
			f, err := loadBound(ctx, a, cf)
			if err != nil {
				return nil, err
			}
			if f != nil {
				f.File = s.Path
				f.Message = "comparison " + n + ": " + f.Message
				f.Params["comparison"] = n
				out = append(out, *f)
			}
		}
	}
	return out, nil
}

func fieldsOf(descs []string) string {
	var f []string
	for _, d := range descs {
		name, _, _ := strings.Cut(d, " ")
		f = append(f, name)
	}
	return strings.Join(f, ",")
}

func pctText(p float64) string {
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return "an undefined percentage"
	}
	return fmt.Sprintf("%+.2f%%", p)
}

// loadBound reports a throughput comparison whose runs all ran at the same
// finite offered request rate and kept up with it: throughput then follows
// the load, and a difference between the sides is not a capacity gain.
func loadBound(ctx context.Context, a *store.Archive, cf *casestudy.ComparisonFigure) (*Finding, error) {
	c := cf.Comparison
	if c.Baseline.IsReference() || c.Candidate.IsReference() {
		return nil, nil
	}
	rate := math.NaN()
	lowest := math.Inf(1)
	runs := append(append([]string(nil), cf.Baseline.Runs...), cf.Candidate.Runs...)
	if len(runs) == 0 {
		return nil, nil
	}
	for _, id := range runs {
		rec, rf, _, err := casestudy.RunFigures(ctx, a, id)
		if err != nil {
			return nil, err
		}
		offered, ok := offeredRate(provenance.Record(rec.Provenance).Effective())
		if !ok || !math.IsNaN(rate) && offered != rate {
			return nil, nil
		}
		rate = offered
		achieved, _ := achievedRate(rec.Run, rf)
		if math.IsNaN(achieved) || achieved < KeepUpShare*offered {
			return nil, nil
		}
		lowest = math.Min(lowest, achieved)
	}
	return &Finding{Check: CheckLoadBound, Severity: Warn,
		Message: fmt.Sprintf("both sides ran at a fixed offered load of %s req/s and kept up with it (lowest achieved %s req/s): %s follows the load, so the %s change is not a capacity gain; compare at saturation (a sweep) instead",
			num(rate), num(lowest), c.Metric, pctText(c.Change.Pct)),
		Params: map[string]string{"offered": num(rate), "achieved_min": num(lowest), "metric": c.Metric}, MessageKey: MsgLoadBound}, nil
}

// referenceFindings reports each external reference the case study's
// comparisons use that was no longer visible at its last re-check, or was
// last re-checked longer ago than the allowed age.
func referenceFindings(res *casestudy.Result, s *spec.Spec, opt Options) []Finding {
	var out []Finding
	seen := map[string]bool{}
	names := make([]string, 0, len(res.Comparisons))
	for n := range res.Comparisons {
		names = append(names, n)
	}
	sort.Strings(names)
	asOf := opt.asOf()
	maxAge := opt.maxReferenceAge()
	for _, n := range names {
		c := res.Comparisons[n].Comparison
		for _, side := range []figures.Side{c.Baseline, c.Candidate} {
			r := side.Reference
			if r == nil || seen[r.ID] {
				continue
			}
			seen[r.ID] = true
			params := map[string]string{"reference": r.ID, "source": r.Source, "captured": day(r.Captured), "checked": day(r.Checked), "comparison": n}
			if !r.Visible {
				out = append(out, Finding{Check: CheckReferenceVisible, Severity: Warn, File: s.Path, MessageKey: MsgReferenceNotVisible,
					Message: fmt.Sprintf("reference %s (%s %s, captured %s from %s) was no longer shown at its source at the re-check of %s: a reader cannot verify it there; the report must date it",
						r.ID, num(r.Value), r.Unit, day(r.Captured), r.Source, day(r.Checked)), Params: params})
			}
			if age := asOf.Sub(r.Checked); age > maxAge {
				params["age_days"] = fmt.Sprint(int(age.Hours() / 24))
				params["max_age_days"] = fmt.Sprint(int(maxAge.Hours() / 24))
				out = append(out, Finding{Check: CheckReferenceStale, Severity: Warn, File: s.Path, MessageKey: MsgReferenceStale,
					Message: fmt.Sprintf("reference %s was last re-checked on %s, %d days before %s (allowed: %d days): re-check %s and record the result in the campaign manifest",
						r.ID, day(r.Checked), int(age.Hours()/24), day(asOf), int(maxAge.Hours()/24), r.Source), Params: params})
			}
		}
	}
	return out
}

func day(t time.Time) string {
	if t.IsZero() {
		return "an unknown day"
	}
	return t.UTC().Format(time.DateOnly)
}
