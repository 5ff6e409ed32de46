package audit

import "github.com/benchledger/benchledger/store"

// CheckInfo describes one check: its stable id, the severities it can
// report and its rule in one English sentence (docs/audit.md has the detail).
type CheckInfo struct {
	ID         string
	Severities []string
	Rule       string
}

// Checks lists every check the audit runs, in the order docs/audit.md and
// the audit page list them. A localised report has a title for each id.
func Checks() []CheckInfo {
	return []CheckInfo{
		{CheckSQLite, []string{Fail}, "SQLite's integrity_check reports a problem in the archive file"},
		{CheckForeignKeys, []string{Fail}, "SQLite's foreign_key_check reports a row whose parent is missing"},
		{store.CheckChainLink, []string{Fail}, "a link of the archive's hash chain does not follow from the one before (the first broken link is named)"},
		{store.CheckChainChanged, []string{Fail}, "a recorded thing (run with its provenance, reference, publication, erratum, event) differs from what the chain recorded"},
		{store.CheckChainMissing, []string{Fail}, "a thing the chain recorded is no longer in the archive (a run, an event, an erratum, a publication deleted)"},
		{store.CheckChainExtra, []string{Fail}, "a thing is in the archive that no link of the chain records (inserted by another program)"},
		{store.CheckTriggers, []string{Fail}, "an append-only trigger of the schema was dropped or altered"},
		{store.CheckPublishable, []string{Fail}, "a run is marked publishable while provenance is missing"},
		{store.CheckChainUnstarted, []string{Warn}, "the archive's hash chain has not started yet (an archive written before schema 6)"},
		{CheckBlobHash, []string{Fail}, "a raw file's bytes no longer match their SHA-256"},
		{CheckProvenanceRecomputed, []string{Fail}, "a run's provenance differs from what replaying its events and corrections over the archived files, manifests and --set values gives"},
		{CheckRecords, []string{Fail}, "the stored records differ from the raw file parsed again"},
		{CheckStated, []string{Fail}, "a figure the tool stated disagrees with the value recomputed from its records"},
		{CheckDefinition, []string{Info, Warn}, "a stated figure differs from the recomputation only by a documented difference of the tool's definition (end of E2E, measurement window, percentile algorithm)"},
		{CheckTPOT, []string{Fail}, "the stated mean TPOT cannot be reconciled with (E2E − TTFT) / (output tokens − 1)"},
		{CheckDuration, []string{Fail}, "the stated duration or throughput is inconsistent with the records or the token totals"},
		{CheckImpossibleStated, []string{Fail}, "a stated figure is impossible: a non-positive or non-finite duration, a negative latency, rate or count, percentiles out of order, a throughput its tokens and duration cannot give"},
		{CheckPeakThroughput, []string{Fail}, "the stated peak output throughput is below the mean"},
		{CheckOfferedRate, []string{Warn}, "the achieved request rate fell well short of the offered rate"},
		{CheckZeroSeries, []string{Fail, Warn}, "a series is all zero where zero is impossible"},
		{CheckNonFinite, []string{Fail, Warn}, "a stated figure is NaN or infinite"},
		{CheckSuccessRate, []string{Fail, Warn}, "too few requests completed"},
		{CheckNonStreamed, []string{Warn}, "TTFT equals latency for most requests: responses were not streamed"},
		{CheckOutputLength, []string{Warn}, "outputs were shorter than the fixed requested length"},
		{CheckProvenanceComplete, []string{Info}, "the run cannot be published: provenance is missing"},
		{CheckServerVersions, []string{Warn}, "the servers of one run (prefill and decode) run different engine versions"},
		{CheckCorrected, []string{Info}, "a provenance value was corrected after ingest (benchledger amend)"},
		{CheckDeclaredMeasured, []string{Warn}, "a declared input or output length, request count or concurrency disagrees with the records"},
		{CheckEngine, []string{Fail, Warn}, "an engine or version named in the text, the launch command or the client's backend contradicts the run's provenance"},
		{CheckConfounded, []string{Fail, Warn}, "a comparison changed more than it set out to change"},
		{CheckLoadBound, []string{Warn}, "a throughput comparison at a fixed offered load that both runs kept up with"},
		{CheckReferenceVisible, []string{Warn}, "an external reference was no longer visible at its source at the last re-check"},
		{CheckReferenceStale, []string{Warn}, "an external reference has not been re-checked for longer than the allowed age"},
		{CheckClaimsStated, []string{Fail}, "a claim declared in the spec disagrees with the computed figure"},
		{CheckClaimsText, []string{Fail}, "a number in the text disagrees with every computed figure of its kind"},
		{CheckClaimsUnbound, []string{Warn}, "a number in the text is not bound to a figure"},
	}
}
