"""Exports for incident tickets.

A Markdown summary and the fixture files of one call."""

import io
import json
import re
import shlex
import zipfile
from urllib.parse import urlencode

from ..common.stages import FIXTURES, RAW_TEXT, spelt
from ..common.times import display
from ..common.words import counted
from ..inference.contract import CONSTANT_SEGMENTS
from .anchors import finding_anchors
from .text import SEVERITY_ORDER, end_text, validation_lines, visible

# one file per stage the call has
FIXTURE_FILES = FIXTURES
# what the tool handed back to the model, when the call has it
RESULT_FILE = FIXTURES["result"]
# the call's tool and HTTP status, read by `tracediff check DIR`
CALL_FILE = "call.json"
# a stored contract's keys that are the server's own, not a contract's fields
NOT_CONTRACT_FIELDS = ("updated_at", "consumed_inferred", CONSTANT_SEGMENTS)


def _value(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:120] + "…"


# Markdown writing for every export (trace and problem summaries): payload text must stay text.
_URL_BREAKERS = re.compile(r"[<>\s\x00-\x1f\x7f]")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]()|<>#!~&{}])")


def md_text(text) -> str:
    """Write text as plain Markdown.

    Every character that could start markup (emphasis, links, HTML, headings, table cells, entities)
    is backslash-escaped, and a line break becomes a space."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).splitlines()))


def md_code(text, in_table: bool = False) -> str:
    """Write text as one inline code span that its own backticks cannot end.

    Fenced with one backtick more than its longest run; in a table cell a `|` is escaped too (GFM
    splits cells inside code)."""
    text = " ".join(str(text).splitlines()) or " "
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    padded = f" {text} " if text[0] == "`" or text[-1] == "`" else text
    if in_table:
        padded = padded.replace("|", "\\|")
    return f"{fence}{padded}{fence}"


def md_link(label: str, url) -> str:
    """Write a link with escaped text.

    Only an http(s) URL becomes a link, anything else stays text."""
    url = str(url or "")
    if not re.match(r"https?://", url, re.IGNORECASE):
        return md_text(label)
    # <, > and spaces end a <...> link
    quoted = _quote_breakers(url)
    return f"[{md_text(label)}](<{quoted}>)"


def md_url(url) -> str:
    """Write a URL as an autolink (`<https://...>`, as readable raw as rendered).

    Only an http(s) URL becomes a link, anything else stays text."""
    url = str(url or "")
    if not re.match(r"https?://", url, re.IGNORECASE):
        return md_text(url)
    return f"<{_quote_breakers(url)}>"


def _quote_breakers(url: str) -> str:
    """Percent-encode (as UTF-8) what would end a `<...>` link.

    Angle brackets, spaces, control characters."""
    return _URL_BREAKERS.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), url)


def _where(end: dict | None) -> str:
    return "-" if not end else md_code(end_text(end), in_table=True)


def call_markdown(call: dict, permalink: str, problem_url=None) -> list[str]:
    """Return the Markdown lines of one call.

    Findings with paths, values and problems, validation errors."""
    summary = call.get("summary") or {}
    counts = ", ".join(counted(summary.get(s, 0), s) for s in SEVERITY_ORDER)
    lines = [
        f"### {md_text(call.get('tool') or 'unknown tool')} "
        f"{md_code(call['call_id'] or '(default call)')}",
        "",
        f"- Time: {display(call.get('first_ts'))} to {display(call.get('last_ts'))}",
        f"- HTTP status: {call.get('status_code') or 'none'}",
        f"- Findings: {counts}",
        *_missing_line(call),
        *_result_line(call),
        f"- Link: {md_link(permalink, permalink)}",
        "",
    ]
    if call["findings"]:
        lines.append("| Severity | Kind | Where | Values | Problem | Message |")
        lines.append("|---|---|---|---|---|---|")
        for f, anchor in zip(call["findings"], finding_anchors(call["findings"])):
            where = f"{_where(f.get('left'))} -> {_where(f.get('right'))}"
            values = f"{_value(f.get('left_value'))} -> {_value(f.get('right_value'))}"
            # the anchor outlives a re-analysis
            kind = md_link(f["kind"], f"{permalink}#{anchor}")
            problem = (
                md_link(f["problem"], problem_url(f["problem"]))
                if f.get("problem") and problem_url
                else "-"
            )
            lines.append(
                f"| {f['severity']} | {kind} | {where} | {md_code(values, True)} | {problem} | "
                f"{md_text(f['message'])} |"
            )
        lines.append("")
    invalid = validation_lines(call.get("validation") or {})
    if invalid:
        lines.append("Validation errors:")
        lines += [f"- {md_text(line)}" for line in invalid]
        lines.append("")
    return lines


def _missing_line(call: dict) -> list[str]:
    """Say which stages never came.

    No findings there means nothing was compared, not a clean call."""
    lacking = call.get("missing") or []
    if not lacking:
        return []
    return [f"- Not received: {spelt(lacking, 'and')} (nothing to compare there)"]


def _result_line(call: dict) -> list[str]:
    """Say what the model got back, when the call logged it.

    Its fixture file is tool-result.json."""
    result = (call.get("snapshots") or {}).get("result")
    if not result:
        return []
    size = len(json.dumps(result["payload"], ensure_ascii=False).encode("utf-8"))
    return [f"- Result given to the model: {size:,} bytes (`{RESULT_FILE}` in the fixtures)"]


def trace_markdown(trace: dict, permalink: str, problem_url=None) -> str:
    """Return a ready-to-paste ticket summary of a trace.

    `problem_url(id)` links each finding's problem."""
    tools = sorted({c["tool"] for c in trace["calls"] if c.get("tool")})
    lines = [
        f"## tracediff: trace {md_code(trace['trace_id'])}",
        "",
        f"- Tools: {', '.join(md_text(t) for t in tools) or 'unknown'}",
        f"- Calls: {len(trace['calls'])}",
        f"- Permalink: {md_link(permalink, permalink)}",
        "",
    ]
    for call in trace["calls"]:
        lines += call_markdown(
            call, f"{permalink}?{urlencode({'call': call['call_id']})}", problem_url
        )
    return visible("\n".join(lines).rstrip() + "\n")


