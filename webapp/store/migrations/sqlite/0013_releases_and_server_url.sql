-- Migration 13 (issue 25): the releases view reads each release's calls per tool and source, first and last seen
-- and calls with warnings or errors from this index alone (a covering walk in release order, no sort), never from
-- the wide call rows that hold the stored analyses.
CREATE INDEX IF NOT EXISTS calls_by_release ON calls (release, tool, source, last_ts, worst) WHERE release IS NOT NULL;
-- The address `tracediff serve` last listened on (its TRACEDIFF_PUBLIC_URL, else its first address), so that the
-- command line's `alerts test` links to the server people reach, not to its own defaults.
CREATE TABLE IF NOT EXISTS server_urls (name TEXT PRIMARY KEY, url TEXT NOT NULL, noted_at TEXT NOT NULL);
