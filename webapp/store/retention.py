"""Retention's shared half, a mixin of Store.

Bounded deletions of the oldest traces.

One transaction deletes a few traces; the quarantine's old records go too. Each engine's `prune`
sizes and paces these (sqlite/upkeep.py, postgresql/).
"""

from dataclasses import dataclass

from .hours import hour_keys, refresh_hours
from .problems import forget_calls

# traces in the first deletion (SQLite measures the cost of one from it)
FIRST_STEP = 8
PRUNE_QUARANTINE = """DELETE FROM quarantine WHERE id IN
 (SELECT id FROM quarantine WHERE received_at < ? LIMIT ?)"""


@dataclass
class Reclaimed:
    # bytes of the database file and its WAL
    before: int
    after: int
    # whether the file can give pages back without a full VACUUM
    incremental: bool


class Retention:
    """Mixin of Store (needs write(), take_summaries_turn(), delete_events(), sql)."""

    def _prune_some(self, before_ts: str, size: int, unindex: bool = True, rules=None) -> int:
        """Delete in one transaction the `size` oldest traces last seen before a time.

        Return how many."""
        with self.write() as conn:
            self.take_summaries_turn(conn)
            ids = [
                r[0]
                for r in conn.execute(
                    "SELECT trace_id FROM traces WHERE last_ts < ? ORDER BY last_ts LIMIT ?",
                    (before_ts, size),
                )
            ]
            if not ids:
                return 0
            marks = ",".join("?" * len(ids))
            calls = conn.execute(
                f"SELECT trace_id, call_id FROM calls WHERE trace_id IN ({marks})", ids
            ).fetchall()
            hours = hour_keys(conn, calls, self.sql)
            forget_calls(conn, [tuple(call) for call in calls], rules.exercises if rules else None)
            for trace_id in ids:
                self.delete_events(conn, trace_id, unindex)
            for statement in self.sql.DELETE_TRACE:
                conn.executemany(statement, [(i,) for i in ids])
            refresh_hours(conn, hours, self.sql)
        return len(ids)

    def _prune_quarantine(self, before_ts: str, batch: int) -> None:
        """Delete quarantined records received before a time (they hold payload text too)."""
        while True:
            with self.write() as conn:
                gone = conn.execute(PRUNE_QUARANTINE, (before_ts, batch)).rowcount
            if gone < batch:
                return
