"""Migration 6: problems (issue 13).

The problems, each call's part in them, their hourly counts, splits, value pairs, checks and state
history; the release of events and calls, the contract digest of an analysis and the problems whose
argument path a call had."""

# JSON ids of the problems whose argument path it had
COLUMNS = (
    # the envelope's optional release (OTLP service.version)
    ("events", "release", "TEXT"),
    # the latest release any event of the call named
    ("calls", "release", "TEXT"),
    # digest of the contract its stored analysis used
    ("calls", "contract_digest", "TEXT"),
    ("calls", "problem_paths", "TEXT"),
)

TABLES = """
CREATE TABLE IF NOT EXISTS problems (
    id INTEGER PRIMARY KEY AUTOINCREMENT,   -- shown as TD-<id>, never reused
    fingerprint TEXT NOT NULL UNIQUE,       -- 'v1:<hash>' (webapp/problems/fingerprint.py)
    fp_version INTEGER NOT NULL,
    tool TEXT,
    kind TEXT NOT NULL,
    severity TEXT NOT NULL,                 -- worst seen
    stages TEXT NOT NULL,                   -- 'arguments>request', 'request>response', 'response'...
    left_snapshot TEXT, left_path TEXT, right_snapshot TEXT, right_path TEXT,
    transform TEXT,
    keyword TEXT,                           -- schema violations: the JSON Schema keyword
    first_seen TEXT, last_seen TEXT,        -- the calls' own times
    occurrences INTEGER NOT NULL DEFAULT 0,
    calls INTEGER NOT NULL DEFAULT 0,
    traces INTEGER NOT NULL DEFAULT 0,
    exercised INTEGER NOT NULL DEFAULT 0,   -- calls analysed since it opened that had its argument path
    state TEXT NOT NULL DEFAULT 'open',     -- open, resolved, regressed, archived
    resolve TEXT,                           -- JSON: the last resolution asked for
    resolved_at TEXT,
    archive TEXT,                           -- JSON: {"at", "until", "baseline"}
    links TEXT NOT NULL DEFAULT '[]',
    merged_into INTEGER,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS problems_by_last_seen ON problems (last_seen, id);
CREATE INDEX IF NOT EXISTS problems_by_tool ON problems (tool, last_seen);

-- One row per (problem, call): a call's contribution, replaced whole when the call is re-analysed.
CREATE TABLE IF NOT EXISTS problem_calls (
    problem_id INTEGER NOT NULL,
    trace_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    ts TEXT NOT NULL,
    source TEXT,
    release TEXT,
    digest TEXT,
    severity TEXT NOT NULL,
    occurrences INTEGER NOT NULL,
    pairs TEXT NOT NULL,                    -- JSON {"[left, right]": count}
    PRIMARY KEY (problem_id, trace_id, call_id)
);
CREATE INDEX IF NOT EXISTS problem_calls_by_time ON problem_calls (problem_id, ts);
CREATE INDEX IF NOT EXISTS problem_calls_by_call ON problem_calls (trace_id, call_id);

-- Rollups kept in step with problem_calls, so a problem page reads a few rows, not every call.
CREATE TABLE IF NOT EXISTS problem_hours (
    problem_id INTEGER NOT NULL, hour TEXT NOT NULL, occurrences INTEGER NOT NULL,
    PRIMARY KEY (problem_id, hour)
);
CREATE INDEX IF NOT EXISTS problem_hours_by_hour ON problem_hours (hour, problem_id);
CREATE TABLE IF NOT EXISTS problem_splits (
    problem_id INTEGER NOT NULL, dim TEXT NOT NULL, value TEXT NOT NULL,   -- dim: source, release, digest
    occurrences INTEGER NOT NULL, calls INTEGER NOT NULL,
    PRIMARY KEY (problem_id, dim, value)
);
CREATE INDEX IF NOT EXISTS problem_splits_by_value ON problem_splits (dim, value, problem_id);
CREATE TABLE IF NOT EXISTS problem_pairs (
    problem_id INTEGER NOT NULL, pair TEXT NOT NULL, count INTEGER NOT NULL,
    PRIMARY KEY (problem_id, pair)
);
-- Calls after a resolution that exercised the path (broke or not): "verified: N calls, 0 broke".
CREATE TABLE IF NOT EXISTS problem_checks (
    problem_id INTEGER NOT NULL, trace_id TEXT NOT NULL, call_id TEXT NOT NULL, ts TEXT NOT NULL,
    broke INTEGER NOT NULL,
    PRIMARY KEY (problem_id, trace_id, call_id)
);
CREATE INDEX IF NOT EXISTS problem_checks_by_time ON problem_checks (problem_id, ts);
CREATE TABLE IF NOT EXISTS problem_states (
    id INTEGER PRIMARY KEY,
    problem_id INTEGER NOT NULL,
    at TEXT NOT NULL,
    state TEXT NOT NULL,
    by TEXT NOT NULL,                       -- 'tracediff' for automatic changes, else the API or CLI user
    detail TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS problem_states_by_problem ON problem_states (problem_id, id);
-- The recent calls of one tool (nearest clean call, last clean call before a problem).
CREATE INDEX IF NOT EXISTS calls_by_tool_time ON calls (tool, last_ts);
"""


def migrate(conn) -> None:
    """Add the columns where missing, then the tables.

    Statement by statement: no implicit COMMIT."""
    for table, column, kind in COLUMNS:
        if column not in {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}:
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
    for statement in TABLES.split(";"):
        if statement.strip():
            conn.execute(statement)
