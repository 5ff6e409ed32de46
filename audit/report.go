package audit

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/store"
)

// Report is the audit of one case study as its audit pages show it.
type Report struct {
	// Findings, in Dedupe's order (run id, then check id).
	Findings []Finding
	// Checks are every check that ran, in Checks' order; a check without
	// findings passed.
	Checks []CheckInfo
	// AsOf is the day reference ages were judged against; zero when they
	// were not judged.
	AsOf time.Time
}

// Counts tallies the findings by severity; every severity is present.
func (r *Report) Counts() map[string]int { return Counts(r.Findings) }

// CaseStudyReport audits an evaluated case study for its report's audit
// pages: nil when the case study uses no runs.
//
// Without asOf the report promises output that does not depend on today's
// date, so the audit then does not judge reference ages either (the page
// says so), unlike `benchledger audit`, which judges them as of today.
func CaseStudyReport(ctx context.Context, a *store.Archive, res *casestudy.Result, asOf time.Time) (*Report, error) {
	if len(res.RunIDs) == 0 {
		// Run reads an empty id list as "every run in the archive", which
		// is not this case study's audit.
		return nil, nil
	}
	opt := Options{AsOf: asOf}
	if asOf.IsZero() {
		opt.MaxReferenceAge = time.Duration(math.MaxInt64)
	}
	fs, err := CaseStudy(ctx, a, res, res.Spec, opt)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	// As benchledger audit does, so that the page's counts are its counts.
	fs = Dedupe(fs)
	specDir := ""
	if res.Spec.Path != "" {
		if d, err := filepath.Abs(filepath.Dir(res.Spec.Path)); err == nil {
			specDir = d
		}
	}
	for i := range fs {
		fs[i].File = specRelative(specDir, fs[i])
	}
	return &Report{Findings: fs, Checks: Checks(), AsOf: asOf}, nil
}

// specRelative names the spec and its narratives relative to the spec's
// folder (casestudy.yaml, narrative/en.md): a published page should not
// carry the author's local paths, and the bytes should not depend on the
// directory the report was rendered from. A run's raw file keeps the name it
// was ingested under (relative to wherever the ingest ran, so not
// resolvable here).
func specRelative(specDir string, f Finding) string {
	if f.Run != "" || f.File == "" || specDir == "" {
		return f.File
	}
	abs, err := filepath.Abs(f.File)
	if err != nil {
		return f.File
	}
	rel, err := filepath.Rel(specDir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return f.File
	}
	return filepath.ToSlash(rel)
}

// FailedChecks counts the distinct checks with a failure: a verdict says
// how many checks failed, the counts how many findings.
func (r *Report) FailedChecks() int {
	seen := map[string]bool{}
	for _, f := range r.Findings {
		if f.Severity == Fail {
			seen[f.Check] = true
		}
	}
	return len(seen)
}
