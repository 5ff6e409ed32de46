-- 0008: each run's per-request records packed into one value, as in
-- migrations/0008_request_packs.sql. The foreign key is DEFERRABLE as the
-- requests' is: a run's renaming updates the pack before the run.
CREATE TABLE request_packs (
    run_id text COLLATE "C" PRIMARY KEY REFERENCES runs (id) DEFERRABLE,
    data   bytea NOT NULL
);
