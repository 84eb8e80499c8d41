"""The per-tool strip above the trace list.

Bar geometry for a server-rendered SVG."""

from datetime import datetime, timedelta
from urllib.parse import urlencode

from markupsafe import Markup, escape

from ...store.hours import NO_TOOL

BAR_WIDTH = 4
BAR_GAP = 1
# px: a short range gets wider bars, so six hours fill the strip as a week does
STRIP_WIDTH = 840
HEIGHT = 28
# px: an hour with one call stays visible
MIN_BAR = 4


def next_hour(hour: str) -> str:
    """Return the hour after 'YYYY-MM-DDTHH' as 'YYYY-MM-DDTHH:00:00'."""
    return (datetime.strptime(hour, "%Y-%m-%dT%H") + timedelta(hours=1)).strftime(
        "%Y-%m-%dT%H:00:00"
    )


def hour_link(prefix: str, hour: str, end: str) -> str:
    """Return the list's query string for one hour.

    The encoded filters, since the hour, until the next."""
    # until has no 'Z', so it sorts before every stored time of the next hour ('...:00Z').
    return f"?{prefix}{'&' if prefix else ''}since={hour}%3A00%3A00&until={end}%3A00%3A00"


def strip_rows(
    strip: dict, filters: dict | None = None, list_url: str = "/", height: int = HEIGHT
) -> list[dict]:
    """Return one row per tool.

    Its name, totals and its bars drawn as SVG (`svg`).

    Heights are relative to the tool's own busiest hour; the counts are in each bar's tooltip.
    Each bar links to the list (`list_url`) at that tool and hour, keeping the other `filters`."""
    hours = strip["hours"]
    ends = [*hours[1:], next_hour(hours[-1])[:13]] if hours else []
    slot = _slot(len(hours))
    rows = []
    for tool, cells in sorted(strip["tools"].items()):
        # the list cannot filter to calls without a tool: that row's links keep only the hour
        prefix = urlencode({**(filters or {}), **({} if tool == NO_TOOL else {"tool": tool})})
        # each tool on its own scale: a quiet tool's step after a deploy shows as well as a busy
        # one's
        peak, name = max(cell["calls"] for cell in cells.values()), escape(tool)
        bars = [
            _bar(
                position * slot,
                slot - BAR_GAP,
                cells[hour],
                name,
                hour,
                list_url + hour_link(prefix, hour, ends[position]),
                peak,
                height,
            )
            for position, hour in enumerate(hours)
            if hour in cells
        ]
        rows.append(
            {
                "tool": tool,
                "filter_tool": None if tool == NO_TOOL else tool,
                "svg": Markup("".join(bars)),
                "total": sum(c["calls"] for c in cells.values()),
                "findings": sum(c["findings"] for c in cells.values()),
            }
        )
    return rows


def _bar(
    x: int, width: int, cell: dict, tool: Markup, hour: str, href: str, peak: int, height: int
) -> str:
    """Draw one hour's bar.

    A full-height link target, the calls and the share with findings, a tooltip."""
    # One f-string per bar, not a dozen template expressions: the week of ten tools is 1,680 bars.
    calls, findings = int(cell["calls"]), int(cell["findings"])
    calls_h = max(MIN_BAR, round(height * calls / peak))
    findings_h = round(calls_h * findings / calls) if findings else 0
    findings_rect = (
        f'<rect class="bar-findings" x="{x}" y="{30 - findings_h}" width="{width}" '
        f'height="{findings_h}"/>'
        if findings_h
        else ""
    )
    return (
        f'<a href="{escape(href)}"><title>{tool} {escape(hour.replace("T", " "))}:00: {calls} '
        f"calls, {findings} "
        f'with findings</title><rect class="bar-hit" x="{x}" width="{width}" height="30"/><rect '
        'class="bar-calls" '
        f'x="{x}" y="{30 - calls_h}" width="{width}" height="{calls_h}"/>{findings_rect}</a>'
    )


def strip_width(strip: dict) -> int:
    """Return the SVG width for the strip's hours."""
    return max(1, len(strip["hours"]) * _slot(len(strip["hours"])))


def _slot(hours: int) -> int:
    """Return the px per hour.

    The week's 5 px, wider for a shorter range (up to 40 px)."""
    return max(BAR_WIDTH + BAR_GAP, min(40, STRIP_WIDTH // max(1, hours)))
