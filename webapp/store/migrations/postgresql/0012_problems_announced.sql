-- Migration 12 on PostgreSQL (issue 15), as SQLite's: when the team was first told of a problem (NULL: it opened
-- quietly as a backfill and its first live call is still to come); problems already stored count as told.
ALTER TABLE problems ADD COLUMN IF NOT EXISTS announced_at TEXT;
UPDATE problems SET announced_at = created_at WHERE announced_at IS NULL;
