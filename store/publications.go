package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Publication is one recorded version of a case study: what its report
// showed (Snapshot, JSON written by package publish), the archive digest in
// its footer, and what changed from the version before.
type Publication struct {
	CaseID     string
	Version    int       // 1, 2, 3, ...
	RecordedAt time.Time // UTC
	Digest     string    // casestudy.Result.Digest
	Snapshot   string    // JSON object, stored as given
	// Errata list the changes from Version-1, in the order the publisher
	// gave them; empty for version 1.
	Errata []Erratum
}

// Erratum is one change of a figure, text, run or caveat between two
// versions. Old is empty for something added, New for something removed.
type Erratum struct {
	Seq  int // 1, 2, ... within its version
	Kind string
	Name string
	Old  string
	New  string
}

// NewPublication is a case study about to be published.
type NewPublication struct {
	CaseID   string
	Digest   string
	Snapshot string // a JSON object
	// At is when it is recorded (time.Now when zero); ToolVersion and
	// Actor go into the event that records it (filled in when empty).
	At          time.Time
	ToolVersion string
	Actor       string
	// Sources are the files the version was made from (the spec, each
	// narrative), by name: their bytes are archived as blobs and the
	// publish event names them, so the texts a version showed can be read
	// back from the archive.
	Sources map[string][]byte
}

// ErrNoChanges: a publication differs from the latest version but the
// caller named no change, so a new version could not say what it corrects.
var ErrNoChanges = errors.New("a new version must list at least one change")

