"""Problems, the write side.

Each analysed call replaces its own part in the problems it shows.

A call's part (its row in problem_calls) is taken out of every rollup before the new one goes in,
so re-analysing a call, or every call, leaves the same problems, ids and counts."""

from dataclasses import dataclass

from .codec import dumps, loads
from .escalation import BurstFacts, announce, note_fresh
from .exposure import TOOL_PROBLEMS, exercise, first_seen_by_id, first_seen_of, flush, forget, refit
from .problem_changes import ProblemChanges, record_state, resolve_after_clean_calls
from .regrouping import MARK_GROUPED, seqs_key

__all__ = ["Grouped", "ProblemWrites", "apply_groupings", "forget_calls"]


class ProblemWrites(ProblemChanges, BurstFacts):
    """A person's changes to problems and the facts of a batch's bursts.

    Mixed into Store."""


@dataclass
class Grouped:
    """What a batch's groupings changed.

    For the pipeline to decide what it tells (webapp/pipeline/telling.py)."""

    # (new | regressed | escalating | reanalysed, problem id), in order
    events: list[tuple[str, int]]
    # (problem id, hour) -> occurrences of the batch's live calls
    fresh: dict[tuple[int, str], int]
    # problems the events open already: their burst says nothing more
    opened: set[int]
    now: str


# A batch's keys as a table joined on the primary key: `(trace_id, call_id) IN (VALUES ...)` scans
# the whole table in SQLite. VALUES names its columns column1, column2 in SQLite and PostgreSQL
# alike.
BATCH = (
    "(VALUES {keys}) AS k JOIN {table} ON {table}.trace_id = k.column1 AND {table}.call_id = "
    "k.column2"
)
CALL_FACTS = """SELECT trace_id, call_id, tool, source, release, last_ts, version,
  analyzed_version, problem_paths,
 arguments_seq, request_seq, response_seq, grouped_seqs, result_seq FROM
   """ + BATCH.replace("{table}", "calls")
PROBLEM_BY_FINGERPRINT = "SELECT id, merged_into FROM problems WHERE fingerprint = ?"
INSERT_PROBLEM = """INSERT INTO problems (fingerprint, fp_version, tool, kind, severity, stages,
  left_snapshot,
 left_path, right_snapshot, right_path, transform, keyword, created_at)
 VALUES (:fingerprint, :fp_version, :tool, :kind, :severity, :stages, :left_snapshot, :left_path,
 :right_snapshot, :right_path, :transform, :keyword, :created_at) RETURNING id"""
OLD_PARTS = """SELECT trace_id, call_id, problem_id, ts, source, release, digest, occurrences,
  pairs, severity
 FROM """ + BATCH.replace("{table}", "problem_calls")
# (trace_id, call_id) pairs per read: within SQLite's limit of bound parameters
BATCH_KEYS = 400
TRACE_HAS_OTHER = (
    "SELECT EXISTS (SELECT 1 FROM problem_calls WHERE problem_id = ? AND trace_id = ?)"
)
ADD_PART = """INSERT INTO problem_calls (problem_id, trace_id, call_id, ts, source, release,
  digest, severity,
 occurrences, pairs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"""
BUMP_COUNTS = (
    "UPDATE problems SET occurrences = occurrences + ?, calls = calls + ?, traces = traces + ? "
    "WHERE id = ?"
)
# Adding a part can only widen first/last seen and raise the severity: no look at the other calls.
# Run before the part's row goes in: the trace counts when no other call of it has the problem.
PUT_COUNTS = """UPDATE problems SET occurrences = occurrences + ?1, calls = calls + 1,
 traces = traces + CASE WHEN EXISTS (SELECT 1 FROM problem_calls WHERE problem_id = ?5 AND trace_id
   = ?2) THEN 0 ELSE
  1 END,
 first_seen = CASE WHEN first_seen <= ?3 THEN first_seen ELSE ?3 END,
 last_seen = CASE WHEN last_seen >= ?3 THEN last_seen ELSE ?3 END,
 severity = CASE WHEN ?4 = 'error' THEN 'error' ELSE severity END WHERE id = ?5
 RETURNING state, resolve IS NOT NULL"""
BUMP_HOUR = """INSERT INTO problem_hours (problem_id, hour, occurrences) VALUES (?, ?, ?)
 ON CONFLICT(problem_id, hour) DO UPDATE SET occurrences = problem_hours.occurrences +
   excluded.occurrences"""
