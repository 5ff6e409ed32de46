-- 0006: run identity from content, and corrections.
--
-- Run ids used to be derived from the first file's SHA-256 and the run's
-- ordinal in it, so the same run got another id when its files arrived in
-- another order, and a sweep summary holding the same run as a run=N.json
-- made a second run. Ids are now benchrun.ContentID of the run's richest
-- file; the upgrade renames existing runs (see rekeyContentIDs in
-- migrate.go) and keeps every old id resolvable here.
CREATE TABLE run_aliases (
    alias  TEXT PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs (id),
    reason TEXT NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX run_aliases_run ON run_aliases (run_id);

-- The files one tool invocation wrote for a run share an invocation: the
-- absolute folder and the file-name stem the tool derives every name from
-- (AIPerf's profile_export, llmperf's <test name>). Companion files are
-- joined only when it matches, never on the companion key alone.
ALTER TABLE runs ADD COLUMN invocation TEXT NOT NULL DEFAULT '';

-- Provenance corrections (benchledger amend): append-only events. The
-- provenance table keeps what ingest archived; the value in effect is the
-- latest correction of a field, which readers lay over it.
CREATE TABLE corrections (
    id           INTEGER PRIMARY KEY,
    run_id       TEXT NOT NULL REFERENCES runs (id),
    field        TEXT NOT NULL CHECK (field <> ''),
    old_value    TEXT,          -- NULL: the field had no value in effect
    new_value    TEXT,          -- NULL: --unset
    reason       TEXT NOT NULL CHECK (reason <> ''),
    actor        TEXT NOT NULL,
    tool_version TEXT NOT NULL,
    at           TEXT NOT NULL
) STRICT;
CREATE INDEX corrections_run ON corrections (run_id, id);

CREATE TRIGGER corrections_no_update BEFORE UPDATE ON corrections
BEGIN
    SELECT RAISE(ABORT, 'corrections are append-only: UPDATE refused');
END;
CREATE TRIGGER corrections_no_delete BEFORE DELETE ON corrections
BEGIN
    SELECT RAISE(ABORT, 'corrections are append-only: DELETE refused');
END;