// Publish records p as the next version of its case study, in one write
// transaction. The first publication of a case id is version 1. After that,
// when p's digest and snapshot equal the latest version's, nothing is written
// and the latest version is returned with recorded false. Otherwise changes
// is called with the latest version, as read under the write lock, and
// returns the errata of the new version: none (with the same digest) means
// the snapshots differ only in form, and nothing is written either; none
// with a different digest is ErrNoChanges. changes may be called while the
// archive is locked for writing, so it should only compute.
func (a *Archive) Publish(ctx context.Context, p NewPublication, changes func(latest Publication) ([]Erratum, error)) (pub Publication, recorded bool, err error) {
	op := "publish case study " + p.CaseID
	switch {
	case p.CaseID == "":
		return Publication{}, false, fmt.Errorf("archive %s: publish: no case id", a.path)
	case !validSHA256(p.Digest):
		return Publication{}, false, fmt.Errorf("archive %s: %s: digest %q is not a SHA-256 in lower-case hex", a.path, op, p.Digest)
	case !isJSONObject(p.Snapshot):
		return Publication{}, false, fmt.Errorf("archive %s: %s: snapshot is not a JSON object", a.path, op)
	}
	if p.At.IsZero() {
		p.At = time.Now()
	}
	tx, err := a.Begin(ctx, nil)
	if err != nil {
		return Publication{}, false, err
	}
	defer tx.Rollback()
	pubs, err := readPublications(tx.tx, p.CaseID, true)
	if err != nil {
		return Publication{}, false, tx.wrap(op, err)
	}
	next := Publication{CaseID: p.CaseID, Version: 1, RecordedAt: p.At.UTC(), Digest: p.Digest, Snapshot: p.Snapshot}
	if len(pubs) > 0 {
		latest := pubs[0]
		if latest.Digest == p.Digest && latest.Snapshot == p.Snapshot {
			return latest, false, nil
		}
		errata, err := changes(latest)
		if err != nil {
			return Publication{}, false, fmt.Errorf("archive %s: %s: %w", a.path, op, err)
		}
		if len(errata) == 0 {
			if latest.Digest == p.Digest {
				return latest, false, nil
			}
			return Publication{}, false, fmt.Errorf("archive %s: %s: %w (the archive digest changed)", a.path, op, ErrNoChanges)
		}
		next.Version = latest.Version + 1
		for i, e := range errata {
			if e.Kind == "" {
				return Publication{}, false, fmt.Errorf("archive %s: %s: erratum %d has no kind", a.path, op, i+1)
			}
			e.Seq = i + 1
			next.Errata = append(next.Errata, e)
		}
	}
	at := formatTime(next.RecordedAt)
	if _, err := tx.tx.Exec(`INSERT INTO publications (case_id, version, recorded_at, digest, snapshot) VALUES (?, ?, ?, ?, ?)`,
		next.CaseID, next.Version, at, next.Digest, next.Snapshot); err != nil {
		return Publication{}, false, tx.wrap(op, err)
	}
	tx.touch("publication", next.CaseID+"/"+strconv.Itoa(next.Version))
	for _, e := range next.Errata {
		tx.touch("erratum", next.CaseID+"/"+strconv.Itoa(next.Version)+"/"+strconv.Itoa(e.Seq))
		if _, err := tx.tx.Exec(`INSERT INTO errata (case_id, version, seq, kind, name, old, new, recorded_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, next.CaseID, next.Version, e.Seq, e.Kind, e.Name, e.Old, e.New, at); err != nil {
			return Publication{}, false, tx.wrap(op, err)
		}
	}
	sources := map[string]string{}
	for name, data := range p.Sources {
		sha, err := tx.PutBytes(data, name)
		if err != nil {
			return Publication{}, false, err
		}
		sources[name] = sha
	}
	detail, err := json.Marshal(map[string]any{"case_id": next.CaseID, "version": next.Version, "digest": next.Digest,
		"errata": len(next.Errata), "sources": sources})
	if err != nil {
		return Publication{}, false, err
	}
	if err := tx.AppendEvent(Event{At: next.RecordedAt, Actor: p.Actor, ToolVersion: p.ToolVersion, Action: "publish",
		Detail: string(detail)}); err != nil {
		return Publication{}, false, err
	}
	if err := tx.Commit(); err != nil {
		return Publication{}, false, err
	}
	// Read back through the stored form, so the caller sees exactly what a
	// later reader will (the time at its stored precision).
	if next.RecordedAt, err = parseTime(at); err != nil {
		return Publication{}, false, tx.wrap(op, err)
	}
	return next, true, nil
}

// Publications returns every recorded version of a case study with its
// errata, oldest first; none when it was never published. It works on a
// read-only archive.
func (a *Archive) Publications(caseID string) ([]Publication, error) {
	op := "read publications of " + caseID
	tx, err := a.r.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, a.wrap(op, err)
	}
	defer tx.Rollback()
	pubs, err := readPublications(tx, caseID, false)
	if err != nil {
		return nil, a.wrap(op, err)
	}
	return pubs, nil
}

// readPublications reads a case study's versions, oldest first, or only the
// latest one.
func readPublications(tx *sql.Tx, caseID string, latestOnly bool) ([]Publication, error) {
	q := `SELECT version, recorded_at, digest, snapshot FROM publications WHERE case_id = ? ORDER BY version`
	if latestOnly {
		q = `SELECT version, recorded_at, digest, snapshot FROM publications WHERE case_id = ? ORDER BY version DESC LIMIT 1`
	}
	rows, err := tx.Query(q, caseID)
	if err != nil {
		return nil, err
	}
	var out []Publication
	for rows.Next() {
		p := Publication{CaseID: caseID}
		var at string
		if err := rows.Scan(&p.Version, &at, &p.Digest, &p.Snapshot); err != nil {
			rows.Close()
			return nil, err
		}
		if p.RecordedAt, err = parseTime(at); err != nil {
			rows.Close()
			return nil, fmt.Errorf("publication %s version %d: recorded_at %q: %w", caseID, p.Version, at, err)
		}
		out = append(out, p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// The errata after the first query is closed: a transaction has one
	// connection (see readReferences).
	byVersion := map[int]int{}
	for i, p := range out {
		byVersion[p.Version] = i
	}
	from := 0
	if latestOnly && len(out) > 0 {
		from = out[0].Version
	}
	rows, err = tx.Query(`SELECT version, seq, kind, name, old, new FROM errata WHERE case_id = ? AND version >= ?
		ORDER BY version, seq`, caseID, from)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var v int
		var e Erratum
		if err := rows.Scan(&v, &e.Seq, &e.Kind, &e.Name, &e.Old, &e.New); err != nil {
			return nil, err
		}
		i, ok := byVersion[v]
		if !ok {
			return nil, fmt.Errorf("publication %s: erratum %d of version %d, which is not recorded", caseID, e.Seq, v)
		}
		out[i].Errata = append(out[i].Errata, e)
	}
	return out, rows.Err()
}

func isJSONObject(s string) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal([]byte(s), &m) == nil && m != nil
}
