"""Plain-text and Markdown renderings of an analysis, for the CLI and for tickets."""

from ..common.stages import NAMES
from ..common.words import counted

SEVERITY_ORDER = ("error", "warning", "info")
SNAPSHOT_NAMES = NAMES
# Characters of payloads that must not act on the text around them: bidi controls would reorder it
# (Trojan Source), other control characters (NUL...) vanish or break it. Shown as \u escapes.
_INVISIBLE = [
    *range(0x00, 0x09),
    0x0B,
    0x0C,
    *range(0x0E, 0x20),
    0x7F,
    *range(0x80, 0xA0),
    *map(ord, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"),
]
VISIBLE_CONTROLS = {code: f"\\u{code:04x}" for code in _INVISIBLE}


def visible(text: str) -> str:
    """Return text with its control characters written as visible escapes (\\u202e)."""
    return text.translate(VISIBLE_CONTROLS)


# For text that must stay one line (or one tab-separated field) of a terminal's output: a carriage
# return would let a payload overwrite what was printed before it.
ONE_LINE_CONTROLS = {**VISIBLE_CONTROLS, **{code: f"\\u{code:04x}" for code in (0x09, 0x0A, 0x0D)}}


def one_line(text: str) -> str:
    """Return text as visible() does, its tabs and line breaks escaped too."""
    return text.translate(ONE_LINE_CONTROLS)


def end_text(end: dict | None) -> str:
    """Name one end of a finding.

    'request /limit' (the whole document is '(root)')."""
    if not end:
        return "-"
    return f"{end['snapshot']} {end['path'] or '(root)'}"


def finding_line(finding: dict) -> str:
    """One finding as a line: severity, kind, message and both ends."""
    ends = f"{end_text(finding.get('left'))} -> {end_text(finding.get('right'))}"
    return f"{finding['severity']:7} {finding['kind']:15} {finding['message']}  ({ends})"


def validation_lines(validation: dict) -> list[str]:
    """Every validation error as 'snapshot path: message' lines."""
    lines = []
    for name in SNAPSHOT_NAMES:
        result = validation.get(name) or {}
        for error in result.get("errors", []):
            hint = f" ({error['hint']})" if error.get("hint") else ""
            lines.append(f"{name} {error['path'] or '(root)'}: {error['message']}{hint}")
    return lines


def format_check(result: dict) -> str:
    """Render the result of `tracediff check` for a terminal."""
    lines = []
    invalid = validation_lines(result.get("validation", {}))
    if invalid:
        lines.append("Validation errors:")
        lines += [f"  {line}" for line in invalid]
    if result.get("findings"):
        lines.append("Findings:")
        lines += [f"  {finding_line(f)}" for f in result["findings"]]
    summary = result.get("summary", {})
    counts = ", ".join(counted(summary.get(s, 0), s) for s in SEVERITY_ORDER)
    lines.append(f"{counts}; {counted(len(invalid), 'validation error')}")
    return "\n".join(lines)
