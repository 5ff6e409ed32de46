// Package audit checks an archive the way a reviewer would before a number is
// published: that the raw files are intact and still yield the stored
// records (integrity), that each run's own summary agrees with what its
// records give (recomputation), that the figures are plausible for LLM
// serving (plausibility), and that the runs' provenance is complete.
//
// Every finding has a stable check id (docs/audit.md lists them) and a
// severity: "fail" (a number cannot be trusted or is wrong), "warn" (a
// reader should know before relying on it) or "info".
package audit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/registry"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

// Severities.
const (
	Fail = "fail"
	Warn = "warn"
	Info = "info"
)

// Check ids. They are stable: scripts and CI match on them.
const (
	CheckSQLite             = "integrity.sqlite"
	CheckForeignKeys        = "integrity.foreign_keys"
	CheckBlobHash           = "integrity.blob_hash"
	CheckRecords            = "integrity.records"
	CheckStated             = "recompute.stated"
	CheckTPOT               = "plausibility.tpot"
	CheckPeakThroughput     = "plausibility.peak_throughput"
	CheckNonStreamed        = "plausibility.non_streamed"
	CheckNonFinite          = "plausibility.nonfinite"
	CheckSuccessRate        = "plausibility.success_rate"
	CheckDuration           = "plausibility.duration"
	CheckImpossibleStated   = "plausibility.stated"
	CheckDefinition         = "recompute.definition"
	CheckOutputLength       = "plausibility.output_length"
	CheckProvenanceComplete = "provenance.incomplete"
	CheckCorrected          = "provenance.corrected"
	CheckDeclaredMeasured   = "provenance.declared_vs_measured"
	CheckOfferedRate        = "plausibility.offered_rate"
	CheckZeroSeries         = "plausibility.zero_series"
	CheckEngine             = "provenance.engine"
	CheckConfounded         = "comparison.confounded"
	CheckLoadBound          = "comparison.load_bound"
	CheckReferenceVisible   = "reference.not_visible"
	CheckReferenceStale     = "reference.stale"
)

// Finding is one thing the audit found.
type Finding struct {
	Check    string            `json:"check"`    // stable id, e.g. "integrity.blob_hash"
	Severity string            `json:"severity"` // "fail", "warn" or "info"
	Run      string            `json:"run,omitempty"`
	File     string            `json:"file,omitempty"` // the run's raw file as named at ingest
	Message  string            `json:"message"`        // plain English
	Params   map[string]string `json:"params,omitempty"`
	// MessageKey names the catalogue sentence (audit.msg.<key>) that says
	// Message in a report's language from Params; "" when the message has
	// none yet, and the page then says it generically (issue 18).
	MessageKey string `json:"message_key,omitempty"`
}

// Message keys: each is audit.msg.<key> in every catalogue, with
// placeholders from the finding's Params.
const (
	MsgUnbound             = "claims.unbound"
	MsgUnboundNoKind       = "claims.unbound.no_kind"
	MsgUnboundEquals       = "claims.unbound.equals"
	MsgClaimsText          = "claims.text"
	MsgConfoundedHidden    = "comparison.confounded.hidden"
	MsgConfoundedDisclosed = "comparison.confounded.disclosed"
	MsgIntendedUnchanged   = "comparison.intended_unchanged"
	MsgPercentileMethods   = "comparison.percentile_methods"
	MsgClocksDiffer        = "comparison.clocks_differ"
	MsgReferenceNotVisible = "reference.not_visible"
	MsgReferenceStale      = "reference.stale"
)

// storedKeys are the message keys of the run checks whose every finding
// reads one way (Stored), by check id.
var storedKeys = map[string]string{
	CheckNonStreamed: CheckNonStreamed, CheckOutputLength: CheckOutputLength, CheckSuccessRate: CheckSuccessRate,
	CheckCorrected: CheckCorrected, CheckDeclaredMeasured: CheckDeclaredMeasured, CheckProvenanceComplete: CheckProvenanceComplete,
}

// MessageKeys lists every message key a finding may carry.
var MessageKeys = append([]string{CheckNonStreamed, CheckOutputLength, CheckSuccessRate, CheckCorrected, CheckDeclaredMeasured, CheckProvenanceComplete,
	MsgUnbound, MsgUnboundNoKind, MsgUnboundEquals, MsgClaimsText, MsgConfoundedHidden,
	MsgConfoundedDisclosed, MsgIntendedUnchanged, MsgPercentileMethods, MsgClocksDiffer, MsgReferenceNotVisible, MsgReferenceStale,
}, shapeKeys...)

// Counts tallies findings by severity.
func Counts(fs []Finding) map[string]int {
	c := map[string]int{Fail: 0, Warn: 0, Info: 0}
	for _, f := range fs {
		c[f.Severity]++
	}
	return c
}

