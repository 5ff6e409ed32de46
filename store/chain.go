package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// The hash chain makes every change to the archive made outside benchledger
// visible to audit (docs/audit.md, "Tamper evidence").
//
// Each recorded thing has a kind (chainKinds) and a ref, its key as text. A
// write transaction notes what it changed (Tx.touch); at commit, for each
// such thing whose canonical record differs from its latest link (or that
// has none), a link is appended: seq, kind, ref, record = SHA-256 of the
// record, prev = the previous link's hash, hash = SHA-256(prev, kind, ref,
// record). VerifyChain recomputes the links end to end and every thing's
// record, so an edit (a reference's value, a provenance value, a
// publishable flag), a deletion (a run, an erratum, an event) or an
// insertion (an erratum added to an old version) by another SQLite client
// shows.
//
// A new kind of recorded thing joins the chain with one entry in
// chainKinds and one tx.touch(kind, ref) where it is written.

// chainKind says how to read one kind of recorded thing: ref and record
// are SQL expressions over from; one restricts from to the row whose ref is
// ?1.
type chainKind struct {
	kind, ref, record, from, one string
	// mutable kinds get a new link whenever benchledger changes them
	// (a run completed, a reference re-checked); a thing of any other kind
	// is linked once, and a later difference is for audit to report (its
	// id reused after a deletion must not vouch for the new row).
	mutable bool
}

var chainKinds = []chainKind{
	{kind: "event", ref: "CAST(id AS TEXT)", from: "events", one: "WHERE id = CAST(?1 AS INTEGER)",
		record: "json_array(id, at, actor, tool_version, action, run_id, blob, detail)"},
	// A run is its row, its provenance (every source), its stated figures
	// and its companion files; its per-request records are recomputable
	// from its raw files, whose SHA-256 is part of the row.
	{kind: "run", ref: "id", from: "runs r", one: "WHERE id = ?1", mutable: true,
		record: `json_array(json_array(id, blob, ordinal, file_name, location, format, format_variant, source_tool,
			percentile_method, clock, has_requests, completed, failed, extra, notes, campaign, role, model, engine,
			engine_version, gpu, run_date, publishable, missing, ingested_at, request_count, companion),
			(SELECT json_group_array(json_array(field, source, value)) FROM
				(SELECT field, source, value FROM provenance p WHERE p.run_id = r.id ORDER BY field, source)),
			(SELECT json_group_array(json_array(seq, metric, value, unit, source_key, source_unit, printed)) FROM
				(SELECT * FROM stated s WHERE s.run_id = r.id ORDER BY seq)),
			(SELECT json_group_array(json_array(blob, ordinal, file_name, format, added, added_at)) FROM
				(SELECT * FROM run_files f WHERE f.run_id = r.id ORDER BY blob, ordinal)))`},
	{kind: "reference", ref: "campaign || '/' || id", from: `"references"`, one: "WHERE campaign || '/' || id = ?1", mutable: true,
		record: "json_array(campaign, id, figure, value, unit, source, title, notes, captured, checked, visible, provenance, recorded_at, updated_at)"},
	{kind: "reference_check", ref: "campaign || '/' || reference_id || '/' || seq", from: "reference_checks",
		one:    "WHERE campaign || '/' || reference_id || '/' || seq = ?1",
		record: "json_array(campaign, reference_id, seq, checked, visible, value, unit, source, figure, title, notes, captured, provenance, recorded_at)"},
	{kind: "publication", ref: "case_id || '/' || version", from: "publications", one: "WHERE case_id || '/' || version = ?1",
		record: "json_array(case_id, version, recorded_at, digest, snapshot)"},
	// A correction (benchledger amend) is linked once: corrections are
	// append-only, like events.
	{kind: "correction", ref: "CAST(id AS TEXT)", from: "corrections", one: "WHERE id = CAST(?1 AS INTEGER)",
		record: "json_array(id, run_id, field, old_value, new_value, reason, actor, tool_version, at)"},
	{kind: "erratum", ref: "case_id || '/' || version || '/' || seq", from: "errata", one: "WHERE case_id || '/' || version || '/' || seq = ?1",
		record: "json_array(case_id, version, seq, kind, name, old, new, recorded_at)"},
}

func chainKindOf(kind string) (chainKind, bool) {
	for _, k := range chainKinds {
		if k.kind == kind {
			return k, true
		}
	}
	return chainKind{}, false
}

func (k chainKind) query(where string) string {
	return "SELECT " + k.ref + ", " + k.record + " FROM " + k.from + " " + where
}

func recordHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

func linkHash(prev, kind, ref, record string) string {
	sum := sha256.Sum256([]byte(prev + "\n" + kind + "\n" + ref + "\n" + record))
	return hex.EncodeToString(sum[:])
}

type chainRef struct{ kind, ref string }

// touch notes that this transaction changed the thing (kind, ref): Commit
// links its new state.
func (tx *Tx) touch(kind, ref string) {
	if ref == "" {
		return
	}
	k := chainRef{kind, ref}
	if tx.touchedSet == nil {
		tx.touchedSet = map[chainRef]bool{}
	}
	if !tx.touchedSet[k] {
		tx.touchedSet[k] = true
		tx.touched = append(tx.touched, k)
	}
}

// ErrTampered: a write would change a recorded thing whose present state
// is not what the chain recorded (another program changed it): the write
// is refused rather than vouch for that state (benchledger audit names it).
// The error is a *TamperedError.
var ErrTampered = errors.New("changed outside benchledger since the chain recorded it")

// TamperedError is a write refused for ErrTampered. It names the archive,
// each thing ("run 1a2b…", "reference camp/id") and the audit check that
// reports it, and says the ways forward. There is deliberately no repair:
// linking the changed state would make the chain vouch for it
// (docs/audit.md, "A write to a changed archive").
type TamperedError struct {
	Path   string
	Things []string
}

func (e *TamperedError) Error() string {
	return fmt.Sprintf("archive %s: write refused, nothing was written: %s %v (audit check %s; benchledger audit names what changed). "+
		"Restore the archive from a backup taken before the change, or ingest the original raw files and manifests into a fresh archive; "+
		"benchledger never re-records a changed thing, which would vouch for it (docs/audit.md, \"A write to a changed archive\")",
		e.Path, strings.Join(e.Things, ", "), ErrTampered, CheckChainChanged)
}

func (e *TamperedError) Unwrap() error { return ErrTampered }

// touchBefore is touch for a write about to change a mutable thing: the
// thing as it is now must be what its latest link recorded, or Commit
// refuses (a new link would vouch for another program's change).
func (tx *Tx) touchBefore(kind, ref string) {
	if tx.touchedSet[chainRef{kind, ref}] {
		return
	}
	tx.touch(kind, ref)
	k, _ := chainKindOf(kind)
	recs, err := tx.a.chainRecords(context.Background(), tx.tx, k, ref)
	if err != nil || len(recs) == 0 {
		return // not there yet (or unreadable: Commit's read reports it)
	}
	last, err := lastRecord(tx.tx, kind, ref)
	if err != nil || last == "" {
		return // never linked: an archive whose chain starts with this write
	}
	if last != recordHash(recs[0].text) {
		tx.tampered = append(tx.tampered, kind+" "+ref)
	}
}

// extendChain appends the links of what the transaction touched.
func (tx *Tx) extendChain() error {
	if len(tx.tampered) > 0 {
		return &TamperedError{Path: tx.a.path, Things: tx.tampered}
	}
	if len(tx.touched) == 0 {
		return nil
	}
	var prev string
	var seq int64
	if g := tx.group; g != nil && g.head != nil {
		// The head the group's last part left (the parts hold the
		// write lock in turn, so nothing else moved it).
		prev, seq = g.head.hash, g.head.seq
	} else {
		var err error
		if prev, seq, err = chainHead(tx.tx); err != nil {
			return tx.wrap("extend the chain", err)
		}
	}
	// Known to the group once this part is kept (Commit).
	defer func() { tx.head = &chainPos{hash: prev, seq: seq} }()
	// The links go to PostgreSQL in one round trip after the reads, none
	// of which reads a link queued before it (touched holds each thing once).
	tx.startPipeline()
	if err := tx.linkTouched(&prev, &seq); err != nil {
		tx.pipe = nil // the transaction is rolled back
		return err
	}
	return tx.flushPipeline()
}

