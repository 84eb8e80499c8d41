-- Migration 8 (issue 14): partial indexes for the two values most traces have, clean (or info only) and a
-- 2xx status, so their capped counts in the facet panel walk 10,001 index entries instead of scanning
-- traces (on PostgreSQL the seq scan of wide rows took 3-5x the index walk). Their WHERE must match
-- listing.py's SEVERITY_CONDITIONS and STATUS_CONDITIONS.
CREATE INDEX IF NOT EXISTS traces_worst_clean ON traces (last_ts, trace_id) WHERE worst IN ('clean', 'info');
CREATE INDEX IF NOT EXISTS traces_status_2xx ON traces (last_ts, trace_id)
    WHERE (',' || status_codes || ',') LIKE '%,2__,%';
