-- 0002: runs.request_count, so listing runs needs no count over the requests
-- table, backfilled for runs archived at version 1 with the rule of
-- benchrun.Run.RequestCount; and indexes for the common look-ups.
ALTER TABLE runs ADD COLUMN request_count INTEGER NOT NULL DEFAULT -1;

UPDATE runs SET request_count = CASE
    WHEN has_requests THEN (SELECT count(*) FROM requests WHERE requests.run_id = runs.id)
    WHEN completed >= 0 AND failed >= 0 THEN completed + failed
    WHEN completed >= 0 THEN completed
    ELSE -1
END;

CREATE INDEX runs_by_campaign_date ON runs (campaign, run_date);
CREATE INDEX events_by_run ON events (run_id);
