"""Alert rules, the outbox of messages and the delivery log.

Messages are written in the transaction of what caused them.

Which messages a change calls for is decided above the store, in the same transaction
(webapp/pipeline/telling.py, by the policy of webapp/alerts/storms.py), from the facts read here:
the store writes what it is told.

A message id is made once, when the message enters the outbox, and sent with every attempt, so a
receiver drops duplicates; a sender claims a message for a lease before sending, so two workers
do not send it at once.
"""

import uuid
from datetime import datetime, timedelta

from .alert_refresh import AlertRefresh
from .alert_rules import RULE_COLUMNS, AlertRules, as_rule, seconds_between
from .codec import dumps, loads

LEASE_S = 60
# Claim one message unless another sender did meanwhile (PostgreSQL re-checks the WHERE after a row
# lock).
CLAIM = """UPDATE alert_outbox SET state = 'sending', next_attempt_at = ? WHERE id = ?
 AND state IN ('pending', 'sending') AND next_attempt_at <= ? RETURNING data"""
# A rule's summary not yet tried (and due by then): the next summary of the rule folds into it.
WAITING = """SELECT id, data FROM alert_outbox WHERE rule_id = ? AND subject = 'summary' AND state
  = 'pending'
 AND attempts = 0 AND next_attempt_at <= ? ORDER BY created_at DESC LIMIT 1"""
# later than every time the store writes
ANY_TIME = "9999"
# A rule's new-problem messages (one problem each) since a time.
RECENT_NEWS = """SELECT count(*) FROM alert_outbox WHERE rule_id = ? AND type = 'new' AND subject
  != 'summary'
 AND created_at > ?"""
FOLD = "UPDATE alert_outbox SET data = ? WHERE id = ? AND state = 'pending' AND attempts = 0"


class AlertStore(AlertRules, AlertRefresh):
    """Rules, outbox and deliveries (mixed into Store)."""

    def rules_for_alerts(self, conn) -> list[dict]:
        """Return every rule, paused ones too, inside the caller's transaction.

        A paused rule's messages are written and held until it is resumed."""
        return _rules(conn)

    def too_soon(self, conn, rule: dict, subject: str, now: str) -> bool:
        """Say whether a rule sent about this subject too recently before `now`.

        Less than its min_interval_s before."""
        return _too_soon(conn, rule, subject, now)

    def recent_news(self, conn, rule_id: int, seconds: float, now: str) -> int:
        """Count a rule's new-problem messages in the `seconds` before `now`.

        One problem each."""
        return conn.execute(RECENT_NEWS, (rule_id, _later(now, -seconds))).fetchone()[0]

    def summary_waiting(self, conn, rule_id: int, due_by: str) -> bool:
        """Say whether a rule has a summary not yet tried that is due by `due_by`."""
        return _waiting_summary(conn, rule_id, due_by) is not None

    def waiting_summary(self, conn, rule_id: int) -> tuple[str, dict] | None:
        """Return (message id, data) of a rule's summary not yet tried.

        The one a next summary folds into."""
        waiting = _waiting_summary(conn, rule_id)
        return None if waiting is None else (waiting[0], loads(waiting[1]))

    def fold_summary(self, conn, message_id: str, data: dict) -> bool:
        """Replace a waiting summary's data with the folded one.

        Unless a sender took it meanwhile; say if done."""
        return bool(conn.execute(FOLD, (dumps(data), message_id)).rowcount)

    def add_summary(self, conn, rule: dict, summary: dict, now: str) -> int:
        """Write a rule's summary, due after the rule's interval; return 1.

        The interval runs since its last summary: a summary is held back, never dropped."""
        row = conn.execute(
            "SELECT at FROM alert_sent WHERE rule_id = ? AND subject = 'summary'", (rule["id"],)
        ).fetchone()
        due = max(now, _later(row[0], rule["min_interval_s"])) if row else now
        return _insert(conn, rule, "new", "summary", summary, now, due)

    def add_alert(self, conn, rule: dict, event: str, subject: str, data: dict, now: str) -> int:
        """Write one message to the outbox, due now; return 1.

        And note when the rule sent about its subject."""
        return _insert(conn, rule, event, subject, data, now)

    def claim_due(
        self, now: str, lease_until: str, limit: int = 20, summaries_before: str | None = None
    ) -> list[dict]:
        """Claim due messages for a lease; return them with their rule's secret.

        A summary is due once it is older than `summaries_before`. A claimed message is `sending`:
        no summary folds into it any more."""
        with self.write() as conn:
            rows = conn.execute(
                "SELECT o.id, o.rule_id, o.type, o.created_at, o.attempts, "
                "r.url, r.format, r.secret, r.secret_parts "
                "FROM alert_outbox o JOIN alert_rules r ON r.id = o.rule_id WHERE o.state IN "
                "('pending', 'sending') "
                "AND o.next_attempt_at <= ? AND r.paused_at IS NULL AND (o.subject != 'summary' OR "
                "o.created_at <= ?) "
                "ORDER BY o.next_attempt_at LIMIT ?",
                (now, summaries_before or now, limit),
            ).fetchall()
            claimed = []
            # the data as it is when claimed: a summary may have folded more in since the select
            for row in rows:
                data = conn.execute(CLAIM, (lease_until, row[0], now)).fetchone()
                if data is not None:
                    claimed.append((*row, data[0]))
        return [_claimed(row) for row in claimed]

    def rejected_by_source(self, conn, since: str) -> list[dict]:
        """Count the records rejected since a time, per source, most first.

        [{"source", "count"}]."""
        rows = conn.execute(
            "SELECT nullif(source, ''), count(*) FROM quarantine WHERE received_at >= ? GROUP BY 1",
            (since,),
        ).fetchall()
        return [
            {"source": source, "count": count}
            for source, count in sorted(rows, key=lambda r: (-r[1], r[0] or ""))
        ]


