-- 0008: each run's per-request records packed into one value, as in
-- migrations/0008_request_packs.sql. The foreign key is DEFERRABLE as the
-- requests' is: a run's renaming updates the pack before the run.
CREATE TABLE request_packs (
    run_id text COLLATE "C" PRIMARY KEY REFERENCES runs (id) DEFERRABLE,
    data   bytea NOT NULL
);

-- Whoever may read or write the requests may read or write their packs: a
-- team archive's owner who granted the roles their part
-- (docs/team-archive.md) need not grant again for this table before the
-- writers' next ingest.
DO $$
DECLARE g record;
BEGIN
    FOR g IN SELECT DISTINCT grantee, privilege_type FROM information_schema.role_table_grants
        WHERE table_schema = current_schema() AND table_name = 'requests'
            AND privilege_type IN ('SELECT', 'INSERT', 'UPDATE') AND grantee <> current_user
    LOOP
        EXECUTE format('GRANT %s ON request_packs TO %s', g.privilege_type,
            CASE WHEN g.grantee = 'PUBLIC' THEN 'PUBLIC' ELSE quote_ident(g.grantee) END);
    END LOOP;
END $$;
