-- Migration 14 (issue 22): inference a bad release cannot teach. How many calls held each path (so a pair
-- that starts late counts the earlier calls against it), the releases a tool's calls came from (the newest
-- is weighed apart), and every change of a tool's inferred pairs (shown on the tool and problem pages).
CREATE TABLE IF NOT EXISTS mapping_paths (
    tool TEXT NOT NULL,
    side TEXT NOT NULL,         -- arguments or request
    path TEXT NOT NULL,         -- JSON Pointer
    counts TEXT NOT NULL,       -- {"calls": n, "new:calls": n of the newest release}
    PRIMARY KEY (tool, side, path)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tool_releases (
    tool TEXT PRIMARY KEY,
    state TEXT NOT NULL         -- {"newest": release, "seen": [release, ...]}
);
CREATE TABLE IF NOT EXISTS inference_changes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tool TEXT NOT NULL,
    changed_at TEXT NOT NULL,
    added TEXT NOT NULL,        -- [[arguments, request], ...] now inferred
    removed TEXT NOT NULL,      -- [[arguments, request], ...] no longer inferred
    release TEXT,               -- the tool's newest release then
    reanalysed INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS inference_changes_by_tool ON inference_changes (tool, id);
