"""No alert storms: which problem changes alert one by one, which are quiet, and which fold into a summary.

A problem first seen long before it was analysed comes from a backfill of old logs (or a re-analysis of
old calls): it opens quietly. When more than a few problems open at once (a re-analysis after a
contract change, a new tool's first hour), one summary message says so instead of one message each.
"""
from datetime import datetime, timedelta, timezone

BACKFILL_AGE = timedelta(hours=1)
SUMMARY_AT = 5


def plan(changes: list[tuple[str, dict]], now: datetime | None = None) -> list[tuple[str, str, dict]]:
    """Turn (event, problem) changes into (event, subject, data) messages to write."""
    now = now or datetime.now(timezone.utc)
    fresh_new = [p for event, p in changes if event == "new" and not _backfilled(p, now)]
    out = [(event, p["id"], p) for event, p in changes if event != "new"]
    if len(fresh_new) > SUMMARY_AT:
        worst = "error" if any(p.get("severity") == "error" for p in fresh_new) else "warning"
        out.append(("new", "summary", {
            "summary": True, "title": f"{len(fresh_new)} new problems at once", "count": len(fresh_new),
            "severity": worst, "tool": None, "kind": None,
            "problems": [{k: p.get(k) for k in ("id", "tool", "kind", "left", "right", "calls")}
                         for p in fresh_new[:20]], "permalink_path": "/problems"}))
    else:
        out += [("new", p["id"], p) for p in fresh_new]
    return out


def _backfilled(problem: dict, now: datetime) -> bool:
    seen = problem.get("first_seen")
    try:
        first = datetime.fromisoformat(seen.replace("Z", "+00:00"))
    except (AttributeError, ValueError):
        return False
    return now - first > BACKFILL_AGE
