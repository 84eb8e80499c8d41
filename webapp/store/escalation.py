"""A batch's fresh (live) calls, the store side, in its transaction: a problem's first live call tells the team of
it ("new", once); an hour's burst of them against the problem's own hours escalates it.

A live call is one analysed for the first time whose own time is within the last hour (not a backfill, not a
re-analysis). A problem opened by older calls only (a backfill of old logs) opens quietly, `announced_at` NULL;
its first live call, in whatever batch the analyser takes it, sends its "new" alert, so every store and batch
size tells the same. A person's change to a problem (webapp/store/problem_changes.py) counts as told.
What is live, an hour's baseline and whether a burst escalates are the rules the pipeline hands in
(webapp/pipeline/rules.py: `is_recent`, `baseline_range`, `escalation`).
"""

from .problem_changes import record_state

HOURS = "SELECT hour, occurrences FROM problem_hours WHERE problem_id = ? AND hour >= ? AND hour <= ?"
FACTS = "SELECT state, first_seen FROM problems WHERE id = ?"
WATCHED = ("open", "regressed")  # resolved problems regress and archived ones have their own rule
ANNOUNCE = "UPDATE problems SET announced_at = ? WHERE id = ? AND announced_at IS NULL"


def note_fresh(fresh: dict, pid: int, call: dict, occurrences: int, seen_before: bool, now: str, rules) -> None:
    """Count a call's occurrences toward its hour's burst, unless it is a backfill or a re-analysis."""
    if not seen_before and rules.is_recent(call["ts"], now):
        key = (pid, call["ts"][:13])  # the hour problem_hours counts it under
        fresh[key] = fresh.get(key, 0) + occurrences


def announce(conn, events: list[tuple[str, int]], fresh: dict, now: str) -> list[tuple[str, int]]:
    """Return a batch's events without the quiet openings (no live call), with ("new", id) added for each quiet
    problem that got its first live call; note who is told. A regression or a re-analysis's summary tells too."""
    live = {pid for pid, _ in fresh}
    said = {pid for event, pid in events if event in ("regressed", "reanalysed")}
    told = [pid for pid in sorted(live | said) if conn.execute(ANNOUNCE, (now, pid)).rowcount]
    kept = [(event, pid) for event, pid in events if event != "new" or pid in live]
    return kept + [("new", pid) for pid in told if pid not in said and ("new", pid) not in kept]


def escalations(conn, fresh: dict, now: str, skip: set, rules) -> list[tuple[str, int]]:
    """Return ("escalating", id) for each open problem the batch's fresh calls took over its line; note it."""
    events: list[tuple[str, int]] = []
    for (pid, hour), added in sorted(fresh.items()):
        if pid in skip or ("escalating", pid) in events:
            continue
        state, first_seen = conn.execute(FACTS, (pid,)).fetchone()
        if state not in WATCHED:
            continue
        history = dict(conn.execute(HOURS, (pid, rules.baseline_range(hour)[0], hour)).fetchall())
        after = history.pop(hour, 0)
        why = rules.escalation(history, hour, after - added, after, first_seen)
        if why:
            record_state(conn, pid, now, state, "tracediff", why)
            events.append(("escalating", pid))
    return events
