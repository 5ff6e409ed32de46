package figures

import (
	"strings"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/provenance"
)

// Blockers is the one rule of what makes a run publishable
// (docs/provenance.md, "Publishable"): it lists what keeps run r, with
// effective provenance eff, out of a published figure; none means it is
// publishable. In order:
//  1. required provenance fields that have no effective value
//     (provenance.Missing);
//  2. "completed requests (every request failed)" when it completed none;
//  3. "possible stated figures (...)" when a figure its tool stated is
//     impossible (ImpossibleStated), naming the metrics.
//
// A summary-only run is publishable under the same rule: its figures are
// the stated ones, marked as such wherever they appear. Ingest stores the
// result (runs shows it); figures and report apply it to every run they use.
func Blockers(r *benchrun.Run, eff map[string]string) []string {
	out := provenance.Missing(eff)
	if allFailed(r) {
		out = append(out, "completed requests (every request failed)")
	}
	if imp := ImpossibleStated(r); len(imp) > 0 {
		var ms []string
		for _, i := range imp {
			ms = append(ms, i.Metric)
		}
		out = append(out, "possible stated figures (impossible: "+strings.Join(ms, ", ")+")")
	}
	return out
}

// Publishable reports whether Blockers lists nothing.
func Publishable(r *benchrun.Run, eff map[string]string) bool { return len(Blockers(r, eff)) == 0 }

func allFailed(r *benchrun.Run) bool {
	if r.HasRequests {
		for i := range r.Requests {
			if !r.Requests[i].Failed() {
				return false
			}
		}
		return len(r.Requests) > 0
	}
	return r.Completed == 0
}