BUMP_SPLIT = """INSERT INTO problem_splits (problem_id, dim, value, occurrences, calls) VALUES (?,
  ?, ?, ?, ?)
 ON CONFLICT(problem_id, dim, value) DO UPDATE SET occurrences = problem_splits.occurrences +
   excluded.occurrences,
 calls = problem_splits.calls + excluded.calls"""
BUMP_PAIR = """INSERT INTO problem_pairs (problem_id, pair, count) VALUES (?, ?, ?)
 ON CONFLICT(problem_id, pair) DO UPDATE SET count = problem_pairs.count + excluded.count"""
SEEN = """UPDATE problems
 SET first_seen = coalesce((SELECT min(ts) FROM problem_calls WHERE problem_id = ?1), first_seen),
 last_seen = coalesce((SELECT max(ts) FROM problem_calls WHERE problem_id = ?1), last_seen),
 severity = CASE WHEN ?2 = 'error' THEN 'error' ELSE severity END WHERE id = ?1"""
CHECK = """INSERT INTO problem_checks (problem_id, trace_id, call_id, ts, broke) VALUES (?, ?, ?,
  ?, ?)
 ON CONFLICT (problem_id, trace_id, call_id) DO UPDATE SET ts = excluded.ts, broke =
   excluded.broke"""
PROBLEM_STATE = "SELECT id, state, resolve, resolved_at, archive FROM problems WHERE id = ?"


def apply_groupings(conn, groupings: dict, now: str, rules) -> Grouped:
    """Replace each stored call's part in the problems.

    Skip calls whose analysis was not stored.

    Every call's breaks go in before any call counts toward exposure (store/exposure.py), so a clean
    call analysed in the same batch as a problem's first break counts whatever the order of the
    batch, and calls analysed before a problem's first seen moved count again. Return what changed
    (Grouped): the (event, problem id) changes alerts watch, `new` (a problem's first live call),
    `regressed`, `escalating` (out of an archive), and `reanalysed` for a problem that only calls
    grouped again from the same snapshots (a re-analysis) opened; and the live calls' hours, whose
    bursts the pipeline judges. `rules` (webapp/pipeline/rules.py) decide each change: regress,
    escalate out of an archive, count toward exposure."""
    events: list[tuple[str, int]] = []
    done, fresh, news = [], {}, set()
    # call -> [grouped_seqs, problem_paths] to write, None where unchanged
    marks: dict[tuple, list] = {}
    # fingerprint -> problem id, for the batch: most calls repeat a few problems
    ids: dict[str, int] = {}
    rollups = Rollups()
    facts = _by_call(conn, CALL_FACTS, groupings)
    parts = _by_call(conn, OLD_PARTS, groupings, many=True)
    first_seen = first_seen_of(conn, {row[0] for row in facts.values()})
    for key, grouping in sorted(groupings.items(), key=lambda item: _when(facts, item[0])):
        row = facts.get(key)
        if row is None or row[4] != grouping["version"] or row[5] != row[4]:
            continue
        seqs = seqs_key(*row[7:10], row[11])
        call = {
            "trace_id": key[0],
            "call_id": key[1],
            "tool": row[0],
            "source": row[1],
            "release": row[2],
            "ts": row[3] or now,
            "digest": grouping.get("digest"),
            "before": set(loads(row[6]) or []),
            # grouped again from the same snapshots
            "again": row[10] == seqs,
            # arguments, request and response all received (row[7:10]): only then can it count as
            # clean
            "complete": all(seq is not None for seq in row[7:10]),
        }
        marks[key] = [None if call["again"] else seqs, None]
        old = {part[0]: part for part in parts.get(key, [])}
        broke = _replace_parts(
            conn, call, old, grouping["problems"], now, events, ids, rollups, fresh, rules
        )
        done.append((call, grouping, broke, loads(row[6]) or []))
        news |= set() if call["again"] else broke
    by_tool: dict = {}
    exposure: dict[int, int] = {}
    for call, grouping, broke, before in done:
        # every break of the batch is in, so no problem opens after this
        if call["tool"] not in by_tool:
            by_tool[call["tool"]] = conn.execute(TOOL_PROBLEMS, (call["tool"],)).fetchall()
        marks[call["trace_id"], call["call_id"]][1] = _exercise(
            conn,
            call,
            grouping.get("arguments"),
            by_tool[call["tool"]],
            broke,
            before,
            exposure,
            rules.exercises,
        )
    conn.executemany(
        MARK_GROUPED, [(*mark, *key) for key, mark in marks.items() if mark != [None, None]]
    )
    batch = {(call["trace_id"], call["call_id"]) for call, *_ in done}
    for tool, rows in by_tool.items():
        refit(conn, tool, rows, first_seen, batch, exposure, rules.exercises)
    flush(conn, exposure)
    rollups.flush(conn)
    events = [
        ("reanalysed" if event == "new" and pid not in news else event, pid)
        for event, pid in events
    ]
    # said already
    opened = {pid for event, pid in events if event in ("new", "regressed", "reanalysed")}
    # a backfill's problem is news at its first live call
    events = announce(conn, events, fresh, now)
    # after the flush: a burst is read from the batch's hours
    return Grouped(events, fresh, opened, now)


