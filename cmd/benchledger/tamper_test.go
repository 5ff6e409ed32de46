package main

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// tamper runs statements on an archive as another SQLite client would
// (no benchledger in between), with foreign keys off as a tamperer's
// sqlite3 shell has them.
func tamper(t *testing.T, db string, stmts ...string) {
	t.Helper()
	conn, err := sql.Open("sqlite3", "file:"+db+"?mode=rw")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, s := range stmts {
		if _, err := conn.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if _, err := conn.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
}

// auditChecks runs audit --json and returns the exit code and the failed
// and warned checks, with their messages.
func auditChecks(t *testing.T, args ...string) (int, map[string][]string) {
	t.Helper()
	r := bl(t, append([]string{"audit", "--json"}, args...)...)
	var doc struct {
		Findings []struct {
			Check, Severity, Message string
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("audit --json: %v\n%s", err, r)
	}
	out := map[string][]string{}
	for _, f := range doc.Findings {
		if f.Severity != "info" {
			out[f.Check] = append(out[f.Check], f.Message)
		}
	}
	return r.code, out
}

func integrityChecks(m map[string][]string) []string {
	var out []string
	for c := range m {
		if strings.HasPrefix(c, "integrity.") || c == "provenance.recomputed" {
			out = append(out, c)
		}
	}
	return out
}

// TestTamperEvidence (issue 17, hole 5): each change another SQLite client
// makes to an archive is seen by audit, exit 3 with a named check; the
// untouched archive has no such finding.
func TestTamperEvidence(t *testing.T) {
	t.Parallel()
	d := smallDemo(t)
	code, checks := auditChecks(t, "--db", copyArchive(t, d.db))
	if got := integrityChecks(checks); len(got) != 0 {
		t.Fatalf("the untouched (small) demo archive: exit %d, integrity findings %v", code, checks)
	}
	firstRun := `(SELECT id FROM runs ORDER BY id LIMIT 1)`
	cases := []struct {
		name  string
		stmts []string
		want  []string // checks that must fail
		says  string   // a word the message must have
	}{
		{"reference value changed", []string{`UPDATE "references" SET value = -89.18`}, []string{"integrity.changed"}, "reference"},
		{"reference check changed", []string{`DROP TRIGGER reference_checks_no_update`, `UPDATE reference_checks SET value = 1`},
			[]string{"integrity.changed", "integrity.triggers"}, "reference_check"},
		{"provenance value changed", []string{`UPDATE provenance SET value = 'H200' WHERE field = 'hardware.gpu_model' AND run_id = ` + firstRun},
			[]string{"integrity.changed", "provenance.recomputed"}, "run"},
		{"run deleted", []string{`PRAGMA foreign_keys = OFF`,
			`CREATE TEMP TABLE gone AS SELECT id FROM runs ORDER BY id LIMIT 1`,
			`DELETE FROM requests WHERE run_id IN (SELECT id FROM gone)`, `DELETE FROM provenance WHERE run_id IN (SELECT id FROM gone)`,
			`DELETE FROM stated WHERE run_id IN (SELECT id FROM gone)`, `DELETE FROM run_files WHERE run_id IN (SELECT id FROM gone)`,
			`DELETE FROM runs WHERE id IN (SELECT id FROM gone)`}, []string{"integrity.missing"}, "deleted"},
		{"publishable set on an incomplete run", []string{`UPDATE runs SET publishable = 1, missing = '["checkpoint.revision"]' WHERE id = ` + firstRun},
			[]string{"integrity.publishable", "integrity.changed"}, "publishable"},
		{"event deleted with its trigger dropped", []string{`DROP TRIGGER events_no_delete`, `DELETE FROM events WHERE id = (SELECT max(id) FROM events)`},
			[]string{"integrity.triggers", "integrity.missing"}, "event"},
		{"event inserted", []string{`INSERT INTO events (at, actor, tool_version, action) VALUES ('2020-01-01T00:00:00Z', 'x', 'x', 'ingest')`},
			[]string{"integrity.unrecorded"}, "another program"},
		{"chain link removed", []string{`DROP TRIGGER chain_no_delete`, `DELETE FROM chain WHERE seq = 3`},
			[]string{"integrity.chain", "integrity.triggers"}, "link 3"},
		{"chain rewritten", []string{`DROP TRIGGER chain_no_update`, `UPDATE chain SET record = hash WHERE seq = 2`},
			[]string{"integrity.chain"}, "link 2"},
		{"trigger altered", []string{`DROP TRIGGER errata_no_delete`, `CREATE TRIGGER errata_no_delete BEFORE DELETE ON errata WHEN 0 BEGIN SELECT 1; END`},
			[]string{"integrity.triggers"}, "altered"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			db := copyArchive(t, d.db)
			tamper(t, db, c.stmts...)
			// Only the checks the case is about: an archive-wide one
			// reads no raw file again.
			code, checks := auditChecks(t, "--db", db, "--check", strings.Join(c.want, ","))
			if code != 3 {
				t.Errorf("exit %d, want 3; findings %v", code, checks)
			}
			for _, w := range c.want {
				if len(checks[w]) == 0 {
					t.Errorf("no %s finding; integrity findings %v", w, checks)
				}
			}
			all := strings.Join(checks[c.want[0]], "\n")
			if !strings.Contains(all, c.says) {
				t.Errorf("%s says %q, want it to mention %q", c.want[0], all, c.says)
			}
		})
	}
}

// TestTamperTriggerRestored: the next write re-creates a dropped trigger
// and says so; audit still reports what happened while it was gone.
func TestTamperTriggerRestored(t *testing.T) {
	t.Parallel()
	dir, db := summaryOnlyArchive(t)
	tamper(t, db, `DROP TRIGGER events_no_delete`, `DELETE FROM events WHERE id = (SELECT min(id) FROM events)`)
	other := filepath.Join(dir, "other.json")
	writeVLLM(t, other, vllmSpec{n: 5, seed: 9})
	r := bl(t, "ingest", "--db", db, other)
	if r.code != 0 || !strings.Contains(r.stderr, "re-created trigger events_no_delete") {
		t.Fatalf("the next write does not say it re-created the trigger: %s", r)
	}
	tamper(t, db) // checkpoint
	code, checks := auditChecks(t, "--db", db)
	// The deleted event was the only one: SQLite gives its id to the next,
	// so the chain sees event 1 changed rather than gone.
	if code != 3 || len(checks["integrity.triggers"]) != 0 || len(checks["integrity.missing"])+len(checks["integrity.changed"]) == 0 {
		t.Errorf("after the repair: exit %d, findings %v; want the deleted event still reported, the trigger no longer", code, checks)
	}
}

// TestDigestCoversReferencesAndProvenance: the archive digest a report
// prints changes when an external reference the case study uses or a
// provenance value of one of its runs changes (issue 17, hole 5: the
// digest stayed the same when +8.17% became −89.18%).
func TestDigestCoversReferencesAndProvenance(t *testing.T) {
	t.Parallel()
	d := smallDemo(t)
	digest := func(db string) string {
		t.Helper()
		r := bl(t, "figures", d.spec(), "--db", db)
		if r.code != 0 {
			t.Fatal(r)
		}
		line, _, _ := strings.Cut(r.stdout, "\n")
		_, dg, ok := strings.Cut(line, "archive digest ")
		if !ok {
			t.Fatalf("no digest in %q", line)
		}
		return dg
	}
	base := digest(d.db)
	for name, stmt := range map[string]string{
		"reference":  `UPDATE "references" SET value = value * 0.1`,
		"provenance": `UPDATE provenance SET value = 'H200' WHERE field = 'hardware.gpu_model' AND run_id = (SELECT id FROM runs ORDER BY id LIMIT 1)`,
	} {
		db := copyArchive(t, d.db)
		tamper(t, db, stmt)
		if got := digest(db); got == base {
			t.Errorf("a changed %s leaves the archive digest %s", name, got)
		}
	}
}

// TestTamperedRunWriteRefused: amend on a run another program changed is
// refused with exit 3, naming the run, the check and the ways forward, and
// records nothing; audit still reports the change.
func TestTamperedRunWriteRefused(t *testing.T) {
	t.Parallel()
	_, db := summaryOnlyArchive(t)
	id := strings.TrimSpace(bl(t, "runs", "--db", db, "-q").stdout)
	tamper(t, db, `UPDATE runs SET model = 'forged'`)
	r := bl(t, "amend", "--db", db, id, "--set", "hardware.node=n1", "--reason", "node was not recorded")
	if r.code != 3 {
		t.Errorf("amend on a changed run: exit %d, want 3", r.code)
	}
	for _, want := range []string{"write refused, nothing was written", "run " + id, "integrity.changed", "backup", "fresh archive"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("amend's refusal lacks %q:\n%s", want, r.stderr)
		}
	}
	tamper(t, db) // checkpoint
	code, checks := auditChecks(t, "--db", db)
	if code != 3 || len(checks["integrity.changed"]) != 1 || len(checks["integrity.unrecorded"]) != 0 {
		t.Errorf("after the refusal: exit %d, findings %v; want the change alone", code, checks)
	}
}
