"""What an alert says, read again when it is sent.

Its problems as they are now, and whether their calls wait for a re-analysis (mixed into Store; the
policy that decides is webapp/alerts/settle.py)."""

from .codec import dumps, utc_now

# a call that shows the problem and is queued again (its contract or the tool's inferred mapping
# changed since)
UNSETTLED = """SELECT DISTINCT pc.problem_id FROM problem_calls pc JOIN calls c
 ON c.trace_id = pc.trace_id AND c.call_id = pc.call_id WHERE pc.problem_id {numbers} AND
   c.analyzed_version <
  c.version"""
ALIVE = "SELECT id FROM problems WHERE id {numbers} AND merged_into IS NULL AND calls > 0"


class AlertRefresh:
    """Reads and moves of claimed messages (mixed into Store through AlertStore)."""

    def alert_problems_now(
        self, numbers: list[int], event: str | None
    ) -> tuple[dict[int, dict | None], set[int]]:
        """Return the problems as alerts carry them now, and those awaiting analysis.

        {number: the problem as an alert carries it now, None when no call shows it any more
        (emptied, merged or gone)} and the numbers whose calls wait for a re-analysis; `event` adds
        a single message's one-line facts, counted now."""
        if not numbers:
            return {}, set()
        keys = (dumps(sorted(set(numbers))),)
        # one consistent look: the analyser may be saving these very problems
        with self.write() as conn:
            unsettled = {
                row[0]
                for row in conn.execute(
                    UNSETTLED.format(numbers=self.sql.IN_JSON_NUMBERS), keys
                ).fetchall()
            }
            alive = {
                row[0]
                for row in conn.execute(
                    ALIVE.format(numbers=self.sql.IN_JSON_NUMBERS), keys
                ).fetchall()
            }
            now = {
                n: self.problem_alert_data(conn, n, event) if n in alive else None for n in numbers
            }
        return now, unsettled

    def postpone_message(self, message_id: str, seconds: float) -> None:
        """Give a claimed message back to the outbox, due again in a few seconds.

        A waiting summary still folds."""
        with self.write() as conn:
            conn.execute(
                "UPDATE alert_outbox SET state = 'pending', next_attempt_at = ? WHERE id = ? AND "
                "state = 'sending'",
                (utc_now(hours_ago=-seconds / 3600), message_id),
            )

    def drop_message(self, message: dict, reason: str) -> None:
        """Mark a claimed message `dropped` (never sent).

        Saying why in its rule's delivery log."""
        now = utc_now()
        with self.write() as conn:
            if conn.execute(
                "UPDATE alert_outbox SET state = 'dropped', next_attempt_at = ? WHERE id = ? AND "
                "state = 'sending'",
                (now, message["id"]),
            ).rowcount:
                conn.execute(
                    "INSERT INTO alert_deliveries (message_id, rule_id, at, attempt, status_code, "
                    "latency_ms,"
                    " error, state) VALUES (?, ?, ?, 0, NULL, NULL, ?, 'dropped')",
                    (message["id"], message["rule_id"], now, reason),
                )