def _by_call(conn, sql: str, calls, many: bool = False) -> dict:
    """Read rows for a batch of (trace_id, call_id) keys in a few queries.

    Keyed by call: a round trip per call is what a remote database makes slow. `many`: a list of
    rows per call."""
    keys, found = list(calls), {}
    for start in range(0, len(keys), BATCH_KEYS):
        chunk = keys[start : start + BATCH_KEYS]
        query = sql.format(keys=", ".join(["(?, ?)"] * len(chunk)))
        for row in conn.execute(query, [part for key in chunk for part in key]).fetchall():
            if many:
                found.setdefault((row[0], row[1]), []).append(tuple(row[2:]))
            else:
                found[(row[0], row[1])] = tuple(row[2:])
    return found


def _when(facts: dict, key: tuple) -> tuple:
    """Order a batch's calls by time, then by id.

    Problems new in a batch are numbered in the order their calls happened, whatever order the calls
    were claimed in (the demo's TD numbers stay put)."""
    return ((facts[key][3] or "") if key in facts else "", key)


def forget_calls(conn, calls, exercises=None) -> None:
    """Take deleted calls' parts out of their problems.

    Deleted by retention, so counts, rollups and first/last seen describe the calls still stored, as
    a re-analysis of them would; `exercises` (the rule of webapp/pipeline/rules.py) counts exposure
    again where a first seen moved earlier."""
    rollups, touched = Rollups(), set()
    for key, parts in _by_call(conn, OLD_PARTS, calls, many=True).items():
        for part in parts:
            _take_out(conn, part[0], key, part, rollups)
            touched.add(part[0])
    rollups.flush(conn)
    before = first_seen_by_id(conn, touched)
    for pid in touched:
        conn.execute(SEEN, (pid, None))
    forget(conn, calls, before, exercises)


class Rollups:
    """A batch's changes to the hourly counts, splits and value pairs.

    Written once per row at the end.

    Most calls of a batch repeat a few problems; nothing in the batch reads these rollups (the state
    rules read problem_calls and problems), so one upsert per row replaces one per call."""

    def __init__(self):
        self.hours: dict[tuple, int] = {}
        self.splits: dict[tuple, list] = {}
        # (problem id, pair) -> count; hours and splits likewise by key
        self.pairs: dict[tuple, int] = {}
        # problems a part was taken out of: rows may reach zero
        self.shrunk: set[int] = set()

    def add(self, pid: int, call: dict, occurrences: int, pairs: dict, sign: int) -> None:
        """Add (sign 1) or take out (sign -1) one call's part."""
        key = (pid, call["ts"][:13])
        self.hours[key] = self.hours.get(key, 0) + sign * occurrences
        for dim in ("source", "release", "digest"):
            counts = self.splits.setdefault((pid, dim, call[dim] or ""), [0, 0])
            counts[0] += sign * occurrences
            counts[1] += sign
        for pair, count in pairs.items():
            self.pairs[(pid, pair)] = self.pairs.get((pid, pair), 0) + sign * count
        if sign < 0:
            self.shrunk.add(pid)

    def flush(self, conn) -> None:
        """Write the batch's changes, then drop the rows they emptied."""
        conn.executemany(BUMP_HOUR, [(*key, n) for key, n in self.hours.items() if n])
        conn.executemany(BUMP_SPLIT, [(*key, *n) for key, n in self.splits.items() if n != [0, 0]])
        conn.executemany(BUMP_PAIR, [(*key, n) for key, n in self.pairs.items() if n])
        for pid in self.shrunk:
            conn.execute(
                "DELETE FROM problem_hours WHERE problem_id = ? AND occurrences <= 0", (pid,)
            )
            conn.execute("DELETE FROM problem_splits WHERE problem_id = ? AND calls <= 0", (pid,))
            conn.execute("DELETE FROM problem_pairs WHERE problem_id = ? AND count <= 0", (pid,))


