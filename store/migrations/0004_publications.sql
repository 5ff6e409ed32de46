-- 0004: publications of case studies and their errata.
--
-- A case study (a spec id) gets version 1 the first time it is published
-- from this archive; every later publication whose figures, texts, runs or
-- caveats differ from the last one becomes the next version, with one
-- erratum row per change (what changed, the old and the new value). Both
-- tables are the case study's history, append-only like events: a version
-- once recorded is never rewritten, so a reader holding an old copy can
-- always find what it said and why it changed.
--
-- snapshot is the JSON of what a reader saw of that version (package
-- publish); digest the archive digest in the report's footer
-- (casestudy.Result.Digest). Times are RFC 3339 UTC as elsewhere.
CREATE TABLE publications (
    case_id     TEXT NOT NULL CHECK (case_id <> ''),
    version     INTEGER NOT NULL CHECK (version >= 1),
    recorded_at TEXT NOT NULL,
    digest      TEXT NOT NULL CHECK (length(digest) = 64 AND digest NOT GLOB '*[^0-9a-f]*'),
    snapshot    TEXT NOT NULL CHECK (json_valid(snapshot) AND json_type(snapshot) = 'object'),
    PRIMARY KEY (case_id, version)
) STRICT;

-- What changed from version - 1 to version: a first version has none.
CREATE TABLE errata (
    case_id     TEXT NOT NULL,
    version     INTEGER NOT NULL CHECK (version >= 2),
    seq         INTEGER NOT NULL CHECK (seq >= 1), -- 1, 2, ... within a version, in the order given
    kind        TEXT NOT NULL CHECK (kind <> ''),  -- figure, text, runs, caveat, digest
    name        TEXT NOT NULL,
    old         TEXT NOT NULL,                     -- '' when the thing was added
    new         TEXT NOT NULL,                     -- '' when it was removed
    recorded_at TEXT NOT NULL,
    PRIMARY KEY (case_id, version, seq),
    FOREIGN KEY (case_id, version) REFERENCES publications (case_id, version)
) STRICT, WITHOUT ROWID;

-- Versions of a case study are 1, 2, 3, ... without gaps, whoever writes.
CREATE TRIGGER publications_next_version BEFORE INSERT ON publications
WHEN NEW.version <> 1 + coalesce((SELECT max(version) FROM publications WHERE case_id = NEW.case_id), 0)
BEGIN
    SELECT RAISE(ABORT, 'publications: a new version must follow the last one');
END;

CREATE TRIGGER publications_no_update BEFORE UPDATE ON publications
BEGIN
    SELECT RAISE(ABORT, 'publications are append-only: UPDATE refused');
END;

CREATE TRIGGER publications_no_delete BEFORE DELETE ON publications
BEGIN
    SELECT RAISE(ABORT, 'publications are append-only: DELETE refused');
END;

CREATE TRIGGER errata_no_update BEFORE UPDATE ON errata
BEGIN
    SELECT RAISE(ABORT, 'errata are append-only: UPDATE refused');
END;

CREATE TRIGGER errata_no_delete BEFORE DELETE ON errata
BEGIN
    SELECT RAISE(ABORT, 'errata are append-only: DELETE refused');
END;
