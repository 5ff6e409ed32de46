-- 0005: runs described by several files together.
--
-- Some clients write one run as several files: AIPerf a summary JSON, a CSV
-- and a per-request JSON Lines file; llmperf a summary and the individual
-- responses. A parser names such a run with a companion key that every file
-- of the run yields; the first file ingested creates the run (its blob is
-- runs.blob, and the run id comes from it), each later one is attached here
-- and completes the run with what the earlier ones lacked (per-request
-- records, stated figures, file facts). Every raw file stays archived; the
-- audit re-reads all of them.
ALTER TABLE runs ADD COLUMN companion TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_companion ON runs (companion) WHERE companion <> '';

CREATE TABLE run_files (
    run_id    TEXT NOT NULL REFERENCES runs (id),
    blob      TEXT NOT NULL REFERENCES blobs (sha256),
    ordinal   INTEGER NOT NULL CHECK (ordinal >= 0),
    file_name TEXT NOT NULL,
    format    TEXT NOT NULL CHECK (format <> ''),
    added     TEXT NOT NULL CHECK (json_valid(added)), -- array: what the file completed
    added_at  TEXT NOT NULL,
    PRIMARY KEY (blob, ordinal)
) STRICT;
CREATE INDEX run_files_run ON run_files (run_id);

-- How many decimals the source printed a stated figure with (a console
-- block or CSV: 2); 0 means full precision. A companion file in full
-- precision replaces a rounded value of the same figure.
ALTER TABLE stated ADD COLUMN printed INTEGER NOT NULL DEFAULT 0 CHECK (printed >= 0);
