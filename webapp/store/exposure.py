"""A problem's exposure.

The calls of its tool, from its first seen on, that had its argument path (or broke it).

Each call keeps the ids of the problems it counts toward (calls.problem_paths) and a problem keeps
the count (problems.exercised), so a re-analysed call changes the count by what changed. Whether a
call counts depends only on the data (its own time against the problem's first seen, its arguments),
never on the order calls were analysed in: when a batch moves a problem's first seen (a problem
opens, or a late call shows it earlier), the analysed calls between the old and the new first seen
are counted again. A call still waiting for its analysis is left to it: its analysis compares with
what it counted before. Whether arguments have a path is the rule `exercises(arguments, path)` the
pipeline hands in (webapp/pipeline/rules.py).
"""

from .codec import dumps, loads

TOOL_PROBLEMS = """SELECT id, left_snapshot, left_path, resolve IS NOT NULL, first_seen FROM
  problems
 WHERE tool IS NOT DISTINCT FROM ? AND merged_into IS NULL"""
PROBLEM_ROW = (
    "SELECT tool, id, left_snapshot, left_path, resolve IS NOT NULL, first_seen FROM problems "
    "WHERE id = ?"
)
FIRST_SEEN = (
    "SELECT id, first_seen FROM problems WHERE tool IS NOT DISTINCT FROM ? AND merged_into IS NULL"
)
EXERCISED = "UPDATE problems SET exercised = exercised + ? WHERE id = ?"
SET_PATHS = "UPDATE calls SET problem_paths = ? WHERE trace_id = ? AND call_id = ?"
# analysed calls of a tool between two times, with their arguments (the calls_by_tool_time index)
BETWEEN = """SELECT c.trace_id, c.call_id, c.problem_paths, e.payload FROM calls c
 LEFT JOIN events e ON e.seq = c.arguments_seq
 WHERE {tool} AND c.last_ts >= ? {upper} AND c.analyzed_version = c.version"""


def first_seen_of(conn, tools) -> dict:
    """Return {problem id: first seen} of the tools' problems.

    Read before a batch's breaks go in."""
    return {
        pid: first for tool in tools for pid, first in conn.execute(FIRST_SEEN, (tool,)).fetchall()
    }


def first_seen_by_id(conn, ids) -> dict:
    """Return {problem id: first seen} of some problems."""
    return {
        pid: conn.execute("SELECT first_seen FROM problems WHERE id = ?", (pid,)).fetchone()[0]
        for pid in ids
    }


def argument_path(row) -> str:
    """Return the path a call must have to count toward a problem.

    "" for one without an argument path."""
    return row[2] if row[1] == "arguments" else ""


def counts_toward(row, call_ts: str, arguments, broke: bool, has_path: dict, exercises) -> bool:
    """Say whether a call counts toward a problem (a TOOL_PROBLEMS row).

    It broke it, or it came at or after the problem's first seen with the problem's argument path
    (`has_path` keeps what the call's paths said)."""
    if broke:
        return True
    if row[4] is None or call_ts < row[4] or arguments is None:
        return False
    path = argument_path(row)
    if path not in has_path:
        has_path[path] = exercises(arguments, path)
    return has_path[path]


def exercise(
    call: dict, arguments, rows, broke: set[int], before: list, exposure: dict, exercises
) -> tuple[set[int], str | None]:
    """Count a call toward the exposure of its tool's problems.

    Of its TOOL_PROBLEMS rows, by what changed since it counted `before` (into `exposure`); return
    the problems with a resolution it counts toward, and the call's new problem_paths when they
    changed (its caller writes them with the call's other grouping facts)."""
    # several problems of a tool share an argument path
    had, watched, has_path = set(), set(), {}
    for row in rows:
        if counts_toward(row, call["ts"], arguments, row[0] in broke, has_path, exercises):
            had.add(row[0])
            # it has a resolution
            if row[3]:
                watched.add(row[0])
    before = set(before)
    for pid in had ^ before:
        exposure[pid] = exposure.get(pid, 0) + (1 if pid in had else -1)
    return watched, (dumps(sorted(had)) if had != before else None)


def refit(conn, tool, rows, before: dict, skip: set, exposure: dict, exercises=None) -> None:
    """Count calls again for the problems whose first seen moved.

    The analysed calls (not in `skip`) between each problem's first seen before the batch (`before`)
    and after it; changes go into `exposure`. Only a first seen moved earlier reads the calls' paths
    (`exercises`): one moved later leaves calls that count no more, which is all a deletion does
    while first seen is the earliest call's time."""
    for row in rows:
        pid, new = row[0], row[4]
        old = before.get(pid)
        if new is None or old == new:
            continue
        low, high = (new, old) if old is None or new < old else (old, new)
        sql = BETWEEN.format(
            tool="c.tool = ?" if tool is not None else "c.tool IS NULL",
            upper="AND c.last_ts < ?" if high is not None else "",
        )
        params = [p for p in (tool, low, high) if p is not None]
        for trace_id, call_id, paths, payload in conn.execute(sql, params).fetchall():
            if (trace_id, call_id) in skip:
                continue
            counted = set(loads(paths) or [])
            # moved earlier: the call broke nothing of it (no break lies before first seen), so its
            # path decides; moved later: it counts no more
            wanted = (
                low == new and payload is not None and exercises(loads(payload), argument_path(row))
            )
            if wanted != (pid in counted):
                exposure[pid] = exposure.get(pid, 0) + (1 if wanted else -1)
                counted ^= {pid}
                conn.execute(SET_PATHS, (dumps(sorted(counted)), trace_id, call_id))


def flush(conn, exposure: dict) -> None:
    """Write a batch's changes of exposure.

    One UPDATE per problem and batch (nothing in it reads `exercised`)."""
    conn.executemany(EXERCISED, [(delta, pid) for pid, delta in exposure.items() if delta])


def forget(conn, calls, before: dict, exercises=None) -> None:
    """Take deleted calls out of the exposure they counted toward.

    Deleted by retention; then count again the calls left between a problem's first seen `before`
    the deletion and after it, as a re-analysis would."""
    exposure: dict[int, int] = {}
    for key in calls:
        row = conn.execute(
            "SELECT problem_paths FROM calls WHERE trace_id = ? AND call_id = ?", key
        ).fetchone()
        for pid in (loads(row[0]) or []) if row else []:
            exposure[pid] = exposure.get(pid, 0) - 1
    for pid, old in before.items():
        tool, *row = conn.execute(PROBLEM_ROW, (pid,)).fetchone()
        refit(conn, tool, [row], {pid: old}, set(calls), exposure, exercises)
    flush(conn, exposure)


def merged(conn, into: int, before: str | None, moved, exercises) -> None:
    """Count again toward a problem that took another's calls.

    The calls `moved`, which now break it, from its first seen `before` the merge: a re-analysis
    would count them, and the calls since the earlier first seen."""
    exposure: dict[int, int] = {}
    tool, *row = conn.execute(PROBLEM_ROW, (into,)).fetchone()
    refit(conn, tool, [row], {into: before}, set(moved), exposure, exercises)
    for key in moved:
        found = conn.execute(
            "SELECT problem_paths FROM calls WHERE trace_id = ? AND call_id = ?", key
        ).fetchone()
        counted = set(loads(found[0]) or []) if found else None
        if counted is not None and into not in counted:
            exposure[into] = exposure.get(into, 0) + 1
            conn.execute(SET_PATHS, (dumps(sorted(counted | {into})), *key))
    flush(conn, exposure)