def _problem_id(
    conn, fingerprint: str, entry: dict, now: str, events: list, ids: dict, ts: str
) -> int:
    """Return the id of a fingerprint's problem, creating it if new.

    A merge is followed. Its history starts at `ts`, the call's own time as first seen is, so it
    reads in the order things happened."""
    if fingerprint in ids:
        return ids[fingerprint]
    row = conn.execute(PROBLEM_BY_FINGERPRINT, (fingerprint,)).fetchone()
    if row is not None:
        ids[fingerprint] = row[1] or row[0]
        return ids[fingerprint]
    d = entry["descriptor"]
    left, right = d["left"] or {}, d["right"] or {}
    cursor = conn.execute(
        INSERT_PROBLEM,
        {
            "fingerprint": fingerprint,
            "fp_version": int(fingerprint[1:].split(":")[0]),
            "tool": d["tool"],
            "kind": d["kind"],
            "severity": entry["severity"],
            "stages": d["stages"],
            "left_snapshot": left.get("snapshot"),
            "left_path": left.get("path"),
            "right_snapshot": right.get("snapshot"),
            "right_path": right.get("path"),
            "transform": d["transform"],
            "keyword": d["keyword"],
            "created_at": now,
        },
    )
    problem_id = cursor.fetchone()[0]
    record_state(conn, problem_id, ts, "open", "tracediff", "first seen")
    events.append(("new", problem_id))
    ids[fingerprint] = problem_id
    return problem_id


def _kept(conn, entry: dict, old: dict, ids: dict) -> int | None:
    """Return the problem an older fingerprint version names, if the call is there.

    When the call's last grouping put it there: a re-analysis (a pair learnt, `tracediff reanalyze`)
    moves no call out of a problem made before the current version; a call grouped for the first
    time goes to the current version's problem."""
    if not old:
        return None
    for fingerprint in entry.get("older") or ():
        if fingerprint not in ids:
            row = conn.execute(PROBLEM_BY_FINGERPRINT, (fingerprint,)).fetchone()
            # a miss is remembered too: a v1 fingerprint is never a key _problem_id reads
            ids[fingerprint] = (row[1] or row[0]) if row is not None else None
        if ids[fingerprint] in old:
            return ids[fingerprint]
    return None


def _replace_parts(
    conn,
    call: dict,
    old: dict,
    problems: dict,
    now: str,
    events: list,
    ids: dict,
    rollups,
    fresh: dict,
    rules,
) -> set[int]:
    """Take the call's old part out of every rollup, put the new one in.

    Return the problem ids it breaks.

    A part new to a problem that no earlier analysis of the call knew (`call["before"]`) counts
    toward the problem's hour in `fresh`. A call grouped again from the same snapshots
    (`call["again"]`) is a re-analysis: it regresses and escalates nothing."""
    key = (call["trace_id"], call["call_id"])
    new: dict[int, dict] = {}
    for fingerprint, entry in problems.items():
        pid = _kept(conn, entry, old, ids) or _problem_id(
            conn, fingerprint, entry, now, events, ids, call["ts"]
        )
        # two fingerprints merged into one problem
        if pid in new:
            new[pid] = {
                **entry,
                "occurrences": new[pid]["occurrences"] + entry["occurrences"],
                "pairs": {**new[pid]["pairs"], **entry["pairs"]},
            }
        else:
            new[pid] = entry
    # a re-analysis that finds what the last one found changes nothing: leave those parts alone
    same = {pid for pid in set(old) & set(new) if old[pid][1:] == _part(call, new[pid])}
    for pid, part in old.items():
        if pid not in same:
            _take_out(conn, pid, key, part, rollups)
    watch = {}
    for pid, entry in new.items():
        if pid not in same:
            watch[pid] = _put_in(conn, pid, call, entry, rollups)
            seen = pid in old or pid in call["before"] or call["again"]
            note_fresh(fresh, pid, call, entry["occurrences"], seen, now, rules)
    # taking a part out may narrow first/last seen
    for pid in set(old) - same:
        conn.execute(SEEN, (pid, None))
    for pid, (state, resolving) in watch.items():
        # an open problem with no resolution has no rule to apply
        if state != "open" or resolving:
            _after_break(
                conn, pid, call, prior=pid in old or call["again"], events=events, rules=rules
            )
    return set(new)


