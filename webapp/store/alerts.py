"""Alert rules, the outbox of messages written in the transaction of what caused them, and the delivery log.

A message id is made once, when the message enters the outbox, and sent with every attempt, so a
receiver drops duplicates; a sender claims a message for a lease before sending, so two workers
do not send it at once.
"""
import uuid

from .codec import dumps, loads, utc_now

LEASE_S = 60
PAUSE_AFTER_FAILURES = 5
RULE_COLUMNS = "id, url, format, on_events, tool, kind, min_severity, source, min_interval_s, created_at, " \
               "paused_at, pause_reason, failures"


class AlertStore:
    """Rules, outbox and deliveries (mixed into Store)."""

    def add_rule(self, rule: dict, secret: str) -> int:
        with self.write() as conn:
            return conn.execute(
                "INSERT INTO alert_rules (url, format, on_events, tool, kind, min_severity, source, min_interval_s,"
                " secret, created_at, failures) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0) RETURNING id",
                (rule["url"], rule["format"], dumps(rule["on"]), rule["tool"], rule["kind"], rule["min_severity"],
                 rule["source"], rule["min_interval_s"], secret, utc_now())).fetchone()[0]

    def list_rules(self) -> list[dict]:
        return [_rule(r) for r in self.db.query(f"SELECT {RULE_COLUMNS} FROM alert_rules ORDER BY id")]

    def get_rule(self, rule_id: int) -> dict | None:
        row = self._one(f"SELECT {RULE_COLUMNS} FROM alert_rules WHERE id = ?", (rule_id,))
        return None if row is None else _rule(row)

    def rule_secret(self, rule_id: int) -> str | None:
        row = self._one("SELECT secret FROM alert_rules WHERE id = ?", (rule_id,))
        return None if row is None else row["secret"]

    def delete_rule(self, rule_id: int) -> bool:
        with self.write() as conn:
            conn.execute("DELETE FROM alert_outbox WHERE rule_id = ? AND state = 'pending'", (rule_id,))
            return bool(conn.execute("DELETE FROM alert_rules WHERE id = ?", (rule_id,)).rowcount)

    def resume_rule(self, rule_id: int) -> bool:
        with self.write() as conn:
            return bool(conn.execute("UPDATE alert_rules SET paused_at = NULL, pause_reason = NULL, failures = 0 "
                                     "WHERE id = ?", (rule_id,)).rowcount)

    def enqueue_alerts(self, conn, event: str, subject: str, data: dict, wanted) -> int:
        """Write a message for each rule that wants this event, inside the caller's transaction.

        `wanted(rule, data)` tells whether a rule matches; a rule that sent about the same subject less
        than its min_interval_s ago stays quiet, so a burst sends one message."""
        now = utc_now()
        written = 0
        for row in conn.execute(f"SELECT {RULE_COLUMNS} FROM alert_rules WHERE paused_at IS NULL").fetchall():
            rule = _rule(dict(zip(RULE_COLUMNS.split(", "), row)))
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

    def record_attempt(self, message: dict, outcome: dict) -> None:
        """Log one attempt and move the message on: delivered, retried at `retry_at`, or failed for good."""
        now = utc_now()
        state = "delivered" if outcome["ok"] else ("pending" if outcome.get("retry_at") else "failed")
        with self.write() as conn:
            conn.execute("INSERT INTO alert_deliveries (message_id, rule_id, at, attempt, status_code, latency_ms,"
                         " error) VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (message["id"], message["rule_id"], now, message["attempts"] + 1, outcome.get("status"),
                          outcome.get("latency_ms"), outcome.get("error")))
            conn.execute("UPDATE alert_outbox SET state = ?, attempts = attempts + 1, next_attempt_at = ? "
                         "WHERE id = ?", (state, outcome.get("retry_at") or now, message["id"]))
            if outcome["ok"]:
                conn.execute("UPDATE alert_rules SET failures = 0 WHERE id = ?", (message["rule_id"],))
            else:
                conn.execute("UPDATE alert_rules SET failures = failures + 1, paused_at = CASE WHEN failures + 1 >= ?"
                             " THEN ? END, pause_reason = CASE WHEN failures + 1 >= ? THEN ? END WHERE id = ?",
                             (PAUSE_AFTER_FAILURES, now, PAUSE_AFTER_FAILURES,
                              f"{PAUSE_AFTER_FAILURES} deliveries failed in a row; last: {outcome.get('error')}",
                              message["rule_id"]))

    def deliveries(self, rule_id: int, limit: int = 100) -> list[dict]:
        return list(self.db.query(
            "SELECT d.id, d.message_id, d.at, d.attempt, d.status_code, d.latency_ms, d.error, o.type, o.state "
            "FROM alert_deliveries d JOIN alert_outbox o ON o.id = d.message_id WHERE d.rule_id = ? "
            "ORDER BY d.id DESC LIMIT ?", (rule_id, limit)))

    def messages(self, rule_id: int, limit: int = 100) -> list[dict]:
        return list(self.db.query("SELECT id, type, subject, created_at, state, attempts FROM alert_outbox "
                                  "WHERE rule_id = ? ORDER BY created_at DESC LIMIT ?", (rule_id, limit)))

    def redeliver(self, message_id: str) -> bool:
        """Send a message again, with the same id, as soon as the sender looks."""
        with self.write() as conn:
            return bool(conn.execute("UPDATE alert_outbox SET state = 'pending', next_attempt_at = ? WHERE id = ?",
                                     (utc_now(), message_id)).rowcount)

    def rejected_since(self, conn, since: str, source: str | None) -> int:
        sql, params = "SELECT count(*) FROM quarantine WHERE received_at >= ?", [since]
        if source:
            sql, params = sql + " AND source = ?", params + [source]
        return conn.execute(sql, params).fetchone()[0]


def _too_soon(conn, rule: dict, subject: str, now: str) -> bool:
    row = conn.execute("SELECT at FROM alert_sent WHERE rule_id = ? AND subject = ?", (rule["id"], subject)).fetchone()
    return row is not None and _seconds_between(row[0], now) < rule["min_interval_s"]


def _seconds_between(earlier: str, later: str) -> float:
    from datetime import datetime

    parse = lambda text: datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")  # noqa: E731 - the store's own format
    return (parse(later) - parse(earlier)).total_seconds()


def _rule(row: dict) -> dict:
    rule = dict(row)
    rule["on"] = loads(rule.pop("on_events"))
    rule["paused"] = rule["paused_at"] is not None
    return rule
