package audit

import (
	"context"
	"time"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/spec"
	"github.com/benchledger/benchledger/store"
)

// Options tune a case-study audit.
type Options struct {
	// AsOf is the day the audit judges dates against (reference age);
	// zero means now.
	AsOf time.Time
	// MaxReferenceAge is how long ago an external reference may have been
	// re-checked before reference.stale warns; zero means DefaultMaxReferenceAge.
	MaxReferenceAge time.Duration
	// Checks limits the audit to the selected checks; empty means all.
	Checks Selection
	// ReserveMemory, when set, is told how many bytes the audit of the
	// runs' raw files will hold at once (the records of the blobs parsed
	// side by side, and a margin), so that the program (benchledger's
	// main, which sets a soft memory limit for an audit) can make room;
	// it returns what undoes that. The package never changes
	// process-wide settings itself.
	ReserveMemory func(bytes int64) (release func())
}

func (o Options) reserveMemory(bytes int64) (release func()) {
	if o.ReserveMemory == nil {
		return func() {}
	}
	return o.ReserveMemory(bytes)
}

// DefaultMaxReferenceAge is the default re-check age limit of an external
// reference: a published page changes; six months is as long as a figure
// taken from it is trusted without looking again.
const DefaultMaxReferenceAge = 180 * 24 * time.Hour

func (o Options) asOf() time.Time {
	if o.AsOf.IsZero() {
		return time.Now().UTC()
	}
	return o.AsOf.UTC()
}

func (o Options) maxReferenceAge() time.Duration {
	if o.MaxReferenceAge <= 0 {
		return DefaultMaxReferenceAge
	}
	return o.MaxReferenceAge
}

// CaseStudy audits an evaluated case study: the runs it stands on (Run), the
// numbers in its texts and its declared claims (Claims), its comparisons,
// the engines and versions its texts name, and its external references.
// Findings are sorted as Run sorts them.
func CaseStudy(ctx context.Context, a *store.Archive, res *casestudy.Result, s *spec.Spec, opt Options) ([]Finding, error) {
	var out []Finding
	if opt.Checks.needsRuns() {
		rf, err := RunSelected(ctx, a, res.RunIDs, opt)
		if err != nil {
			return nil, err
		}
		out = rf
	}
	cf, err := Claims(res, s)
	if err != nil {
		return nil, err
	}
	out = append(out, cf...)
	texts, err := caseTexts(s)
	if err != nil {
		return nil, err
	}
	ef, err := engineTextFindings(a, res, texts)
	if err != nil {
		return nil, err
	}
	out = append(out, ef...)
	cmp, err := comparisonFindings(ctx, a, res, s)
	if err != nil {
		return nil, err
	}
	out = append(out, cmp...)
	out = append(out, referenceFindings(res, s, opt)...)
	out = opt.Checks.Keep(out)
	SortFindings(out)
	return out, nil
}

// Dedupe drops repeated findings (the same run audited for two case
// studies) and sorts the rest as Run does.
func Dedupe(fs []Finding) []Finding {
	seen := map[string]bool{}
	var out []Finding
	for _, f := range fs {
		k := f.Check + "\x00" + f.Severity + "\x00" + f.Run + "\x00" + f.File + "\x00" + f.Message
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, f)
	}
	SortFindings(out)
	return out
}
