package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/flate"
	_ "github.com/mattn/go-sqlite3"
)

// auditDoc is audit --json's document.
type auditDoc struct {
	SchemaVersion int `json:"schema_version"`
	Findings      []struct {
		Check, Severity, Run, File, Message string
		Params                              map[string]string
	}
	Counts map[string]int
}

func auditJSON(t *testing.T, args ...string) (auditDoc, result) {
	t.Helper()
	r := bl(t, append([]string{"audit", "--json"}, args...)...)
	var d auditDoc
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("audit --json output is not JSON: %v\n%v", err, r)
	}
	return d, r
}

// hasFinding reports whether the document holds a finding with this check
// id and severity about this run.
func (d auditDoc) has(check, severity, run string) bool {
	for _, f := range d.Findings {
		if f.Check == check && f.Severity == severity && f.Run == run {
			return true
		}
	}
	return false
}

func openRaw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=rw")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func TestAuditDemo(t *testing.T) {
	t.Parallel()
	// The shared archive is only read; each tampering changes a copy of it
	// (the fixture's WAL is checkpointed, so the file holds everything).
	demo := sharedDemo(t)
	db, specPath := demo.db, demo.spec()

	t.Run("clean", func(t *testing.T) {
		d, r := auditJSON(t, "--db", db, "--as-of", "2026-11-29", specPath)
		if r.code != 0 || d.Counts["fail"] != 0 {
			t.Fatalf("the demo case study must audit clean: %v", r)
		}
		if d.SchemaVersion != 1 {
			t.Errorf("schema_version = %d", d.SchemaVersion)
		}
		// The demo's deliberate, disclosed confounders and its dated
		// reference that is no longer on its page are warnings.
		warned := map[string]bool{}
		for _, f := range d.Findings {
			if f.Severity == "warn" {
				warned[f.Check+" "+f.Params["comparison"]] = true
			}
		}
		for _, w := range []string{"comparison.confounded nvidia_reference", "reference.not_visible nvidia_reference"} {
			if !warned[w] {
				t.Errorf("the demo audit must warn: %s\n%v", w, r)
			}
		}
		// A year on, the reference is also overdue for a re-check: a
		// warning, still no failure.
		// Only the reference checks depend on the date.
		late, r3 := auditJSON(t, "--db", db, "--as-of", "2027-08-20", "--check", "reference", specPath)
		stale := false
		for _, f := range late.Findings {
			stale = stale || f.Check == "reference.stale" && f.Severity == "warn"
		}
		if r3.code != 0 || late.Counts["fail"] != 0 || !stale {
			t.Errorf("as of 2027-08-20: want reference.stale as a warning and no failure: %v", r3)
		}
		all, r2 := auditJSON(t, "--db", db)
		if r2.code != 0 || all.Counts["fail"] != 0 {
			t.Fatalf("the whole demo archive must audit clean: %v", r2)
		}
		text := bl(t, "audit", "--db", db, "--check", "claims,reference", specPath)
		if text.code != 0 || !strings.Contains(text.stdout, "0 failed") {
			t.Fatalf("text output: %v", text)
		}
	})

	// The tampering is the point below, not the demo's numbers: it
	// changes copies of the small demo. A run with per-request records and
	// a full vLLM summary.
	db = smallDemo(t).db
	var victim string
	err := openRaw(t, copyArchive(t, db)).QueryRow(`SELECT s.run_id FROM stated s JOIN runs r ON r.id = s.run_id
		WHERE s.metric = 'total_output_tokens' AND r.has_requests ORDER BY s.run_id LIMIT 1`).Scan(&victim)
	if err != nil {
		t.Fatal(err)
	}

	tamper := func(t *testing.T, check string, do func(raw *sql.DB)) {
		t.Helper()
		cp := copyArchive(t, db)
		do(openRaw(t, cp))
		d, res := auditJSON(t, "--db", cp, "--run", victim)
		if res.code != exitProblems {
			t.Fatalf("tampered archive: exit %d, want %d\n%v", res.code, exitProblems, res)
		}
		if !d.has(check, "fail", victim) {
			t.Fatalf("no %s failure naming run %s:\n%v", check, victim, res)
		}
		text := bl(t, "audit", "--db", cp, "--run", victim)
		if text.code != exitProblems || !strings.Contains(text.stdout, check+"  run "+victim) {
			t.Fatalf("text output does not name %s and the run: %v", check, text)
		}
	}

	t.Run("request row", func(t *testing.T) {
		tamper(t, "integrity.records", func(raw *sql.DB) {
			res, err := raw.Exec("UPDATE requests SET latency = latency + 0.25 WHERE run_id = ? AND idx = 3", victim)
			if n, _ := res.RowsAffected(); err != nil || n != 1 {
				t.Fatalf("update: %v (%d rows)", err, n)
			}
		})
	})

	t.Run("blob chunk", func(t *testing.T) {
		tamper(t, "integrity.blob_hash", func(raw *sql.DB) { corruptFirstChunk(t, raw, victim) })
	})

	t.Run("stated value", func(t *testing.T) {
		tamper(t, "recompute.stated", func(raw *sql.DB) {
			res, err := raw.Exec("UPDATE stated SET value = value * 1.1 WHERE run_id = ? AND metric = 'total_output_tokens'", victim)
			if n, _ := res.RowsAffected(); err != nil || n != 1 {
				t.Fatalf("update: %v (%d rows)", err, n)
			}
		})
	})
}

