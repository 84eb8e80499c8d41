"""A crowd: 3,000 distinct tools and 3,000 distinct releases.

As one misconfigured shipper makes in an afternoon.

Crowd tool n (crowd_tool_0000 ... crowd_tool_2999) is called once, in release build-NNNN; the first
POPULAR tools are called more (tool n another (POPULAR - n) // 10 times, in release 1.0.0), so "most
used" has an order to find. Every call's request sends `limit` as a string; the calls of the first
ANALYSED tools and of the rarest one are analysed, so as many problems are listed (analysing all
3,000 tools takes 25 s on SQLite, minutes on PostgreSQL: the mapping inference commits once per
tool). Every call lands on one afternoon (fixed times, so page sizes are deterministic), through the
store's own ingest.
"""

from webapp.ingest.model import Event
from webapp.pipeline import analyze_all

TOOLS = 3000
POPULAR = 60
ANALYSED = 70
# called once, never among the most used: a search must find it
RARE = TOOLS - 1
SOURCES = ("app_intent", "foundation_models", "shortcuts")
DAY = "2026-03-02"


def tool_name(n: int) -> str:
    return f"crowd_tool_{n:04d}"


def release_name(n: int) -> str:
    return f"build-{n:04d}"


def _call(trace: int, tool: int, release: str) -> list[Event]:
    """Return the arguments and request of one call of a crowd tool."""
    common = {
        "trace_id": f"{trace:032x}",
        "call_id": "call_01",
        "tool": tool_name(tool),
        "source": SOURCES[tool % len(SOURCES)],
        "release": release,
        "ts": f"{DAY}T{12 + trace // 3600 % 6:02d}:{trace // 60 % 60:02d}:{trace % 60:02d}.000Z",
    }
    payloads = {"arguments": {"limit": 5, "n": tool}, "request": {"limit": "5", "n": tool}}
    return [
        Event(event_id=f"crowd-{trace}-{stage}", snapshot=stage, payload=payload, **common)
        for stage, payload in payloads.items()
    ]


def crowd_events(tools) -> list[Event]:
    """Return the events of these crowd tools' calls."""
    events = []
    for n in tools:
        events += _call(n, n, release_name(n))
    for n in (n for n in tools if n < POPULAR):
        for extra in range((POPULAR - n) // 10):
            events += _call(TOOLS + n * POPULAR + extra, n, "1.0.0")
    return events


def build_crowd(store, size: int = TOOLS) -> None:
    """Ingest the crowd (`size` tools: a smaller one is bench/crowds.py's baseline), analyse the
    first ANALYSED tools' calls and the last tool's, and project the rest."""
    analysed = [*range(min(ANALYSED, size - 1)), size - 1]
    for tools in (analysed, range(len(analysed) - 1, size - 1)):
        events = crowd_events(tools)
        for start in range(0, len(events), 2000):
            store.add_events(events[start : start + 2000])
        store.project_all()
        if tools is analysed:
            analyze_all(store)