def _part(call: dict, entry: dict) -> tuple:
    """Return a part as problem_calls stores it (after problem_id).

    To tell an unchanged one."""
    return (
        call["ts"],
        call["source"],
        call["release"],
        call["digest"],
        entry["occurrences"],
        dumps(entry["pairs"]),
        entry["severity"],
    )


def _take_out(conn, pid: int, key: tuple, part, rollups: Rollups) -> None:
    _, ts, source, release, digest, occurrences, pairs, _ = part
    conn.execute(
        "DELETE FROM problem_calls WHERE problem_id = ? AND trace_id = ? AND call_id = ?",
        (pid, *key),
    )
    gone_trace = not conn.execute(TRACE_HAS_OTHER, (pid, key[0])).fetchone()[0]
    conn.execute(BUMP_COUNTS, (-occurrences, -1, -int(gone_trace), pid))
    rollups.add(
        pid,
        {"ts": ts, "source": source, "release": release, "digest": digest},
        occurrences,
        loads(pairs) or {},
        -1,
    )


def _put_in(conn, pid: int, call: dict, entry: dict, rollups: Rollups) -> tuple:
    """Add a call's part to a problem's rollups.

    Return the problem's (state, has a resolution)."""
    occurrences = entry["occurrences"]
    watched = conn.execute(
        PUT_COUNTS, (occurrences, call["trace_id"], call["ts"], entry["severity"], pid)
    ).fetchone()
    conn.execute(
        ADD_PART,
        (
            pid,
            call["trace_id"],
            call["call_id"],
            call["ts"],
            call["source"],
            call["release"],
            call["digest"],
            entry["severity"],
            occurrences,
            dumps(entry["pairs"]),
        ),
    )
    rollups.add(pid, call, occurrences, entry["pairs"], 1)
    return watched


def _state(conn, pid: int) -> dict:
    row = conn.execute(PROBLEM_STATE, (pid,)).fetchone()
    return {
        "id": row[0],
        "state": row[1],
        "resolve": loads(row[2]),
        "resolved_at": row[3],
        "archive": loads(row[4]),
    }


def _after_break(conn, pid: int, call: dict, prior: bool, events: list, rules) -> None:
    """Apply the state rules to a call that shows a problem.

    Regress, escalate, count as a failed check."""
    problem = _state(conn, pid)
    if problem["resolve"] and call["ts"] > problem["resolve"].get("since", ""):
        conn.execute(CHECK, (pid, call["trace_id"], call["call_id"], call["ts"], 1))
        # a break starts the count of clean calls again
        resolve_after_clean_calls(conn, problem, call["ts"])
    if rules.reopens(problem, {**call, "prior": prior}):
        conn.execute("UPDATE problems SET state = 'regressed' WHERE id = ?", (pid,))
        release = f" in release {call['release']}" if call["release"] else ""
        record_state(
            conn,
            pid,
            call["ts"],
            "regressed",
            "tracediff",
            f"a call at {call['ts']}{release} broke again (trace {call['trace_id']})",
        )
        events.append(("regressed", pid))
    elif problem["state"] == "archived" and problem["archive"] and not prior:
        since = conn.execute(
            "SELECT coalesce(sum(occurrences), 0) FROM problem_calls WHERE problem_id = ? AND ts > "
            "?",
            (pid, problem["archive"]["at"]),
        ).fetchone()[0]
        if rules.escalates(problem["archive"], since):
            conn.execute("UPDATE problems SET state = 'open', archive = NULL WHERE id = ?", (pid,))
            record_state(
                conn,
                pid,
                call["ts"],
                "open",
                "tracediff",
                f"escalating: {since} occurrences since archived",
            )
            events.append(("escalating", pid))


def _exercise(
    conn, call: dict, arguments, problems, broke: set[int], before: list, exposure: dict, exercises
) -> str | None:
    """Count the call toward its tool's problems' exposure; return its paths.

    Also as a clean check of those it has the path of and does not break (only problems with a
    resolution count clean calls); return its new problem_paths."""
    watched, paths = exercise(call, arguments, problems, broke, before, exposure, exercises)
    if not call["complete"]:
        # a call missing a stage compared nothing there: never a clean check
        return paths
    for pid in watched - broke:
        problem = _state(conn, pid)
        if problem["resolve"] and call["ts"] > problem["resolve"].get("since", ""):
            conn.execute(CHECK, (pid, call["trace_id"], call["call_id"], call["ts"], 0))
            resolve_after_clean_calls(conn, problem, call["ts"])
    return paths
