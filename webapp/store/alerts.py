"""Alert rules, the outbox of messages written in the transaction of what caused them, and the delivery log.

A message id is made once, when the message enters the outbox, and sent with every attempt, so a
receiver drops duplicates; a sender claims a message for a lease before sending, so two workers
do not send it at once.
"""

import uuid
from datetime import datetime, timedelta

from .alert_refresh import AlertRefresh
from .alert_rules import RULE_COLUMNS, AlertRules, as_rule, seconds_between
from .codec import dumps, loads, utc_now

LEASE_S = 60
# Claim one message unless another sender did meanwhile (PostgreSQL re-checks the WHERE after a row lock).
CLAIM = """UPDATE alert_outbox SET state = 'sending', next_attempt_at = ? WHERE id = ?
 AND state IN ('pending', 'sending') AND next_attempt_at <= ? RETURNING data"""
# A rule's summary not yet tried (and due by then): the next summary of the rule folds into it.
WAITING = """SELECT id, data FROM alert_outbox WHERE rule_id = ? AND subject = 'summary' AND state = 'pending'
 AND attempts = 0 AND next_attempt_at <= ? ORDER BY created_at DESC LIMIT 1"""
ANY_TIME = "9999"  # later than every time the store writes
# A rule's new-problem messages (one problem each) since a time.
RECENT_NEWS = """SELECT count(*) FROM alert_outbox WHERE rule_id = ? AND type = 'new' AND subject != 'summary'
 AND created_at > ?"""
FOLD = "UPDATE alert_outbox SET data = ? WHERE id = ? AND state = 'pending' AND attempts = 0"


class AlertStore(AlertRules, AlertRefresh):
    """Rules, outbox and deliveries (mixed into Store)."""

    def enqueue_alerts(self, conn, event: str, subject: str, data: dict, wanted) -> int:
        """Write a message for each rule that wants this event, inside the caller's transaction.

        `wanted(rule, event, data)` tells whether a rule matches; a rule that sent about the same subject
        less than its min_interval_s ago stays quiet, so a burst sends one message."""
        now = utc_now()
        return sum(
            _insert(conn, rule, event, subject, data, now)
            for rule in _rules(conn)
            if wanted(rule, event, data) and not _too_soon(conn, rule, subject, now)
        )

    def write_problem_alerts(self, conn, planned: list[tuple[str, str, dict]], policy) -> int:
        """Write the messages a batch's problem changes call for, inside its transaction; return how many are new.

        `policy` (webapp/alerts/storms.py) says which rule wants what: `matches` a problem, `for_rule` its
        part of a summary, `fold` one summary into another."""
        now = utc_now()
        return sum(_rule_alerts(conn, rule, planned, policy, now) for rule in _rules(conn))

    def claim_due(self, now: str, lease_until: str, limit: int = 20, summaries_before: str | None = None) -> list[dict]:
        """Claim due messages for a lease (a summary once it is older than `summaries_before`); return them
        with their rule's secret. A claimed message is `sending`: no summary folds into it any more."""
        with self.write() as conn:
            rows = conn.execute(
                "SELECT o.id, o.rule_id, o.type, o.created_at, o.attempts, r.url, r.format, r.secret "
                "FROM alert_outbox o JOIN alert_rules r ON r.id = o.rule_id WHERE o.state IN ('pending', 'sending') "
                "AND o.next_attempt_at <= ? AND r.paused_at IS NULL AND (o.subject != 'summary' OR o.created_at <= ?) "
                "ORDER BY o.next_attempt_at LIMIT ?",
                (now, summaries_before or now, limit),
            ).fetchall()
            claimed = []
            for row in rows:  # the data as it is when claimed: a summary may have folded more in since the select
                data = conn.execute(CLAIM, (lease_until, row[0], now)).fetchone()
                if data is not None:
                    claimed.append((*row, data[0]))
        keys = ("id", "rule_id", "type", "created_at", "attempts", "url", "format", "secret", "data")
        return [{**dict(zip(keys, row)), "data": loads(row[8])} for row in claimed]

    def rejected_by_source(self, conn, since: str) -> list[dict]:
        """Count the records rejected since a time, per source, most first: [{"source", "count"}]."""
        rows = conn.execute(
            "SELECT nullif(source, ''), count(*) FROM quarantine WHERE received_at >= ? GROUP BY 1", (since,)
        ).fetchall()
        return [{"source": source, "count": count} for source, count in sorted(rows, key=lambda r: (-r[1], r[0] or ""))]


def _rules(conn) -> list[dict]:
    """Every rule, paused ones too: a paused rule's messages are written and held until it is resumed."""
    rows = conn.execute(f"SELECT {RULE_COLUMNS} FROM alert_rules ORDER BY id").fetchall()
    return [as_rule(dict(zip(RULE_COLUMNS.split(", "), row))) for row in rows]


def _rule_alerts(conn, rule: dict, planned: list, policy, now: str) -> int:
    """Write one rule's messages of a batch. A summary joins the rule's waiting one; so does a new problem
    while that summary waits only for its hold, or once the rule got SUMMARY_AT new problems one by one in
    the last SUMMARY_WINDOW_S (a burst that the analyser took in several batches)."""
    written, recent, said = 0, None, set()
    for event, subject, data in planned:
        if subject in said and subject != policy.SUBJECT:  # one message per problem and batch, whatever the interval
            continue
        summary = data if subject == policy.SUBJECT else None
        if summary is None and event == "new" and policy.matches(rule, event, data):
            if recent is None:
                recent = conn.execute(RECENT_NEWS, (rule["id"], _later(now, -policy.SUMMARY_WINDOW_S))).fetchone()[0]
            if recent >= policy.SUMMARY_AT or _waiting_summary(conn, rule["id"], now):
                summary = {"problems": [data], "reanalysis": False}
            else:
                recent += 1
        if summary is not None:
            part = policy.for_rule(rule, summary)
            written += _add_to_summary(conn, rule, part, policy.fold, now) if part else 0
        elif policy.matches(rule, event, data) and not _too_soon(conn, rule, subject, now):
            written += _insert(conn, rule, event, subject, data, now)
            said.add(subject)
    return written


def _insert(conn, rule: dict, event: str, subject: str, data: dict, now: str, due: str | None = None) -> int:
    """Write one message to the outbox, due at `due` (now), and note when the rule sent about its subject."""
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


def _add_to_summary(conn, rule: dict, summary: dict, fold, now: str) -> int:
    """Fold a rule's summary into its waiting one, or write it (after the rule's interval since its last
    summary: a summary is held back, never dropped); return 1 when a message was written."""
    waiting = _waiting_summary(conn, rule["id"])
    if waiting is not None and conn.execute(FOLD, (dumps(fold(loads(waiting[1]), summary)), waiting[0])).rowcount:
        return 0
    row = conn.execute("SELECT at FROM alert_sent WHERE rule_id = ? AND subject = 'summary'", (rule["id"],)).fetchone()
    due = max(now, _later(row[0], rule["min_interval_s"])) if row else now
    return _insert(conn, rule, "new", "summary", summary, now, due)


def _too_soon(conn, rule: dict, subject: str, now: str) -> bool:
    row = conn.execute("SELECT at FROM alert_sent WHERE rule_id = ? AND subject = ?", (rule["id"], subject)).fetchone()
    return row is not None and seconds_between(row[0], now) < rule["min_interval_s"]


def _parse(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")  # the store's own format (utc_now)


def _later(moment: str, seconds: float) -> str:
    return (_parse(moment) + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
