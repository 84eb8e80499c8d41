"""The per-tool strip above the trace list: bar geometry for a server-rendered SVG."""
from datetime import datetime, timedelta

from .store.hours import NO_TOOL

BAR_WIDTH = 4
BAR_GAP = 1
STRIP_WIDTH = 840  # px: a short range gets wider bars, so six hours fill the strip as a week does
HEIGHT = 28
MIN_BAR = 4  # px: an hour with one call stays visible


def next_hour(hour: str) -> str:
    """Return the hour after 'YYYY-MM-DDTHH' as 'YYYY-MM-DDTHH:00:00'."""
    return (datetime.strptime(hour, "%Y-%m-%dT%H") + timedelta(hours=1)).strftime("%Y-%m-%dT%H:00:00")


def hour_range(hour: str) -> dict:
    """Return the since/until filter values that select one hour of last-seen times."""
    # until has no 'Z', so it sorts before every stored time of the next hour ('...:00Z').
    return {"since": f"{hour}:00:00", "until": next_hour(hour)}


def strip_rows(strip: dict, height: int = HEIGHT) -> list[dict]:
    """Return one row per tool with its bars: x, heights of calls and findings, counts and hour.

    Heights are relative to the tool's own busiest hour; the counts are in each bar's tooltip."""
    hours = strip["hours"]
    slot = _slot(len(hours))
    rows = []
    for tool, cells in sorted(strip["tools"].items()):
        # each tool on its own scale: a quiet tool's step after a deploy shows as well as a busy one's
        peak = max(cell["calls"] for cell in cells.values())
        bars = []
        for position, hour in enumerate(hours):
            cell = cells.get(hour)
            if not cell:
                continue
            calls_h = max(MIN_BAR, round(height * cell["calls"] / peak))
            findings_h = round(calls_h * cell["findings"] / cell["calls"]) if cell["findings"] else 0
            bars.append({"x": position * slot, "w": slot - BAR_GAP, "calls": cell["calls"],
                         "findings": cell["findings"], "calls_h": calls_h, "findings_h": findings_h,
                         "hour": hour, "range": hour_range(hour)})
        # the list cannot filter to calls without a tool: that row's links keep only the hour
        rows.append({"tool": tool, "filter_tool": None if tool == NO_TOOL else tool, "bars": bars,
                     "total": sum(c["calls"] for c in cells.values()),
                     "findings": sum(c["findings"] for c in cells.values())})
    return rows


def strip_width(strip: dict) -> int:
    """Return the SVG width for the strip's hours."""
    return max(1, len(strip["hours"]) * _slot(len(strip["hours"])))


def _slot(hours: int) -> int:
    """Return the px per hour: the week's 5 px, wider for a shorter range (up to 40 px)."""
    return max(BAR_WIDTH + BAR_GAP, min(40, STRIP_WIDTH // max(1, hours)))
