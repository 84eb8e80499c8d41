"""Alert rules, the outbox of messages written in the transaction of what caused them, and the delivery log.

A message id is made once, when the message enters the outbox, and sent with every attempt, so a
receiver drops duplicates; a sender claims a message for a lease before sending, so two workers
do not send it at once.
"""
import uuid

from .alert_rules import RULE_COLUMNS, AlertRules, as_rule, seconds_between
from .codec import dumps, loads, utc_now

LEASE_S = 60


class AlertStore(AlertRules):
    """Rules, outbox and deliveries (mixed into Store)."""

    def enqueue_alerts(self, conn, event: str, subject: str, data: dict, wanted) -> int:
        """Write a message for each rule that wants this event, inside the caller's transaction.

        `wanted(rule, data)` tells whether a rule matches; a rule that sent about the same subject less
        than its min_interval_s ago stays quiet, so a burst sends one message."""
        now = utc_now()
        written = 0
        # a paused rule's messages are written too, and held until it is resumed: nothing is lost meanwhile
        for row in conn.execute(f"SELECT {RULE_COLUMNS} FROM alert_rules").fetchall():
            rule = as_rule(dict(zip(RULE_COLUMNS.split(", "), row)))
            if not wanted(rule, event, data) or _too_soon(conn, rule, subject, now):
                continue
            conn.execute("INSERT INTO alert_outbox (id, rule_id, type, subject, data, created_at, state, attempts,"
                         " next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?)",
                         ("msg_" + uuid.uuid4().hex, rule["id"], event, subject, dumps(data), now, now))
            conn.execute("INSERT INTO alert_sent (rule_id, subject, at) VALUES (?, ?, ?) "
                         "ON CONFLICT(rule_id, subject) DO UPDATE SET at = excluded.at", (rule["id"], subject, now))
            written += 1
        return written

    def claim_due(self, now: str, lease_until: str, limit: int = 20) -> list[dict]:
        """Claim pending messages whose time has come, for a lease; return them with their rule's secret."""
        with self.write() as conn:
            rows = conn.execute(
                "SELECT o.id, o.rule_id, o.type, o.data, o.created_at, o.attempts, r.url, r.format, r.secret "
                "FROM alert_outbox o JOIN alert_rules r ON r.id = o.rule_id WHERE o.state = 'pending' "
                "AND o.next_attempt_at <= ? AND r.paused_at IS NULL ORDER BY o.next_attempt_at LIMIT ?",
                (now, limit)).fetchall()
            conn.executemany("UPDATE alert_outbox SET next_attempt_at = ? WHERE id = ?",
                             [(lease_until, row[0]) for row in rows])
        keys = ("id", "rule_id", "type", "data", "created_at", "attempts", "url", "format", "secret")
        return [{**dict(zip(keys, row)), "data": loads(row[3])} for row in rows]

    def rejected_by_source(self, conn, since: str) -> list[dict]:
        """Count the records rejected since a time, per source, most first: [{"source", "count"}]."""
        rows = conn.execute("SELECT nullif(source, ''), count(*) FROM quarantine WHERE received_at >= ? GROUP BY 1",
                            (since,)).fetchall()
        return [{"source": source, "count": count} for source, count in sorted(rows, key=lambda r: (-r[1], r[0] or ""))]


def _too_soon(conn, rule: dict, subject: str, now: str) -> bool:
    row = conn.execute("SELECT at FROM alert_sent WHERE rule_id = ? AND subject = ?", (rule["id"], subject)).fetchone()
    return row is not None and seconds_between(row[0], now) < rule["min_interval_s"]
