"""What a batch's problem changes tell, decided inside the analyser's transaction: whether an hour's burst of live
calls escalates a problem (webapp/problems/escalation.py), and which alerts the changes call for (the policy of
webapp/alerts/storms.py). The store reads the facts and writes what is decided."""

from ..alerts import storms
from ..problems.escalation import baseline_range, escalation


def tell(store, conn, grouped) -> None:
    """Escalate the problems the batch's bursts took over their line, then write the alerts the changes call for."""
    events = list(dict.fromkeys(grouped.events + escalations(store, conn, grouped)))
    if events:
        planned = storms.plan([(event, store.problem_alert_data(conn, pid, event)) for event, pid in events])
        store.write_problem_alerts(conn, planned, storms)


def escalations(store, conn, grouped) -> list[tuple[str, int]]:
    """Return ("escalating", id) for each watched problem an hour of the batch's live calls took over its line
    (once per problem and batch), noted in its history."""
    escalating: dict[int, tuple[str, str]] = {}
    for pid, hour, added, state, first_seen in store.burst_candidates(conn, grouped.fresh, grouped.opened):
        if pid in escalating:
            continue
        history = store.problem_hours_between(conn, pid, baseline_range(hour)[0], hour)
        after = history.pop(hour, 0)
        why = escalation(history, hour, after - added, after, first_seen)
        if why:
            escalating[pid] = (state, why)
    return store.note_escalations(conn, escalating, grouped.now)
