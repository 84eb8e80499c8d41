"""Migration 5: inferred mappings (issue 11).

Evidence per tool and pair, rejections, the inferred set, which calls were learnt from, and the loud
kinds the trace list shows (info kinds muted)."""

TABLES = """
CREATE TABLE IF NOT EXISTS mapping_evidence (
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,    -- JSON Pointer into the arguments
    request TEXT NOT NULL,      -- JSON Pointer into the request
    counts TEXT NOT NULL,       -- {"both": calls holding both, "<relation>": calls showing it}
    PRIMARY KEY (tool, arguments, request)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS mapping_rejections (
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,
    request TEXT NOT NULL,
    rejected_at TEXT NOT NULL,
    PRIMARY KEY (tool, arguments, request)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tool_inference (
    tool TEXT PRIMARY KEY,
    inferred TEXT NOT NULL DEFAULT '[]',   -- [[arguments, request], ...] the analysis adds as mapping
    updated_at TEXT
);
CREATE INDEX IF NOT EXISTS calls_by_tool_time ON calls (tool, last_ts);
"""
# kinds of warnings and errors
COLUMNS = (
    # learnt from, once per call
    ("calls", "observed", "INTEGER NOT NULL DEFAULT 0"),
    ("calls", "loud_kinds", "TEXT"),
    ("traces", "loud_kinds", "TEXT"),
)


def migrate(conn) -> None:
    """Create the tables and add the columns where they are missing."""
    for statement in TABLES.split(";"):
        if statement.strip():
            conn.execute(statement)
    for table, column, kind in COLUMNS:
        if column not in {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}:
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
