"""What a batch's changes tell, decided inside the transaction that writes them.

Whether an hour's burst of live calls escalates a problem (webapp/problems/escalation.py), and which
messages each alert rule gets (the policy of webapp/alerts/storms.py: one by one, or folded into a
summary). The store reads the facts and writes what is decided."""

from .. import alerts
from ..alerts import storms
from ..problems.escalation import baseline_range, escalation
from ..store.codec import utc_now


def tell(store, conn, grouped) -> None:
    """Escalate problems the batch's bursts took over their line; write alerts.

    The alerts the changes call for."""
    events = list(dict.fromkeys(grouped.events + escalations(store, conn, grouped)))
    if events:
        planned = storms.plan(
            [(event, store.problem_alert_data(conn, pid, event)) for event, pid in events]
        )
        now = utc_now()
        for rule in store.rules_for_alerts(conn):
            _rule_alerts(store, conn, rule, planned, now)


def escalations(store, conn, grouped) -> list[tuple[str, int]]:
    """Return ("escalating", id) for each problem a burst took over its line.

    Each watched problem an hour of the batch's live calls took over its line (once per problem and
    batch), noted in its history."""
    escalating: dict[int, tuple[str, str]] = {}
    for pid, hour, added, state, first_seen in store.burst_candidates(
        conn, grouped.fresh, grouped.opened
    ):
        if pid in escalating:
            continue
        history = store.problem_hours_between(conn, pid, baseline_range(hour)[0], hour)
        after = history.pop(hour, 0)
        why = escalation(history, hour, after - added, after, first_seen)
        if why:
            escalating[pid] = (state, why)
    return store.note_escalations(conn, escalating, grouped.now)


def tell_each_rule(store, conn, event: str, subject: str, data: dict) -> int:
    """Write a message for each rule that wants this event.

    alerts/rules.py decides, inside the caller's transaction; a rule that sent about the same
    subject less than its min_interval_s ago stays quiet, so a burst sends one."""
    now = utc_now()
    return sum(
        store.add_alert(conn, rule, event, subject, data, now)
        for rule in store.rules_for_alerts(conn)
        if alerts.matches(rule, event, data) and not store.too_soon(conn, rule, subject, now)
    )


def _rule_alerts(store, conn, rule: dict, planned: list, now: str) -> int:
    """Write one rule's messages of a batch.

    A summary joins the rule's waiting one; so does a new problem while that summary waits only for
    its hold, or once the rule got SUMMARY_AT new problems one by one in the last SUMMARY_WINDOW_S
    (a burst that the analyser took in several batches)."""
    written, recent, said = 0, None, set()
    for event, subject, data in planned:
        # one message per problem and batch, whatever the interval
        if subject in said and subject != storms.SUBJECT:
            continue
        summary = data if subject == storms.SUBJECT else None
        if summary is None and event == "new" and storms.matches(rule, event, data):
            if recent is None:
                recent = store.recent_news(conn, rule["id"], storms.SUMMARY_WINDOW_S, now)
            if recent >= storms.SUMMARY_AT or store.summary_waiting(conn, rule["id"], now):
                summary = {"problems": [data], "reanalysis": False}
            else:
                recent += 1
        if summary is not None:
            part = storms.for_rule(rule, summary)
            written += _add_to_summary(store, conn, rule, part, now) if part else 0
        elif storms.matches(rule, event, data) and not store.too_soon(conn, rule, subject, now):
            written += store.add_alert(conn, rule, event, subject, data, now)
            said.add(subject)
    return written


def _add_to_summary(store, conn, rule: dict, summary: dict, now: str) -> int:
    """Fold a rule's summary into its waiting one, or write it.

    Return 1 when a message was written."""
    waiting = store.waiting_summary(conn, rule["id"])
    if waiting is not None and store.fold_summary(
        conn, waiting[0], storms.fold(waiting[1], summary)
    ):
        return 0
    return store.add_summary(conn, rule, summary, now)
