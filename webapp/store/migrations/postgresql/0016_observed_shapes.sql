-- Migration 16 on PostgreSQL (issue 26), as SQLite's: each tool's learnt shape per stage, and per call the stages
-- it was learnt from with the drift findings it showed then.
CREATE TABLE IF NOT EXISTS observed_shapes (
    tool TEXT COLLATE "C" NOT NULL, stage TEXT COLLATE "C" NOT NULL, shape TEXT NOT NULL, updated_at TEXT NOT NULL,
    PRIMARY KEY (tool, stage)
);
ALTER TABLE calls ADD COLUMN IF NOT EXISTS drift TEXT;