// Failed reports whether any finding is a failure.
func Failed(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == Fail {
			return true
		}
	}
	return false
}

// Tolerances of the plausibility rules.
const (
	// RecordsRelTol is how far a stored float may be from the value
	// re-parsed from the raw bytes (relative).
	RecordsRelTol = 1e-9
	// DurationSlack is how much shorter than the records' window a stated
	// duration may be (clock resolution).
	DurationSlack = 1e-3
	// SuccessWarn and SuccessFail are the success-rate thresholds.
	SuccessWarn = 0.99
	SuccessFail = 0.50
	// NonStreamedShare is the share of completed multi-token requests with
	// TTFT equal to latency above which a run looks non-streamed.
	NonStreamedShare = 0.5
)

// Run audits the runs with the given ids (exact ids or unique prefixes; all
// runs when runIDs is empty) and the archive file itself. Findings are
// ordered by run id (archive-wide findings, with no run, first), then check
// id, then the order the checks produced them.
func Run(ctx context.Context, a *store.Archive, runIDs []string) ([]Finding, error) {
	return RunSelected(ctx, a, runIDs, Options{})
}

// RunSelected is Run limited to the selected checks (opt.Checks): when none
// of them is made from the runs' raw files (only the archive-wide integrity
// checks, such as the hash chain, are selected), the raw files are not read
// again, which is the audit's cost. Only the selected checks' findings are
// returned. Of opt, only Checks and ReserveMemory matter here.
func RunSelected(ctx context.Context, a *store.Archive, runIDs []string, opt Options) ([]Finding, error) {
	sel := opt.Checks
	var ids []string
	if len(runIDs) == 0 {
		all, err := a.ListRuns(store.Filter{})
		if err != nil {
			return nil, err
		}
		for _, s := range all {
			ids = append(ids, s.ID)
		}
	} else {
		seen := map[string]bool{}
		for _, p := range runIDs {
			id, err := a.ResolveRunID(p)
			if err != nil {
				return nil, err
			}
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}

	var findings []Finding
	problems, err := a.CheckIntegrity(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range problems {
		check := CheckSQLite
		if p.Check == "foreign_key_check" {
			check = CheckForeignKeys
		}
		findings = append(findings, Finding{Check: check, Severity: Fail,
			Message: "SQLite " + p.Check + " reports: " + p.Message, Params: map[string]string{"pragma": p.Check}, MessageKey: MsgSQLite})
	}
	// The hash chain: what another program changed, deleted or added.
	chain, err := a.VerifyChain(ctx)
	if err != nil {
		return nil, err
	}
	wanted := make(map[string]bool, len(ids))
	for _, id := range ids {
		wanted[id] = true
	}
	for _, p := range chain.Problems {
		if p.Kind == "run" && !wanted[p.Ref] && len(runIDs) > 0 && p.Check != store.CheckChainMissing {
			// An audit of named runs speaks of those runs; a deleted run
			// is always told (it may have been one of them).
			continue
		}
		sev := Fail
		if p.Check == store.CheckChainUnstarted {
			sev = Warn
		}
		f := Finding{Check: p.Check, Severity: sev, Message: p.Message, Params: map[string]string{"kind": p.Kind, "ref": p.Ref}, MessageKey: p.Check}
		if p.Kind == "run" {
			f.Run = p.Ref
		}
		findings = append(findings, f)
	}

	if !sel.needsRawFiles() {
		return sortFindings(sel.Keep(findings)), nil
	}

	// Group the runs by raw file, so each blob is read and parsed once.
	metas := map[string]*store.RunRecord{}
	byBlob := map[string][]string{}
	var blobs []string
	for _, id := range ids {
		rec, err := a.RunMeta(id)
		if err != nil {
			return nil, err
		}
		metas[id] = rec
		if _, ok := byBlob[rec.BlobSHA256]; !ok {
			blobs = append(blobs, rec.BlobSHA256)
		}
		byBlob[rec.BlobSHA256] = append(byBlob[rec.BlobSHA256], id)
	}

	// Blobs are independent: audit them on a few goroutines (the archive
	// has a small pool of read connections).
	workers := min(4, max(runtime.GOMAXPROCS(0), 1), max(len(blobs), 1))
	perBlob := make([]int64, len(blobs))
	for i, sha := range blobs {
		for _, id := range byBlob[sha] {
			n, err := a.RequestCount(id)
			if err != nil {
				return nil, err
			}
			perBlob[i] += max(n, 0) * recordBytes(metas[id].Run.Format)
		}
	}
	defer opt.reserveMemory(recordsMemory(perBlob, workers))()
	results := make([][]Finding, len(blobs))
	errs := make([]error, len(blobs))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				results[i], errs[i] = auditBlob(ctx, a, blobs[i], byBlob[blobs[i]], metas)
			}
		}()
	}
	for i := range blobs {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i := range blobs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		findings = append(findings, results[i]...)
	}
	return sortFindings(sel.Keep(findings)), nil
}

