-- 0006: what lets the archive vouch for what is derived from it.
--
-- archive_keys holds secrets that never leave the archive. "site" keys the
-- MAC over the rows a site build caches in its folder
-- (.benchledger-site.json): a row whose MAC does not verify is made again
-- from the archive, so an edited manifest cannot put a forged row into a
-- page (docs/site.md).
CREATE TABLE archive_keys (
    name  TEXT PRIMARY KEY,
    value BLOB NOT NULL CHECK (length(value) = 32)
) STRICT, WITHOUT ROWID;
INSERT INTO archive_keys (name, value) VALUES ('site', randomblob(32));

-- The hash chain (store/chain.go, docs/audit.md "Tamper evidence"): one
-- link per state of every recorded thing (an event, a run with its
-- provenance and stated figures, a reference, a reference check, a
-- publication, an erratum). record is the SHA-256 of the thing's canonical
-- form, prev the hash of the link before, hash the SHA-256 of prev, kind,
-- ref and record. A write appends a link for each thing it changed; audit
-- recomputes every link and every thing's latest record.
CREATE TABLE chain (
    seq    INTEGER PRIMARY KEY CHECK (seq >= 1),
    kind   TEXT NOT NULL CHECK (kind <> ''),
    ref    TEXT NOT NULL CHECK (ref <> ''),
    record TEXT NOT NULL CHECK (length(record) = 64),
    prev   TEXT NOT NULL,
    hash   TEXT NOT NULL CHECK (length(hash) = 64)
) STRICT;
CREATE INDEX chain_by_ref ON chain (kind, ref, seq);

CREATE TRIGGER chain_no_update BEFORE UPDATE ON chain
BEGIN
    SELECT RAISE(ABORT, 'the chain is append-only: UPDATE refused');
END;

CREATE TRIGGER chain_no_delete BEFORE DELETE ON chain
BEGIN
    SELECT RAISE(ABORT, 'the chain is append-only: DELETE refused');
END;
