"""Exports for incident tickets: a Markdown summary and the fixture files of one call."""
import io
import json
import re
import zipfile
from urllib.parse import urlencode

from .anchors import finding_anchors
from .times import display
from .report import SEVERITY_ORDER, end_text, validation_lines, visible

FIXTURE_FILES = {"arguments": "tool-args.json", "request": "http-body.json", "response": "http-response.json"}
CALL_FILE = "call.json"   # the call's tool and HTTP status, read by `tracediff check DIR`


def _value(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:120] + "…"


def call_markdown(call: dict, permalink: str) -> list[str]:
    """Return the Markdown lines of one call: findings with paths and values, validation errors."""
    summary = call.get("summary") or {}
    counts = ", ".join(f"{summary.get(s, 0)} {s}" for s in SEVERITY_ORDER)
    lines = [f"### {_text(call.get('tool') or 'unknown tool')} {_code(call['call_id'] or '(default call)')}", "",
             f"- Time: {display(call.get('first_ts'))} to {display(call.get('last_ts'))}",
             f"- HTTP status: {call.get('status_code') or 'none'}",
             f"- Findings: {counts}", f"- Link: <{permalink}>", ""]
    if call["findings"]:
        lines.append("| Severity | Kind | Where | Values | Message |")
        lines.append("|---|---|---|---|---|")
        for f, anchor in zip(call["findings"], finding_anchors(call["findings"])):
            where = f"{end_text(f.get('left'))} -> {end_text(f.get('right'))}"
            values = f"{_value(f.get('left_value'))} -> {_value(f.get('right_value'))}"
            kind = f"[{f['kind']}](<{permalink}#{anchor}>)"   # the anchor outlives a re-analysis
            lines.append(f"| {f['severity']} | {kind} | {_cell(where)} | {_cell(values)} | {_cell(f['message'])} |")
        lines.append("")
    invalid = validation_lines(call.get("validation") or {})
    if invalid:
        lines.append("Validation errors:")
        lines += [f"- {_cell(line)}" for line in invalid]
        lines.append("")
    return lines


def _cell(text: str) -> str:
    """Make text safe inside a Markdown table cell."""
    return _text(text).replace("|", "\\|").replace("\n", " ")


def _text(text: str) -> str:
    """Make payload text plain in Markdown: no HTML, links, code or emphasis of its own."""
    return re.sub(r"([\\`*\[\]<])", r"\\\1", text)


def _code(text: str) -> str:
    """Write text as an inline code span, fenced with more backticks than it holds in a row."""
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    return f"{fence} {text} {fence}" if "`" in text else f"`{text}`"


def trace_markdown(trace: dict, permalink: str) -> str:
    """Return a ready-to-paste ticket summary of a trace."""
    tools = sorted({c["tool"] for c in trace["calls"] if c.get("tool")})
    lines = [f"## tracediff: trace {_code(trace['trace_id'])}", "",
             f"- Tools: {_text(', '.join(tools)) or 'unknown'}", f"- Calls: {len(trace['calls'])}",
             f"- Permalink: <{permalink}>", ""]
    for call in trace["calls"]:
        lines += call_markdown(call, f"{permalink}?{urlencode({'call': call['call_id']})}")
    return visible("\n".join(lines).rstrip() + "\n")


def check_command(call: dict, has_contract: bool) -> str:
    """Return the `tracediff check` command that replays the fixture files."""
    parts = ["tracediff check"]
    if has_contract:
        parts.append("--contract contract.json")
    for name, file in FIXTURE_FILES.items():
        if call["snapshots"].get(name):
            parts.append(f"--{name} {file}")
    if call.get("status_code") is not None:
        parts.append(f"--status {call['status_code']}")
    return " ".join(parts)


def fixtures_zip(call: dict, contract: dict | None) -> bytes:
    """Return a zip of the call's snapshots as fixture files, the contract and a README."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, file in FIXTURE_FILES.items():
            snapshot = call["snapshots"].get(name)
            if snapshot is not None:
                archive.writestr(file, _fixture_text(snapshot["payload"]))
        call_info = {"tool": call.get("tool"), "status": call.get("status_code")}
        archive.writestr(CALL_FILE, json.dumps(call_info, indent=2, ensure_ascii=False) + "\n")
        if contract:
            contract = {k: v for k, v in contract.items() if k != "updated_at"}
            archive.writestr("contract.json", json.dumps(contract, indent=2, ensure_ascii=False) + "\n")
        archive.writestr("README.md", _readme(call, bool(contract)))
    return buffer.getvalue()


def _fixture_text(payload) -> str:
    # A request body that was logged as broken JSON is written as it was sent.
    if isinstance(payload, str):
        return payload
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"


def _readme(call: dict, has_contract: bool) -> str:
    return (f"# Fixtures of {call.get('tool') or 'a tool call'} (call {call['call_id'] or '(default)'})\n\n"
            "Check this folder with `tracediff check FOLDER` (any number of folders at once),\n"
            "or replay the analysis file by file with:\n\n"
            f"    {check_command(call, has_contract)}\n")