// A vLLM file whose own summary disagrees with its per-request records: the
// stated output_throughput is 20% high.
func TestAuditStatedThroughputDisagrees(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "base.json")
	writeVLLM(t, path, vllmSpec{n: 40})
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["output_throughput"] = doc["total_output_tokens"].(float64) / doc["duration"].(float64) * 1.2
	data, _ = json.Marshal(doc)
	writeFile(t, path, string(data))
	writeFile(t, filepath.Join(dir, "campaign.yaml"), manifest)
	db := filepath.Join(t.TempDir(), "a.db")
	if r := bl(t, "ingest", "--db", db, dir); r.code != 0 {
		t.Fatal(r)
	}
	d, r := auditJSON(t, "--db", db)
	if r.code != exitProblems {
		t.Fatalf("exit %d, want %d\n%v", r.code, exitProblems, r)
	}
	var found bool
	for _, f := range d.Findings {
		if f.Check == "recompute.stated" && f.Severity == "fail" && f.Params["metric"] == "output_throughput" {
			found = true
			if f.Run == "" || !strings.Contains(f.Message, f.Params["stated"]) || !strings.Contains(f.Message, f.Params["recomputed"]) ||
				f.Params["definition"] == "" || !strings.Contains(f.Message, f.Params["definition"]) {
				t.Errorf("the finding must name the run, both values and the definition: %+v", f)
			}
		}
	}
	if !found {
		t.Fatalf("no recompute.stated failure for output_throughput:\n%v", r)
	}
	if !d.has("plausibility.duration", "fail", d.Findings[0].Run) {
		t.Errorf("output_throughput != total_output_tokens / duration must also fail plausibility.duration:\n%v", r)
	}
}

func TestAuditUsage(t *testing.T) {
	t.Parallel()
	r := bl(t, "audit", "--help")
	if r.code != 0 || !strings.Contains(r.stderr+r.stdout, "integrity.blob_hash") || !strings.Contains(r.stderr+r.stdout, "Exit status") {
		t.Fatalf("help must list the checks and exit codes: %v", r)
	}
	if r := bl(t, "audit", "--check", "claims,clams"); r.code != exitUsage || !strings.Contains(r.stderr, `"clams"`) || !strings.Contains(r.stderr, "integrity") {
		t.Errorf("an unknown check must be a usage error naming it and the groups: %v", r)
	}
	db := filepath.Join(t.TempDir(), "none.db")
	if r := bl(t, "audit", "--db", db, "--run", "abc"); r.code == 0 {
		t.Fatalf("an archive that does not exist must not audit clean: %v", r)
	}
}

