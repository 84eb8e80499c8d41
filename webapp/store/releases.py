"""Releases, the read side.

Each release's calls, the problems first seen in it and those it regressed, and the problems each
release showed (mixed into Store; the same SQL runs on SQLite and PostgreSQL)."""

from .codec import dumps
from .problem_filters import FIRST_RELEASE
from .problem_reads import COLUMNS, _problem

# calls_by_release holds every column read here: a covering walk in (release, tool, source) order,
# no sort
CALLS_BY_RELEASE = """SELECT release, tool, source, min(last_ts), max(last_ts), count(*),
 sum(CASE WHEN worst IN ('error', 'warning') THEN 1 ELSE 0 END) FROM calls WHERE release IS NOT NULL
 GROUP BY release, tool, source"""
# counted by the caller: SQLite would probe each problem's first call once for the SELECT and again
# per clause
FIRST_RELEASES = (
    f"SELECT {FIRST_RELEASE} FROM problems p WHERE p.merged_into IS NULL AND p.calls > 0"
)
# a regression is recorded at the time of the call that broke again: that call's release regressed
# the problem
REGRESSED_BY_RELEASE = """SELECT c.release, count(DISTINCT s.problem_id) FROM problem_states s
 JOIN problem_calls c ON c.problem_id = s.problem_id AND c.ts = s.at JOIN problems p ON p.id =
   s.problem_id
 WHERE s.state = 'regressed' AND p.merged_into IS NULL AND c.release IS NOT NULL GROUP BY
   c.release"""
SEEN_IN = """SELECT s.problem_id, p.tool, s.occurrences, s.calls FROM problem_splits s JOIN
  problems p
 ON p.id = s.problem_id WHERE s.dim = 'release' AND s.value = ? AND p.merged_into IS NULL AND
   p.calls > 0"""


class ReleaseReads:
    """The facts of releases, as rows and plain dicts.

    webapp/pipeline/releases.py folds and compares them."""

    def release_calls(self) -> list[tuple]:
        """Return summary rows of the calls that name a release.

        (release, tool, source, first, last, calls, with_findings)."""
        return self.db.execute(CALLS_BY_RELEASE).fetchall()

    def first_releases(self) -> list[str | None]:
        """Return the release of each listed problem's first call.

        None for one of no release."""
        return [row[0] for row in self.db.execute(FIRST_RELEASES).fetchall()]

    def regressed_by_release(self) -> dict[str, int]:
        """Return {release: the problems a call of it regressed}."""
        return dict(self.db.execute(REGRESSED_BY_RELEASE).fetchall())

    def seen_in_release(self, name: str) -> dict[int, dict]:
        """Return the listed problems a release's calls showed.

        As {problem id: {"tool", "occurrences", "calls"}}."""
        return {
            row[0]: {"tool": row[1], "occurrences": int(row[2]), "calls": int(row[3])}
            for row in self.db.execute(SEEN_IN, (name,)).fetchall()
        }

    def release_tool_calls(self, name: str) -> dict[str, int]:
        """Return {tool: calls} of one release."""
        tool_calls: dict[str, int] = {}
        for _release, tool, _source, _first, _last, calls, _broken in self.db.execute(
            CALLS_BY_RELEASE.replace("WHERE release IS NOT NULL", "WHERE release = ?"), (name,)
        ).fetchall():
            tool_calls[tool] = tool_calls.get(tool, 0) + int(calls)
        return tool_calls

    def problems_with(self, entries: list[dict]) -> list[dict]:
        """Return the problems of these entries newest last seen first.

        With each entry's counts under `in_release`."""
        by_id = {entry["id"]: entry for entry in entries}
        rows = self.db.query(
            f"SELECT {COLUMNS} FROM problems p WHERE p.id {self.sql.IN_JSON_NUMBERS} "
            "ORDER BY p.last_seen DESC, p.id DESC",
            (dumps(sorted(by_id)),),
        )
        problems = [_problem(row) for row in rows]
        self._add_splits(problems)
        for problem in problems:
            entry = by_id[int(problem["id"][3:])]
            problem["in_release"] = {
                key: entry[key]
                for key in ("occurrences", "calls", "calls_in_compare")
                if key in entry
            }
        return problems
