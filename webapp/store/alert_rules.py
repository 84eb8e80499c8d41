"""Alert rules and their delivery log.

Rules made, listed, paused when their receiver is gone, resumed, deleted.

A rule is paused when its deliveries have failed for PAUSE_AFTER_S with no success in between (a
receiver that is really gone, not one restarting); a success starts the count again. A paused rule's
messages are still written, and held: resuming sends them. Rule ids are never reused (AUTOINCREMENT
on SQLite, an identity on PostgreSQL), and deleting a rule deletes its messages and log, so nothing
of it is sent again.
"""

from datetime import datetime

from .codec import dumps, loads, utc_now

PAUSE_AFTER_S = 3600
RULE_COLUMNS = (
    "id, url, format, on_events, tool, kind, min_severity, source, min_interval_s, secret_parts, "
    "created_at, paused_at, pause_reason, failures, failing_since"
)
# a message's (subject, data), for the layer above to name the problem it is about
# (webapp/alerts/wording.py)
ABOUT = "_about"
WAITING = (
    "(SELECT count(*) FROM alert_outbox o WHERE o.rule_id = alert_rules.id AND o.state IN "
    "('pending', 'sending'))"
)


class AlertRules:
    """Rules and the delivery log (mixed into Store through AlertStore)."""

    def add_rule(self, rule: dict, secret: str) -> int:
        with self.write() as conn:
            return conn.execute(
                "INSERT INTO alert_rules (url, format, on_events, tool, kind, min_severity, source,"
                " min_interval_s, secret_parts, secret, created_at, failures)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0) RETURNING id",
                (*_fields(rule), secret, utc_now()),
            ).fetchone()[0]

    def update_rule(self, rule_id: int, rule: dict) -> bool:
        """Change what a rule says (URL, events, filters).

        Its id, secret, log and state stay."""
        with self.write() as conn:
            return bool(
                conn.execute(
                    "UPDATE alert_rules SET url = ?, format = ?, on_events = ?, tool = ?, kind = ?,"
                    " min_severity = ?, source = ?, min_interval_s = ?, secret_parts = ?"
                    " WHERE id = ?",
                    (*_fields(rule), rule_id),
                ).rowcount
            )

    def list_rules(self) -> list[dict]:
        return [
            as_rule(r)
            for r in self.db.query(
                f"SELECT {RULE_COLUMNS}, {WAITING} AS waiting FROM alert_rules ORDER BY id"
            )
        ]

    def rules_page(self, after_id: int, limit: int) -> list[dict]:
        """Return up to `limit` rules after the rule numbered `after_id`.

        In id order (by its primary key)."""
        sql = (
            f"SELECT {RULE_COLUMNS}, {WAITING} AS waiting FROM alert_rules WHERE id > ? ORDER BY "
            "id LIMIT ?"
        )
        return [as_rule(r) for r in self.db.query(sql, (after_id, limit))]

    def get_rule(self, rule_id: int) -> dict | None:
        row = self._one(
            f"SELECT {RULE_COLUMNS}, {WAITING} AS waiting FROM alert_rules WHERE id = ?", (rule_id,)
        )
        return None if row is None else as_rule(row)

    def rule_secret(self, rule_id: int) -> str | None:
        row = self._one("SELECT secret FROM alert_rules WHERE id = ?", (rule_id,))
        return None if row is None else row["secret"]

    def delete_rule(self, rule_id: int) -> bool:
        """Delete a rule with its messages, its log and its intervals.

        Nothing of it can be sent again."""
        with self.write() as conn:
            for table in ("alert_deliveries", "alert_outbox", "alert_sent"):
                conn.execute(f"DELETE FROM {table} WHERE rule_id = ?", (rule_id,))
            return bool(conn.execute("DELETE FROM alert_rules WHERE id = ?", (rule_id,)).rowcount)

    def resume_rule(self, rule_id: int) -> bool:
        """Resume a paused rule.

        The messages it held are due now, each with a fresh schedule of attempts."""
        with self.write() as conn:
            conn.execute(
                "UPDATE alert_outbox SET state = 'pending', next_attempt_at = ?, attempts = 0 "
                "WHERE rule_id = ?"
                " AND state IN ('pending', 'sending') AND rule_id IN "
                "(SELECT id FROM alert_rules WHERE paused_at IS NOT NULL)",
                (utc_now(), rule_id),
            )
            return bool(
                conn.execute(
                    "UPDATE alert_rules SET paused_at = NULL, pause_reason = NULL, failures = 0, "
                    "failing_since = NULL WHERE id = ?",
                    (rule_id,),
                ).rowcount
            )

    def record_attempt(self, message: dict, outcome: dict) -> None:
        """Log one attempt with its own outcome and move the message on.

        Delivered, retried at `retry_at`, held (its rule paused), or failed for good."""
        now = utc_now()
        with self.write() as conn:
            if (
                conn.execute("SELECT 1 FROM alert_outbox WHERE id = ?", (message["id"],)).fetchone()
                is None
            ):
                # its rule was deleted while it was being sent
                return
            conn.execute(
                "INSERT INTO alert_deliveries (message_id, rule_id, at, attempt, status_code, "
                "latency_ms,"
                " error, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    message["id"],
                    message["rule_id"],
                    now,
                    message["attempts"] + 1,
                    outcome.get("status"),
                    outcome.get("latency_ms"),
                    outcome.get("error"),
                    "delivered" if outcome["ok"] else "failed",
                ),
            )
            paused = (
                False
                if outcome["ok"]
                else _count_failure(conn, message["rule_id"], now, outcome.get("error"))
            )
            state = (
                "delivered"
                if outcome["ok"]
                else (
                    "pending"
                    if outcome.get("retry_at") or (paused and outcome.get("exhausted"))
                    else "failed"
                )
            )
            conn.execute(
                "UPDATE alert_outbox SET state = ?, attempts = attempts + 1, next_attempt_at = ? "
                "WHERE id = ?",
                (state, outcome.get("retry_at") or now, message["id"]),
            )
            if outcome["ok"]:
                conn.execute(
                    "UPDATE alert_rules SET failures = 0, failing_since = NULL WHERE id = ?",
                    (message["rule_id"],),
                )

    def deliveries(
        self, rule_id: int, limit: int = 100, before_id: int | None = None
    ) -> list[dict]:
        """Return a rule's delivery attempts newest first.

        Older than `before_id` when given: each with its own `state` (delivered or failed) and where
        its message stands now (`message_state`); under ABOUT its message's (subject, data), which
        the layer above turns into the problem it names."""
        rows = list(
            self.db.query(
                "SELECT d.id, d.message_id, d.at, d.attempt, d.status_code, d.latency_ms, d.error, "
                "o.type, d.state, o.state AS message_state, o.subject, o.data "
                "FROM alert_deliveries d JOIN alert_outbox o ON o.id = d.message_id "
                "WHERE d.rule_id = ? AND d.id < ? ORDER BY d.id DESC LIMIT ?",
                (rule_id, 2**63 - 1 if before_id is None else before_id, limit),
            )
        )
        return [
            {
                **{k: v for k, v in row.items() if k not in ("subject", "data")},
                ABOUT: (row["subject"], loads(row["data"])),
            }
            for row in rows
        ]

    def messages(self, rule_id: int, limit: int = 100) -> list[dict]:
        """Return a rule's newest messages.

        Each with its (subject, data) under ABOUT (see `deliveries`)."""
        rows = self.db.query(
            "SELECT id, type, subject, created_at, state, attempts, data FROM alert_outbox "
            "WHERE rule_id = ? ORDER BY created_at DESC LIMIT ?",
            (rule_id, limit),
        )
        return [
            {
                **{k: v for k, v in row.items() if k != "data"},
                ABOUT: (row["subject"], loads(row["data"])),
            }
            for row in rows
        ]

    def redeliver(self, message_id: str) -> bool:
        """Send a message of an existing rule again, with the same id.

        As soon as the sender looks."""
        with self.write() as conn:
            return bool(
                conn.execute(
                    "UPDATE alert_outbox SET state = 'pending', next_attempt_at = ? WHERE id = ? "
                    "AND rule_id IN (SELECT id FROM alert_rules)",
                    (utc_now(), message_id),
                ).rowcount
            )