// TestAuditClaims: the demo's texts are audited for unbound numbers and
// bind every one (no claims.unbound, no failure); a declared claim is
// checked against the computed figure at its displayed precision.
func TestAuditClaims(t *testing.T) {
	t.Parallel()
	// The archive is only read; the spec is changed, in a copy.
	db, specPath := sharedDemo(t).db, demoSpecCopy(t)
	// That the whole audit of the demo is clean is TestAuditDemo's.
	d, r := auditJSON(t, "--db", db, "--check", "claims", specPath)
	if r.code != 0 || d.Counts["fail"] != 0 || d.has("claims.unbound", "warn", "") {
		t.Fatalf("the demo must audit clean, every number of its texts bound: %v", r)
	}
	orig, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	withClaims := func(claims string) {
		t.Helper()
		writeFile(t, specPath, string(orig)+"\nclaims:\n"+claims)
	}

	withClaims(`  - {text: "published headline", value: 132, unit: "%", figure: scheduler_tuning.pct}
  - {text: "published table", value: 8.2, unit: "%", figure: nvidia_reference.pct}
`)
	if d, r := auditJSON(t, "--db", db, "--check", "claims", specPath); r.code != 0 || d.has("claims.stated", "fail", "") {
		t.Fatalf("claims that agree with the figures must pass: %v", r)
	}

	withClaims(`  - {text: "published headline", value: 135, unit: "%", figure: scheduler_tuning.pct}
  - {text: "published table", value: 8.3, unit: "%", figure: nvidia_reference.pct}
`)
	// Only the claims need checking: the raw files are not read again.
	d, r = auditJSON(t, "--db", db, "--check", "claims", specPath)
	if r.code != exitProblems || !d.has("claims.stated", "fail", "") {
		t.Fatalf("wrong claims: exit %d, want %d with claims.stated\n%v", r.code, exitProblems, r)
	}
	for _, f := range d.Findings {
		if !strings.HasPrefix(f.Check, "claims.") {
			t.Errorf("--check claims reported %s", f.Check)
		}
	}
	text := bl(t, "audit", "--db", db, "--check", "claims.stated", specPath)
	if !strings.Contains(text.stdout, "Only these checks ran: claims.stated") || strings.Contains(text.stdout, "claims.unbound") {
		t.Errorf("--check claims.stated must say so and report nothing else: %v", text)
	}
	text = bl(t, "audit", "--db", db, "--check", "claims", specPath)
	if text.code != exitProblems || !strings.Contains(text.stdout, "claims.stated") ||
		!strings.Contains(text.stdout, "135") || !strings.Contains(text.stdout, "131.895") || !strings.Contains(text.stdout, "8.3") {
		t.Fatalf("text output must name the check and both values: %v", text)
	}
}

// corruptFirstChunk replaces the first stored chunk of a run's raw file by
// another valid DEFLATE stream of the same text with one digit changed, so
// that only the SHA-256 can tell.
func corruptFirstChunk(t *testing.T, raw *sql.DB, runID string) {
	t.Helper()
	var data []byte
	var sha string
	err := raw.QueryRow(`SELECT c.blob, c.data FROM blob_chunks c JOIN runs r ON r.blob = c.blob
		WHERE r.id = ? AND c.seq = 0`, runID).Scan(&sha, &data)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(flate.NewReader(bytes.NewReader(data)))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.IndexAny(plain, "123456789")
	if i < 0 {
		t.Fatal("no digit in the first chunk")
	}
	plain[i] = '0' + (plain[i]-'0')%9 + 1
	var other bytes.Buffer
	fw, _ := flate.NewWriter(&other, flate.HuffmanOnly)
	fw.Write(plain)
	fw.Close()
	if _, err := raw.Exec("UPDATE blob_chunks SET data = ? WHERE blob = ? AND seq = 0", other.Bytes(), sha); err != nil {
		t.Fatal(err)
	}
}
