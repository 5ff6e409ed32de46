package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAmendEndToEnd corrects a published run's provenance: the correction
// is recorded with its history, show and the report mark it, the next
// publication carries the erratum it causes, the audit lists it; a value
// the raw file contradicts, an unknown run and a correction without a
// reason are refused (exit 2), and a re-ingest with a changed value points
// to amend.
func TestAmendEndToEnd(t *testing.T) {
	t.Parallel()
	// The amend flow is the point, not the demo's numbers: the small demo.
	db, specPath := smallDemoArchive(t)
	r := bl(t, "runs", "--db", db, "--json")
	var runs []struct{ ID, Role, File string }
	if err := json.Unmarshal([]byte(r.stdout), &runs); err != nil {
		t.Fatal(err)
	}
	var baseline, file string
	for _, x := range runs {
		if x.Role == "baseline" {
			baseline, file = x.ID, x.File
		}
	}
	if baseline == "" {
		t.Fatal("no baseline run in the demo")
	}
	publish := func() string {
		t.Helper()
		out := t.TempDir()
		if r := bl(t, "report", "--publish", "--db", db, "--out", out, "--no-audit", "--lang", "en", "--format", "md", specPath); r.code != 0 {
			t.Fatal(r)
		}
		md, _ := os.ReadFile(filepath.Join(out, "qwen3-batch.en.md"))
		return string(md)
	}
	if md := publish(); strings.Contains(md, "corrected after ingest") {
		t.Fatal("version 1 marks a correction before any was made")
	}

	// Refusals: exit 2, nothing recorded.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{baseline, "--set", "checkpoint.model_id=Qwen/Qwen3-8B", "--reason", "typo"}, "the raw file contradicts the correction"},
		{[]string{"ffffffffffff", "--set", "workload.output_len=300", "--reason", "typo"}, "ffffffffffff"},
		{[]string{baseline, "--set", "workload.output_len=300"}, "--reason"},
		{[]string{baseline, "--set", "workload.output_len=256", "--reason", "same"}, "nothing to correct"},
	} {
		if r := bl(t, append([]string{"amend", "--db", db}, c.args...)...); r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("amend %q: want exit 2 naming %q, got %v", c.args, c.want, r)
		}
	}

	// A site made before the correction is rebuilt after it (below): the
	// run's page must be made again, though no event was appended.
	site := t.TempDir()
	if r := bl(t, "site", "--db", db, "--out", site); r.code != 0 {
		t.Fatal(r)
	}

	r = bl(t, "amend", "--db", db, "--json", baseline, "--set", "workload.output_len=300", "--reason", "the manifest had the tuned run's length")
	var doc struct {
		SchemaVersion int    `json:"schema_version"`
		ID            string `json:"id"`
		Corrections   []struct {
			Field, Reason string
			Old, New      *string
		} `json:"corrections"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &doc) != nil {
		t.Fatal(r)
	}
	if doc.SchemaVersion == 0 || doc.ID != baseline || len(doc.Corrections) != 1 || *doc.Corrections[0].Old != "256" || *doc.Corrections[0].New != "300" {
		t.Fatalf("amend --json: %s", r.stdout)
	}

	show := bl(t, "show", "--db", db, baseline)
	if !regexp.MustCompile(`workload\.output_len +manifest +256\n +workload\.output_len +amend +300  \[corrected\]`).MatchString(show.stdout) {
		t.Errorf("show does not give the archived and the corrected value, marked:\n%s", show.stdout)
	}
	for _, want := range []string{"Corrections (benchledger amend; append-only)",
		`workload.output_len: "256" -> "300" by`, "the manifest had the tuned run's length"} {
		if !strings.Contains(show.stdout, want) {
			t.Errorf("show lacks %q:\n%s", want, show.stdout)
		}
	}

	md := publish()
	if !strings.Contains(md, "Provenance corrected after ingest: `workload.output_len`") {
		t.Errorf("the report's run table does not mark the corrected field")
	}
	errata := errataJSONOf(t, db, specPath)
	if n := len(errata.Versions); n != 2 {
		t.Fatalf("%d versions after the correction, want 2", n)
	}
	found := false
	for _, e := range errata.Versions[1].Errata {
		if strings.Contains(e.Old+e.New, "256") && strings.Contains(e.Old+e.New, "300") {
			found = true
		}
	}
	if !found {
		t.Errorf("no erratum shows the corrected output length: %+v", errata.Versions[1].Errata)
	}

	// The corrected run's audit lists the correction (the other 33 runs
	// of the demo have nothing to do with it).
	audit := bl(t, "audit", "--db", db, "--json", "--run", baseline)
	if !strings.Contains(audit.stdout, `"check": "provenance.corrected"`) || !strings.Contains(audit.stdout, `"field": "workload.output_len"`) {
		t.Errorf("audit does not list the correction:\n%.2000s", audit.stdout)
	}
	// An honest amend recomputes (provenance.recomputed replays the
	// correction); the corrected value edited in SQLite does not.
	if _, checks := auditChecks(t, "--db", db, "--run", baseline); len(integrityChecks(checks)) != 0 {
		t.Errorf("after an honest amend: %v", checks)
	}
	tamper(t, db) // checkpoint, to copy it
	for _, c := range []struct {
		stmts       []string
		check, says string
	}{
		{[]string{`DROP TRIGGER corrections_no_update`, `UPDATE corrections SET new_value = '512' WHERE field = 'workload.output_len'`},
			"integrity.changed", "correction"},
		{[]string{`UPDATE provenance SET value = '128' WHERE field = 'workload.output_len' AND source = 'manifest' AND run_id = '` + baseline + `'`},
			"provenance.recomputed", `workload.output_len (manifest) is "128" in the archive, recomputed "256"`},
		// Issue 17, hole 5: an erratum inserted into a recorded version,
		// and errata or a publication deleted once their triggers are
		// dropped (an audit of one run still reports them).
		{[]string{`INSERT INTO errata (case_id, version, seq, kind, name, old, new, recorded_at)
			VALUES ('qwen3-batch', 2, 99, 'figure', 'forged', '1', '2', '2026-08-21T00:00:00Z')`},
			"integrity.unrecorded", "erratum qwen3-batch/2/99"},
		{[]string{`DROP TRIGGER errata_no_delete`, `DELETE FROM errata WHERE version = 2 AND seq = 1`},
			"integrity.missing", "erratum qwen3-batch/2/1"},
		{[]string{`PRAGMA foreign_keys = OFF`, `DROP TRIGGER errata_no_delete`, `DROP TRIGGER publications_no_delete`,
			`DELETE FROM errata WHERE version = 2`, `DELETE FROM publications WHERE version = 2`},
			"integrity.missing", "publication qwen3-batch/2"},
	} {
		tampered := copyArchive(t, db)
		tamper(t, tampered, c.stmts...)
		if code, checks := auditChecks(t, "--db", tampered, "--run", baseline); code != 3 || !strings.Contains(strings.Join(checks[c.check], " "), c.says) {
			t.Errorf("%q: exit %d, findings %v; want exit 3 with %s saying %q", c.stmts, code, checks, c.check, c.says)
		}
	}

	if r := bl(t, "site", "--db", db, "--out", site); r.code != 0 {
		t.Fatal(r)
	}
	pages, _ := filepath.Glob(filepath.Join(site, "*", "run", baseline+".html"))
	if len(pages) == 0 {
		pages, _ = filepath.Glob(filepath.Join(site, "run", baseline+".html"))
	}
	if len(pages) == 0 {
		t.Fatalf("no site page for run %s", baseline)
	}
	for _, p := range pages {
		page, _ := os.ReadFile(p)
		if !strings.Contains(string(page), "amend") || !strings.Contains(string(page), ">300<") {
			t.Errorf("%s does not show the corrected value with its source", p)
		}
	}

	// An ingest never changes archived provenance: it says to use amend.
	r = bl(t, "ingest", "--db", db, "--set", "workload.output_len=512", strings.Replace(file, "$DEMO", "", 1))
	if r.code != 3 || !strings.Contains(r.stderr, "benchledger amend RUN --set") {
		t.Errorf("re-ingest with a changed value: %v", r)
	}
}