def _rules(conn) -> list[dict]:
    """Every rule, paused ones too.

    A paused rule's messages are written and held until it is resumed."""
    rows = conn.execute(f"SELECT {RULE_COLUMNS} FROM alert_rules ORDER BY id").fetchall()
    return [as_rule(dict(zip(RULE_COLUMNS.split(", "), row))) for row in rows]


def _insert(
    conn, rule: dict, event: str, subject: str, data: dict, now: str, due: str | None = None
) -> int:
    """Write one message to the outbox.

    Due at `due` (now), and note when the rule sent about its subject."""
    conn.execute(
        "INSERT INTO alert_outbox (id, rule_id, type, subject, data, created_at, state, attempts,"
        " next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?)",
        ("msg_" + uuid.uuid4().hex, rule["id"], event, subject, dumps(data), now, due or now),
    )
    conn.execute(
        "INSERT INTO alert_sent (rule_id, subject, at) VALUES (?, ?, ?) "
        "ON CONFLICT(rule_id, subject) DO UPDATE SET at = excluded.at",
        (rule["id"], subject, due or now),
    )
    return 1


def _waiting_summary(conn, rule_id: int, due_by: str = ANY_TIME):
    return conn.execute(WAITING, (rule_id, due_by)).fetchone()


def _too_soon(conn, rule: dict, subject: str, now: str) -> bool:
    row = conn.execute(
        "SELECT at FROM alert_sent WHERE rule_id = ? AND subject = ?", (rule["id"], subject)
    ).fetchone()
    return row is not None and seconds_between(row[0], now) < rule["min_interval_s"]


def _parse(text: str) -> datetime:
    # the store's own format (utc_now)
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")


def _later(moment: str, seconds: float) -> str:
    return (_parse(moment) + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


# a claimed message's columns: its own, then its rule's
CLAIMED = (
    *("id", "rule_id", "type", "created_at", "attempts"),
    *("url", "format", "secret", "secret_parts", "data"),
)


def _claimed(row: tuple) -> dict:
    """A claimed message with its rule's URL, format and secrets.

    As the sender sends it."""
    message = dict(zip(CLAIMED, row))
    message["secret_parts"] = loads(message["secret_parts"]) or []
    return {**message, "data": loads(message["data"])}
