-- Migration 19 on PostgreSQL (issue 32), as SQLite's: the arguments learnt consumed beside the inferred pairs.
ALTER TABLE tool_inference ADD COLUMN IF NOT EXISTS consumed TEXT NOT NULL DEFAULT '[]';
