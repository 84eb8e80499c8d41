"""A problem as the body of an incident ticket, in Markdown (pure).

What broke in one line, since when and how many, a failing and a clean example with their values at
the problem's paths, the ticket links and the permalink. Payload text is hostile: it is written with
the one set of Markdown helpers the trace export uses (webapp/reports/exports.py: escaped text, code
spans fenced longer than their own backticks, http(s) autolinks), our own words as they are, control
characters made visible.
"""

from ..analysis import request_document, resolve_request
from ..common import jsontext
from ..common.times import display
from ..common.words import counted
from ..problems import words
from ..problems.fingerprint import grouped_by
from .exports import md_code, md_text, md_url
from .text import visible

# a value longer than this is cut: a ticket wants the shape, not the whole document
VALUE_CHARS = 200
_MISSING = object()


def _json(value) -> str:
    text = jsontext.dumps(value).decode()
    return text if len(text) <= VALUE_CHARS else text[:VALUE_CHARS] + "…"


def _end(where: dict | None) -> str:
    return "-" if not where else md_code(f"{where['snapshot']} {where['path'] or '/'}")


def ticket_title(problem: dict, text=str) -> str:
    """Title a problem's ticket.

    Its tool, the phrase of what broke, the snapshots it lies between.

    "findOrders: /limit sent as string instead of integer (arguments -> request)"; `text` writes
    what may hold payload text (the tool, the phrase with its paths and values), e.g. md_text."""
    left, right = problem.get("left"), problem.get("right")
    # the most common one, as the alert's line shows it
    pair = (problem.get("value_pairs") or [None])[0]
    ends = " -> ".join(end["snapshot"] for end in (left, right) if end)
    tool = text(problem["tool"]) if problem["tool"] else "(no tool)"
    return f"{tool}: {text(words.problem_phrase(problem, pair))}" + (f" ({ends})" if ends else "")


def _values(problem: dict, snapshots: dict | None) -> list[str]:
    """List a call's values at the problem's two ends, redacted as stored."""
    lines = []
    for end in (problem.get("left"), problem.get("right")):
        if not end:
            continue
        payload = ((snapshots or {}).get(end["snapshot"]) or {}).get("payload", _MISSING)
        if end["snapshot"] == "request" and payload is not _MISSING:
            # a path may name the URL's fields (`query:/page_size`)
            payload = request_document(snapshots)
        value = (
            _MISSING
            if payload is _MISSING
            else resolve_request(payload, end["path"] or "", _MISSING)
        )
        shown = "(absent)" if value is _MISSING else md_code(_json(value))
        lines.append(f"  - {_end(end)}: {shown}")
    return lines


def _example(
    title: str, call: dict | None, link: str | None, problem: dict, snapshots: dict | None
) -> list[str]:
    if not call:
        return []
    release = f", release {md_code(call['release'])}" if call.get("release") else ""
    return [
        f"- {title}: {md_url(link)} ({md_text(call.get('ts') or 'time unknown')}{release})",
        *_values(problem, snapshots),
    ]


def problem_markdown(problem: dict, examples: dict | None = None) -> str:
    """Return a ticket body.

    What, since when, how many, a failing and a clean example, links, permalink.

    `examples` holds {"failing"|"clean": {"link", "snapshots"}} for the latest failing call and the
    last clean call before the problem (the page fetches them)."""
    examples = examples or {}
    exposure = problem.get("exposure") or {}
    lines = [
        f"## {problem['id']}: {ticket_title(problem, md_text)}",
        "",
        f"- What: {problem['kind']} ({problem['severity']}), {_end(problem['left'])} -> "
        f"{_end(problem['right'])}"
        + (f", transform {md_code(problem['transform'])}" if problem.get("transform") else ""),
        (
            f"- Since: first seen {display(problem['first_seen'])}, last seen "
            f"{display(problem['last_seen'])}; state "
            f"{problem['state']}"
        ),
        f"- How many: {counted(problem['occurrences'], 'occurrence')} in "
        f"{counted(problem['calls'], 'call')} "
        f"and {counted(problem['traces'], 'trace')}",
        "- Releases: "
        f"{', '.join(md_code(r) for r in problem.get('releases') or []) or 'none named'}; "
        f"sources: {', '.join(md_code(s) for s in problem.get('sources') or []) or 'none named'}",
    ]
    if exposure:
        lines.append(
            f"- Exposure: {exposure['calls']} of {exposure['calls_with_path']} calls that had the "
            "path broke"
        )
    lines += [f"- {grouped_by(problem, md_text)}", "", "### Examples", ""]
    failing, clean = examples.get("failing") or {}, examples.get("clean") or {}
    lines += _example(
        "Failing call",
        (problem.get("examples") or {}).get("latest"),
        failing.get("link"),
        problem,
        failing.get("snapshots"),
    ) or ["- Failing call: none stored any more"]
    lines += _example(
        "Last clean call before it",
        problem.get("last_clean_before"),
        clean.get("link"),
        problem,
        clean.get("snapshots"),
    ) or [_no_clean_before(examples.get("nearest_link"))]
    pairs = problem.get("value_pairs") or []
    if pairs:
        lines += ["", "### Most common values", ""]
        lines += [
            f"- {_pair_value(p, 'left')} -> {_pair_value(p, 'right')} x {p['count']}" for p in pairs
        ]
    links = problem.get("links") or []
    lines += ["", "### Tickets", ""] + (
        [f"- {md_url(link)}" for link in links] or ["- none linked"]
    )
    lines += ["", f"Permalink: {md_url(problem.get('permalink', ''))}", ""]
    return visible("\n".join(lines))


def _pair_value(pair: dict, side: str) -> str:
    """Write one side of a value pair.

    Its JSON as code, or "(missing)" when the field was not there."""
    return "(missing)" if side in pair.get("missing", ()) else md_code(_json(pair[side]))


def _no_clean_before(nearest_link: str | None) -> str:
    """Say there is no clean call before the problem.

    Link the nearest one when there is one."""
    if not nearest_link:
        return "- Last clean call: none before it, and none of the tool at all"
    return f"- Last clean call: none before it; nearest clean call: {md_url(nearest_link)}"
