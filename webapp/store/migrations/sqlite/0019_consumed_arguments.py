"""Migration 19 (issue 32).

The arguments a tool's traffic shows its mapping layer keeps for itself.

Never in a request (a route selector, a projection, a limit applied to the answer): learnt beside
the inferred pairs and given to the analysis as the contract's `consumed`. The column is added only
where missing (a database from before numbered migrations is upgraded by running them all again).
"""


def migrate(conn) -> None:
    """Add tool_inference.consumed where it is missing."""
    if "consumed" not in {row[1] for row in conn.execute("PRAGMA table_info(tool_inference)")}:
        conn.execute("ALTER TABLE tool_inference ADD COLUMN consumed TEXT NOT NULL DEFAULT '[]'")
