"""Counts for the trace list: traces per filter value, and calls per tool and hour."""
from dataclasses import replace

from .filters import SEVERITIES, SNAPSHOTS, STATUS_CLASSES, TraceQuery
from .listing import trace_filter_sql

STRIP_HOURS = 168


def _matching(query: TraceQuery) -> tuple[str, list]:
    """Return a SELECT of the trace ids matching the query, and its params."""
    source, _, conditions, params = trace_filter_sql(query)
    where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
    return f"SELECT t.trace_id FROM {source} {where}", params


def _grouped(db, select: str, query: TraceQuery) -> dict[str, int]:
    matching, params = _matching(query)
    rows = db.execute(select.format(matching=matching), params).fetchall()
    return {str(value): count for value, count in rows if value is not None}


def filter_counts(store, query: TraceQuery) -> dict[str, dict[str, int]]:
    """Count matching traces per value of each filter, the other filters applied."""
    db = store.db
    counts = {
        "tool": _grouped(db, "SELECT tool, count(*) FROM trace_tools WHERE trace_id IN ({matching}) "
                         "GROUP BY tool ORDER BY tool", replace(query, tool="")),
        "kind": _grouped(db, "SELECT kind, count(*) FROM trace_kinds WHERE trace_id IN ({matching}) "
                         "GROUP BY kind ORDER BY kind", replace(query, kind="")),
    }
    worst = _grouped(db, "SELECT coalesce(worst, 'pending'), count(*) FROM traces "
                     "WHERE trace_id IN ({matching}) GROUP BY 1", replace(query, severity=""))
    counts["severity"] = {s: worst.get(s, 0) for s in SEVERITIES if s != "clean"}
    counts["severity"]["clean"] = worst.get("clean", 0) + worst.get("info", 0)
    status = _grouped(db, "SELECT substr(status_code, 1, 1) || 'xx', count(DISTINCT trace_id) FROM calls "
                      "WHERE trace_id IN ({matching}) AND status_code IS NOT NULL GROUP BY 1",
                      replace(query, status=""))
    counts["status"] = {s: status.get(s, 0) for s in STATUS_CLASSES}
    matching, params = _matching(replace(query, missing=""))
    missing = db.execute("SELECT " + ", ".join(f"sum(has_{name} = 0)" for name in SNAPSHOTS)
                         + f" FROM traces WHERE trace_id IN ({matching})", params).fetchone()
    counts["missing"] = {name: count or 0 for name, count in zip(SNAPSHOTS, missing)}
    return counts


def hourly_strip(store, hours: int = STRIP_HOURS, tool: str = "", until: str = "") -> dict:
    """Return calls and calls with findings per tool and hour, over the hours up to the newest call."""
    db = store.db
    until = until or "\uffff"
    newest = db.execute("SELECT max(last_ts) FROM calls WHERE last_ts <= ?", (until,)).fetchone()[0]
    if newest is None:
        return {"hours": [], "tools": {}}
    end = db.execute("SELECT strftime('%Y-%m-%dT%H', ?)", (newest,)).fetchone()[0]
    hour_list = [row[0] for row in db.execute(
        "WITH RECURSIVE h(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM h WHERE n + 1 < ?) "
        "SELECT strftime('%Y-%m-%dT%H', ? || ':00:00', '-' || n || ' hours') FROM h ORDER BY n DESC",
        (hours, end))]
    since = hour_list[0] + ":00:00"
    sql = ("SELECT coalesce(tool, '(no tool)'), substr(last_ts, 1, 13) AS hour, count(*), "
           "sum(worst IN ('error', 'warning')) FROM calls WHERE last_ts >= ? AND last_ts <= ?")
    params = [since, until]
    if tool:
        sql += " AND tool = ?"
        params.append(tool)
    tools: dict[str, dict] = {}
    for name, hour, calls, findings in db.execute(sql + " GROUP BY 1, 2 ORDER BY 1, 2", params):
        tools.setdefault(name, {})[hour] = {"calls": calls, "findings": findings or 0}
    return {"hours": hour_list, "tools": tools}
