package audit

// Message keys of the findings whose check reads more than one way: each
// shape of message has its own sentence (audit.msg.<key>), filled from the
// finding's Params, so a report page says it in its own language (issue
// 18). The English Message stays what the CLI prints.
const (
	MsgSQLite = "integrity.sqlite"
	// A problem of the hash chain says itself by its check id.
	MsgChainBroken              = "integrity.chain"
	MsgChainChanged             = "integrity.changed"
	MsgChainMissing             = "integrity.missing"
	MsgChainUnrecorded          = "integrity.unrecorded"
	MsgChainTriggers            = "integrity.triggers"
	MsgChainPublishable         = "integrity.publishable"
	MsgChainUnstarted           = "integrity.unchained"
	MsgBlobHash                 = "integrity.blob_hash"
	MsgBlobHashCompanion        = "integrity.blob_hash.companion"
	MsgRecordsParse             = "integrity.records.parse"
	MsgRecordsNoRun             = "integrity.records.no_run"
	MsgRecordsCompanionParse    = "integrity.records.companion_parse"
	MsgRecordsCompanionNoRun    = "integrity.records.companion_no_run"
	MsgRecordsCompanionMismatch = "integrity.records.companion_mismatch"
	MsgRecordsDiffer            = "integrity.records.differ"
	MsgRecordsPackUnreadable    = "integrity.records.pack_unreadable"
	MsgRecordsPackCount         = "integrity.records.pack_count"
	MsgRecordsPackDiffer        = "integrity.records.pack_differ"

	MsgStated            = "recompute.stated"
	MsgDefinitionAgrees  = "recompute.definition"
	MsgDefinitionBounded = "recompute.definition.bounded"
	MsgWindowAgrees      = "recompute.definition.window"
	MsgWindowBounded     = "recompute.definition.window_bounded"

	MsgTPOT                   = "plausibility.tpot"
	MsgDurationWindow         = "plausibility.duration"
	MsgDurationThroughput     = "plausibility.duration.throughput"
	MsgImpossibleStated       = "plausibility.stated"
	MsgPeakOverTotal          = "plausibility.peak_throughput.total"
	MsgPeakUnderMean          = "plausibility.peak_throughput.mean"
	MsgNonFinite              = "plausibility.nonfinite"
	MsgNonFiniteExtra         = "plausibility.nonfinite.extra"
	MsgZeroStated             = "plausibility.zero_series"
	MsgZeroRecords            = "plausibility.zero_series.records"
	MsgOfferedRate            = "plausibility.offered_rate"
	MsgOfferedRateConcurrency = "plausibility.offered_rate.concurrency"

	MsgEngineNamed          = "provenance.engine"
	MsgEngineBackend        = "provenance.engine.backend"
	MsgEngineImage          = "provenance.engine.image"
	MsgEngineTextUnused     = "provenance.engine.text"
	MsgEngineTextVersion    = "provenance.engine.text_version"
	MsgServerVersions       = "provenance.server_versions"
	MsgRecomputedEvent      = "provenance.recomputed.event"
	MsgRecomputedManifest   = "provenance.recomputed.manifest"
	MsgRecomputedManifestP  = "provenance.recomputed.manifest_parse"
	MsgRecomputedCorrection = "provenance.recomputed.correction"
	MsgRecomputedState      = "provenance.recomputed.state"
	MsgRecomputedListed     = "provenance.recomputed.listed"
	MsgRecomputedPublish    = "provenance.recomputed.publishable"

	MsgLoadBound = "comparison.load_bound"

	MsgClaimUnknownFigure = "claims.stated.unknown_figure"
	MsgClaimDate          = "claims.stated.date"
	MsgClaimUnit          = "claims.stated.unit"
	MsgClaimValue         = "claims.stated.value"
)

var shapeKeys = []string{MsgSQLite, MsgChainBroken, MsgChainChanged, MsgChainMissing, MsgChainUnrecorded, MsgChainTriggers,
	MsgChainPublishable, MsgChainUnstarted, MsgBlobHash, MsgBlobHashCompanion, MsgRecordsParse, MsgRecordsNoRun,
	MsgRecordsCompanionParse, MsgRecordsCompanionNoRun, MsgRecordsCompanionMismatch, MsgRecordsDiffer,
	MsgRecordsPackUnreadable, MsgRecordsPackCount, MsgRecordsPackDiffer,
	MsgStated, MsgDefinitionAgrees, MsgDefinitionBounded, MsgWindowAgrees, MsgWindowBounded,
	MsgTPOT, MsgDurationWindow, MsgDurationThroughput, MsgImpossibleStated, MsgPeakOverTotal, MsgPeakUnderMean,
	MsgNonFinite, MsgNonFiniteExtra, MsgZeroStated, MsgZeroRecords, MsgOfferedRate, MsgOfferedRateConcurrency,
	MsgEngineNamed, MsgEngineBackend, MsgEngineImage, MsgEngineTextUnused, MsgEngineTextVersion, MsgServerVersions,
	MsgRecomputedEvent, MsgRecomputedManifest, MsgRecomputedManifestP, MsgRecomputedCorrection, MsgRecomputedState,
	MsgRecomputedListed, MsgRecomputedPublish, MsgLoadBound,
	MsgClaimUnknownFigure, MsgClaimDate, MsgClaimUnit, MsgClaimValue}
