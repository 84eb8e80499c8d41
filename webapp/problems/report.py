"""A problem as a Markdown ticket summary (pure)."""
import orjson

from ..times import display
from .fingerprint import grouped_by


def _end(where: dict | None) -> str:
    return "-" if not where else f"`{where['snapshot']} {where['path'] or '/'}`"


def _json(value) -> str:
    return orjson.dumps(value).decode()


def _code(text) -> str:
    """Quote a value as inline code that its own backticks cannot break."""
    text = str(text).replace("\n", " ")
    fence = "``" if "`" in text else "`"
    return f"{fence} {text} {fence}" if fence == "``" else f"`{text}`"


def problem_markdown(problem: dict) -> str:
    """Return a ticket summary: what, where, since when, how often, releases, examples, value pairs."""
    lines = [f"## {problem['id']}: {problem['kind']} in {problem['tool'] or '(no tool)'} ({problem['state']})", "",
             f"- {_end(problem['left'])} -> {_end(problem['right'])}"
             + (f", transform {_code(problem['transform'])}" if problem.get("transform") else ""),
             f"- severity {problem['severity']}; first seen {display(problem['first_seen'])}, last seen {display(problem['last_seen'])}",
             f"- {problem['occurrences']} occurrences in {problem['calls']} calls and {problem['traces']} traces",
             f"- releases: {', '.join(_code(r) for r in problem.get('releases') or []) or 'none named'}; "
             f"sources: {', '.join(_code(s) for s in problem.get('sources') or []) or 'none named'}"]
    exposure = problem.get("exposure")
    if exposure:
        lines.append(f"- exposure: {exposure['calls']} of {exposure['calls_with_path']} calls that had the path broke")
    lines.append(f"- {grouped_by(problem)}")
    pairs = problem.get("value_pairs") or []
    if pairs:
        lines += ["", "Most common values:", ""]
        lines += [f"- {_code(_json(p['left']))} -> {_code(_json(p['right']))} x {p['count']}" for p in pairs]
    examples = problem.get("examples") or {}
    if examples.get("latest"):
        lines += ["", f"Latest trace: `{examples['latest']['trace_id']}` (call `{examples['latest']['call_id']}`)"]
    lines += ["", f"Permalink: {problem.get('permalink', '')}", ""]
    return "\n".join(lines)
