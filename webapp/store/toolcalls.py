"""Reads for the tool pages.

Each tool's calls, findings and last call, and its recent calls."""

from collections import Counter

from .codec import dumps, loads
from .hours import NO_TOOL

TOTALS = (
    """SELECT tool, sum(calls), sum(findings) FROM call_hours WHERE tool {in_json} GROUP BY tool"""
)
# open: not resolved or archived (a regressed problem is open again); problems_by_tool finds each
# tool's
OPEN_PROBLEMS = """SELECT tool, count(*) FROM problems WHERE merged_into IS NULL AND calls > 0
 AND state IN ('open', 'regressed') AND tool IS NOT NULL GROUP BY tool"""
LAST_SEEN = "SELECT max(last_ts) FROM calls WHERE tool = ?"
# releases a tool's row names, the newest first seen first
SHOWN_RELEASES = 10
CONTRACT_NAMES_AFTER = "SELECT name FROM tools WHERE name > ? ORDER BY name LIMIT ?"
CONTRACTS_IN = "SELECT name FROM tools WHERE name {in_json}"
# a skip through trace_tools' index from `after`: one probe per tool, stopped by the limit
CALLED_TOOLS_AFTER = """WITH RECURSIVE v(x) AS (SELECT min(tool) FROM trace_tools WHERE tool > ?
  UNION ALL
 SELECT (SELECT min(tool) FROM trace_tools WHERE tool > v.x) FROM v WHERE v.x IS NOT NULL)
 SELECT x FROM v WHERE x IS NOT NULL LIMIT ?"""
RELEASES_OF_TOOLS = """SELECT release, tool, min(last_ts) FROM calls WHERE tool {in_json} AND
  release IS NOT NULL
 GROUP BY release, tool"""
# a LIMIT both engines read as "no limit"
EVERY = 2**62
RECENT_ANALYSES = "SELECT analysis FROM calls WHERE tool = ? ORDER BY last_ts DESC LIMIT ?"
WITH_RESULT = "SELECT count(*), count(result_seq) FROM calls WHERE tool = ?"
WITH_KIND = "SELECT count(*) FROM calls WHERE tool = ? AND (',' || kinds || ',') LIKE ?"
RECENT = """SELECT trace_id, call_id, last_ts, worst, errors, warnings, infos, kinds, status_code,
 analyzed_version = version AS analyzed,
 arguments_seq IS NOT NULL AND request_seq IS NOT NULL AND response_seq IS NOT NULL AS complete
 FROM calls WHERE tool = ? ORDER BY last_ts DESC LIMIT ?"""


def tool_summaries(
    store, after: str | None = None, limit: int | None = None
) -> tuple[list[dict], str | None]:
    """Return a page of the tools with a contract or calls.

    In name order after `after` (every one when limit is None): calls, calls with findings, last
    seen, contract or not, open problems and the newest SHOWN_RELEASES releases its calls came from
    (`release_count` says how many); and the name to page on after, or None."""
    store.catch_up_for_read()
    names = tool_names_after(store, after or "", limit)
    more = limit is not None and len(names) > limit
    names = names[:limit] if limit is not None else names
    in_names = CONTRACTS_IN.format(in_json=store.sql.IN_JSON_LIST)
    contracts = {row[0] for row in store.db.execute(in_names, (dumps(names),))}
    sums = store.db.execute(TOTALS.format(in_json=store.sql.IN_JSON_LIST), (dumps(names),))
    totals = {tool: (calls, findings) for tool, calls, findings in sums}
    open_problems = dict(store.db.execute(OPEN_PROBLEMS).fetchall())
    releases = releases_by_tool(store, names)
    out = []
    for name in names:
        calls, findings = totals.get(name, (0, 0))
        last = store.db.execute(LAST_SEEN, (name,)).fetchone()[0] if calls else None
        out.append(
            {
                "name": name,
                "calls": calls,
                "with_findings": findings,
                "last_seen": last,
                "contract": name in contracts,
                "open_problems": int(open_problems.get(name, 0)),
                "releases": releases.get(name, [])[:SHOWN_RELEASES],
                "release_count": len(releases.get(name, [])),
            }
        )
    return out, (names[-1] if more else None)


