"""Problems, the read side.

The list, one problem with its history and reach, its traces (mixed into Store).

A problem comes with its stored state; the state a person reads (an open problem is new or ongoing)
is the presentation's, applied above the store (webapp/pipeline/problems.py)."""

import time
from dataclasses import replace

from . import values
from .alert_facts import line_facts
from .clean_calls import CleanCalls
from .codec import dumps, loads
from .problem_filters import ProblemFilters, conditions

COLUMNS = """p.id, p.fingerprint, p.fp_version, p.tool, p.kind, p.severity, p.stages,
 p.left_snapshot, p.left_path, p.right_snapshot, p.right_path, p.transform, p.keyword, p.first_seen,
 p.last_seen, p.occurrences, p.calls, p.traces, p.exercised, p.state, p.resolve, p.resolved_at,
 p.archive, p.links, p.merged_into"""
MAX_HOURS = 24 * 31
FACETS_SECONDS = 10
# database file -> (when, facets): a store lives for one request, the file for good
_FACETS: dict = {}


class ProblemReads(CleanCalls):
    """Queries that return problems as plain dicts."""

    def find_problems(
        self, filters: ProblemFilters, cursor: tuple | None = None
    ) -> tuple[list[dict], tuple | None]:
        """Return problems newest last seen first after a cursor, and the next one.

        The cursor is (last_seen, id)."""
        self.catch_up_for_read()
        where, params = conditions(filters)
        if cursor:
            where.append("(p.last_seen, p.id) < (?, ?)")
            params += [cursor[0], int(cursor[1])]
        sql = (
            f"SELECT {COLUMNS} FROM problems p WHERE {' AND '.join(where)} ORDER BY p.last_seen "
            "DESC, p.id DESC LIMIT ?"
        )
        rows = list(self.db.query(sql, [*params, filters.limit + 1]))
        next_cursor = None
        if len(rows) > filters.limit:
            rows = rows[: filters.limit]
            next_cursor = (rows[-1]["last_seen"], str(rows[-1]["id"]))
        problems = [_problem(row) for row in rows]
        self._add_splits(problems)
        return problems, next_cursor

    def count_problems(self, filters: ProblemFilters, new_since: str) -> dict:
        """Return how many problems match per display state (the list's tabs).

        Counted in SQL: an open problem first seen at or after `new_since` counts as new, an older
        one as ongoing (the filters' state is ignored)."""
        where, params = conditions(
            replace(filters, state="", first_seen_from="", first_seen_before="")
        )
        rows = self.db.execute(
            "SELECT CASE WHEN p.state != 'open' THEN p.state WHEN p.first_seen >= ? THEN 'new' "
            "ELSE 'ongoing' END, "
            f"count(*) FROM problems p WHERE {' AND '.join(where)} GROUP BY 1",
            [new_since, *params],
        )
        return {
            **dict.fromkeys(("new", "ongoing", "resolved", "regressed", "archived"), 0),
            **dict(rows),
        }

    def problem_span(self) -> tuple[str | None, str | None]:
        """Return the first first-seen and last last-seen of the listed problems.

        The problems the list shows."""
        row = self.db.execute(
            "SELECT min(first_seen), max(last_seen) FROM problems WHERE merged_into IS NULL AND "
            "calls > 0"
        ).fetchone()
        return row[0], row[1]

    def problem_facets(self) -> dict:
        """Return the kinds, tools, sources and releases problems were seen with.

        Those seen most besides the kinds: the filters' choices, SHOWN_VALUES of each (the rest are
        found by search).

        They change rarely and cost a walk of every problem, so a process reuses them for a few
        seconds."""
        cached = _FACETS.get(self.path)
        if cached and time.monotonic() - cached[0] < FACETS_SECONDS:
            return cached[1]
        facets = values.problem_values(self)
        facets["kind"] = [
            r[0]
            for r in self.db.execute(
                "SELECT DISTINCT kind FROM problems WHERE kind IS NOT NULL AND merged_into IS NULL "
                "ORDER BY 1"
            )
        ]
        _FACETS[self.path] = (time.monotonic(), facets)
        return facets

    def get_problem(self, number: int) -> dict | None:
        """Return one problem with its splits, value pairs, examples, history and checks."""
        self.catch_up_for_read()
        row = next(
            iter(self.db.query(f"SELECT {COLUMNS} FROM problems p WHERE p.id = ?", (number,))), None
        )
        if row is None:
            return None
        problem = _problem(row)
        if row["merged_into"]:
            return problem
        self._add_splits([problem], detail=True)
        db = self.db
        # `[null,null]`: a pair stored before pairs that say nothing were left out (a missing field
        # on each side)
        problem["value_pairs"] = [
            {
                "left": pair[0],
                "right": pair[1],
                "count": count,
                "missing": pair[2] if len(pair) > 2 else [],
            }
            for pair, count in (
                (loads(p), c)
                for p, c in db.execute(
                    "SELECT pair, count FROM problem_pairs WHERE problem_id = ? AND pair != "
                    "'[null,null]' "
                    "ORDER BY count DESC, pair LIMIT 10",
                    (number,),
                )
            )
        ]
        problem["examples"] = self._examples(number)
        problem["state_history"] = [
            dict(r)
            for r in db.query(
                "SELECT at, state, by, detail FROM problem_states WHERE problem_id = ? ORDER BY id "
                "DESC LIMIT 100",
                (number,),
            )
        ]
        problem["exposure"] = {
            "occurrences": problem["occurrences"],
            "calls": problem["calls"],
            "calls_with_path": max(row["exercised"], problem["calls"]),
            "rate": round(problem["calls"] / max(row["exercised"], problem["calls"], 1), 4),
        }
        problem["verification"] = self._verification(row)
        return problem

    def problem_hourly(self, number: int, since: str, until: str) -> dict[str, int]:
        """Return {hour: occurrences} of a problem between two times.

        'YYYY-MM-DDTHH' keys."""
        rows = self.db.execute(
            "SELECT hour, occurrences FROM problem_hours WHERE problem_id = ? AND hour >= ? AND "
            "hour <= ?",
            (number, since[:13], until[:13]),
        )
        return dict(rows)

    def problems_hourly(
        self, numbers: list[int], since: str, until: str
    ) -> dict[int, dict[str, int]]:
        """Return {id: {hour: occurrences}} of several problems between two times."""
        out: dict[int, dict[str, int]] = {n: {} for n in numbers}
        rows = self.db.execute(
            "SELECT problem_id, hour, occurrences FROM problem_hours WHERE problem_id "
            f"{self.sql.IN_JSON_NUMBERS} AND hour >= ? AND hour <= ?",
            (dumps(numbers), since[:13], until[:13]),
        )
        for number, hour, count in rows:
            out[number][hour] = count
        return out

    def problems_counts(
        self, numbers: list[int], since: str, before: str, width: int
    ) -> dict[int, dict[str, int]]:
        """Return {id: {time key: occurrences}} of several problems' calls.

        From since up to (not at) before, by the first `width` characters of their times (13: per
        hour, 16: per minute, 19: per second)."""
        out: dict[int, dict[str, int]] = {n: {} for n in numbers}
        rows = self.db.execute(
            f"SELECT problem_id, substr(ts, 1, {int(width)}), sum(occurrences) FROM problem_calls "
            f"WHERE problem_id {self.sql.IN_JSON_NUMBERS} AND ts >= ? AND ts < ? GROUP BY 1, 2",
            (dumps(numbers), since, before),
        )
        for number, key, count in rows:
            out[number][key] = int(count)
        return out

    def problem_traces(self, number: int, limit: int = 50, cursor: tuple | None = None):
        """Return the calls a problem was seen in, newest first.

        After a (ts, trace_id, call_id) cursor."""
        sql = (
            "SELECT trace_id, call_id, ts, source, release, digest, severity, occurrences FROM "
            "problem_calls "
            "WHERE problem_id = ?"
        )
        params: list = [number]
        if cursor:
            sql += " AND (ts, trace_id, call_id) < (?, ?, ?)"
            params += list(cursor)
        rows = list(
            self.db.query(
                sql + " ORDER BY ts DESC, trace_id DESC, call_id DESC LIMIT ?", [*params, limit + 1]
            )
        )
        next_cursor = None
        if len(rows) > limit:
            rows = rows[:limit]
            next_cursor = (rows[-1]["ts"], rows[-1]["trace_id"], rows[-1]["call_id"])
        return rows, next_cursor

    def problem_ids(self, fingerprints) -> dict[str, str]:
        """Return {fingerprint: "TD-n"} for the fingerprints that have a problem.

        Merges followed."""
        rows = self.db.execute(
            "SELECT fingerprint, coalesce(merged_into, id) FROM problems WHERE fingerprint "
            f"{self.sql.IN_JSON_LIST}",
            (dumps(sorted(set(fingerprints))),),
        )
        return {fingerprint: f"TD-{number}" for fingerprint, number in rows}

    def problem_alert_data(self, conn, number: int, event: str | None = None) -> dict:
        """Return a problem as the list shows it.

        Read inside a writer's transaction, for an alert; with the facts of its one-line message
        under `_line` when `event` is given (the sender takes them out)."""
        cursor = conn.execute(f"SELECT {COLUMNS} FROM problems p WHERE p.id = ?", (number,))
        row = dict(zip([c[0] for c in cursor.description], cursor.fetchone()))
        problem = _problem(row)
        for dim, name in (
            ("release", "releases"),
            ("source", "sources"),
            ("digest", "contract_digests"),
        ):
            problem[name] = [
                r[0]
                for r in conn.execute(
                    "SELECT value FROM problem_splits WHERE problem_id = ? AND dim = ? AND value "
                    "!= '' ORDER BY value",
                    (number, dim),
                )
            ]
        problem["permalink_path"] = f"/problems/{problem['id']}"
        # a re-analysis's problems only go in a summary: no line of their own
        if event and event != "reanalysed":
            problem["_line"] = line_facts(conn, number, event, problem)
        return problem

    def _add_splits(self, problems: list[dict], detail: bool = False) -> None:
        numbers = {int(p["id"][3:]): p for p in problems}
        for p in problems:
            p["releases"], p["sources"], p["contract_digests"] = [], [], []
            if detail:
                p["by_source"], p["by_release"], p["by_digest"] = [], [], []
        names = {"release": "releases", "source": "sources", "digest": "contract_digests"}
        rows = self.db.execute(
            "SELECT problem_id, dim, value, occurrences, calls FROM problem_splits WHERE "
            "problem_id "
            f"{self.sql.IN_JSON_NUMBERS} ORDER BY problem_id, dim, value",
            (dumps(list(numbers)),),
        )
        for number, dim, value, occurrences, calls in rows:
            problem = numbers[number]
            if value:
                problem[names[dim]].append(value)
            if detail:
                problem[f"by_{dim}"].append(
                    {dim: value or None, "occurrences": occurrences, "calls": calls}
                )

    def _examples(self, number: int) -> dict:
        first = self.problem_traces_ordered(number, "ASC", 1)
        latest = self.problem_traces_ordered(number, "DESC", 5)
        return {
            "first": first[0] if first else None,
            "latest": latest[0] if latest else None,
            "samples": latest[1:],
        }

    def problem_traces_ordered(self, number: int, order: str, limit: int) -> list[dict]:
        return list(
            self.db.query(
                "SELECT trace_id, call_id, ts, source, release FROM problem_calls WHERE "
                "problem_id = ? "
                f"ORDER BY ts {'ASC' if order == 'ASC' else 'DESC'} LIMIT ?",
                (number, limit),
            )
        )

    def _verification(self, row: dict) -> dict | None:
        if row["state"] != "resolved" or not row["resolved_at"]:
            return None
        calls, broke = self.db.execute(
            "SELECT count(*), coalesce(sum(broke), 0) FROM problem_checks WHERE problem_id = ? AND "
            "ts > ?",
            (row["id"], row["resolved_at"]),
        ).fetchone()
        return {"calls": calls, "broke": broke}


def _problem(row: dict) -> dict:
    def end(side):
        snapshot = row[f"{side}_snapshot"]
        return None if snapshot is None else {"snapshot": snapshot, "path": row[f"{side}_path"]}

    out = {
        "id": f"TD-{row['id']}",
        "tool": row["tool"],
        "kind": row["kind"],
        "severity": row["severity"],
        "state": row["state"],
        "stages": row["stages"],
        "left": end("left"),
        "right": end("right"),
        "transform": row["transform"],
        "keyword": row["keyword"],
        "first_seen": row["first_seen"],
        "last_seen": row["last_seen"],
        "occurrences": row["occurrences"],
        "calls": row["calls"],
        "traces": row["traces"],
        "links": loads(row["links"]) or [],
        "fingerprint": row["fingerprint"],
        "fingerprint_version": row["fp_version"],
        "resolution": loads(row["resolve"]),
        "resolved_at": row["resolved_at"],
        "archive": loads(row["archive"]),
    }
    if row["merged_into"]:
        out["merged_into"] = f"TD-{row['merged_into']}"
    return out
