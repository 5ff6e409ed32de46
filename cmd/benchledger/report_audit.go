package main

import (
	"context"
	"time"

	"github.com/benchledger/benchledger/audit"
	"github.com/benchledger/benchledger/casestudy"
	"github.com/benchledger/benchledger/store"
)

// reportAudit audits an evaluated case study for its report's audit pages
// (nil when the case study uses no runs). asOf is the report's --as-of (""
// when not given: reference ages are then not judged).
func reportAudit(ctx context.Context, a *store.Archive, res *casestudy.Result, asOf string) (*audit.Report, error) {
	var day time.Time
	if asOf != "" {
		d, err := time.Parse(time.DateOnly, asOf)
		if err != nil {
			return nil, usageErrorf("--as-of %q is not a date (YYYY-MM-DD)", asOf)
		}
		day = d
	}
	return audit.CaseStudyReport(ctx, a, res, day)
}