def tool_names_after(store, after: str, limit: int | None) -> list[str]:
    """Return up to limit + 1 names of tools after `after`, in name order.

    Tools with a contract or calls; every one when limit is None. The contracts' names and a skip
    through trace_tools' index from there, merged."""
    wanted = EVERY if limit is None else limit + 1
    named = [row[0] for row in store.db.execute(CONTRACT_NAMES_AFTER, (after, wanted))]
    called = [row[0] for row in store.db.execute(CALLED_TOOLS_AFTER, (after, wanted))]
    merged = sorted(set(named) | set(called) - {NO_TOOL})
    return merged if limit is None else merged[: limit + 1]


def way_back_counts(store, tool: str, kinds) -> dict:
    """Count a tool's calls, those with a result, and those with each kind.

    Each of `kinds` (the way back's)."""
    calls, with_result = store.db.execute(WITH_RESULT, (tool,)).fetchone()
    counts = {"calls": calls, "with_result": with_result}
    for kind in kinds:
        counts[kind] = (
            store.db.execute(WITH_KIND, (tool, f"%,{kind},%")).fetchone()[0] if with_result else 0
        )
    return counts


def releases_by_tool(store, tools: list[str]) -> dict[str, list[str]]:
    """Return {tool: the releases its calls came from} of these tools.

    Newest first seen first (calls_by_tool_time, then each call's row)."""
    firsts: dict[str, dict[str, str]] = {}
    sql = RELEASES_OF_TOOLS.format(in_json=store.sql.IN_JSON_LIST)
    for release, tool, first in store.db.execute(sql, (dumps(tools),)).fetchall():
        seen = firsts.setdefault(tool, {})
        seen[release] = min(seen.get(release, first), first)
    return {
        tool: sorted(seen, key=lambda r: (seen[r], r), reverse=True)
        for tool, seen in firsts.items()
    }


def recent_calls(store, tool: str, limit: int = 50) -> list[dict]:
    """Return a tool's newest calls with their severity and finding kinds.

    And whether each is analysed yet and complete (its arguments, request and response came)."""
    rows = store.db.query(RECENT, (tool, limit))
    return [
        {
            **row,
            "kinds": [k for k in (row["kinds"] or "").split(",") if k],
            "analyzed": bool(row["analyzed"]),
            "complete": bool(row["complete"]),
        }
        for row in rows
    ]


def url_templates(store, tool: str, limit: int = 200) -> list[tuple[str, int]]:
    """Return the URL templates a tool's newest calls showed, most common first.

    Such as `/v1/invoices/{invoiceId}/pay`."""
    counts = Counter()
    for (text,) in store.db.execute(RECENT_ANALYSES, (tool, limit)):
        template = (loads(text) or {}).get("url_template") if text else None
        if isinstance(template, str):
            counts[template] += 1
    return counts.most_common(3)


def known_tool(store, name: str) -> bool:
    """Say whether a tool has a contract, any call or an acknowledged event."""
    store.catch_up_for_read()
    # an event another node is projecting (PostgreSQL's catch-up skips them) is still queued, or
    # in calls once that projection commits: asked in this order, one of the two finds it
    return (
        store.get_tool(name) is not None
        or _has_calls(store, name)
        or bool(store.db.execute(store.sql.TOOL_UNPROJECTED, (name,)).fetchone()[0])
        or _has_calls(store, name)
    )


def _has_calls(store, name: str) -> bool:
    return (
        store.db.execute("SELECT 1 FROM calls WHERE tool = ? LIMIT 1", (name,)).fetchone()
        is not None
    )
