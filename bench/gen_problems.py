"""Add problems to a database made by gendb.py.

10,000 problems over its broken calls, one of them huge.

Every trace gendb marks with an error (one in seven) becomes a call of one of PROBLEMS problems,
spread over releases and sources; every trace with a warning (one in eleven) is a call of the first
problem, so one problem page has a tenth of the store behind it (the worst case for a problem page).
"""

import sqlite3
import time

import orjson

PROBLEMS = 10_000
RELEASES = ("1.3.9", "1.4.0", "1.4.1", "1.4.2")
SOURCES = ("app_intent", "foundation_models", "mcp", "http")
CHUNK = 50_000


def _problem_rows(count: int, now: str) -> list[tuple]:
    return [
        (
            n,
            f"v1:bench{n:08d}",
            1,
            f"tool{n % 300}",
            "type_changed",
            "error",
            "arguments>request",
            "arguments",
            f"/field{n % 50}",
            "request",
            f"/field{n % 50}",
            "integer>string",
            None,
            "open" if n % 5 else "resolved",
            now,
        )
        for n in range(1, count + 1)
    ]


def _calls(traces: int, problems: int):
    """Yield (problem_id, trace_id, ts, source, release) of every broken call."""
    for i in range(traces):
        if i % 7 and i % 11:
            continue
        # the stored form (webapp/common/times.py)
        ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(1_790_000_000 + i)) + ".000000Z"
        pid = 1 if i % 7 else 2 + (i // 7) % (problems - 1)
        yield pid, f"{i:032x}", ts, SOURCES[i % 4], RELEASES[(i * 4) // traces]


def add_problems(path, traces: int, problems: int = PROBLEMS) -> float | None:
    """Fill the problem tables of a generated database once.

    Return the seconds it took (None: done before)."""
    conn = sqlite3.connect(path, isolation_level=None)
    if conn.execute("SELECT count(*) FROM problems").fetchone()[0]:
        conn.close()
        return None
    began = time.perf_counter()
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO problems (id, fingerprint, fp_version, tool, kind, severity, stages, "
        "left_snapshot, "
        "left_path, right_snapshot, right_path, transform, keyword, state, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        _problem_rows(problems, "2026-01-01T00:00:00.000000Z"),
    )
    rows = [
        (
            pid,
            trace_id,
            "call_01",
            ts,
            source,
            release,
            "d1g3st",
            "error",
            1,
            orjson.dumps({'[5,"5"]': 1}).decode(),
        )
        for pid, trace_id, ts, source, release in _calls(traces, problems)
    ]
    for start in range(0, len(rows), CHUNK):
        conn.executemany(
            "INSERT INTO problem_calls (problem_id, trace_id, call_id, ts, source, release, "
            "digest, "
            "severity, occurrences, pairs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows[start : start + CHUNK],
        )
    conn.execute(
        "INSERT INTO problem_hours SELECT problem_id, substr(ts, 1, 13), sum(occurrences) FROM "
        "problem_calls "
        "GROUP BY 1, 2"
    )
    for dim in ("source", "release", "digest"):
        conn.execute(
            f"INSERT INTO problem_splits SELECT problem_id, '{dim}', {dim}, sum(occurrences), "
            "count(*) "
            "FROM problem_calls GROUP BY 1, 3"
        )
    conn.execute(
        "INSERT INTO problem_pairs SELECT problem_id, '[5,\"5\"]', count(*) FROM problem_calls "
        "GROUP BY 1"
    )
    conn.execute(
        "UPDATE problems SET occurrences = s.n, calls = s.n, traces = s.n, exercised = s.n * 3, "
        "first_seen = s.first, last_seen = s.last FROM (SELECT problem_id, count(*) AS n, min(ts) "
        "AS first, "
        "max(ts) AS last FROM problem_calls GROUP BY 1) AS s WHERE s.problem_id = problems.id"
    )
    conn.execute(
        "INSERT INTO problem_states (problem_id, at, state, by, detail) SELECT id, first_seen, "
        "'open', "
        "'tracediff', 'first seen' FROM problems WHERE first_seen IS NOT NULL"
    )
    conn.execute("COMMIT")
    conn.execute("ANALYZE")
    conn.close()
    return time.perf_counter() - began