// sortFindings is SortFindings returning the slice.
func sortFindings(findings []Finding) []Finding {
	SortFindings(findings)
	return findings
}

// errReader remembers the first error its reader returned, so a failed hash
// check is seen even when the parser wraps or swallows it.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// auditBlob audits one raw file and the runs read from it.
func auditBlob(ctx context.Context, a *store.Archive, sha string, ids []string, metas map[string]*store.RunRecord) ([]Finding, error) {
	var out []Finding
	first := metas[ids[0]]
	add := func(rec *store.RunRecord, key, check, sev, msg string, params map[string]string) {
		out = append(out, Finding{Check: check, Severity: sev, Run: rec.ID, File: rec.FileName, Message: msg, Params: params, MessageKey: key})
	}

	wanted := map[int]bool{}
	for _, id := range ids {
		wanted[metas[id].Run.Ordinal] = true
	}
	rows := map[int]format.Rows{}
	reparsed, parseErr, blobErr, err := reparseBlob(ctx, a, sha, first.Run.Format, first.FileName, wanted, rows)
	if err != nil {
		return nil, err
	}
	corrupt := blobErr != nil
	if corrupt || parseErr != nil {
		clear(rows)
	}

	for _, id := range ids {
		meta := metas[id]
		if corrupt {
			add(meta, MsgBlobHash, CheckBlobHash, Fail, fmt.Sprintf("the raw file %s (blob %s) no longer matches its SHA-256: %v; its records cannot be verified",
				meta.FileName, sha, blobErr), map[string]string{"blob": sha})
		}
		var r *benchrun.Run
		var raws map[string]*benchrun.Run
		var reqs rawRequests
		var tool *rawTool
		merged := false
		if !corrupt && parseErr == nil {
			r = reparsed[meta.Run.Ordinal]
		}
		if r != nil {
			files, err := a.RunFiles(id)
			if err != nil {
				return nil, err
			}
			// The run's files as parsed again, before the merge: the
			// provenance replay reads each file's own facts.
			raws = map[string]*benchrun.Run{rawKey(sha, r.Ordinal): contentOf(r)}
			if merged, err = mergeCompanions(ctx, a, r, files, raws, func(key, check, msg string, params map[string]string) {
				add(meta, key, check, Fail, msg, params)
			}); err != nil {
				return nil, err
			}
			// The raw records are let go before the stored ones are read,
			// so a run of a million requests is not held twice: what the
			// comparison and the checks need of them is kept (their digest,
			// the tool's own latencies), and in the rare case the digests
			// differ the file is parsed again for the first difference.
			rw := rows[r.Ordinal]
			delete(rows, r.Ordinal)
			if rw != nil && r.ToolTimes != nil {
				// The tool's own times are read beside the records as rows.
				r.Requests = make([]benchrun.Request, rw.Len())
				for i := range r.Requests {
					r.Requests[i] = rw.Row(i)
				}
				rw = nil
			}
			tool = rawToolOf(r)
			reqs = rawRequestsOf(r, rw, func() ([]benchrun.Request, error) {
				return reparseRequests(ctx, a, sha, meta, files)
			})
			r.Requests = nil
		}
		// The stored records are read once, in order, through the checks
		// (requestPass), never held whole.
		rec := meta
		eff := provenance.Record(rec.Provenance).Effective()
		pass, err := streamPass(ctx, a, rec, eff, !corrupt && parseErr == nil && r != nil && merged, tool)
		if err != nil {
			return nil, err
		}
		switch {
		case corrupt:
		case parseErr != nil:
			add(rec, MsgRecordsParse, CheckRecords, Fail, fmt.Sprintf("the raw file %s (blob %s) no longer parses as %s: %v",
				rec.FileName, sha, rec.Run.Format, parseErr), map[string]string{"blob": sha, "format": rec.Run.Format})
		case r == nil:
			add(rec, MsgRecordsNoRun, CheckRecords, Fail, fmt.Sprintf("the raw file %s (blob %s) holds no run %d when parsed as %s",
				rec.FileName, sha, rec.Run.Ordinal, rec.Run.Format), map[string]string{"blob": sha, "ordinal": strconv.Itoa(rec.Run.Ordinal)})
		case merged:
			f, err := compareRecords(rec, r, reqs, pass.storedSide(a, id))
			if err != nil {
				return nil, err
			}
			if f != nil {
				f.Params["blob"] = sha
				add(rec, MsgRecordsDiffer, CheckRecords, Fail, f.Message, f.Params)
			}
			pf, err := recomputeProvenance(a, rec, raws)
			if err != nil {
				return nil, err
			}
			for _, f := range pf {
				f.File = rec.FileName
				out = append(out, f)
			}
		}
		if key, msg, params, ok := pass.pack.finding(); ok {
			add(rec, key, CheckRecords, Fail, msg, params)
		}
		for _, f := range auditRun(rec, pass.derived(rec.Run, eff), tool, pass) {
			f.Run, f.File = rec.ID, rec.FileName
			out = append(out, f)
		}
	}
	return out, nil
}

