-- 0001: the initial archive schema.
--
-- Every table is STRICT so a type mistake in the store is an error, not a
-- silently coerced value. Times are TEXT in RFC 3339 UTC (STRICT has no
-- DATETIME type, and the driver would not convert one anyway).

-- Raw result files, content-addressed by the SHA-256 of their bytes. The bytes
-- live in blob_chunks: each chunk is an independent compressed stream (raw DEFLATE, or a zstd
-- frame in the earliest archives) of at most
-- chunk_size raw bytes, so no value comes near SQLite's 1e9-byte limit and a
-- reader can stream a file without holding it whole.
CREATE TABLE blobs (
    sha256      TEXT PRIMARY KEY CHECK (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*'),
    size        INTEGER NOT NULL CHECK (size >= 0),
    chunk_size  INTEGER NOT NULL CHECK (chunk_size > 0),
    chunks      INTEGER NOT NULL CHECK (chunks >= 0),
    compression TEXT NOT NULL CHECK (compression IN ('deflate', 'zstd')),
    name        TEXT NOT NULL,  -- the file's path as given when it was first ingested
    stored_at   TEXT NOT NULL
) STRICT;

CREATE TABLE blob_chunks (
    -- ON UPDATE CASCADE: a streamed blob is stored under a provisional key
    -- until its last byte gives the real SHA-256 (BlobWriter.Close).
    blob     TEXT NOT NULL REFERENCES blobs (sha256) ON UPDATE CASCADE,
    seq      INTEGER NOT NULL CHECK (seq >= 0),
    raw_size INTEGER NOT NULL CHECK (raw_size > 0),
    data     BLOB NOT NULL,
    PRIMARY KEY (blob, seq)
) STRICT;

-- One row per run read from a blob. The columns from campaign to run_date
-- are denormalised from the run's effective provenance so that listing and
-- filtering runs needs no pivot over the provenance table; the store rewrites
-- them whenever provenance changes.
CREATE TABLE runs (
    id                TEXT PRIMARY KEY,
    blob              TEXT NOT NULL REFERENCES blobs (sha256),
    ordinal           INTEGER NOT NULL CHECK (ordinal >= 0),
    file_name         TEXT NOT NULL,
    location          TEXT NOT NULL,
    format            TEXT NOT NULL,
    format_variant    TEXT NOT NULL,
    source_tool       TEXT NOT NULL,
    percentile_method TEXT NOT NULL,
    clock             TEXT NOT NULL,
    has_requests      INTEGER NOT NULL CHECK (has_requests IN (0, 1)),
    completed         INTEGER NOT NULL, -- -1 unknown
    failed            INTEGER NOT NULL, -- -1 unknown
    extra             TEXT NOT NULL CHECK (json_valid(extra)), -- object: key -> the key's JSON text, as a string
    notes             TEXT NOT NULL CHECK (json_valid(notes)), -- array of strings
    campaign          TEXT NOT NULL,
    role              TEXT NOT NULL,
    model             TEXT NOT NULL,
    engine            TEXT NOT NULL,
    engine_version    TEXT NOT NULL,
    gpu               TEXT NOT NULL,
    run_date          TEXT NOT NULL,
    publishable       INTEGER NOT NULL CHECK (publishable IN (0, 1)),
    missing           TEXT NOT NULL CHECK (json_valid(missing)), -- array of field names
    ingested_at       TEXT NOT NULL,
    UNIQUE (blob, ordinal)
) STRICT;

-- Every provenance value stated about a run, by every source; the effective
-- value (cli over manifest over file) is resolved in Go.
CREATE TABLE provenance (
    run_id TEXT NOT NULL REFERENCES runs (id),
    field  TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('file', 'manifest', 'cli')),
    value  TEXT NOT NULL,
    PRIMARY KEY (run_id, field, source)
) STRICT, WITHOUT ROWID;

-- Summary figures as the source tool stated them, in file order (seq).
CREATE TABLE stated (
    run_id      TEXT NOT NULL REFERENCES runs (id),
    seq         INTEGER NOT NULL CHECK (seq >= 0),
    metric      TEXT NOT NULL,
    value       REAL, -- NULL: the file stated NaN
    unit        TEXT NOT NULL,
    source_key  TEXT NOT NULL,
    source_unit TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
) STRICT, WITHOUT ROWID;

-- Per-request records. NULL marks an unknown value (benchrun.Unknown floats,
-- -1 token counts); error is NULL for a request that completed. The gaps
-- between streamed chunks are kept as four numbers per request, never as a
-- row per gap: the full arrays stay recoverable from the raw blob.
CREATE TABLE requests (
    run_id        TEXT NOT NULL REFERENCES runs (id),
    idx           INTEGER NOT NULL,
    start         REAL,
    queue_time    REAL,
    ttft          REAL,
    latency       REAL,
    input_tokens  INTEGER,
    output_tokens INTEGER,
    error         TEXT,
    gap_count     INTEGER NOT NULL CHECK (gap_count >= 0),
    gap_sum       REAL,
    gap_min       REAL,
    gap_max       REAL,
    PRIMARY KEY (run_id, idx)
) STRICT, WITHOUT ROWID;

-- The archive's history. Append-only: the triggers below refuse UPDATE and
-- DELETE. run_id and blob are deliberately not foreign keys: an event may
-- name a file that was rejected and never stored.
CREATE TABLE events (
    id           INTEGER PRIMARY KEY,
    at           TEXT NOT NULL,
    actor        TEXT NOT NULL,
    tool_version TEXT NOT NULL,
    action       TEXT NOT NULL CHECK (action <> ''),
    run_id       TEXT,
    blob         TEXT,
    detail       TEXT CHECK (detail IS NULL OR json_valid(detail))
) STRICT;

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only: UPDATE refused');
END;

CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only: DELETE refused');
END;
