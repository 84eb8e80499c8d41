-- Migration 17 on PostgreSQL (issue 26), as SQLite's: pending calls are claimed oldest first, by this index.
CREATE INDEX IF NOT EXISTS calls_pending_by_time ON calls (first_ts) WHERE analyzed_version < version;
