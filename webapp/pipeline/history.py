"""What a tool's earlier releases say about a call of its newest one.

Applied to the call's analysis."""

from ..analysis import sort_findings, worst
from ..inference.error_fields import lost_fields
from ..inference.novel import earlier_fields, flag_new_fields
from ..store.inference_state import MAX_PATHS_PER_TOOL


def tool_history(store, tool: str | None) -> tuple:
    """Return a tool's newest release and its earlier releases' request paths.

    (newest release, request paths its earlier releases carried or None)."""
    if not tool:
        return None, None
    releases, presence = store.release_state(tool), store.path_counts(tool)
    if len(presence) >= MAX_PATHS_PER_TOOL:
        # paths past the cap were never counted: no verdict from them
        return releases.get("newest"), None
    return releases.get("newest"), earlier_fields(presence, releases)


def judged_by_history(analysis: dict, call: dict, history: tuple) -> dict:
    """Raise the fields a call of the newest release adds that no earlier release sent.

    And tell the fields its error answer lost that every earlier one carried. Keep the analysis'
    order, places, summary and worst severity right."""
    findings = analysis.get("findings") or []
    raised = flag_new_fields(findings, release_of(call), *history)
    lost = _errors_lost(findings, call, history)
    if not raised and not lost:
        return analysis
    places = analysis.get("places") or {}
    index = {id(f): str(i) for i, f in enumerate(findings)}
    ordered = sort_findings(findings + lost)
    analysis["findings"] = ordered
    if places:
        analysis["places"] = {
            str(i): places[index[id(f)]] for i, f in enumerate(ordered) if index[id(f)] in places
        }
    summary = analysis.setdefault("summary", {})
    summary["info"] = max(summary.get("info", 0) - len(raised), 0)
    summary["warning"] = summary.get("warning", 0) + len(raised) + len(lost)
    analysis["worst"] = worst([analysis.get("worst"), "warning"])
    return analysis


def _errors_lost(findings: list[dict], call: dict, history: tuple) -> list[dict]:
    """Return the error_shape warnings of the fields a newest call's error answer lost.

    The fields every error answer of the earlier releases carried; not those already told."""
    newest, earlier = history
    if earlier is None or not newest or release_of(call) != newest:
        return []
    told = {f["right"]["path"] for f in findings if f["kind"] == "error_shape" and f["right"]}
    found = lost_fields(call["snapshots"].get("response"), earlier.error_fields)
    return [f for f in found if f["right"]["path"] not in told]


def release_of(call: dict) -> str | None:
    """Return the release a call's snapshots name.

    Its request's or its arguments' first."""
    snaps = call["snapshots"]
    mine = [s for s in (snaps.get("request"), snaps.get("arguments")) if s]
    return next((s.get("release") for s in mine if s.get("release")), None)
