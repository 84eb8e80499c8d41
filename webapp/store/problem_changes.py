"""Problems, the changes people make.

Resolve, archive, reopen, links, merge (mixed into Store)."""

from datetime import timedelta

from ..common import times
from ..common.digits import problem_number
from .codec import dumps, loads, utc_now
from .errors import ChangeRefused
from .exposure import first_seen_by_id, merged

ROLLUPS = (
    "DELETE FROM problem_hours WHERE problem_id = ?1",
    """INSERT INTO problem_hours (problem_id, hour, occurrences)
     SELECT ?1, substr(ts, 1, 13), sum(occurrences) FROM problem_calls WHERE problem_id = ?1 GROUP
       BY 2""",
    "DELETE FROM problem_splits WHERE problem_id = ?1",
    """INSERT INTO problem_splits (problem_id, dim, value, occurrences, calls)
     SELECT ?1, d.dim, CASE d.dim WHEN 'source' THEN coalesce(source, '') WHEN 'release' THEN
       coalesce(release, '')
      ELSE coalesce(digest, '') END, sum(occurrences), count(*)
     FROM problem_calls, (SELECT 'source' AS dim UNION ALL SELECT 'release' UNION ALL SELECT
       'digest') AS d
     WHERE problem_id = ?1 GROUP BY 2, 3""",
    "DELETE FROM problem_pairs WHERE problem_id = ?1",
    # the engine's statement (sql.py): it reads each call's JSON object of pairs
    "REBUILD_PAIRS",
    """UPDATE problems
     SET occurrences = (SELECT coalesce(sum(occurrences), 0) FROM problem_calls WHERE problem_id =
       ?1),
     calls = (SELECT count(*) FROM problem_calls WHERE problem_id = ?1),
     traces = (SELECT count(DISTINCT trace_id) FROM problem_calls WHERE problem_id = ?1),
     first_seen = (SELECT min(ts) FROM problem_calls WHERE problem_id = ?1),
     last_seen = (SELECT max(ts) FROM problem_calls WHERE problem_id = ?1) WHERE id = ?1""",
)
TOLD = "UPDATE problems SET announced_at = ? WHERE id = ? AND announced_at IS NULL"
CLEAN_SINCE = """SELECT count(*) FROM problem_checks WHERE problem_id = ?1 AND broke = 0 AND ts > ?2
 AND ts > coalesce((SELECT max(ts) FROM problem_checks WHERE problem_id = ?1 AND broke = 1), '')"""


def record_state(conn, pid: int, at: str, state: str, by: str, detail: str) -> None:
    """Append a state change to a problem's history."""
    conn.execute(
        "INSERT INTO problem_states (problem_id, at, state, by, detail) VALUES (?, ?, ?, ?, ?)",
        (pid, at, state, by, detail),
    )


def resolve_after_clean_calls(conn, problem: dict, ts: str) -> None:
    """Count clean calls toward "after N clean calls"; resolve at the Nth.

    The clean calls since the last break (the `clean` the page shows as "2 of 3 clean calls")."""
    resolve = problem["resolve"] or {}
    if problem["state"] == "resolved" or resolve.get("mode") != "after_clean_calls":
        return
    # once it resolved the problem it waits no more (`met`): a regression is for a person to
    # resolve anew (webapp.problems.states.counts_clean_calls says the same to the pages)
    if resolve.get("met"):
        return
    clean = conn.execute(CLEAN_SINCE, (problem["id"], resolve["since"])).fetchone()[0]
    resolve["clean"] = min(clean, resolve["n"])
    if clean >= resolve["n"]:
        resolve["met"] = ts
    conn.execute("UPDATE problems SET resolve = ? WHERE id = ?", (dumps(resolve), problem["id"]))
    if clean >= resolve["n"]:
        conn.execute(
            "UPDATE problems SET state = 'resolved', resolved_at = ? WHERE id = ?",
            (ts, problem["id"]),
        )
        record_state(
            conn,
            problem["id"],
            ts,
            "resolved",
            "tracediff",
            f"{clean} clean calls exercised the path",
        )


