"""Stable finding anchors.

Built from a finding's kind and paths, so a link survives re-analysis."""

import re

_UNSAFE = re.compile(r"[^A-Za-z0-9_.~/-]")


def finding_anchor(finding: dict) -> str:
    """Return e.g. "f-type_changed-arguments/limit-request/limit".

    Kind, then each end's snapshot and path."""
    # A request field outside the body (`query:/page_size`) reads request/query_3a_/page_size; body
    # paths as ever.
    ends = [
        end["snapshot"] + ("/" if end["path"][:1] not in ("", "/") else "") + end["path"]
        for end in (finding.get("left"), finding.get("right"))
        if end
    ]
    text = "-".join(["f", finding["kind"], *ends])
    # anything a URL fragment or an id would need escaped is spelled out, the same way every time
    return _UNSAFE.sub(lambda m: f"_{ord(m.group()):x}_", text)


def finding_anchors(findings: list[dict]) -> list[str]:
    """Return the anchor of each finding.

    A repeated one gets -2, -3... in order."""
    seen: dict[str, int] = {}
    out = []
    for finding in findings:
        anchor = finding_anchor(finding)
        seen[anchor] = seen.get(anchor, 0) + 1
        out.append(anchor if seen[anchor] == 1 else f"{anchor}-{seen[anchor]}")
    return out
