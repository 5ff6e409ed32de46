package audit

import (
	"github.com/benchledger/benchledger/locales"
	"github.com/benchledger/benchledger/store"
)

// CheckInfo describes one check: its stable id, the severities it can
// report and its rule in one English sentence (docs/audit.md has the detail).
// The rule is the catalogue's audit.rule.<id>, which every language has
// (the audit page shows it in the page's language).
type CheckInfo struct {
	ID         string
	Severities []string
	Rule       string
}

// Checks lists every check the audit runs, in the order docs/audit.md and
// the audit page list them. A localised report has a title for each id.
func Checks() []CheckInfo {
	list := []CheckInfo{
		{ID: CheckSQLite, Severities: []string{Fail}},
		{ID: CheckForeignKeys, Severities: []string{Fail}},
		{ID: store.CheckChainLink, Severities: []string{Fail}},
		{ID: store.CheckChainChanged, Severities: []string{Fail}},
		{ID: store.CheckChainMissing, Severities: []string{Fail}},
		{ID: store.CheckChainExtra, Severities: []string{Fail}},
		{ID: store.CheckTriggers, Severities: []string{Fail}},
		{ID: store.CheckPublishable, Severities: []string{Fail}},
		{ID: store.CheckChainUnstarted, Severities: []string{Warn}},
		{ID: CheckBlobHash, Severities: []string{Fail}},
		{ID: CheckProvenanceRecomputed, Severities: []string{Fail}},
		{ID: CheckRecords, Severities: []string{Fail}},
		{ID: CheckStated, Severities: []string{Fail}},
		{ID: CheckDefinition, Severities: []string{Info, Warn}},
		{ID: CheckTPOT, Severities: []string{Fail}},
		{ID: CheckDuration, Severities: []string{Fail}},
		{ID: CheckImpossibleStated, Severities: []string{Fail}},
		{ID: CheckPeakThroughput, Severities: []string{Fail}},
		{ID: CheckOfferedRate, Severities: []string{Warn}},
		{ID: CheckZeroSeries, Severities: []string{Fail, Warn}},
		{ID: CheckNonFinite, Severities: []string{Fail, Warn}},
		{ID: CheckSuccessRate, Severities: []string{Fail, Warn}},
		{ID: CheckNonStreamed, Severities: []string{Warn}},
		{ID: CheckOutputLength, Severities: []string{Warn}},
		{ID: CheckProvenanceComplete, Severities: []string{Info}},
		{ID: CheckServerVersions, Severities: []string{Warn}},
		{ID: CheckCorrected, Severities: []string{Info}},
		{ID: CheckDeclaredMeasured, Severities: []string{Warn}},
		{ID: CheckEngine, Severities: []string{Fail, Warn}},
		{ID: CheckConfounded, Severities: []string{Fail, Warn}},
		{ID: CheckLoadBound, Severities: []string{Warn}},
		{ID: CheckReferenceVisible, Severities: []string{Warn}},
		{ID: CheckReferenceStale, Severities: []string{Warn}},
		{ID: CheckClaimsStated, Severities: []string{Fail}},
		{ID: CheckClaimsText, Severities: []string{Fail}},
		{ID: CheckClaimsUnbound, Severities: []string{Warn}},
	}
	en := locales.Fallback()
	for i := range list {
		list[i].Rule = en.T("audit.rule." + list[i].ID)
	}
	return list
}
