"""Migration 12 (issue 15).

When the team was first told of a problem, `problems.announced_at`.

NULL: the problem opened quietly, from calls more than an hour old (a backfill), and nobody was told
yet; its first live call (its own time within the last hour) sends the "new" alert
(webapp/store/announcing.py). Problems already stored count as told: an upgrade never sends a burst
of "new" alerts about old problems.
"""


def migrate(conn) -> None:
    """Add the column where it is missing and mark stored problems as told.

    Every problem already stored."""
    if "announced_at" not in {row[1] for row in conn.execute("PRAGMA table_info(problems)")}:
        conn.execute("ALTER TABLE problems ADD COLUMN announced_at TEXT")
    conn.execute("UPDATE problems SET announced_at = created_at WHERE announced_at IS NULL")
