"""Migration 16 (issue 26): observed schemas.

Each tool's learnt shape per stage (arguments, request, response, result), one JSON row each
(bounded by a field budget), and per call the stages it was learnt from with the drift findings it
showed then, so a re-analysis of one call tells the same drift (`tracediff reanalyze` rebuilds both
from the stored calls)."""

TABLE = """
CREATE TABLE IF NOT EXISTS observed_shapes (
    tool TEXT NOT NULL,
    stage TEXT NOT NULL,
    shape TEXT NOT NULL,        -- {"calls", "first", "last", "folded", "paths": {pointer: counts}}
    updated_at TEXT NOT NULL,
    PRIMARY KEY (tool, stage)
) WITHOUT ROWID
"""


def migrate(conn) -> None:
    """Create the table, and the calls' `drift` column where it is missing."""
    conn.execute(TABLE)
    if "drift" not in {row[1] for row in conn.execute("PRAGMA table_info(calls)")}:
        # {"seen": [stage, ...], "findings": [...]}; NULL: not learnt from yet
        conn.execute("ALTER TABLE calls ADD COLUMN drift TEXT")
