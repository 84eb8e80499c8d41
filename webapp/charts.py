"""The per-tool strip above the trace list: bar geometry for a server-rendered SVG."""
from datetime import datetime, timedelta

from .store.hours import NO_TOOL

BAR_WIDTH = 4
BAR_GAP = 1
HEIGHT = 28


def next_hour(hour: str) -> str:
    """Return the hour after 'YYYY-MM-DDTHH' as 'YYYY-MM-DDTHH:00:00'."""
    return (datetime.strptime(hour, "%Y-%m-%dT%H") + timedelta(hours=1)).strftime("%Y-%m-%dT%H:00:00")


def hour_range(hour: str) -> dict:
    """Return the since/until filter values that select one hour of last-seen times."""
    # until has no 'Z', so it sorts before every stored time of the next hour ('...:00Z').
    return {"since": f"{hour}:00:00", "until": next_hour(hour)}


def strip_rows(strip: dict, height: int = HEIGHT) -> list[dict]:
    """Return one row per tool with its bars: x, heights of calls and findings, counts and hour."""
    hours = strip["hours"]
    peak = max((cell["calls"] for cells in strip["tools"].values() for cell in cells.values()), default=0)
    rows = []
    for tool, cells in sorted(strip["tools"].items()):
        bars = []
        for position, hour in enumerate(hours):
            cell = cells.get(hour)
            if not cell:
                continue
            calls_h = max(2, round(height * cell["calls"] / peak))
            findings_h = round(calls_h * cell["findings"] / cell["calls"]) if cell["findings"] else 0
            bars.append({"x": position * (BAR_WIDTH + BAR_GAP), "w": BAR_WIDTH, "calls": cell["calls"],
                         "findings": cell["findings"], "calls_h": calls_h, "findings_h": findings_h,
                         "hour": hour, "range": hour_range(hour)})
        # the list cannot filter to calls without a tool: that row's links keep only the hour
        rows.append({"tool": tool, "filter_tool": None if tool == NO_TOOL else tool, "bars": bars,
                     "total": sum(c["calls"] for c in cells.values()),
                     "findings": sum(c["findings"] for c in cells.values())})
    return rows


def strip_width(strip: dict) -> int:
    """Return the SVG width for the strip's hours."""
    return max(1, len(strip["hours"]) * (BAR_WIDTH + BAR_GAP))
