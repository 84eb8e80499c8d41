"""Releases: what each release's calls showed.

In the order releases appeared, and what one broke or fixed (pure).

A release is whatever the calls' `release` says (a version, a git sha, a deploy id), so releases are
ordered by when their first call was seen, never by their names: `1.10.0` follows `1.9.0` because it
came later.
"""


def fold(rows) -> list[dict]:
    """Fold release rows into one entry per release, newest first seen first.

    Rows of (release, tool, source, first, last, calls, with_findings); a tie by name, so the order
    is stable."""
    releases: dict[str, dict] = {}
    for release, tool, source, first, last, calls, with_findings in rows:
        entry = releases.setdefault(
            release,
            {
                "release": release,
                "first_seen": first,
                "last_seen": last,
                "calls": 0,
                "with_findings": 0,
                "sources": set(),
                "tools": set(),
            },
        )
        entry["first_seen"] = min(entry["first_seen"], first)
        entry["last_seen"] = max(entry["last_seen"], last)
        entry["calls"] += int(calls)
        entry["with_findings"] += int(with_findings or 0)
        entry["sources"].add(source) if source else None
        entry["tools"].add(tool) if tool else None
    out = sorted(releases.values(), key=lambda e: e["release"])
    out.sort(key=lambda e: e["first_seen"], reverse=True)
    return [{**e, "sources": sorted(e["sources"]), "tools": sorted(e["tools"])} for e in out]


def compare(
    base: dict[int, dict], other: dict[int, dict], tool_calls: dict[str, int]
) -> dict[str, list[dict]]:
    """Say what `other` broke that `base` did not and what it fixed.

    `base` and `other` map problem ids to {"tool", "occurrences", "calls"} seen in each release;
    `tool_calls` counts the other release's calls per tool. Broke: seen in other, never in base.
    Fixed: seen in base, not in other, though other's calls used the tool (a release that never
    called the tool fixed nothing, it only did not look)."""
    broke = [{"id": pid, **seen} for pid, seen in other.items() if pid not in base]
    fixed = [
        {"id": pid, **seen, "calls_in_compare": tool_calls.get(seen["tool"], 0)}
        for pid, seen in base.items()
        if pid not in other and tool_calls.get(seen["tool"], 0)
    ]
    return {"broke": broke, "fixed": fixed}