// reparseBlob re-reads a raw file (OpenBlob re-verifies the SHA-256 as it
// reads) and parses it again with the format its runs were read with,
// keeping the runs at the wanted ordinals. rows, when not nil, takes their
// records from a format that keeps them column by column
// (format.CompactParser; those runs' Requests are nil), so a run of a
// million requests is parsed again in less memory. blobErr says the bytes no longer
// match their hash; parseErr that they no longer parse; err is about the
// archive itself.
func reparseBlob(ctx context.Context, a *store.Archive, sha, formatID, fileName string, wanted map[int]bool, rows map[int]format.Rows) (runs map[int]*benchrun.Run, parseErr, blobErr, err error) {
	runs = map[int]*benchrun.Run{}
	rc, err := a.OpenBlob(sha)
	switch {
	case errors.Is(err, store.ErrCorrupt) || errors.Is(err, store.ErrNotFound):
		return runs, nil, err, nil
	case err != nil:
		return nil, nil, nil, err
	}
	er := &errReader{r: rc}
	parser, ok := registry.ByID(formatID)
	cp, compact := parser.(format.CompactParser)
	switch {
	case !ok:
		parseErr = fmt.Errorf("no parser for format %q", formatID)
	case compact && rows != nil:
		parseErr = cp.ParseCompact(ctx, fileName, er, func(r *benchrun.Run, rw format.Rows) error {
			if wanted[r.Ordinal] {
				runs[r.Ordinal] = r
				if rw != nil {
					rows[r.Ordinal] = rw
				}
			}
			return nil
		})
	default:
		parseErr = parser.Parse(ctx, fileName, er, func(r *benchrun.Run) error {
			if wanted[r.Ordinal] {
				runs[r.Ordinal] = r
			}
			return nil
		})
	}
	// A parser may stop before the end; the hash is only checked there.
	if er.err == nil {
		io.Copy(io.Discard, er)
	}
	rc.Close()
	if er.err != nil {
		if !errors.Is(er.err, store.ErrCorrupt) {
			return nil, nil, nil, er.err
		}
		return runs, nil, er.err, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	return runs, parseErr, nil, nil
}

// mergeCompanions repeats on the raw files what the ingest did: each
// companion file of the run, re-read and re-parsed, completes r, and raws
// gets its own run (contentOf, by rawKey). A file whose bytes or parse fail
// is reported and ok is false (the records cannot be compared then).
func mergeCompanions(ctx context.Context, a *store.Archive, r *benchrun.Run, files []store.RunFile, raws map[string]*benchrun.Run,
	fail func(key, check, msg string, params map[string]string)) (ok bool, err error) {
	ok = true
	for _, f := range files {
		runs, parseErr, blobErr, err := reparseBlob(ctx, a, f.Blob, f.Format, f.FileName, map[int]bool{f.Ordinal: true}, nil)
		if err != nil {
			return false, err
		}
		p := map[string]string{"blob": f.Blob, "format": f.Format, "companion": "true"}
		switch c := runs[f.Ordinal]; {
		case blobErr != nil:
			fail(MsgBlobHashCompanion, CheckBlobHash, fmt.Sprintf("the companion raw file %s (blob %s) no longer matches its SHA-256: %v; the records it completed cannot be verified", f.FileName, f.Blob, blobErr), p)
			ok = false
		case parseErr != nil:
			fail(MsgRecordsCompanionParse, CheckRecords, fmt.Sprintf("the companion raw file %s (blob %s) no longer parses as %s: %v", f.FileName, f.Blob, f.Format, parseErr), p)
			ok = false
		case c == nil:
			fail(MsgRecordsCompanionNoRun, CheckRecords, fmt.Sprintf("the companion raw file %s (blob %s) holds no run %d when parsed as %s", f.FileName, f.Blob, f.Ordinal, f.Format), p)
			ok = false
		default:
			raws[rawKey(f.Blob, f.Ordinal)] = contentOf(c)
			if _, err := benchrun.MergeCompanion(r, c); err != nil {
				fail(MsgRecordsCompanionMismatch, CheckRecords, fmt.Sprintf("the companion raw file %s (blob %s) no longer describes the same run: %v", f.FileName, f.Blob, err), p)
				ok = false
			}
		}
	}
	return ok, nil
}

// num writes a value in full precision, without an exponent for the
// magnitudes figures have (a reader compares digits, not 2.01e+07).
// relativeBasis is the tolerance basis of figures.DefaultRelTol.
var relativeBasis = "relative " + num(figures.DefaultRelTol)

func num(v float64) string {
	if a := math.Abs(v); a == 0 || a >= 1e-4 && a < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Stored runs the checks that need only what the archive holds of one run
// (recomputation, plausibility, provenance), with its requests loaded in
// rec.Run.Requests; it does not re-read the raw file (Run does). The site
// shows these on each run page. d, when not nil, is what figures.Derive
// computed of the run (its effective provenance, figures, stated checks and
// impossible stated figures), so a caller that has it does not pay for it
// twice; nil computes it here.
func Stored(rec *store.RunRecord, d *figures.Derived) []Finding {
	fs := auditRun(rec, d, nil, nil)
	for i := range fs {
		fs[i].Run = rec.ID
	}
	return fs
}

// auditRun runs the recomputation, plausibility and provenance checks on one
// stored run. raw, when not nil, is of the run parsed again from its raw
// file: its ToolTimes let a stated figure be recomputed under the tool's own
// definition (the archive keeps only the records). p is the pass over the
// run's records (its figures in d); nil when they are in rec.Run.Requests,
// which are then passed over here.
func auditRun(rec *store.RunRecord, d *figures.Derived, raw *rawTool, p *requestPass) []Finding {
	var out []Finding
	r := rec.Run
	// addKey is add for a check whose messages read more than one way.
	addKey := func(key, check, sev, msg string, params map[string]string) {
		out = append(out, Finding{Check: check, Severity: sev, Message: msg, Params: params, MessageKey: key})
	}
	add := func(check, sev, msg string, params map[string]string) {
		addKey(storedKeys[check], check, sev, msg, params)
	}
	if p == nil {
		var eff map[string]string
		if d != nil {
			eff = d.Effective
		} else {
			eff = provenance.Record(rec.Provenance).Effective()
		}
		p = passOver(r, r.Requests, eff, d == nil, raw)
		if d == nil {
			d = p.derived(r, eff)
		}
	}
	eff := d.Effective
	opt := figures.StatedOptionsOf(r)
	var tool *benchrun.ToolTimes
	if raw != nil && raw.times != nil && d.Figures != nil {
		tool = raw.times
		opt.ToolE2E = raw.e2e
		st := figures.CheckStated(r.Stated, *d.Figures, opt)
		d = &figures.Derived{Effective: d.Effective, Figures: d.Figures, Stated: st, Impossible: d.Impossible}
	}

	for _, s := range r.Stated {
		if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
			addKey(MsgNonFinite, CheckNonFinite, Fail, fmt.Sprintf("the stated %s (%s in the file) is %s, not a number a reader can use",
				s.Metric, s.SourceKey, num(s.Value)), map[string]string{"metric": s.Metric, "value": num(s.Value)})
		}
	}

	// Stated figures no run can have produced (figures.ImpossibleStated,
	// in d): summary-only and detailed runs alike.
	for _, imp := range d.Impossible {
		addKey(MsgImpossibleStated, CheckImpossibleStated, Fail, fmt.Sprintf("the stated %s (%s in the file) is %s %s, which no run can produce: %s",
			imp.Metric, imp.Key, num(imp.Value), imp.Unit, imp.Reason),
			map[string]string{"metric": imp.Metric, "key": imp.Key, "value": num(imp.Value), "unit": imp.Unit, "reason": imp.Reason})
	}

	// The parsers keep a non-finite summary value out of the stated figures
	// (as Extra, with a note): the tool printed it, nothing was computed.
	var extraKeys []string
	for k := range r.Extra {
		extraKeys = append(extraKeys, k)
	}
	sort.Strings(extraKeys)
	for _, k := range extraKeys {
		switch strings.Trim(r.Extra[k], `"`) {
		case "NaN", "Infinity", "-Infinity", "nan", "inf", "-inf":
			if k == "request_rate" || k == "burstiness" {
				continue // "inf" is how vLLM says "all at once"
			}
			addKey(MsgNonFiniteExtra, CheckNonFinite, Warn, fmt.Sprintf("the file states %s as %s: the tool had no value for it, so it is not a figure and was not archived as one",
				k, r.Extra[k]), map[string]string{"key": k, "value": r.Extra[k]})
		}
	}

	out = append(out, serverVersions(r)...)

	statedDuration := math.NaN()
	if d, ok := r.StatedValue("duration"); ok {
		statedDuration = d.Value
	}

	ff := d.Figures
	if ff != nil {
		f := *ff
		for _, c := range d.Stated.Checks {
			dd := c.Definitional
			if c.OK && (dd == nil || c.Metric == "duration") {
				continue // no finding: its parameters are not made
			}
			params := map[string]string{"metric": c.Metric, "stated": num(c.Stated), "recomputed": num(c.Recomputed),
				"unit": c.Unit, "tolerance": num(c.Tolerance), "tolerance_basis": c.ToleranceBasis, "definition": c.Definition, "basis": c.Basis}
			if dd != nil && c.Metric != "duration" { // the window rule below judges the duration
				// A difference of definition, not a failure: info when the
				// tool's definition reproduces the stated value, a warning
				// when it can only be bounded.
				params["our_definition"], params["tool_definition"] = dd.Ours, dd.Tools
				params["difference"], params["difference_pct"], params["tool_value"] = num(dd.Diff), num(dd.Pct), num(dd.ToolValue)
				key, sev, how := MsgDefinitionAgrees, Info, fmt.Sprintf("recomputed under the tool's definition it is %s %s, which agrees (tolerance %s %s, %s)", num(dd.ToolValue), c.Unit, num(c.Tolerance), c.Unit, c.ToleranceBasis)
				if !dd.Recomputed {
					key, sev, how = MsgDefinitionBounded, Warn, c.Reason
				}
				addKey(key, CheckDefinition, sev, fmt.Sprintf("the stated %s is %s %s, recomputed by our definition it is %s %s: they differ by %s %s (%+.4g%%), a difference of definition — ours: %s; the tool's: %s; %s",
					c.Metric, num(c.Stated), c.Unit, num(c.Recomputed), c.Unit, num(dd.Diff), c.Unit, dd.Pct, dd.Ours, dd.Tools, how), params)
				continue
			}
			if c.OK {
				continue
			}
			switch c.Metric {
			case "tpot.mean":
				addKey(MsgTPOT, CheckTPOT, Fail, fmt.Sprintf("the stated mean TPOT %s s cannot be reconciled with latency: the mean of (E2E − TTFT) / (output tokens − 1) over the completed requests is %s s (tolerance %s s, %s): %s",
					num(c.Stated), num(c.Recomputed), num(c.Tolerance), c.ToleranceBasis, c.Reason), params)
			case "duration":
				// Judged by plausibility.duration below.
			default:
				addKey(MsgStated, CheckStated, Fail, fmt.Sprintf("the stated %s is %s %s, recomputed from the records it is %s %s (%s; definition: %s; tolerance %s %s, %s): %s",
					c.Metric, num(c.Stated), c.Unit, num(c.Recomputed), c.Unit, c.Basis, c.Definition, num(c.Tolerance), c.Unit, c.ToleranceBasis, c.Reason), params)
			}
		}

		// Stated duration against the records' window.
		td := figures.DefinitionsOf(r.Format)
		if wf, ok := windowByDefinition(td, tool, p, f, statedDuration); ok {
			addKey(wf.key, CheckDefinition, wf.sev, wf.msg, wf.params)
		} else if f.WindowBasis == figures.BasisRecords && statedDuration > 0 && statedDuration < f.Window-DurationSlack {
			addKey(MsgDurationWindow, CheckDuration, Fail, fmt.Sprintf("the stated duration %s s is shorter than the records' window %s s (first send to last completion) by %s s, more than the %s s allowed: the run cannot have taken less time than its own requests",
				num(statedDuration), num(f.Window), num(f.Window-statedDuration), num(DurationSlack)),
				map[string]string{"stated": num(statedDuration), "window": num(f.Window)})
		}

		// Non-streamed responses: TTFT equal to latency.
		same, multi := p.same, p.multi
		if multi > 0 && float64(same) > NonStreamedShare*float64(multi) {
			add(CheckNonStreamed, Warn, fmt.Sprintf("%d of %d completed multi-token requests have TTFT equal to latency: the responses were probably not streamed, so TTFT and TPOT do not measure what their names say",
				same, multi), map[string]string{"equal": strconv.Itoa(same), "requests": strconv.Itoa(multi)})
		}

		if fixed := figures.FixedOutput(eff); f.Short > 0 {
			add(CheckOutputLength, Warn, fmt.Sprintf("%d of %d completed requests produced fewer than the requested %d output tokens (workload.fixed_output is true): throughput and TPOT are over shorter outputs than declared",
				f.Short, f.Completed, fixed), map[string]string{"short": strconv.Itoa(f.Short), "completed": strconv.Itoa(f.Completed), "requested": strconv.Itoa(fixed)})
		}
	}

	// Success rate, from the records or the stated counts.
	completed, failed := r.Completed, r.Failed
	if ff != nil {
		completed, failed = int64(ff.Completed), int64(ff.Failed)
	}
	if completed >= 0 && failed >= 0 && completed+failed > 0 {
		rate := float64(completed) / float64(completed+failed)
		sev := ""
		switch {
		case rate < SuccessFail:
			sev = Fail
		case rate < SuccessWarn:
			sev = Warn
		}
		if sev != "" {
			add(CheckSuccessRate, sev, fmt.Sprintf("%d of %d requests completed (success rate %.2f%%, below %g%%): figures over the completed requests describe a server that was failing",
				completed, completed+failed, rate*100, map[string]float64{Fail: SuccessFail * 100, Warn: SuccessWarn * 100}[sev]),
				map[string]string{"completed": strconv.FormatInt(completed, 10), "failed": strconv.FormatInt(failed, 10), "rate": num(rate)})
		}
	}

	// The summary's own consistency: output_throughput = total_output_tokens / duration.
	tput, okT := r.StatedValue("output_throughput")
	toks, okK := r.StatedValue("total_output_tokens")
	dur, okD := r.StatedValue("duration")
	if okT && okK && okD && dur.Value > 0 && isFinite(tput.Value) && isFinite(toks.Value) {
		want := toks.Value / dur.Value
		tol := figures.DefaultRelTol * math.Abs(tput.Value)
		basis := relativeBasis
		if h := halfUnit(opt, tput) + math.Abs(want)*halfUnit(opt, dur)/math.Max(dur.Value-halfUnit(opt, dur), 1e-300); h > tol {
			tol, basis = h, "rounding of the printed throughput and duration"
		}
		if math.Abs(tput.Value-want) > tol {
			addKey(MsgDurationThroughput, CheckDuration, Fail, fmt.Sprintf("the stated output throughput %s tok/s disagrees with the summary's own total_output_tokens / duration = %s / %s s = %s tok/s (tolerance %s tok/s, %s)",
				num(tput.Value), num(toks.Value), num(dur.Value), num(want), num(tol), basis),
				map[string]string{"stated": num(tput.Value), "recomputed": num(want), "definition": "total_output_tokens / duration", "tolerance": num(tol)})
		}
	}

	// Peak output throughput must be at least the mean.
	if peak, ok := r.StatedValue("max_output_tokens_per_s"); ok && isFinite(peak.Value) {
		mean, what := math.NaN(), ""
		switch {
		case okT && isFinite(tput.Value):
			mean, what = tput.Value, "stated output throughput"
		case ff != nil && isFinite(ff.OutputThroughput):
			mean, what = ff.OutputThroughput, "output throughput recomputed from the records (output tokens / window)"
		}
		tol := figures.DefaultRelTol*math.Abs(mean) + halfUnit(opt, peak)
		if okT {
			tol += halfUnit(opt, tput)
		}
		// A peak over one-second buckets cannot exceed every output token
		// the run produced (vLLM counts tokens per whole second).
		total, basis := math.NaN(), ""
		switch {
		case okK && isFinite(toks.Value):
			total, basis = toks.Value, "stated total_output_tokens"
		case ff != nil:
			total, basis = float64(ff.OutputTokens), "output tokens of the records"
		}
		long := statedDuration >= 1 || ff != nil && ff.Window >= 1 // a run under a second has no whole bucket
		if long && total > 0 && peak.Value > total+halfUnit(opt, peak) {
			addKey(MsgPeakOverTotal, CheckPeakThroughput, Fail, fmt.Sprintf("the stated peak output throughput %s tok/s exceeds the %s %s: no one-second interval can produce more tokens than the whole run did",
				num(peak.Value), basis, num(total)), map[string]string{"peak": num(peak.Value), "total_output_tokens": num(total), "total_basis": basis})
		}
		// Tools count tokens in whole-second buckets: over a run of D
		// seconds some bucket holds at least total / ceil(D) tokens, so the
		// peak is at least mean × D / ceil(D) (a 1.4 s run can peak below
		// its mean).
		floor := mean
		if d := statedDuration; d > 0 {
			floor = mean * d / math.Ceil(d)
		} else if ff != nil && ff.Window > 0 {
			floor = mean * ff.Window / math.Ceil(ff.Window)
		}
		if !math.IsNaN(mean) && peak.Value < floor-tol {
			addKey(MsgPeakUnderMean, CheckPeakThroughput, Fail, fmt.Sprintf("the stated peak output throughput %s tok/s is below the %s %s tok/s (at least %s tok/s over whole-second buckets): a peak cannot be less than the mean",
				num(peak.Value), what, num(mean), num(floor)), map[string]string{"peak": num(peak.Value), "mean": num(mean), "mean_basis": what, "floor": num(floor)})
		}
	}

	out = append(out, offeredRateFindings(r, eff, ff)...)
	out = append(out, zeroSeriesFindings(r, ff, p)...)
	out = append(out, runEngineFindings(eff)...)

	// Corrections recorded after ingest (benchledger amend): listed so a
	// reviewer sees which values are not what ingest archived.
	for _, e := range rec.Provenance {
		if e.Source != provenance.FromAmend {
			continue
		}
		what := fmt.Sprintf("corrected to %q", e.Value)
		if e.Value == "" {
			what = "unset"
		}
		add(CheckCorrected, Info, fmt.Sprintf("%s was %s after ingest (benchledger amend); benchledger show %s lists who, when, the old value and why",
			e.Field, what, rec.ID), map[string]string{"field": e.Field, "value": e.Value})
	}
	if r.HasRequests {
		for _, m := range p.declared.Mismatches() {
			add(CheckDeclaredMeasured, Warn, fmt.Sprintf("%s is declared as %s but %s", m.Field, m.Declared, m.Reason),
				map[string]string{"field": m.Field, "declared": m.Declared, "measured": m.Measured})
		}
	}

	if !rec.Publishable {
		add(CheckProvenanceComplete, Info, fmt.Sprintf("provenance is incomplete, so the run cannot be published: missing %s", strings.Join(rec.Missing, ", ")),
			map[string]string{"missing": strings.Join(rec.Missing, ",")})
	}
	return out
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

type windowFinding struct {
	key, sev, msg string
	params        map[string]string
}

// windowByDefinition judges a stated duration shorter than the records'
// window under the tool's definition of its duration: a measurement window
// that excludes warmup and cooldown, while the requests it counts overlap
// it (guidellm ≥ 0.4). With the raw file's window (tool) the duration must
// equal it and every record overlap it (info); without it, the records'
// span may exceed the duration by at most the longest request at each end
// (warn). ok is false when the definition does not apply or does not
// explain the difference, which plausibility.duration then judges.
func windowByDefinition(td *figures.ToolDefinitions, tool *benchrun.ToolTimes, p *requestPass, f figures.RunFigures, dur float64) (windowFinding, bool) {
	if td == nil || td.Window == "" || f.WindowBasis != figures.BasisRecords || !(dur > 0) || dur >= f.Window-DurationSlack {
		return windowFinding{}, false
	}
	params := map[string]string{"metric": "duration", "stated": num(dur), "recomputed": num(f.Window), "unit": "s",
		"difference": num(dur - f.Window), "our_definition": figures.Definitions["window"].Formula, "tool_definition": td.Window}
	base := fmt.Sprintf("the stated duration %s s is shorter than the records' window %s s by %s s, a difference of definition — ours: %s; the tool's: %s; ",
		num(dur), num(f.Window), num(f.Window-dur), figures.Definitions["window"].Formula, td.Window)
	if tool != nil && isFinite(tool.WindowStart) && isFinite(tool.WindowEnd) {
		w := tool.WindowEnd - tool.WindowStart
		if math.Abs(w-dur) > 1e-6*math.Max(1, w) {
			return windowFinding{}, false
		}
		if p.tool != tool || p.outside { // every record must overlap the window (requestPass)
			return windowFinding{}, false
		}
		params["window_start"], params["window_end"] = num(tool.WindowStart), num(tool.WindowEnd)
		return windowFinding{MsgWindowAgrees, Info, base + fmt.Sprintf("the file's measurement window %s – %s is %s s, the stated duration, and every record overlaps it", num(tool.WindowStart), num(tool.WindowEnd), num(w)), params}, true
	}
	maxLat := p.maxLat
	if f.E2EL.N > 0 {
		maxLat = math.Max(maxLat, f.E2EL.Max)
	}
	if !isFinite(maxLat) || f.Window-dur > 2*maxLat+DurationSlack {
		return windowFinding{}, false
	}
	params["max_latency"] = num(maxLat)
	return windowFinding{MsgWindowBounded, Warn, base + fmt.Sprintf("requests overlapping the window can extend the records' span beyond it by at most the longest request (%s s) at each end, which explains the difference; benchledger audit re-reads the window from the raw file", num(maxLat)), params}, true
}

// halfUnit is half a unit of the last printed decimal of a stated figure,
// in its canonical unit; 0 when the source printed full precision.
func halfUnit(opt figures.StatedOptions, s benchrun.Stated) float64 {
	d, ok := opt.MetricDecimals[s.Metric]
	if !ok {
		if !opt.Rounded {
			return 0
		}
		d = opt.Decimals
	}
	f := 1.0
	scale := map[string]float64{"s": 1, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
	if from, ok1 := scale[s.SourceUnit]; ok1 {
		if to, ok2 := scale[s.Unit]; ok2 {
			f = from / to
		}
	}
	return 0.5 * math.Pow(10, -float64(d)) * f
}