// linkTouched appends the links of what the transaction touched after
// *prev, the link numbered *seq, and leaves both at the last.
func (tx *Tx) linkTouched(prevp *string, seqp *int64) error {
	prev, seq := *prevp, *seqp
	defer func() { *prevp, *seqp = prev, seq }()
	states, err := tx.touchedStates()
	if err != nil {
		return err
	}
	for i, t := range tx.touched {
		k, _ := chainKindOf(t.kind)
		recs, ref := states[i].recs, t.ref
		if len(recs) == 0 {
			continue // written and removed in one transaction: nothing to vouch for
		}
		rec, last := recordHash(recs[0].text), states[i].last
		if recs[0].ref != ref {
			// Its record names it otherwise (no kind does so far): the
			// latest link is under that name.
			ref = recs[0].ref
			if last, err = lastRecord(tx.tx, t.kind, ref); err != nil {
				return tx.wrap("extend the chain", err)
			}
		}
		if last == rec || last != "" && !k.mutable {
			continue
		}
		h := linkHash(prev, t.kind, ref, rec)
		if err := tx.exec(`INSERT INTO chain (seq, kind, ref, record, prev, hash) VALUES (?, ?, ?, ?, ?, ?)`,
			[]any{seq + 1, t.kind, ref, rec, prev, h}, func(err error) error { return tx.wrap("extend the chain", err) }); err != nil {
			return err
		}
		seq, prev = seq+1, h
	}
	return nil
}

// touchedState is what linkTouched reads of a touched thing: its record
// and the record its latest link holds ("": none).
type touchedState struct {
	recs []chainRecord
	last string
}

const lastRecordSQL = `SELECT record FROM chain WHERE kind = ? AND ref = ? ORDER BY seq DESC LIMIT 1`

func lastRecord(q queryer, kind, ref string) (string, error) {
	var last string
	err := q.QueryRow(lastRecordSQL, kind, ref).Scan(&last)
	if err == sql.ErrNoRows {
		err = nil
	}
	return last, err
}

// touchedStates reads the state of each touched thing: on PostgreSQL all
// in one round trip (touchedStatesPipelined), else query by query.
func (tx *Tx) touchedStates() ([]touchedState, error) {
	kinds := make([]chainKind, len(tx.touched))
	for i, t := range tx.touched {
		k, ok := chainKindOf(t.kind)
		if !ok {
			return nil, fmt.Errorf("archive %s: extend the chain: unknown kind %q", tx.a.path, t.kind)
		}
		kinds[i] = k
	}
	if c := tx.a.writerPG.Load(); c != nil && tx.a.d == postgresDialect {
		return tx.touchedStatesPipelined(c, kinds)
	}
	out := make([]touchedState, len(tx.touched))
	for i, t := range tx.touched {
		recs, err := tx.a.chainRecords(context.Background(), tx.tx, kinds[i], t.ref)
		if err != nil {
			return nil, tx.wrap("extend the chain: read "+t.kind+" "+t.ref, err)
		}
		out[i].recs = recs
		if len(recs) > 0 && recs[0].ref == t.ref {
			if out[i].last, err = lastRecord(tx.tx, t.kind, t.ref); err != nil {
				return nil, tx.wrap("extend the chain", err)
			}
		}
	}
	return out, nil
}

// chainPos is the chain's last link: its hash and seq ("" and 0: none).
type chainPos struct {
	hash string
	seq  int64
}

func chainHead(q queryer) (hash string, seq int64, err error) {
	err = q.QueryRow(`SELECT hash, seq FROM chain ORDER BY seq DESC LIMIT 1`).Scan(&hash, &seq)
	if err == sql.ErrNoRows {
		return "", 0, nil
	}
	return hash, seq, err
}

