-- 0003: external references, figures that are not ours (a vendor's published
-- number) declared in a campaign manifest's references: section.
--
-- "references" holds each reference's current values, keyed by (campaign,
-- id). reference_checks is its history: one row per distinct state the
-- archive was given (a re-check of the source, or a corrected value), each
-- a full copy of the values as then declared, so that a value or source that
-- changed is never lost. The first row is the first recording; the last
-- row always equals the "references" row. Like events, the history is
-- append-only.
--
-- The table name is an SQL keyword (REFERENCES) and must be quoted.
-- Dates are YYYY-MM-DD; times RFC 3339 UTC as elsewhere.
CREATE TABLE "references" (
    campaign    TEXT NOT NULL CHECK (campaign <> ''),
    id          TEXT NOT NULL CHECK (id <> '' AND id NOT GLOB '*[^a-z0-9._-]*'),
    figure      TEXT NOT NULL CHECK (figure <> ''),
    value       REAL NOT NULL,
    unit        TEXT NOT NULL CHECK (unit <> ''),
    source      TEXT NOT NULL CHECK (lower(source) GLOB 'http://?*' OR lower(source) GLOB 'https://?*'),
    title       TEXT NOT NULL,
    notes       TEXT NOT NULL,
    captured    TEXT NOT NULL CHECK (captured = date(captured)),
    checked     TEXT NOT NULL CHECK (checked = date(checked) AND checked >= captured),
    visible     INTEGER NOT NULL CHECK (visible IN (0, 1)),
    provenance  TEXT NOT NULL CHECK (json_valid(provenance) AND json_type(provenance) = 'object'), -- field -> value
    recorded_at TEXT NOT NULL, -- first recorded
    updated_at  TEXT NOT NULL, -- last change (= recorded_at of the last check)
    PRIMARY KEY (campaign, id)
) STRICT;

CREATE TABLE reference_checks (
    campaign     TEXT NOT NULL,
    reference_id TEXT NOT NULL,
    seq          INTEGER NOT NULL CHECK (seq >= 1), -- 1, 2, ... per reference
    checked      TEXT NOT NULL CHECK (checked = date(checked)),
    visible      INTEGER NOT NULL CHECK (visible IN (0, 1)),
    value        REAL NOT NULL,
    unit         TEXT NOT NULL,
    source       TEXT NOT NULL,
    figure       TEXT NOT NULL,
    title        TEXT NOT NULL,
    notes        TEXT NOT NULL,
    captured     TEXT NOT NULL CHECK (captured = date(captured) AND checked >= captured),
    provenance   TEXT NOT NULL CHECK (json_valid(provenance) AND json_type(provenance) = 'object'),
    recorded_at  TEXT NOT NULL,
    PRIMARY KEY (campaign, reference_id, seq),
    FOREIGN KEY (campaign, reference_id) REFERENCES "references" (campaign, id)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER reference_checks_no_update BEFORE UPDATE ON reference_checks
BEGIN
    SELECT RAISE(ABORT, 'reference checks are append-only: UPDATE refused');
END;

CREATE TRIGGER reference_checks_no_delete BEFORE DELETE ON reference_checks
BEGIN
    SELECT RAISE(ABORT, 'reference checks are append-only: DELETE refused');
END;

-- A reference's identity is fixed and it stays: its history hangs on it.
CREATE TRIGGER references_keep_key BEFORE UPDATE OF campaign, id ON "references"
BEGIN
    SELECT RAISE(ABORT, 'a reference''s campaign and id cannot change');
END;

CREATE TRIGGER references_no_delete BEFORE DELETE ON "references"
BEGIN
    SELECT RAISE(ABORT, 'references are kept with their history: DELETE refused');
END;
