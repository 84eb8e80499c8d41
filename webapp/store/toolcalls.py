"""Reads for the tool pages: each tool's calls, findings and last call, and its recent calls."""

from collections import Counter

from .codec import loads
from .hours import NO_TOOL
from .releases import CALLS_BY_RELEASE

TOTALS = """SELECT tool, sum(calls), sum(findings) FROM call_hours WHERE tool != ? GROUP BY tool"""
# open: not resolved or archived (a regressed problem is open again); problems_by_tool finds each tool's
OPEN_PROBLEMS = """SELECT tool, count(*) FROM problems WHERE merged_into IS NULL AND calls > 0
 AND state IN ('open', 'regressed') AND tool IS NOT NULL GROUP BY tool"""
LAST_SEEN = "SELECT max(last_ts) FROM calls WHERE tool = ?"
RECENT_ANALYSES = "SELECT analysis FROM calls WHERE tool = ? ORDER BY last_ts DESC LIMIT ?"
WITH_RESULT = "SELECT count(*), count(result_seq) FROM calls WHERE tool = ?"
WITH_KIND = "SELECT count(*) FROM calls WHERE tool = ? AND (',' || kinds || ',') LIKE ?"
RECENT = """SELECT trace_id, call_id, last_ts, worst, errors, warnings, infos, kinds, status_code
 FROM calls WHERE tool = ? ORDER BY last_ts DESC LIMIT ?"""


def tool_summaries(store) -> list[dict]:
    """Return every tool with a contract or calls: calls, calls with findings, last seen, contract or not, its open
    problems and the releases its calls came from."""
    store.catch_up_for_read()
    contracts = {t["name"] for t in store.list_tools()}
    totals = {tool: (calls, findings) for tool, calls, findings in store.db.execute(TOTALS, (NO_TOOL,))}
    open_problems = dict(store.db.execute(OPEN_PROBLEMS).fetchall())
    releases = releases_by_tool(store)
    out = []
    for name in sorted(contracts | set(totals)):
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
                "releases": releases.get(name, []),
            }
        )
    return out


def way_back_counts(store, tool: str, kinds) -> dict:
    """Count a tool's calls, those that logged a result, and those with each of `kinds` (the way back's)."""
    calls, with_result = store.db.execute(WITH_RESULT, (tool,)).fetchone()
    counts = {"calls": calls, "with_result": with_result}
    for kind in kinds:
        counts[kind] = store.db.execute(WITH_KIND, (tool, f"%,{kind},%")).fetchone()[0] if with_result else 0
    return counts


def releases_by_tool(store) -> dict[str, list[str]]:
    """Return {tool: the releases its calls came from, newest first seen first} (calls_by_release alone)."""
    firsts: dict[str, dict[str, str]] = {}
    for release, tool, _source, first, *_ in store.db.execute(CALLS_BY_RELEASE).fetchall():
        seen = firsts.setdefault(tool, {})
        seen[release] = min(seen.get(release, first), first)
    return {tool: sorted(seen, key=lambda r: (seen[r], r), reverse=True) for tool, seen in firsts.items()}


def recent_calls(store, tool: str, limit: int = 50) -> list[dict]:
    """Return a tool's newest calls with their severity and finding kinds."""
    rows = store.db.query(RECENT, (tool, limit))
    return [{**row, "kinds": [k for k in (row["kinds"] or "").split(",") if k]} for row in rows]


def url_templates(store, tool: str, limit: int = 200) -> list[tuple[str, int]]:
    """Return the URL templates a tool's newest calls showed (`/v1/invoices/{invoiceId}/pay`), most common first."""
    counts = Counter()
    for (text,) in store.db.execute(RECENT_ANALYSES, (tool, limit)):
        template = (loads(text) or {}).get("url_template") if text else None
        if isinstance(template, str):
            counts[template] += 1
    return counts.most_common(3)


def known_tool(store, name: str) -> bool:
    """Say whether a tool has a contract or any call."""
    store.catch_up_for_read()
    return (
        store.get_tool(name) is not None
        or store.db.execute("SELECT 1 FROM calls WHERE tool = ? LIMIT 1", (name,)).fetchone() is not None
    )