// startChain links every recorded thing of an archive whose chain is empty
// (one written before schema 6): from now on, changes show. It returns how
// many things it linked.
func (a *Archive) startChain(ctx context.Context) (int, error) {
	var n int
	if err := a.w.QueryRow(`SELECT count(*) FROM chain`).Scan(&n); err != nil || n > 0 {
		return 0, a.wrap("start the chain", err)
	}
	tx, err := a.Begin(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	for _, k := range chainKinds {
		recs, err := a.chainRecords(ctx, tx.tx, k, "")
		if err != nil {
			return 0, tx.wrap("start the chain", err)
		}
		var refs []string
		for _, r := range recs {
			refs = append(refs, r.ref)
		}
		if k.kind == "event" {
			sort.Slice(refs, func(i, j int) bool {
				return len(refs[i]) < len(refs[j]) || len(refs[i]) == len(refs[j]) && refs[i] < refs[j]
			})
		}
		for _, r := range refs {
			tx.touch(k.kind, r)
		}
	}
	n = len(tx.touched)
	if n == 0 {
		return 0, nil
	}
	return n, tx.Commit()
}

// ChainProblem is one thing VerifyChain found: Check names it (the audit
// check's id), Kind and Ref the thing, Message says what in English.
type ChainProblem struct {
	Check   string `json:"check"`
	Kind    string `json:"kind,omitempty"`
	Ref     string `json:"ref,omitempty"`
	Seq     int64  `json:"seq,omitempty"`
	Message string `json:"message"`
}

// The checks VerifyChain reports under.
const (
	CheckChainLink      = "integrity.chain"       // a link does not follow from the one before
	CheckChainChanged   = "integrity.changed"     // a thing's record is not its latest link's
	CheckChainMissing   = "integrity.missing"     // a linked thing is gone
	CheckChainExtra     = "integrity.unrecorded"  // a thing no link vouches for
	CheckTriggers       = "integrity.triggers"    // an append-only trigger dropped or altered
	CheckPublishable    = "integrity.publishable" // publishable with provenance missing
	CheckChainUnstarted = "integrity.unchained"   // an archive whose chain has not started
)

// ChainReport is what VerifyChain found, and how much it looked at.
type ChainReport struct {
	Links    int64          `json:"links"`
	Things   int            `json:"things"`
	Problems []ChainProblem `json:"problems"`
}

// VerifyChain recomputes the archive's hash chain end to end, then every
// recorded thing's canonical record against its latest link, and checks
// the append-only triggers are the schema's.
func (a *Archive) VerifyChain(ctx context.Context) (ChainReport, error) {
	var rep ChainReport
	add := func(p ChainProblem) { rep.Problems = append(rep.Problems, p) }

	// 1. The links, in order.
	rows, err := a.r.QueryContext(ctx, `SELECT seq, kind, ref, record, prev, hash FROM chain ORDER BY seq`)
	if err != nil {
		return rep, a.wrap("verify the chain", err)
	}
	latest := map[chainRef]string{}
	prev, want, broken := "", int64(1), false
	for rows.Next() {
		var seq int64
		var kind, ref, rec, p, h string
		if err := rows.Scan(&seq, &kind, &ref, &rec, &p, &h); err != nil {
			rows.Close()
			return rep, a.wrap("verify the chain", err)
		}
		rep.Links++
		if !broken {
			switch {
			case seq != want:
				add(ChainProblem{Check: CheckChainLink, Seq: want, Message: fmt.Sprintf("the chain breaks at link %d: the next link is %d (links were removed)", want, seq)})
				broken = true
			case p != prev:
				add(ChainProblem{Check: CheckChainLink, Seq: seq, Kind: kind, Ref: ref, Message: fmt.Sprintf("the chain breaks at link %d (%s %s): it does not follow from link %d", seq, kind, ref, seq-1)})
				broken = true
			case linkHash(p, kind, ref, rec) != h:
				add(ChainProblem{Check: CheckChainLink, Seq: seq, Kind: kind, Ref: ref, Message: fmt.Sprintf("the chain breaks at link %d (%s %s): its hash is not that of its contents", seq, kind, ref)})
				broken = true
			}
		}
		prev, want = h, seq+1
		latest[chainRef{kind, ref}] = rec
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return rep, a.wrap("verify the chain", err)
	}

	// 2. Every thing against its latest link.
	seen := map[chainRef]bool{}
	for _, k := range chainKinds {
		recs, err := a.chainRecords(ctx, a.r, k, "")
		if err != nil {
			return rep, a.wrap("verify the chain: read "+k.kind, err)
		}
		for _, r := range recs {
			ref, text := r.ref, r.text
			rep.Things++
			key := chainRef{k.kind, ref}
			seen[key] = true
			last, ok := latest[key]
			switch {
			case !ok && rep.Links > 0:
				add(ChainProblem{Check: CheckChainExtra, Kind: k.kind, Ref: ref, Message: fmt.Sprintf("%s %s is in the archive but no link of the chain records it: it was written by another program", k.kind, ref)})
			case ok && last != recordHash(text):
				add(ChainProblem{Check: CheckChainChanged, Kind: k.kind, Ref: ref, Message: fmt.Sprintf("%s %s is not what the chain recorded: it was changed by another program", k.kind, ref)})
			}
		}
	}
	var gone []chainRef
	for key := range latest {
		if !seen[key] {
			gone = append(gone, key)
		}
	}
	sort.Slice(gone, func(i, j int) bool {
		return gone[i].kind < gone[j].kind || gone[i].kind == gone[j].kind && gone[i].ref < gone[j].ref
	})
	for _, key := range gone {
		add(ChainProblem{Check: CheckChainMissing, Kind: key.kind, Ref: key.ref, Message: fmt.Sprintf("%s %s was recorded in the chain and is no longer in the archive: it was deleted", key.kind, key.ref)})
	}
	if rep.Links == 0 && rep.Things > 0 {
		add(ChainProblem{Check: CheckChainUnstarted, Message: "the archive's hash chain has not started (an archive written before schema 6): the next write starts it"})
	}

	// 3. The triggers, and a flag no write of benchledger sets.
	probs, err := a.checkTriggers(a.r)
	if err != nil {
		return rep, err
	}
	rep.Problems = append(rep.Problems, probs...)
	prows, err := a.r.QueryContext(ctx, `SELECT id, missing FROM runs WHERE publishable = 1 AND missing <> '[]' ORDER BY id`)
	if err != nil {
		return rep, a.wrap("verify the chain", err)
	}
	for prows.Next() {
		var id, missing string
		if err := prows.Scan(&id, &missing); err != nil {
			prows.Close()
			return rep, a.wrap("verify the chain", err)
		}
		add(ChainProblem{Check: CheckPublishable, Kind: "run", Ref: id, Message: fmt.Sprintf("run %s is marked publishable with provenance missing (%s): benchledger never sets that", id, missing)})
	}
	prows.Close()
	return rep, a.wrap("verify the chain", prows.Err())
}

// triggerRE finds a migration's CREATE TRIGGER statements.
var triggerRE = regexp.MustCompile(`(?is)CREATE TRIGGER\s+(\w+)\b.*?\bEND;`)

// schemaTriggers are the triggers the migrations create, by name, with
// their SQL as sqlite_master keeps it (without the final ";").
func (a *Archive) schemaTriggers() (map[string]string, error) {
	if a.d == postgresDialect {
		return postgresTriggers()
	}
	ms, err := loadMigrations()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, m := range ms {
		for _, t := range triggerRE.FindAllStringSubmatch(m.sql, -1) {
			out[t[1]] = strings.TrimSuffix(t[0], ";")
		}
	}
	return out, nil
}

func normSQL(s string) string { return strings.Join(strings.Fields(s), " ") }

// checkTriggers compares the archive's triggers with the schema's.
type rowsQueryer interface {
	Query(query string, args ...any) (*sql.Rows, error)
}

func (a *Archive) checkTriggers(q rowsQueryer) ([]ChainProblem, error) {
	want, err := a.schemaTriggers()
	if err != nil {
		return nil, err
	}
	have, err := a.archiveTriggers(q)
	if err != nil {
		return nil, a.wrap("read triggers", err)
	}
	var probs []ChainProblem
	for _, name := range sortedNames(want) {
		got, ok := have[name]
		switch {
		case !ok:
			probs = append(probs, ChainProblem{Check: CheckTriggers, Ref: name, Message: fmt.Sprintf("trigger %s was dropped: what it guards could have been changed without a trace (the next write re-creates it)", name)})
		case normSQL(got) != normSQL(want[name]):
			probs = append(probs, ChainProblem{Check: CheckTriggers, Ref: name, Message: fmt.Sprintf("trigger %s is not the schema's: it was altered (the next write re-creates it)", name)})
		}
	}
	return probs, nil
}

func (a *Archive) archiveTriggers(q rowsQueryer) (map[string]string, error) {
	if a.d == postgresDialect {
		return postgresArchiveTriggers(q)
	}
	rows, err := q.Query(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger'`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	have := map[string]string{}
	for rows.Next() {
		var name, s string
		if err := rows.Scan(&name, &s); err != nil {
			return nil, err
		}
		have[name] = s
	}
	return have, rows.Err()
}

func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// repairTriggers re-creates the schema's triggers that are missing or
// altered, and says which.
func (a *Archive) repairTriggers() ([]string, error) {
	want, err := a.schemaTriggers()
	if err != nil {
		return nil, err
	}
	have, err := a.archiveTriggers(a.w)
	if err != nil {
		return nil, a.wrap("read triggers", err)
	}
	var fixed []string
	for _, name := range sortedNames(want) {
		got, ok := have[name]
		if ok && normSQL(got) == normSQL(want[name]) {
			continue
		}
		stmt := want[name] + ";"
		switch {
		case a.d == postgresDialect:
			stmt = postgresRecreate(name, want[name])
		case ok:
			stmt = "DROP TRIGGER " + name + ";\n" + stmt
		}
		if _, err := a.w.Exec(stmt); err != nil {
			return fixed, a.wrap("re-create trigger "+name, err)
		}
		fixed = append(fixed, name)
	}
	return fixed, nil
}
