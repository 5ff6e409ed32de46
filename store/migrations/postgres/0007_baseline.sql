-- 0007 on PostgreSQL: the schema of SQLite archives at version 7 in one
-- script (no PostgreSQL archive ever had an earlier version). Every later
-- version has a script here as well as in migrations/, with the same
-- number: the two engines always hold the same schema version.
--
-- Differences from the SQLite scripts, all deliberate:
-- - text is COLLATE "C", so ORDER BY and comparisons are bytewise as in
--   SQLite, whatever the database's locale: listings, chain records and
--   reports come out the same on both engines.
-- - integers are bigint (SQLite's INTEGER is 64-bit), blobs bytea, and
--   so is requests.error (text cannot hold a NUL byte).
-- - the append-only rules are triggers calling bl_refuse(); TRUNCATE is
--   refused too (SQLite has none).
-- - foreign keys that a run's renaming (store/identity.go) updates
--   before its parent are DEFERRABLE.
-- - benchledger_archive marks the database as an archive (SQLite's
--   application_id) and holds its schema version (user_version).

CREATE TABLE benchledger_archive (
    application_id bigint NOT NULL,
    schema_version bigint NOT NULL,
    singleton      boolean PRIMARY KEY DEFAULT true CHECK (singleton)
);

CREATE FUNCTION bl_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'integrity_constraint_violation';
END
$$;

CREATE TABLE blobs (
    sha256      text COLLATE "C" PRIMARY KEY CHECK (length(sha256) = 64 AND sha256 !~ '[^0-9a-f]'),
    size        bigint NOT NULL CHECK (size >= 0),
    chunk_size  bigint NOT NULL CHECK (chunk_size > 0),
    chunks      bigint NOT NULL CHECK (chunks >= 0),
    compression text COLLATE "C" NOT NULL CHECK (compression IN ('deflate', 'zstd')),
    name        text COLLATE "C" NOT NULL,
    stored_at   text COLLATE "C" NOT NULL
);

CREATE TABLE blob_chunks (
    blob     text COLLATE "C" NOT NULL REFERENCES blobs (sha256) ON UPDATE CASCADE,
    seq      bigint NOT NULL CHECK (seq >= 0),
    raw_size bigint NOT NULL CHECK (raw_size > 0),
    data     bytea NOT NULL,
    PRIMARY KEY (blob, seq)
);
-- Chunks are compressed already: PostgreSQL's own compression would only
-- spend time.
ALTER TABLE blob_chunks ALTER COLUMN data SET STORAGE EXTERNAL;

CREATE TABLE runs (
    id                text COLLATE "C" PRIMARY KEY,
    blob              text COLLATE "C" NOT NULL REFERENCES blobs (sha256),
    ordinal           bigint NOT NULL CHECK (ordinal >= 0),
    file_name         text COLLATE "C" NOT NULL,
    location          text COLLATE "C" NOT NULL,
    format            text COLLATE "C" NOT NULL,
    format_variant    text COLLATE "C" NOT NULL,
    source_tool       text COLLATE "C" NOT NULL,
    percentile_method text COLLATE "C" NOT NULL,
    clock             text COLLATE "C" NOT NULL,
    has_requests      bigint NOT NULL CHECK (has_requests IN (0, 1)),
    completed         bigint NOT NULL,
    failed            bigint NOT NULL,
    extra             text COLLATE "C" NOT NULL CHECK (extra::json IS NOT NULL),
    notes             text COLLATE "C" NOT NULL CHECK (notes::json IS NOT NULL),
    campaign          text COLLATE "C" NOT NULL,
    role              text COLLATE "C" NOT NULL,
    model             text COLLATE "C" NOT NULL,
    engine            text COLLATE "C" NOT NULL,
    engine_version    text COLLATE "C" NOT NULL,
    gpu               text COLLATE "C" NOT NULL,
    run_date          text COLLATE "C" NOT NULL,
    publishable       bigint NOT NULL CHECK (publishable IN (0, 1)),
    missing           text COLLATE "C" NOT NULL CHECK (missing::json IS NOT NULL),
    ingested_at       text COLLATE "C" NOT NULL,
    request_count     bigint NOT NULL DEFAULT -1,
    companion         text COLLATE "C" NOT NULL DEFAULT '',
    invocation        text COLLATE "C" NOT NULL DEFAULT '',
    UNIQUE (blob, ordinal)
);
CREATE INDEX runs_by_campaign_date ON runs (campaign, run_date);
CREATE INDEX runs_companion ON runs (companion) WHERE companion <> '';

CREATE TABLE provenance (
    run_id text COLLATE "C" NOT NULL REFERENCES runs (id) DEFERRABLE,
    field  text COLLATE "C" NOT NULL,
    source text COLLATE "C" NOT NULL CHECK (source IN ('file', 'manifest', 'cli')),
    value  text COLLATE "C" NOT NULL,
    PRIMARY KEY (run_id, field, source)
);

CREATE TABLE stated (
    run_id      text COLLATE "C" NOT NULL REFERENCES runs (id) DEFERRABLE,
    seq         bigint NOT NULL CHECK (seq >= 0),
    metric      text COLLATE "C" NOT NULL,
    value       double precision,
    unit        text COLLATE "C" NOT NULL,
    source_key  text COLLATE "C" NOT NULL,
    source_unit text COLLATE "C" NOT NULL,
    printed     bigint NOT NULL DEFAULT 0 CHECK (printed >= 0),
    PRIMARY KEY (run_id, seq)
);

CREATE TABLE requests (
    run_id        text COLLATE "C" NOT NULL REFERENCES runs (id) DEFERRABLE,
    idx           bigint NOT NULL,
    start         double precision,
    queue_time    double precision,
    ttft          double precision,
    latency       double precision,
    input_tokens  bigint,
    output_tokens bigint,
    error         bytea, -- text may hold no NUL byte; an error message may
    gap_count     bigint NOT NULL CHECK (gap_count >= 0),
    gap_sum       double precision,
    gap_min       double precision,
    gap_max       double precision,
    PRIMARY KEY (run_id, idx)
);

CREATE TABLE events (
    id           bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    at           text COLLATE "C" NOT NULL,
    actor        text COLLATE "C" NOT NULL,
    tool_version text COLLATE "C" NOT NULL,
    action       text COLLATE "C" NOT NULL CHECK (action <> ''),
    run_id       text COLLATE "C",
    blob         text COLLATE "C",
    detail       text COLLATE "C" CHECK (detail IS NULL OR detail::json IS NOT NULL)
);
CREATE INDEX events_by_run ON events (run_id);

CREATE TRIGGER events_no_update BEFORE UPDATE ON events FOR EACH ROW EXECUTE FUNCTION bl_refuse('events are append-only: UPDATE refused');
CREATE TRIGGER events_no_delete BEFORE DELETE ON events FOR EACH ROW EXECUTE FUNCTION bl_refuse('events are append-only: DELETE refused');
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION bl_refuse('events are append-only: TRUNCATE refused');

CREATE TABLE "references" (
    campaign    text COLLATE "C" NOT NULL CHECK (campaign <> ''),
    id          text COLLATE "C" NOT NULL CHECK (id <> '' AND id !~ '[^a-z0-9._-]'),
    figure      text COLLATE "C" NOT NULL CHECK (figure <> ''),
    value       double precision NOT NULL,
    unit        text COLLATE "C" NOT NULL CHECK (unit <> ''),
    source      text COLLATE "C" NOT NULL CHECK (lower(source) ~ '^https?://.'),
    title       text COLLATE "C" NOT NULL,
    notes       text COLLATE "C" NOT NULL,
    captured    text COLLATE "C" NOT NULL CHECK (to_char(captured::date, 'YYYY-MM-DD') = captured),
    checked     text COLLATE "C" NOT NULL CHECK (to_char(checked::date, 'YYYY-MM-DD') = checked AND checked >= captured),
    visible     bigint NOT NULL CHECK (visible IN (0, 1)),
    provenance  text COLLATE "C" NOT NULL CHECK (json_typeof(provenance::json) = 'object'),
    recorded_at text COLLATE "C" NOT NULL,
    updated_at  text COLLATE "C" NOT NULL,
    PRIMARY KEY (campaign, id)
);

CREATE TABLE reference_checks (
    campaign     text COLLATE "C" NOT NULL,
    reference_id text COLLATE "C" NOT NULL,
    seq          bigint NOT NULL CHECK (seq >= 1),
    checked      text COLLATE "C" NOT NULL CHECK (to_char(checked::date, 'YYYY-MM-DD') = checked),
    visible      bigint NOT NULL CHECK (visible IN (0, 1)),
    value        double precision NOT NULL,
    unit         text COLLATE "C" NOT NULL,
    source       text COLLATE "C" NOT NULL,
    figure       text COLLATE "C" NOT NULL,
    title        text COLLATE "C" NOT NULL,
    notes        text COLLATE "C" NOT NULL,
    captured     text COLLATE "C" NOT NULL CHECK (to_char(captured::date, 'YYYY-MM-DD') = captured AND checked >= captured),
    provenance   text COLLATE "C" NOT NULL CHECK (json_typeof(provenance::json) = 'object'),
    recorded_at  text COLLATE "C" NOT NULL,
    PRIMARY KEY (campaign, reference_id, seq),
    FOREIGN KEY (campaign, reference_id) REFERENCES "references" (campaign, id)
);

CREATE TRIGGER reference_checks_no_update BEFORE UPDATE ON reference_checks FOR EACH ROW EXECUTE FUNCTION bl_refuse('reference checks are append-only: UPDATE refused');
CREATE TRIGGER reference_checks_no_delete BEFORE DELETE ON reference_checks FOR EACH ROW EXECUTE FUNCTION bl_refuse('reference checks are append-only: DELETE refused');
CREATE TRIGGER reference_checks_no_truncate BEFORE TRUNCATE ON reference_checks FOR EACH STATEMENT EXECUTE FUNCTION bl_refuse('reference checks are append-only: TRUNCATE refused');
CREATE TRIGGER references_keep_key BEFORE UPDATE OF campaign, id ON "references" FOR EACH ROW EXECUTE FUNCTION bl_refuse('a reference''s campaign and id cannot change');
CREATE TRIGGER references_no_delete BEFORE DELETE ON "references" FOR EACH ROW EXECUTE FUNCTION bl_refuse('references are kept with their history: DELETE refused');
CREATE TRIGGER references_no_truncate BEFORE TRUNCATE ON "references" FOR EACH STATEMENT EXECUTE FUNCTION bl_refuse('references are kept with their history: TRUNCATE refused');

CREATE TABLE publications (
    case_id     text COLLATE "C" NOT NULL CHECK (case_id <> ''),
    version     bigint NOT NULL CHECK (version >= 1),
    recorded_at text COLLATE "C" NOT NULL,
    digest      text COLLATE "C" NOT NULL CHECK (length(digest) = 64 AND digest !~ '[^0-9a-f]'),
    snapshot    text COLLATE "C" NOT NULL CHECK (json_typeof(snapshot::json) = 'object'),
    PRIMARY KEY (case_id, version)
);

CREATE TABLE errata (
    case_id     text COLLATE "C" NOT NULL,
    version     bigint NOT NULL CHECK (version >= 2),
    seq         bigint NOT NULL CHECK (seq >= 1),
    kind        text COLLATE "C" NOT NULL CHECK (kind <> ''),
    name        text COLLATE "C" NOT NULL,
    old         text COLLATE "C" NOT NULL,
    new         text COLLATE "C" NOT NULL,
    recorded_at text COLLATE "C" NOT NULL,
    PRIMARY KEY (case_id, version, seq),
    FOREIGN KEY (case_id, version) REFERENCES publications (case_id, version)
);

CREATE FUNCTION bl_publications_next_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.version <> 1 + coalesce((SELECT max(version) FROM publications WHERE case_id = NEW.case_id), 0) THEN
        RAISE EXCEPTION 'publications: a new version must follow the last one' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER publications_next_version BEFORE INSERT ON publications FOR EACH ROW EXECUTE FUNCTION bl_publications_next_version();
CREATE TRIGGER publications_no_update BEFORE UPDATE ON publications FOR EACH ROW EXECUTE FUNCTION bl_refuse('publications are append-only: UPDATE refused');
CREATE TRIGGER publications_no_delete BEFORE DELETE ON publications FOR EACH ROW EXECUTE FUNCTION bl_refuse('publications are append-only: DELETE refused');
CREATE TRIGGER publications_no_truncate BEFORE TRUNCATE ON publications FOR EACH STATEMENT EXECUTE FUNCTION bl_refuse('publications are append-only: TRUNCATE refused');
CREATE TRIGGER errata_no_update BEFORE UPDATE ON errata FOR EACH ROW EXECUTE FUNCTION bl_refuse('errata are append-only: UPDATE refused');
CREATE TRIGGER errata_no_delete BEFORE DELETE ON errata FOR EACH ROW EXECUTE FUNCTION bl_refuse('errata are append-only: DELETE refused');
CREATE TRIGGER errata_no_truncate BEFORE TRUNCATE ON errata FOR EACH STATEMENT EXECUTE FUNCTION bl_refuse('errata are append-only: TRUNCATE refused');

CREATE TABLE run_files (
    run_id    text COLLATE "C" NOT NULL REFERENCES runs (id) DEFERRABLE,
    blob      text COLLATE "C" NOT NULL REFERENCES blobs (sha256),
    ordinal   bigint NOT NULL CHECK (ordinal >= 0),
    file_name text COLLATE "C" NOT NULL,
    format    text COLLATE "C" NOT NULL CHECK (format <> ''),
    added     text COLLATE "C" NOT NULL CHECK (added::json IS NOT NULL),
    added_at  text COLLATE "C" NOT NULL,
    PRIMARY KEY (blob, ordinal)
);
CREATE INDEX run_files_run ON run_files (run_id);

CREATE TABLE run_aliases (
    alias  text COLLATE "C" PRIMARY KEY,
    run_id text COLLATE "C" NOT NULL REFERENCES runs (id) DEFERRABLE,
    reason text COLLATE "C" NOT NULL
);
CREATE INDEX run_aliases_run ON run_aliases (run_id);

CREATE TABLE corrections (
    id           bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    run_id       text COLLATE "C" NOT NULL REFERENCES runs (id) DEFERRABLE,
    field        text COLLATE "C" NOT NULL CHECK (field <> ''),
    old_value    text COLLATE "C",
    new_value    text COLLATE "C",
    reason       text COLLATE "C" NOT NULL CHECK (reason <> ''),
    actor        text COLLATE "C" NOT NULL,
    tool_version text COLLATE "C" NOT NULL,
    at           text COLLATE "C" NOT NULL
);
CREATE INDEX corrections_run ON corrections (run_id, id);

CREATE TRIGGER corrections_no_update BEFORE UPDATE ON corrections FOR EACH ROW EXECUTE FUNCTION bl_refuse('corrections are append-only: UPDATE refused');
CREATE TRIGGER corrections_no_delete BEFORE DELETE ON corrections FOR EACH ROW EXECUTE FUNCTION bl_refuse('corrections are append-only: DELETE refused');
CREATE TRIGGER corrections_no_truncate BEFORE TRUNCATE ON corrections FOR EACH STATEMENT EXECUTE FUNCTION bl_refuse('corrections are append-only: TRUNCATE refused');

CREATE TABLE archive_keys (
    name  text COLLATE "C" PRIMARY KEY,
    value bytea NOT NULL CHECK (length(value) = 32)
);
-- The site key is inserted by the store (a random 32 bytes from Go):
-- PostgreSQL has no random bytes without pgcrypto.

CREATE TABLE chain (
    seq    bigint PRIMARY KEY CHECK (seq >= 1),
    kind   text COLLATE "C" NOT NULL CHECK (kind <> ''),
    ref    text COLLATE "C" NOT NULL CHECK (ref <> ''),
    record text COLLATE "C" NOT NULL CHECK (length(record) = 64),
    prev   text COLLATE "C" NOT NULL,
    hash   text COLLATE "C" NOT NULL CHECK (length(hash) = 64)
);
CREATE INDEX chain_by_ref ON chain (kind, ref, seq);

CREATE TRIGGER chain_no_update BEFORE UPDATE ON chain FOR EACH ROW EXECUTE FUNCTION bl_refuse('the chain is append-only: UPDATE refused');
CREATE TRIGGER chain_no_delete BEFORE DELETE ON chain FOR EACH ROW EXECUTE FUNCTION bl_refuse('the chain is append-only: DELETE refused');
CREATE TRIGGER chain_no_truncate BEFORE TRUNCATE ON chain FOR EACH STATEMENT EXECUTE FUNCTION bl_refuse('the chain is append-only: TRUNCATE refused');
