"""Escalating problems, the store side: a batch's fresh calls against each problem's own hours, in its transaction."""
from ..problems.escalation import baseline_range, escalation, hour_of, is_recent
from .problem_changes import record_state

HOURS = "SELECT hour, occurrences FROM problem_hours WHERE problem_id = ? AND hour >= ? AND hour <= ?"
FACTS = "SELECT state, first_seen FROM problems WHERE id = ?"
WATCHED = ("open", "regressed")  # resolved problems regress and archived ones have their own rule


def note_fresh(fresh: dict, pid: int, call: dict, occurrences: int, seen_before: bool, now: str) -> None:
    """Count a call's occurrences toward its hour's burst, unless it is a backfill or a re-analysis."""
    if not seen_before and is_recent(call["ts"], now):
        key = (pid, hour_of(call["ts"]))
        fresh[key] = fresh.get(key, 0) + occurrences


def escalations(conn, fresh: dict, now: str, skip: set) -> list[tuple[str, int]]:
    """Return ("escalating", id) for each open problem the batch's fresh calls took over its line; note it."""
    events: list[tuple[str, int]] = []
    for (pid, hour), added in sorted(fresh.items()):
        if pid in skip or ("escalating", pid) in events:
            continue
        state, first_seen = conn.execute(FACTS, (pid,)).fetchone()
        if state not in WATCHED:
            continue
        history = dict(conn.execute(HOURS, (pid, baseline_range(hour)[0], hour)).fetchall())
        after = history.pop(hour, 0)
        why = escalation(history, hour, after - added, after, first_seen)
        if why:
            record_state(conn, pid, now, state, "tracediff", why)
            events.append(("escalating", pid))
    return events