def _fields(rule: dict) -> tuple:
    """A rule's columns, in the order add_rule and update_rule write them."""
    return (
        rule["url"],
        rule["format"],
        dumps(rule["on"]),
        rule["tool"],
        rule["kind"],
        rule["min_severity"],
        rule["source"],
        rule["min_interval_s"],
        dumps(rule.get("secret_parts") or []),
    )


def _count_failure(conn, rule_id: int, now: str, error: str | None) -> bool:
    """Count a failed attempt.

    Pause the rule once its deliveries have failed for PAUSE_AFTER_S. Say if paused."""
    row = conn.execute(
        "UPDATE alert_rules SET failures = failures + 1, failing_since = coalesce(failing_since, "
        "?) "
        "WHERE id = ? RETURNING failing_since, failures, paused_at",
        (now, rule_id),
    ).fetchone()
    if row is None or row[2] is not None or seconds_between(row[0], now) < PAUSE_AFTER_S:
        return row is not None and row[2] is not None
    reason = (
        f"every delivery failed for {_duration(seconds_between(row[0], now))} ({row[1]} attempts, "
        "none "
        f"delivered since {row[0][:16].replace('T', ' ')} UTC); last: {error}"
    )
    conn.execute(
        "UPDATE alert_rules SET paused_at = ?, pause_reason = ? WHERE id = ?",
        (now, reason, rule_id),
    )
    return True


def _duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 120 else f"{round(minutes / 60)} h"


def seconds_between(earlier: str, later: str) -> float:
    """Seconds between two of the store's own times (utc_now)."""
    parse = lambda text: datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")  # noqa: E731 - the store's own format
    return (parse(later) - parse(earlier)).total_seconds()


def as_rule(row: dict) -> dict:
    """A rule from its row: `on` a list, `paused` and `held` said outright."""
    rule = dict(row)
    rule["on"] = loads(rule.pop("on_events"))
    rule["secret_parts"] = loads(rule["secret_parts"]) if rule.get("secret_parts") else []
    rule["paused"] = rule["paused_at"] is not None
    waiting = rule.pop("waiting", 0) or 0
    # messages written while paused, sent on resume
    rule["held"] = waiting if rule["paused"] else 0
    return rule
