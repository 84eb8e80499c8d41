"""What a problem's one-line alert counts.

Read in the transaction of the change that sends it.

New: all its calls, over the span they were seen in, since the release of the first. Regressed: the
calls since it was resolved. Escalating: the calls of the last hour (by their own times) against its
hourly mean over the seven days before (or since it was first seen, when younger). Kept under the
problem's `_line` key in the outbox: the sender takes it out, so `data` stays the problem as the API
lists it.
"""

from datetime import UTC, datetime, timedelta

from .codec import loads

WINDOW = "SELECT count(*), min(ts), max(ts) FROM problem_calls WHERE problem_id = ? AND ts > ?"
BETWEEN = "SELECT count(*) FROM problem_calls WHERE problem_id = ? AND ts > ? AND ts <= ?"
FIRST_RELEASE = """SELECT release FROM problem_calls WHERE problem_id = ? AND ts > ? AND release IS
  NOT NULL
 AND release != '' ORDER BY ts LIMIT 1"""
TOP_PAIR = "SELECT pair FROM problem_pairs WHERE problem_id = ? ORDER BY count DESC, pair LIMIT 1"
BASELINE_HOURS = 7 * 24


def line_facts(conn, number: int, event: str, problem: dict, now: datetime | None = None) -> dict:
    """Return the facts of the calls an alert about `event` speaks of.

    {calls, first, last, since, pair}, and when escalating mean_per_hour and days too. `pair` is the
    problem's most common pair of values (None when it has none), which the wording
    (webapp/problems/words.py) shows for a kind whose values say what broke."""
    now = now or datetime.now(UTC)
    pair = _top_pair(conn, number)
    if event == "escalating":
        return {**_hour_against_baseline(conn, number, problem, now), "pair": pair}
    after = (problem.get("resolved_at") or "") if event == "regressed" else ""
    calls, first, last = conn.execute(WINDOW, (number, after)).fetchone()
    return {
        "calls": calls,
        "first": first,
        "last": last,
        "since": _first_release(conn, number, after),
        "pair": pair,
    }


def _hour_against_baseline(conn, number: int, problem: dict, now: datetime) -> dict:
    hour_ago = now - timedelta(hours=1)
    calls, first, last = conn.execute(WINDOW, (number, _text(hour_ago))).fetchone()
    try:
        seen = datetime.fromisoformat(problem["first_seen"].replace("Z", "+00:00"))
        hours = min(BASELINE_HOURS, max(1, int((hour_ago - seen).total_seconds() // 3600)))
    except (AttributeError, KeyError, ValueError):
        hours = BASELINE_HOURS
    before = conn.execute(
        BETWEEN, (number, _text(hour_ago - timedelta(hours=hours)), _text(hour_ago))
    ).fetchone()[0]
    return {
        "calls": calls,
        "first": first,
        "last": last,
        "since": _first_release(conn, number, _text(hour_ago)),
        "mean_per_hour": before / hours,
        "days": max(1, round(hours / 24)),
    }


def _top_pair(conn, number: int) -> dict | None:
    row = conn.execute(TOP_PAIR, (number,)).fetchone()
    if row is None:
        return None
    # a third item names the sides that held no value
    left, right = loads(row[0])[:2]
    return {"left": left, "right": right}


def _first_release(conn, number: int, after: str) -> str | None:
    row = conn.execute(FIRST_RELEASE, (number, after)).fetchone()
    return row[0] if row else None


def _text(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
