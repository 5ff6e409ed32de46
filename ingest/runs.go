package ingest

// The runs of one file into the archive: new, duplicate, completed by a
// companion file, or refused for contradicting what is archived.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/benchledger/benchledger/benchrun"
	"github.com/benchledger/benchledger/figures"
	"github.com/benchledger/benchledger/ingest/format"
	"github.com/benchledger/benchledger/ingest/registry"
	"github.com/benchledger/benchledger/provenance"
	"github.com/benchledger/benchledger/store"
)

// contentIDs is each run's benchrun.ContentID ("" for a run the parser
// rejected), worked out before the file's transaction (on a preparing
// goroutine, or while a large file's last bytes are stored), so the one
// writer does not.
func contentIDs(runs []*benchrun.Run) []string {
	ids := make([]string, len(runs))
	for i, r := range runs {
		if r.Rejection == "" {
			ids[i] = benchrun.ContentID(r)
		}
	}
	return ids
}

// putRuns stores a file's runs with their provenance, one event each. A
// run the parser rejected (one bad line of several), or whose declared
// provenance contradicts it, is reported as rejected at its place while the
// others are stored: every problem of the file in one pass. When every run
// is bad, the file is rejected and nothing of it is kept. ids are the
// runs' contentIDs.
func (b *batch) putRuns(tx *store.Tx, parser format.Parser, sum, path string, runs []*benchrun.Run, ids []string, declared func(*benchrun.Run) provenance.Record) ([]Outcome, error) {
	var outs, rejected []Outcome
	now := time.Now().UTC()
	good := make([]*benchrun.Run, 0, len(runs))
	idOf := make(map[*benchrun.Run]string, len(runs))
	for i, r := range runs {
		idOf[r] = ids[i]
		if r.Rejection != "" {
			rejected = append(rejected, Outcome{Status: StatusRejected, File: path, Ordinal: r.Ordinal, Place: r.Location, Reason: r.Rejection})
			continue
		}
		if cs := provenance.Contradictions(record(r, declared(r))); len(cs) > 0 {
			rejected = append(rejected, Outcome{Status: StatusRejected, File: path, Ordinal: r.Ordinal, Place: r.Location, Reason: contradictionText(cs, r.FactPlaces)})
			continue
		}
		good = append(good, r)
	}
	if len(good) == 0 {
		return nil, &rejectError{out: rejected[0], more: rejected[1:]}
	}
	inv := invocation(parser, path)
	for _, r := range good {
		id := idOf[r]
		// The same run archived from another file (a sweep's summary.json
		// and its run=N.json): one run, this file attached to it.
		if existing, err := tx.ExistingRun(id); err != nil {
			return nil, err
		} else if existing != nil {
			o, err := b.attachSame(tx, existing, sum, path, r, now)
			if err != nil {
				return nil, err
			}
			outs = append(outs, o)
			continue
		}
		var note string
		if r.Companion != "" {
			candidates, err := tx.CompanionRuns(r.Companion)
			if err != nil {
				return nil, err
			}
			var existing *store.RunRecord
			for _, c := range candidates {
				ci := c.Invocation
				if ci == "" {
					// Archived before schema 6 recorded invocations: the
					// file name it was ingested under names it.
					if cp, ok := registry.ByID(c.Run.Format); ok {
						ci = invocation(cp, c.FileName)
					}
				}
				if inv != "" && ci == inv {
					if existing, err = tx.ExistingRun(c.ID); err != nil {
						return nil, err
					}
					break
				}
			}
			if existing != nil {
				o, err := b.completeRun(tx, existing, sum, path, r, declared(r), now)
				if err != nil {
					return nil, err
				}
				outs = append(outs, o)
				continue
			}
			if len(candidates) > 0 {
				ids := make([]string, len(candidates))
				for i, c := range candidates {
					ids[i] = c.ID
				}
				note = fmt.Sprintf("same companion key (%s) as run %s, but not written by the same invocation (another folder or file-name stem): kept as a run of its own, never merged on a coincidence of shape",
					r.Companion, strings.Join(ids, ", "))
			}
		}
		rec := record(r, declared(r))
		note = joinNotes(note, declaredNote(r, rec))
		missing := blockers(r, rec)
		if err := tx.PutRun(&store.RunRecord{ID: id, BlobSHA256: sum, FileName: path, Run: r, Provenance: rec,
			Publishable: len(missing) == 0, Missing: missing, IngestedAt: now, Invocation: inv}); err != nil {
			return nil, err
		}
		d, err := b.declaredSources(tx, path)
		if err != nil {
			return nil, err
		}
		d["file"], d["format"], d["ordinal"], d["publishable"], d["missing"] = path, r.Format, r.Ordinal, len(missing) == 0, missing
		detail, _ := json.Marshal(d)
		if err := tx.AppendEvent(store.Event{At: now, Actor: b.opt.Actor, ToolVersion: b.opt.ToolVersion, Action: "ingest",
			RunID: id, BlobSHA256: sum, Detail: string(detail)}); err != nil {
			return nil, err
		}
		outs = append(outs, Outcome{Status: StatusNew, RunID: id, Ordinal: r.Ordinal, Format: r.Format, File: path,
			Publishable: len(missing) == 0, Missing: missing, Note: note})
	}
	return append(outs, rejected...), nil
}