def check_command(call: dict, has_contract: bool) -> str:
    """Return the `tracediff check` command that replays the fixture files."""
    parts = ["tracediff check"]
    if has_contract:
        parts.append("--contract contract.json")
    for name, file in FIXTURE_FILES.items():
        if call["snapshots"].get(name):
            parts.append(f"--{name} {file}")
    told = _result_told(call)
    # what call.json's result_is_error says to the folder form
    if told is not None:
        parts.append(f"--result-is-error {str(told).lower()}")
    if call.get("status_code") is not None:
        parts.append(f"--status {call['status_code']}")
    http = _request_http(call).get("http") or {}
    for flag in ("method", "url"):
        if http.get(flag):
            parts.append(f"--{flag} {shlex.quote(http[flag])}")
    parts += [
        f"--header {shlex.quote(f'{name}: {value}')}"
        for name, value in (http.get("headers") or {}).items()
    ]
    return " ".join(parts)


def _result_told(call: dict) -> bool | None:
    """Return what the envelope said of the result, or None.

    `"is_error"`, kept in its meta; None when it said nothing."""
    told = ((call["snapshots"].get("result") or {}).get("meta") or {}).get("is_error")
    return told if isinstance(told, bool) else None


def _request_http(call: dict) -> dict:
    """Return {"http": {"method", "url", "headers"}} of the call's request.

    As stored (redacted), or {}."""
    http = ((call["snapshots"].get("request") or {}).get("http")) or {}
    kept = {k: http[k] for k in ("method", "url", "headers") if http.get(k)}
    return {"http": kept} if kept.get("url") else {}


def fixtures_zip(call: dict, contract: dict | None) -> bytes:
    """Return a zip of the call's snapshots as fixture files.

    With the contract and a README."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, file in FIXTURE_FILES.items():
            snapshot = call["snapshots"].get(name)
            if snapshot is not None:
                archive.writestr(file, _fixture_text(snapshot["payload"], name in RAW_TEXT))
        call_info = {
            "tool": call.get("tool"),
            "status": call.get("status_code"),
            **_request_http(call),
        }
        if _result_told(call) is not None:
            call_info["result_is_error"] = _result_told(call)
        archive.writestr(CALL_FILE, json.dumps(call_info, indent=2, ensure_ascii=False) + "\n")
        if contract:
            # what was learnt stays in `consumed`; naming it apart is for the server's messages, no
            # contract field; nor is the URL's constant segments' learnt text (a digest of history)
            contract = {k: v for k, v in contract.items() if k not in NOT_CONTRACT_FIELDS}
            archive.writestr(
                "contract.json", json.dumps(contract, indent=2, ensure_ascii=False) + "\n"
            )
        archive.writestr("README.md", _readme(call, bool(contract)))
    return buffer.getvalue()


def _fixture_text(payload, raw_text: bool) -> str:
    # A request body that was logged as broken JSON is written as it was sent; a stage whose file is
    # JSON whatever it holds (a result) writes its text as a JSON string.
    if isinstance(payload, str) and raw_text:
        return payload
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"


def _readme(call: dict, has_contract: bool) -> str:
    return (
        f"# Fixtures of {call.get('tool') or 'a tool call'} (call "
        f"{call['call_id'] or '(default)'})\n\n"
        "Check this folder with `tracediff check FOLDER` (any number of folders at once),\n"
        "or replay the analysis file by file with:\n\n"
        f"    {check_command(call, has_contract)}\n"
    )
