-- Migration 13 on PostgreSQL (issue 25), as SQLite's: the releases view reads each release's calls per tool and
-- source, first and last seen and calls with warnings or errors from this index, not from the wide call rows.
CREATE INDEX IF NOT EXISTS calls_by_release ON calls (release, tool, source, last_ts, worst) WHERE release IS NOT NULL;
