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