def _last_of_merges(conn, pid: int) -> int | None:
    """Follow a problem's merges to the one that holds its calls now.

    None on a loop (never written)."""
    seen = set()
    while pid not in seen:
        seen.add(pid)
        row = conn.execute("SELECT merged_into FROM problems WHERE id = ?", (pid,)).fetchone()
        if row is None or row[0] is None:
            return pid
        pid = row[0]
    return None


def _same_tool(conn, pid: int, into: int) -> None:
    """Refuse a merge across tools.

    Exposure counts one tool's calls, so a mixed problem's rate means nothing."""
    tools = dict(
        conn.execute("SELECT id, tool FROM problems WHERE id IN (?, ?)", (pid, into)).fetchall()
    )
    if tools[pid] != tools[into]:
        raise ChangeRefused(
            f"TD-{pid} is a problem of {tools[pid] or '(no tool)'} and TD-{into} one of "
            f"{tools[into] or '(no tool)'}: only problems of the same tool merge"
        )


def _carry_links(conn, pid: int, into: int) -> None:
    """Give the merged-into problem the ticket links of the merged one.

    Its own first, no repeats."""
    links = dict(
        conn.execute("SELECT id, links FROM problems WHERE id IN (?, ?)", (pid, into)).fetchall()
    )
    joined = list(dict.fromkeys([*(loads(links[into]) or []), *(loads(links[pid]) or [])]))
    conn.execute("UPDATE problems SET links = ? WHERE id = ?", (dumps(joined), into))


