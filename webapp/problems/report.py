"""A problem as the body of an incident ticket, in Markdown (pure).

What broke in one line, since when and how many, a failing and a clean example with their values at
the problem's paths, the ticket links and the permalink. Payload text is hostile: it goes out as code
spans fenced longer than its own backticks, on one line, with control characters made visible.
"""
import re

import orjson

from ..analysis.pointers import resolve
from ..report import visible
from ..times import display
from . import words
from .fingerprint import grouped_by

VALUE_CHARS = 200  # a value longer than this is cut: a ticket wants the shape, not the whole document
_MISSING = object()


def _code(text) -> str:
    """Quote text as inline code that its own backticks cannot break."""
    text = visible(str(text)).replace("\n", " ")
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    return f"{fence} {text} {fence}" if "`" in text else f"`{text}`"


def _text(text) -> str:
    """Make text plain in Markdown: no HTML, links, code or emphasis of its own."""
    return re.sub(r"([\\`*_\[\]<|])", r"\\\1", visible(str(text)).replace("\n", " "))


def _json(value) -> str:
    text = orjson.dumps(value).decode()
    return text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS] + "…"


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def _end(where: dict | None) -> str:
    return "-" if not where else _code(f"{where['snapshot']} {where['path'] or '/'}")


def what_broke(problem: dict) -> str:
    """Say in words what broke, as its alert does: "/limit sent as string instead of integer (arguments -> request)"."""
    left, right = problem.get("left"), problem.get("right")
    pair = (problem.get("value_pairs") or [None])[0]  # the most common one, as the alert's line shows it
    ends = " -> ".join(end["snapshot"] for end in (left, right) if end)
    return f"{problem['tool'] or '(no tool)'}: {words.what_broke(problem, pair)}" + (f" ({ends})" if ends else "")


def _values(problem: dict, snapshots: dict | None) -> list[str]:
    """List a call's values at the problem's two ends, redacted as stored."""
    lines = []
    for end in (problem.get("left"), problem.get("right")):
        if not end:
            continue
        payload = ((snapshots or {}).get(end["snapshot"]) or {}).get("payload", _MISSING)
        value = _MISSING if payload is _MISSING else resolve(payload, end["path"] or "", _MISSING)
        shown = "(absent)" if value is _MISSING else _code(_json(value))
        lines.append(f"  - {_end(end)}: {shown}")
    return lines


def _example(title: str, call: dict | None, link: str | None, problem: dict, snapshots: dict | None) -> list[str]:
    if not call:
        return []
    release = f", release {_code(call['release'])}" if call.get("release") else ""
    return [f"- {title}: <{link}> ({_text(call.get('ts') or 'time unknown')}{release})",
            *_values(problem, snapshots)]


def problem_markdown(problem: dict, examples: dict | None = None) -> str:
    """Return a ticket body: what, since when, how many, a failing and a clean example, links, permalink.

    `examples` holds {"failing"|"clean": {"link", "snapshots"}} for the latest failing call and the last
    clean call before the problem (the page fetches them)."""
    examples = examples or {}
    exposure = problem.get("exposure") or {}
    lines = [f"## {problem['id']}: {_text(what_broke(problem))}", "",
             f"- What: {problem['kind']} ({problem['severity']}), {_end(problem['left'])} -> {_end(problem['right'])}"
             + (f", transform {_code(problem['transform'])}" if problem.get("transform") else ""),
             f"- Since: first seen {display(problem['first_seen'])}, last seen {display(problem['last_seen'])}; state {problem['state']}",
             f"- How many: {_count(problem['occurrences'], 'occurrence')} in {_count(problem['calls'], 'call')} "
             f"and {_count(problem['traces'], 'trace')}",
             f"- Releases: {', '.join(_code(r) for r in problem.get('releases') or []) or 'none named'}; "
             f"sources: {', '.join(_code(s) for s in problem.get('sources') or []) or 'none named'}"]
    if exposure:
        lines.append(f"- Exposure: {exposure['calls']} of {exposure['calls_with_path']} calls that had the path broke")
    lines += [f"- {_text(grouped_by(problem))}", "", "### Examples", ""]
    failing, clean = examples.get("failing") or {}, examples.get("clean") or {}
    lines += _example("Failing call", (problem.get("examples") or {}).get("latest"), failing.get("link"), problem,
                      failing.get("snapshots")) or ["- Failing call: none stored any more"]
    lines += _example("Last clean call before it", problem.get("last_clean_before"), clean.get("link"), problem,
                      clean.get("snapshots")) or [f"- Last clean call: none before it; nearest clean call: "
                                                  f"<{examples.get('nearest_link', '')}>"]
    pairs = problem.get("value_pairs") or []
    if pairs:
        lines += ["", "### Most common values", ""]
        lines += [f"- {_code(_json(p['left']))} -> {_code(_json(p['right']))} x {p['count']}" for p in pairs]
    links = problem.get("links") or []
    lines += ["", "### Tickets", ""] + ([f"- <{link}>" for link in links] or ["- none linked"])
    lines += ["", f"Permalink: <{problem.get('permalink', '')}>", ""]
    return "\n".join(lines)
