-- Migration 15 on PostgreSQL (issue 24), as SQLite's: the call's current result, and whether a trace's calls all
-- have one (the list's "missing" filter). `complete` still means arguments, request and response.
ALTER TABLE calls ADD COLUMN IF NOT EXISTS result_seq BIGINT;
ALTER TABLE traces ADD COLUMN IF NOT EXISTS has_result INTEGER NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS traces_missing_result ON traces (last_ts, trace_id) WHERE has_result = 0;