class ProblemChanges:
    """Apply a person's change to a problem (mixed into Store)."""

    def change_problem(
        self, pid: int, change: dict, by: str, at: str | None = None, rules=None
    ) -> None:
        """Apply a validated change to a problem, now or `at`.

        Validated by webapp.problems.states.parse_change. A resolve "when the contract changes"
        records the change's `contract_digest`, and a merge counts exposure again by `rules` (both
        handed in by webapp/pipeline/changes.py)."""
        now = times.fixed(at) if at else utc_now()
        with self.write() as conn:
            # whoever changes a problem knows it: no "new" alert about it later
            conn.execute(TOLD, (now, pid))
            if "links" in change:
                conn.execute(
                    "UPDATE problems SET links = ? WHERE id = ?", (dumps(change["links"]), pid)
                )
            if "merged_into" in change:
                self._merge(conn, pid, change["merged_into"], now, by, rules)
            state = change.get("state")
            if state == "resolved":
                self._resolve(conn, pid, change["resolve"], now, by, change.get("contract_digest"))
            elif state == "archived":
                baseline = conn.execute(
                    "SELECT coalesce(sum(occurrences), 0) FROM problem_hours WHERE problem_id = ? "
                    "AND hour >= ?",
                    (pid, _day_before(now)[:13]),
                ).fetchone()[0]
                archive = {"at": now, "until": change["until"], "baseline": baseline}
                conn.execute(
                    "UPDATE problems SET state = 'archived', archive = ? WHERE id = ?",
                    (dumps(archive), pid),
                )
                until = "until it escalates" if change["until"] else "for good"
                record_state(conn, pid, now, "archived", by, f"archived {until}")
            elif state == "open":
                conn.execute(
                    "UPDATE problems SET state = 'open', archive = NULL, resolve = NULL WHERE id = "
                    "?",
                    (pid,),
                )
                record_state(conn, pid, now, "open", by, "reopened")

    def problem_tool(self, pid: int) -> str | None:
        """Return the tool a problem is of (None for one of no tool, or no such problem)."""
        row = self.db.execute("SELECT tool FROM problems WHERE id = ?", (pid,)).fetchone()
        return row[0] if row else None

    def _resolve(
        self, conn, pid: int, resolve: dict, now: str, by: str, digest: str | None
    ) -> None:
        state = conn.execute("SELECT state FROM problems WHERE id = ?", (pid,)).fetchone()[0]
        if state == "resolved" and resolve["mode"] == "after_clean_calls":
            raise ChangeRefused(
                f"TD-{pid} is resolved already, so there is nothing left to wait for; reopen it "
                "first "
                "to resolve it again after N clean calls"
            )
        resolve = {**resolve, "since": now, "by": by}
        if resolve["mode"] == "next_release":
            resolve["releases"] = [
                r[0]
                for r in conn.execute(
                    "SELECT value FROM problem_splits WHERE problem_id = ? AND dim = 'release'"
                    " AND value != '' ORDER BY value",
                    (pid,),
                )
            ]
            # no later call could ever be "another release": it would never regress
            if not resolve["releases"]:
                raise ChangeRefused(
                    f'TD-{pid} was seen in no release (its calls carry no `release`), so "in the '
                    "next "
                    'release" could never be told apart; resolve it now, when the contract changes '
                    "or "
                    "after N clean calls, or send `release` with the events"
                )
        if resolve["mode"] == "contract_change":
            resolve["digest"] = digest
        if resolve["mode"] == "after_clean_calls":
            conn.execute("UPDATE problems SET resolve = ? WHERE id = ?", (dumps(resolve), pid))
            record_state(
                conn, pid, now, "resolving", by, f"resolves after {resolve['n']} clean calls"
            )
            return
        conn.execute(
            "UPDATE problems SET state = 'resolved', resolve = ?, resolved_at = ? WHERE id = ?",
            (dumps(resolve), now, pid),
        )
        words = {
            "now": "resolved",
            "next_release": "resolved in the next release",
            "contract_change": "resolved when the contract changes",
        }
        record_state(conn, pid, now, "resolved", by, words[resolve["mode"]])

    def _merge(self, conn, pid: int, into_text: str, now: str, by: str, rules) -> None:
        """Move one problem's calls into another.

        The old id redirects to the new one."""
        into = self.resolve_problem_id(into_text)
        if (
            conn.execute("SELECT merged_into FROM problems WHERE id = ?", (pid,)).fetchone()[0]
            is not None
        ):
            raise ChangeRefused(
                f"TD-{pid} was merged already; change the problem it was merged into"
            )
        # a merged target: where it went
        into = _last_of_merges(conn, into) if into is not None else None
        if into is None or into == pid:
            raise ChangeRefused(
                f"merged_into must name another existing problem, not one merged into TD-{pid}; "
                f"got {into_text!r}"
            )
        _same_tool(conn, pid, into)
        moved = [
            tuple(r)
            for r in conn.execute(
                "SELECT trace_id, call_id FROM problem_calls WHERE problem_id = ?", (pid,)
            )
        ]
        before = first_seen_by_id(conn, [into])[into]
        conn.execute(
            """INSERT INTO problem_calls (problem_id, trace_id, call_id, ts, source, release,
  digest, severity,
            occurrences, pairs) SELECT ?2, trace_id, call_id, ts, source, release, digest,
              severity, occurrences, pairs
            FROM problem_calls WHERE problem_id = ?1 AND true
            ON CONFLICT(problem_id, trace_id, call_id) DO UPDATE SET occurrences =
              problem_calls.occurrences +
             excluded.occurrences""",
            (pid, into),
        )
        conn.execute("DELETE FROM problem_calls WHERE problem_id = ?", (pid,))
        conn.execute("DELETE FROM problem_checks WHERE problem_id = ?", (pid,))
        for statement in ROLLUPS:
            # a name: the engine's own form
            statement = getattr(self.sql, statement, statement)
            conn.execute(statement, (pid,))
            conn.execute(statement, (into,))
        _carry_links(conn, pid, into)
        merged(conn, into, before, moved, rules.exercises)
        conn.execute(TOLD, (now, into))
        conn.execute(
            "UPDATE problems SET merged_into = ?1 WHERE id = ?2 OR merged_into = ?2", (into, pid)
        )
        conn.execute(
            "UPDATE problems SET severity = 'error' WHERE id = ? AND (SELECT severity FROM "
            "problems "
            "WHERE id = ?) = 'error'",
            (into, pid),
        )
        record_state(conn, pid, now, "merged", by, f"merged into TD-{into}")
        record_state(conn, into, now, "merged", by, f"TD-{pid} merged into this problem")

    def resolve_problem_id(self, text: str) -> int | None:
        """Return the numeric id of `TD-42` (or `42`), or None when no such problem exists."""
        number = problem_number(text)
        if number is None:
            return None
        row = self.db.execute("SELECT id FROM problems WHERE id = ?", (number,)).fetchone()
        return row[0] if row else None


def _day_before(now: str) -> str:
    """Return the stored time one day before another."""
    return times.stamp(times.parse(now) - timedelta(days=1))
