"""A batch's fresh (live) calls, the store side, in its transaction.

A problem's first live call tells the team of it ("new", once); an hour's burst of them against the
problem's own hours escalates it.

A live call is one analysed for the first time whose own time is within the last hour (not a
backfill, not a re-analysis). A problem opened by older calls only (a backfill of old logs) opens
quietly, `announced_at` NULL; its first live call, in whatever batch the analyser takes it, sends
its "new" alert, so every store and batch size tells the same. A person's change to a problem
(webapp/store/problem_changes.py) counts as told. What is live is the rule the pipeline hands in
(webapp/pipeline/rules.py: `is_recent`); whether an hour's burst escalates, the pipeline decides
from the facts read here (webapp/pipeline/telling.py).
"""

from .problem_changes import record_state

HOURS = (
    "SELECT hour, occurrences FROM problem_hours WHERE problem_id = ? AND hour >= ? AND hour <= ?"
)
FACTS = "SELECT state, first_seen FROM problems WHERE id = ?"
# resolved problems regress and archived ones have their own rule
WATCHED = ("open", "regressed")
ANNOUNCE = "UPDATE problems SET announced_at = ? WHERE id = ? AND announced_at IS NULL"


def note_fresh(
    fresh: dict, pid: int, call: dict, occurrences: int, seen_before: bool, now: str, rules
) -> None:
    """Count a call's occurrences toward its hour's burst.

    Unless it is a backfill or a re-analysis."""
    if not seen_before and rules.is_recent(call["ts"], now):
        # the hour problem_hours counts it under
        key = (pid, call["ts"][:13])
        fresh[key] = fresh.get(key, 0) + occurrences


def announce(conn, events: list[tuple[str, int]], fresh: dict, now: str) -> list[tuple[str, int]]:
    """Return a batch's events without the quiet openings (no live call).

    With ("new", id) added for each quiet problem that got its first live call; note who is told. A
    regression or a re-analysis's summary tells too."""
    live = {pid for pid, _ in fresh}
    said = {pid for event, pid in events if event in ("regressed", "reanalysed")}
    told = [pid for pid in sorted(live | said) if conn.execute(ANNOUNCE, (now, pid)).rowcount]
    kept = [(event, pid) for event, pid in events if event != "new" or pid in live]
    return kept + [("new", pid) for pid in told if pid not in said and ("new", pid) not in kept]


class BurstFacts:
    """What an hour's burst is decided from.

    Read in the analyser's transaction, and the escalations decided from it written there
    (webapp/pipeline/telling.py decides; mixed into Store through ProblemWrites)."""

    def burst_candidates(self, conn, fresh: dict, skip: set) -> list[tuple]:
        """Return each watched problem the batch's fresh calls counted in an hour.

        As (problem id, hour, occurrences the batch added, state, first seen), by problem and hour;
        watched: open or regressed. `skip`: ids said already."""
        found = []
        for (pid, hour), added in sorted(fresh.items()):
            if pid not in skip:
                state, first_seen = conn.execute(FACTS, (pid,)).fetchone()
                if state in WATCHED:
                    found.append((pid, hour, added, state, first_seen))
        return found

    def problem_hours_between(self, conn, pid: int, first: str, last: str) -> dict[str, int]:
        """Return {hour: occurrences} of a problem from one hour key to another.

        Both included."""
        return dict(conn.execute(HOURS, (pid, first, last)).fetchall())

    def note_escalations(self, conn, escalating: dict, now: str) -> list[tuple[str, int]]:
        """Write each escalation decided in its problem's history; return the events.

        Escalations as {problem id: (state, why)}."""
        for pid, (state, why) in escalating.items():
            record_state(conn, pid, now, state, "tracediff", why)
        return [("escalating", pid) for pid in escalating]