// declaredNote is the ingest warning for declared workload values the
// records do not bear out (figures.DeclaredMismatches; the audit reports
// the same as provenance.declared_vs_measured).
func declaredNote(r *benchrun.Run, rec provenance.Record) string {
	if !r.HasRequests {
		return ""
	}
	var parts []string
	for _, m := range figures.DeclaredMismatches(rec.Effective(), r.Requests) {
		parts = append(parts, fmt.Sprintf("%s is declared as %s but %s", m.Field, m.Declared, m.Reason))
	}
	return strings.Join(parts, "; ")
}

func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// invocation names the tool invocation that wrote path (see
// format.Invoker): its absolute folder and its name's stem; "" when the
// format has none or the name is not one the tool writes.
func invocation(parser format.Parser, path string) string {
	inv, ok := parser.(format.Invoker)
	if !ok {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	key, ok := inv.Invocation(filepath.ToSlash(abs))
	if !ok {
		return ""
	}
	return key
}

// attachSame records a file whose run the archive already holds whole.
func (b *batch) attachSame(tx *store.Tx, existing *store.RunRecord, sum, path string, r *benchrun.Run, now time.Time) (Outcome, error) {
	if err := tx.AttachFile(existing.ID, store.RunFile{Blob: sum, Ordinal: r.Ordinal, FileName: path, Format: r.Format,
		Added: []string{}, AddedAt: now}); err != nil {
		return Outcome{}, err
	}
	detail, _ := json.Marshal(map[string]any{"file": path, "format": r.Format, "ordinal": r.Ordinal, "same_content": true})
	if err := tx.AppendEvent(store.Event{At: now, Actor: b.opt.Actor, ToolVersion: b.opt.ToolVersion, Action: "same-run",
		RunID: existing.ID, BlobSHA256: sum, Detail: string(detail)}); err != nil {
		return Outcome{}, err
	}
	return Outcome{Status: StatusDuplicate, RunID: existing.ID, Ordinal: r.Ordinal, Format: r.Format, File: path,
		Publishable: existing.Publishable, Missing: existing.Missing,
		Note: "the same run as " + existing.FileName + " (" + existing.Run.Location + "): one run, this file attached to it"}, nil
}

// completeRun attaches a file to the run another file of the same run
// (Run.Companion) created, and completes that run with what this file adds:
// per-request records, stated figures, file facts, declared provenance.
func (b *batch) completeRun(tx *store.Tx, existing *store.RunRecord, sum, path string, r *benchrun.Run, declared provenance.Record, now time.Time) (Outcome, error) {
	merged := existing.Run
	rankBefore := benchrun.Rank(merged)
	hadRequests, nStated := merged.HasRequests, len(merged.Stated)
	before := slices.Clone(merged.Stated)
	factsBefore := map[string]bool{}
	for k := range merged.Facts {
		factsBefore[k] = true
	}
	added, err := benchrun.MergeCompanion(merged, r)
	if err != nil {
		return Outcome{}, &rejectError{out: Outcome{Status: StatusRejected, File: path, Place: r.Location,
			Reason: fmt.Sprintf("describes run %s (companion key %s) but %v", existing.ID, r.Companion, err)}}
	}
	var newFacts provenance.Record
	keys := make([]string, 0, len(r.Facts))
	for k := range r.Facts {
		if !factsBefore[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		newFacts = append(newFacts, provenance.Entry{Field: k, Value: r.Facts[k], Source: provenance.FromFile})
	}
	// Declared provenance (this file's manifest, --set) the run lacks.
	for _, e := range existing.Provenance.Absent(declared) {
		newFacts = append(newFacts, e)
		added = append(added, "provenance "+e.Field)
	}
	rec := append(append(provenance.Record(nil), existing.Provenance...), newFacts...)
	if cs := provenance.Contradictions(rec); len(cs) > 0 {
		return Outcome{}, &rejectError{out: Outcome{Status: StatusRejected, File: path, Place: r.Location, Reason: contradictionText(cs, r.FactPlaces)}}
	}
	missing := blockers(merged, rec)
	replaced := map[int]benchrun.Stated{}
	for i := range before {
		if merged.Stated[i] != before[i] {
			replaced[i] = merged.Stated[i]
		}
	}
	err = tx.AttachCompanion(existing.ID, store.Completion{Run: merged, Replaced: replaced,
		File:      store.RunFile{Blob: sum, Ordinal: r.Ordinal, FileName: path, Format: r.Format, Added: added, AddedAt: now},
		NewStated: merged.Stated[nStated:], NewFacts: newFacts, NewRequests: !hadRequests && merged.HasRequests,
		Provenance: rec, Publishable: len(missing) == 0, Missing: missing})
	if err != nil {
		return Outcome{}, err
	}
	// The run is named by its richest file, whichever came first: a file
	// that outranks the one the id came from renames the run (the old id
	// stays an alias).
	id := existing.ID
	detailMap, err := b.declaredSources(tx, path)
	if err != nil {
		return Outcome{}, err
	}
	detailMap["file"], detailMap["format"], detailMap["ordinal"], detailMap["companion"] = path, r.Format, r.Ordinal, r.Companion
	detailMap["added"], detailMap["publishable"], detailMap["missing"] = added, len(missing) == 0, missing
	if rank, newID := benchrun.Rank(r), benchrun.ContentID(r); rank > rankBefore || (rank == rankBefore && newID < id) {
		renamed, err := tx.RekeyRun(id, newID, "named by its richer file "+path)
		if err != nil {
			return Outcome{}, err
		}
		if renamed {
			detailMap["renamed_from"] = id
			id = newID
		}
	}
	detail, _ := json.Marshal(detailMap)
	if err := tx.AppendEvent(store.Event{At: now, Actor: b.opt.Actor, ToolVersion: b.opt.ToolVersion, Action: "complete",
		RunID: id, BlobSHA256: sum, Detail: string(detail)}); err != nil {
		return Outcome{}, err
	}
	return Outcome{Status: StatusCompleted, RunID: id, Ordinal: r.Ordinal, Format: r.Format, File: path,
		Publishable: len(missing) == 0, Missing: missing, Added: added, Companion: r.Companion}, nil
}

// record gathers everything stated about a run's provenance: the file's own
// facts and what the manifest and --set declare.
func record(r *benchrun.Run, declared provenance.Record) provenance.Record {
	keys := make([]string, 0, len(r.Facts))
	for k := range r.Facts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rec := make(provenance.Record, 0, len(keys)+len(declared))
	for _, k := range keys {
		rec = append(rec, provenance.Entry{Field: k, Value: r.Facts[k], Source: provenance.FromFile})
	}
	return append(rec, declared...)
}

// blockers lists what keeps a run from being publishable: the one rule,
// figures.Blockers.
func blockers(r *benchrun.Run, rec provenance.Record) []string {
	return figures.Blockers(r, rec.Effective())
}

// contradictionText says what contradicts what; places, when the file
// stated a field away from the run's place (a command above a block),
// names where.
func contradictionText(cs []provenance.Contradiction, places map[string]string) string {
	var parts []string
	for _, c := range cs {
		where := ""
		if at, ok := places[c.Field]; ok {
			where = " (at " + at + ")"
		}
		s := fmt.Sprintf("the file says %s = %q%s but the %s says %q", c.Field, c.FileValue, where, c.Source, c.DeclaredValue)
		if c.Reason != "" {
			s += " (" + c.Reason + ")"
		}
		parts = append(parts, s)
	}
	return "provenance contradicts the file: " + strings.Join(parts, "; ")
}

// again handles bytes that are already archived: a duplicate when the
// declared provenance agrees, a completion when it only adds fields, and a
// refusal when it changes what was recorded.
func (b *batch) again(ctx context.Context, path, sum string, existing []store.RunSummary,
	declared func(*benchrun.Run) provenance.Record, report func(Outcome)) error {
	type plan struct {
		rec     *store.RunRecord
		added   provenance.Record
		missing []string
	}
	var plans []plan
	var conflicts []string
	for _, s := range existing {
		rec, err := b.opt.Archive.RunMeta(s.ID)
		if err != nil {
			return err
		}
		added, cs := rec.Provenance.Gaps(declared(rec.Run))
		for _, c := range cs {
			conflicts = append(conflicts, fmt.Sprintf("run %s has %s = %q, this ingest says %q", rec.ID, c.Field, c.Stored, c.Declared))
		}
		full := append(append(provenance.Record{}, rec.Provenance...), added...)
		if cs := provenance.Contradictions(full); len(cs) > 0 {
			conflicts = append(conflicts, fmt.Sprintf("run %s: %s", rec.ID, contradictionText(cs, nil)))
		}
		plans = append(plans, plan{rec: rec, added: added, missing: blockers(rec.Run, full)})
	}
	if len(conflicts) > 0 {
		report(Outcome{Status: StatusRejected, File: path, Reason: "already archived with different provenance, which an ingest does not change: " +
			strings.Join(conflicts, "; ") + "; to correct an archived value, use benchledger amend RUN --set field=value --reason TEXT"})
		return nil
	}
	needWrite := false
	for _, p := range plans {
		if len(p.added) > 0 {
			needWrite = true
		}
	}
	if needWrite {
		tx, err := b.opt.Archive.Begin(ctx, b.opt.OnWait)
		if err != nil {
			return err
		}
		now := time.Now().UTC()
		for _, p := range plans {
			if len(p.added) == 0 {
				continue
			}
			if err := tx.AddProvenance(p.rec.ID, p.added, len(p.missing) == 0, p.missing); err != nil {
				tx.Rollback()
				return err
			}
			d, err := b.declaredSources(tx, path)
			if err != nil {
				tx.Rollback()
				return err
			}
			d["file"], d["ordinal"], d["added"] = path, p.rec.Run.Ordinal, fieldsOf(p.added)
			detail, _ := json.Marshal(d)
			if err := tx.AppendEvent(store.Event{At: now, Actor: b.opt.Actor, ToolVersion: b.opt.ToolVersion,
				Action: "provenance-completed", RunID: p.rec.ID, BlobSHA256: sum, Detail: string(detail)}); err != nil {
				tx.Rollback()
				return err
			}
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	for _, p := range plans {
		st := StatusDuplicate
		if len(p.added) > 0 {
			st = StatusCompleted
		}
		report(Outcome{Status: st, RunID: p.rec.ID, Ordinal: p.rec.Run.Ordinal, Format: p.rec.Run.Format, File: path,
			Publishable: len(p.missing) == 0, Missing: p.missing, Added: fieldsOf(p.added)})
	}
	return nil
}

func fieldsOf(r provenance.Record) []string {
	var out []string
	for _, e := range r {
		out = append(out, e.Field)
	}
	return out
}

// The upgrade of archives from before schema 6 names a run completed by
// companion files by its richest file, re-parsed from the archived bytes.
func init() { store.SetReparser(reparse) }

// reparse is the run at ordinal of an archived file, parsed with its
// format; an error when the file no longer gives a good run there.
func reparse(formatID, name string, raw []byte, ordinal int) (*benchrun.Run, error) {
	p, ok := registry.ByID(formatID)
	if !ok {
		return nil, fmt.Errorf("no parser for format %q", formatID)
	}
	var run *benchrun.Run
	err := p.Parse(context.Background(), name, bytes.NewReader(raw), func(r *benchrun.Run) error {
		if r.Ordinal == ordinal && r.Rejection == "" {
			run = r
		}
		return nil
	})
	if run != nil {
		return run, nil
	}
	if err == nil {
		err = fmt.Errorf("%s holds no good run at ordinal %d", name, ordinal)
	}
	return run, err
}
