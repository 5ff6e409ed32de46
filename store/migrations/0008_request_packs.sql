-- 0008: each run's per-request records packed into one value
-- (store/internal/reqpack), beside their rows in requests. A pass over
-- thousands of runs (the site) reads a run's pack instead of decoding a
-- dozen columns of each of its requests. The rows stay what the archive
-- is: audit checks every pack against them (docs/audit.md), and a run
-- without a pack (of more than store.MaxPackedRequests requests) is read
-- from its rows. The upgrade packs the runs already archived
-- (store/packs.go, packArchivedRequests).
--
-- A table with rowids, unlike requests: a pack of a few kilobytes fits in
-- one of its pages, where a WITHOUT ROWID row that size spills into an
-- overflow page of its own (measured: 188 MB instead of 82 MB for the
-- packs of 10,000 runs of 100 requests).
CREATE TABLE request_packs (
    run_id TEXT NOT NULL UNIQUE REFERENCES runs (id),
    data   BLOB NOT NULL
) STRICT;
