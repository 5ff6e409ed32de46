package store

import (
	"bytes"
	"context"
	"errors"
	"github.com/klauspost/compress/zstd"
	"io"
	"strings"
	"testing"

	"github.com/benchledger/benchledger/benchrun"
)

func TestMigrationsWellFormed(t *testing.T) {
	t.Parallel()
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < 2 {
		t.Fatalf("%d migrations, want at least 2 so upgrades are exercised", len(ms))
	}
	for i, m := range ms {
		if m.version != i+1 || strings.TrimSpace(m.sql) == "" {
			t.Errorf("migration %d: %s (version %d)", i, m.name, m.version)
		}
	}
}

// TestUpgradeFromVersion1 writes an archive as benchledger at schema version
// 1 would have, then opens it with the current code.
func TestUpgradeFromVersion1(t *testing.T) {
	t.Parallel()
	path := tempArchivePath(t)
	createAtVersion(t, path, 1)

	raw := []byte(`{"date": "20251009-085300", "backend": "vllm", "completed": 2}`)
	sha := sha256Hex(raw)
	// The first archives stored zstd frames; they must stay readable.
	enc, _ := zstd.NewWriter(nil)
	withRequests := benchrun.LegacyID(sha, 0)
	summaryOnly := benchrun.LegacyID(sha, 1)

	db := rawDB(t, path)
	var version int
	db.QueryRow("PRAGMA user_version").Scan(&version)
	if version != 1 {
		t.Fatalf("created at version %d, want 1", version)
	}
	v1 := []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO blobs VALUES (?, ?, 4194304, 1, 'zstd', 'old/run.json', '2025-10-09T08:53:00.000000000Z')`, []any{sha, len(raw)}},
		{`INSERT INTO blob_chunks VALUES (?, 0, ?, ?)`, []any{sha, len(raw), enc.EncodeAll(raw, nil)}},
		{`INSERT INTO runs VALUES (?, ?, 0, 'old/run.json', 'object 0', 'vllm-serve-json', '', 'vllm bench serve', 'linear',
			'monotonic', 1, 2, 1, '{"k":"1"}', '["a note"]', 'old-campaign', 'baseline', 'Qwen/Qwen3-30B-A3B', 'vllm', '0.10.1',
			'NVIDIA H100 80GB HBM3', '2025-10-09', 0, '["runtime.image"]', '2025-10-09T08:53:00.000000000Z')`, []any{withRequests, sha}},
		{`INSERT INTO runs VALUES (?, ?, 1, 'old/run.json', 'object 1', 'vllm-serve-json', '', 'vllm bench serve', 'linear',
			'', 0, 5, 1, '{}', '[]', 'old-campaign', 'tuned', '', '', '', '', '2025-10-10', 0, '[]', '2025-10-09T08:53:00.000000000Z')`, []any{summaryOnly, sha}},
		{`INSERT INTO provenance VALUES (?, 'campaign', 'manifest', 'old-campaign')`, []any{withRequests}},
		{`INSERT INTO provenance VALUES (?, 'checkpoint.model_id', 'file', 'Qwen/Qwen3-30B-A3B')`, []any{withRequests}},
		{`INSERT INTO stated VALUES (?, 0, 'output_throughput', 123.5, 'tok/s', 'output_throughput', 'tok/s')`, []any{withRequests}},
		{`INSERT INTO requests VALUES (?, 0, 0.5, 0, 0.1, 2.0, 100, 50, NULL, 49, 1.9, 0.01, 0.1),
			(?, 1, 0.6, NULL, NULL, NULL, NULL, NULL, 'timeout', 0, 0, NULL, NULL),
			(?, 2, 0.7, 0, 0.2, 2.5, 100, 50, NULL, 49, 2.3, 0.02, 0.2)`, []any{withRequests, withRequests, withRequests}},
		{`INSERT INTO events (at, actor, tool_version, action, run_id, blob, detail)
			VALUES ('2025-10-09T08:53:00.000000000Z', 'bob', 'v0.0.1', 'ingest', ?, ?, '{}')`, []any{withRequests, sha}},
	}
	for _, s := range v1 {
		if _, err := db.Exec(s.sql, s.args...); err != nil {
			t.Fatalf("writing version-1 data: %v\n%s", err, s.sql)
		}
	}
	db.Close()

	// Read-only, an old archive cannot be upgraded.
	if _, err := Open(path, Options{ReadOnly: true}); !errors.Is(err, ErrOlderSchema) {
		t.Fatalf("read-only Open of a version-1 archive = %v, want ErrOlderSchema", err)
	}

	a := openArchive(t, path, Options{})
	latest, _ := latestVersion()
	if a.SchemaVersion() != latest {
		t.Fatalf("SchemaVersion after upgrade = %d, want %d", a.SchemaVersion(), latest)
	}
	runs, err := a.ListRuns(Filter{Campaign: "old"})
	if err != nil || len(runs) != 2 {
		t.Fatalf("ListRuns = %+v, %v", runs, err)
	}
	// Schema 0006 renamed the runs by content; the old ids resolve.
	counts := map[string]int64{}
	for _, r := range runs {
		for _, old := range []string{withRequests, summaryOnly} {
			if id, err := a.ResolveRunID(old); err == nil && id == r.ID && id != old {
				counts[old] = r.RequestCount
			}
		}
	}
	if counts[withRequests] != 3 || counts[summaryOnly] != 6 {
		t.Errorf("backfilled request counts = %v, want %s: 3, %s: 6", counts, withRequests, summaryOnly)
	}
	rec, err := a.Run(withRequests)
	if err != nil {
		t.Fatal(err)
	}
	r := rec.Run
	if len(r.Requests) != 3 || r.Requests[1].Error != "timeout" || benchrun.IsKnown(r.Requests[1].TTFT) || r.Requests[1].InputTokens != -1 ||
		r.Extra["k"] != "1" || r.Notes[0] != "a note" || r.Facts["checkpoint.model_id"] != "Qwen/Qwen3-30B-A3B" ||
		len(r.Stated) != 1 || rec.Missing[0] != "runtime.image" {
		t.Errorf("version-1 run read back wrong: %+v", rec)
	}
	blob, err := a.OpenBlob(sha)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(blob)
	if err != nil || !bytes.Equal(got, raw) {
		t.Errorf("version-1 blob = %q, %v", got, err)
	}
	evs, err := a.Events(withRequests)
	if err != nil || len(evs) != 1 || evs[0].Actor != "bob" {
		t.Errorf("version-1 events = %+v, %v", evs, err)
	}
	var indexes int
	a.r.QueryRow("SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name IN ('runs_by_campaign_date', 'events_by_run')").Scan(&indexes)
	if indexes != 2 {
		t.Errorf("%d of the 2 indexes of migration 0002 exist", indexes)
	}

	// The upgraded archive takes new runs.
	tx := begin(t, a)
	newSHA := writeBlob(t, tx, []byte("new"), "new.json")
	if err := tx.PutRun(runRecord(newSHA, sampleRun(0))); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// A failing migration leaves the archive at the last whole version.
func TestFailedMigrationRollsBack(t *testing.T) {
	t.Parallel()
	path := tempArchivePath(t)
	createAtVersion(t, path, 1)
	db, err := openWriter(path, "rw", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bad := migration{version: 2, name: "0002_bad.sql", sql: "CREATE TABLE half_done (x INTEGER) STRICT; SELECT no_such_function();"}
	if err := applyMigration(db, path, bad); err == nil {
		t.Fatal("the bad migration succeeded")
	}
	var version, tables int
	db.QueryRow("PRAGMA user_version").Scan(&version)
	db.QueryRow("SELECT count(*) FROM sqlite_schema WHERE name = 'half_done'").Scan(&tables)
	if version != 1 || tables != 0 {
		t.Errorf("after a failed migration: version %d, half_done tables %d; want 1, 0", version, tables)
	}
}

// TestUpgradeFromVersion2 upgrades an archive with runs and history, written
// as benchledger at schema version 2 would have, to the references schema.
func TestUpgradeFromVersion2(t *testing.T) {
	t.Parallel()
	path := tempArchivePath(t)
	createAtVersion(t, path, 2)
	raw := []byte(`{"date": "20260818-101500", "backend": "openai", "completed": 1}`)
	sha := sha256Hex(raw)
	runID := benchrun.LegacyID(sha, 0)
	enc, _ := zstd.NewWriter(nil)
	db := rawDB(t, path)
	var version int
	db.QueryRow("PRAGMA user_version").Scan(&version)
	if version != 2 {
		t.Fatalf("created at version %d, want 2", version)
	}
	for _, s := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO blobs VALUES (?, ?, 4194304, 1, 'zstd', 'v2/run.json', '2026-08-18T10:15:00.000000000Z')`, []any{sha, len(raw)}},
		{`INSERT INTO blob_chunks VALUES (?, 0, ?, ?)`, []any{sha, len(raw), enc.EncodeAll(raw, nil)}},
		{`INSERT INTO runs (id, blob, ordinal, file_name, location, format, format_variant, source_tool, percentile_method,
			clock, has_requests, completed, failed, extra, notes, campaign, role, model, engine, engine_version, gpu, run_date,
			publishable, missing, ingested_at, request_count) VALUES (?, ?, 0, 'v2/run.json', 'object 0', 'vllm-serve-json', '',
			'vllm bench serve', 'linear', 'monotonic', 0, 1, 0, '{}', '[]', 'qwen3-batch', 'baseline', 'nvidia/Qwen3-30B-A3B-FP4',
			'vllm', '0.25.1', 'NVIDIA RTX PRO 6000 Blackwell Server Edition', '2026-08-18', 0, '[]',
			'2026-08-18T10:15:00.000000000Z', 1)`, []any{runID, sha}},
		{`INSERT INTO provenance VALUES (?, 'campaign', 'manifest', 'qwen3-batch')`, []any{runID}},
		{`INSERT INTO events (at, actor, tool_version, action, run_id, blob, detail)
			VALUES ('2026-08-18T10:15:00.000000000Z', 'alice', 'v0.1.0', 'ingest', ?, ?, '{"file": "v2/run.json"}')`, []any{runID, sha}},
	} {
		if _, err := db.Exec(s.sql, s.args...); err != nil {
			t.Fatalf("writing version-2 data: %v\n%s", err, s.sql)
		}
	}
	db.Close()

	if _, err := Open(path, Options{ReadOnly: true}); !errors.Is(err, ErrOlderSchema) {
		t.Fatalf("read-only Open of a version-2 archive = %v, want ErrOlderSchema", err)
	}
	a := openArchive(t, path, Options{})
	if a.SchemaVersion() < 3 {
		t.Fatalf("SchemaVersion after upgrade = %d, want at least 3", a.SchemaVersion())
	}
	var objects int
	a.r.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name IN ('references', 'reference_checks',
		'reference_checks_no_update', 'reference_checks_no_delete', 'references_keep_key', 'references_no_delete')`).Scan(&objects)
	if objects != 6 {
		t.Errorf("%d of the 6 tables and triggers of migration 0003 exist", objects)
	}
	runs, err := a.ListRuns(Filter{})
	if id, _ := a.ResolveRunID(runID); err != nil || len(runs) != 1 || runs[0].ID != id || runs[0].RequestCount != 1 {
		t.Fatalf("version-2 runs after upgrade = %+v, %v", runs, err)
	}
	evs, err := a.Events("")
	if err != nil || len(evs) != 1 || evs[0].Actor != "alice" {
		t.Errorf("version-2 events after upgrade = %+v, %v", evs, err)
	}
	if refs, err := a.References(""); err != nil || len(refs) != 0 {
		t.Errorf("References on a fresh upgrade = %+v, %v", refs, err)
	}

	r := nvidiaRef(t)
	if changed, err := putRef(t, a, "qwen3-batch", r); err != nil || !changed {
		t.Fatalf("PutReference on the upgraded archive = %v, %v", changed, err)
	}
	a.Close()
	ro := openArchive(t, path, Options{ReadOnly: true})
	sr, err := ro.Reference("qwen3-batch", r.ID)
	if err != nil || !sameValues(sr.Reference, r) || len(sr.Checks) != 1 {
		t.Fatalf("reference read back read-only = %+v, %v", sr, err)
	}
	blob, err := ro.OpenBlob(sha)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(blob); err != nil || !bytes.Equal(got, raw) {
		t.Errorf("version-2 blob = %q, %v", got, err)
	}
}

// TestUpgradeFromVersion3 upgrades an archive with a run, an external
// reference and history, written as benchledger at schema version 3 would
// have, to the publications schema; the upgraded archive takes publications.
func TestUpgradeFromVersion3(t *testing.T) {
	t.Parallel()
	path := tempArchivePath(t)
	createAtVersion(t, path, 3)
	raw := []byte(`{"date": "20260818-101500", "backend": "openai", "completed": 1}`)
	sha := sha256Hex(raw)
	runID := benchrun.LegacyID(sha, 0)
	enc, _ := zstd.NewWriter(nil)
	db := rawDB(t, path)
	var version int
	db.QueryRow("PRAGMA user_version").Scan(&version)
	if version != 3 {
		t.Fatalf("created at version %d, want 3", version)
	}
	for _, s := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO blobs VALUES (?, ?, 4194304, 1, 'zstd', 'v3/run.json', '2026-08-18T10:15:00.000000000Z')`, []any{sha, len(raw)}},
		{`INSERT INTO blob_chunks VALUES (?, 0, ?, ?)`, []any{sha, len(raw), enc.EncodeAll(raw, nil)}},
		{`INSERT INTO runs (id, blob, ordinal, file_name, location, format, format_variant, source_tool, percentile_method,
			clock, has_requests, completed, failed, extra, notes, campaign, role, model, engine, engine_version, gpu, run_date,
			publishable, missing, ingested_at, request_count) VALUES (?, ?, 0, 'v3/run.json', 'object 0', 'vllm-serve-json', '',
			'vllm bench serve', 'linear', 'monotonic', 0, 1, 0, '{}', '[]', 'qwen3-batch', 'baseline', 'nvidia/Qwen3-30B-A3B-FP4',
			'vllm', '0.25.1', 'NVIDIA RTX PRO 6000 Blackwell Server Edition', '2026-08-18', 0, '[]',
			'2026-08-18T10:15:00.000000000Z', 1)`, []any{runID, sha}},
		{`INSERT INTO events (at, actor, tool_version, action, run_id, blob, detail)
			VALUES ('2026-08-18T10:15:00.000000000Z', 'carol', 'v0.2.0', 'ingest', ?, ?, '{"file": "v3/run.json"}')`, []any{runID, sha}},
		{`INSERT INTO "references" VALUES ('qwen3-batch', 'nv', 'output_throughput', 9938, 'tok/s', 'https://example.com/perf',
			'NVIDIA reference', '', '2026-08-17', '2026-08-17', 1, '{}', '2026-08-18T10:15:00.000000000Z', '2026-08-18T10:15:00.000000000Z')`, nil},
		{`INSERT INTO reference_checks VALUES ('qwen3-batch', 'nv', 1, '2026-08-17', 1, 9938, 'tok/s', 'https://example.com/perf',
			'output_throughput', 'NVIDIA reference', '', '2026-08-17', '{}', '2026-08-18T10:15:00.000000000Z')`, nil},
	} {
		if _, err := db.Exec(s.sql, s.args...); err != nil {
			t.Fatalf("writing version-3 data: %v\n%s", err, s.sql)
		}
	}
	db.Close()

	if _, err := Open(path, Options{ReadOnly: true}); !errors.Is(err, ErrOlderSchema) {
		t.Fatalf("read-only Open of a version-3 archive = %v, want ErrOlderSchema", err)
	}
	a := openArchive(t, path, Options{})
	if a.SchemaVersion() < 4 {
		t.Fatalf("SchemaVersion after upgrade = %d, want at least 4", a.SchemaVersion())
	}
	var objects int
	a.r.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name IN ('publications', 'errata', 'publications_next_version',
		'publications_no_update', 'publications_no_delete', 'errata_no_update', 'errata_no_delete')`).Scan(&objects)
	if objects != 7 {
		t.Errorf("%d of the 7 tables and triggers of migration 0004 exist", objects)
	}
	runs, err := a.ListRuns(Filter{})
	if id, _ := a.ResolveRunID(runID); err != nil || len(runs) != 1 || runs[0].ID != id {
		t.Fatalf("version-3 runs after upgrade = %+v, %v", runs, err)
	}
	if sr, err := a.Reference("qwen3-batch", "nv"); err != nil || sr.Value != 9938 || len(sr.Checks) != 1 {
		t.Errorf("version-3 reference after upgrade = %+v, %v", sr, err)
	}
	if pubs, err := a.Publications("qwen3-batch"); err != nil || len(pubs) != 0 {
		t.Errorf("Publications on a fresh upgrade = %+v, %v", pubs, err)
	}
	if pub, rec, err := a.Publish(context.Background(), NewPublication{CaseID: "qwen3-batch", Digest: sha, Snapshot: `{"runs": []}`},
		nil); err != nil || !rec || pub.Version != 1 {
		t.Fatalf("Publish on the upgraded archive = %+v, %v, %v", pub, rec, err)
	}
	a.Close()
	ro := openArchive(t, path, Options{ReadOnly: true})
	pubs, err := ro.Publications("qwen3-batch")
	if err != nil || len(pubs) != 1 || pubs[0].Digest != sha {
		t.Errorf("publication read back read-only = %+v, %v", pubs, err)
	}
	evs, err := ro.Events("")
	if err != nil || len(evs) != 2 || evs[0].Actor != "carol" || evs[1].Action != "publish" {
		t.Errorf("events after upgrade and publication = %+v, %v", evs, err)
	}
}
