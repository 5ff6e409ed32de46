package main

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchledger/benchledger/audit"
	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/render/report"
	"github.com/benchledger/benchledger/store"
)

// reportAudit audits an evaluated case study for its report's audit page
// (nil when the case study uses no runs) and converts the findings into the renderer's plain data (render/report
// cannot import package audit, which imports it).
//
// asOf is the report's --as-of ("" when not given). Without it the report
// promises output that does not depend on today's date, so the audit then
// does not judge reference ages either (the page says so), unlike
// `benchledger audit`, which judges them as of today.
func reportAudit(ctx context.Context, a *store.Archive, res *casestudy.Result, asOf string) (*report.AuditView, error) {
	if len(res.RunIDs) == 0 {
		// audit.Run reads an empty id list as "every run in the archive",
		// which is not this case study's audit; the caller says there is
		// no audit page.
		return nil, nil
	}
	var opt audit.Options
	view := &report.AuditView{}
	if asOf != "" {
		d, err := time.Parse(time.DateOnly, asOf)
		if err != nil {
			return nil, usageErrorf("--as-of %q is not a date (YYYY-MM-DD)", asOf)
		}
		opt.AsOf = d
		view.AsOf = d.Format(time.DateOnly)
	} else {
		opt.MaxReferenceAge = time.Duration(math.MaxInt64)
	}
	fs, err := audit.CaseStudy(ctx, a, res, res.Spec, opt)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	// As benchledger audit does, so that the page's counts are its counts.
	fs = audit.Dedupe(fs)
	specDir := ""
	if res.Spec.Path != "" {
		if d, err := filepath.Abs(filepath.Dir(res.Spec.Path)); err == nil {
			specDir = d
		}
	}
	for _, f := range fs {
		view.Findings = append(view.Findings, report.AuditFinding{Check: f.Check, Severity: f.Severity, Run: f.Run,
			File: specRelative(specDir, f), Message: f.Message, Params: f.Params})
	}
	for _, c := range audit.Checks() {
		view.Checks = append(view.Checks, report.AuditCheck{ID: c.ID, Severities: c.Severities, Rule: c.Rule})
	}
	return view, nil
}

// specRelative names the spec and its narratives relative to the spec's
// folder (casestudy.yaml, narrative/en.md): a published page should not
// carry the author's local paths, and the bytes should not depend on the
// directory the report was rendered from. A run's raw file keeps the name it
// was ingested under (relative to wherever the ingest ran, so not
// resolvable here).
func specRelative(specDir string, f audit.Finding) string {
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
