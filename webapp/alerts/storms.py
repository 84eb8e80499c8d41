"""No alert storms: which problem changes alert one by one, which are quiet, and which fold into a summary.

A problem first seen long before it was analysed comes from a backfill of old logs: it opens quietly.
A problem opened by a re-analysis (`reanalysed`: only calls grouped again from the snapshots they were
grouped from before showed it) never alerts on its own; such problems fold into one summary. When more
than a few problems open at once (a new tool's first hour), one summary says so instead of one each.
"""
from datetime import datetime, timedelta, timezone

BACKFILL_AGE = timedelta(hours=1)
SUMMARY_AT = 5


def plan(changes: list[tuple[str, dict]], now: datetime | None = None) -> list[tuple[str, str, dict]]:
    """Turn (event, problem) changes into (event, subject, data) messages to write."""
    now = now or datetime.now(timezone.utc)
    fresh_new = [p for event, p in changes if event == "new" and not _backfilled(p, now)]
    reanalysed = [p for event, p in changes if event == "reanalysed"]
    out = [(event, p["id"], p) for event, p in changes if event not in ("new", "reanalysed")]
    folded = reanalysed + (fresh_new if len(fresh_new) > SUMMARY_AT else [])
    if folded:
        out.append(("new", "summary", _summary(folded, by_reanalysis=len(folded) == len(reanalysed))))
    if len(fresh_new) <= SUMMARY_AT:
        out += [("new", p["id"], p) for p in fresh_new]
    return out


def _summary(problems: list[dict], by_reanalysis: bool) -> dict:
    worst = "error" if any(p.get("severity") == "error" for p in problems) else "warning"
    how = " by a re-analysis" if by_reanalysis else " at once"
    return {"summary": True, "title": f"{len(problems)} new problem{'s' if len(problems) != 1 else ''}{how}",
            "count": len(problems), "severity": worst, "tool": None, "kind": None, "reanalysis": by_reanalysis,
            "problems": [{k: p.get(k) for k in ("id", "tool", "kind", "left", "right", "calls")}
                         for p in problems[:20]], "permalink_path": "/problems"}


def _backfilled(problem: dict, now: datetime) -> bool:
    seen = problem.get("first_seen")
    try:
        first = datetime.fromisoformat(seen.replace("Z", "+00:00"))
    except (AttributeError, ValueError):
        return False
    return now - first > BACKFILL_AGE
