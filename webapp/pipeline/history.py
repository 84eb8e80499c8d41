"""What a tool's earlier releases say about a call of its newest one.

Applied to the call's analysis."""

from ..analysis import external, request_document, sort_findings, template_of, worst
from ..inference import leaves
from ..inference.constants import constants_changed, constants_gone
from ..inference.error_fields import SIDE as ERROR_SIDE
from ..inference.error_fields import lost_fields
from ..inference.evidence import merge
from ..inference.item_keys import items_renamed, lists_renamed
from ..inference.leaves import item_leaves
from ..inference.novel import became_values, earlier_fields, flag_new_fields
from ..inference.places import (
    converted_otherwise,
    flag_converted,
    flag_sent_elsewhere,
    sent_elsewhere,
)
from ..inference.way_back import judge_way_back, way_back_tables
from ..store.inference_state import MAX_PATHS_PER_TOOL
from .contracts import ToolReads
from .mappings import external_leaves, request_leaves, wire_leaves

# the other tools of a service whose error answers a tool's are judged by
MAX_SERVICE_TOOLS = 50


def tool_history(store, tool: str | None, read: ToolReads | None = None) -> tuple:
    """Return a tool's newest release, what earlier ones sent, its template and words.

    (newest release, webapp/inference/novel.py `Earlier` or None, template, the words its layer
    writes on the way back: webapp/inference/way_back.py `way_back_tables`). From `read` when
    given (`tool_reads` of this state)."""
    if not tool:
        return None, None, None, {}
    if read:
        releases, presence = read.releases, read.paths
    else:
        releases, presence = store.release_state(tool), store.path_counts(tool)
    if len(presence) >= MAX_PATHS_PER_TOOL:
        # paths past the cap were never counted: no verdict from them
        return releases.get("newest"), None, None, {}
    evidence = read.evidence if read else store.evidence(tool)
    earlier = earlier_fields(presence, releases, evidence, _service_errors(store, tool, presence))
    wanted = earlier and (
        earlier.places or earlier.constants or earlier.item_keys or earlier.lists or earlier.objects
    )
    stored = (read.stored if read else store.get_tool(tool)) if wanted else None
    template = template_of(stored) if wanted else None
    return releases.get("newest"), earlier, template, way_back_tables(presence, releases)


def _service_errors(store, tool: str, presence: dict) -> dict | None:
    """Return the error counts of every tool of a tool's services, its own among them.

    Its services are the hosts its requests went to; None when it shares none."""
    hosts = sorted(path for side, path in presence if side == "host")
    others = sorted({t for host in hosts for t in store.service_tools(host)} - {tool})
    if not others:
        return None
    pooled = {key: dict(counts) for key, counts in presence.items() if key[0] == ERROR_SIDE}
    for other in others[:MAX_SERVICE_TOOLS]:
        merge(pooled, store.side_counts(other, ERROR_SIDE))
    return pooled


def judged_by_history(analysis: dict, call: dict, history: tuple) -> dict:
    """Raise what a call of the newest release changed from every earlier release.

    The fields it adds that no earlier release sent, the arguments it sends under a new key, the
    fields its error answer lost that every earlier one carried. A word its answer was handed over
    in as the tool's earlier calls wrote it is lowered to info. Keep the analysis' order, places,
    summary and worst severity right."""
    findings = analysis.get("findings") or []
    newest, earlier, template, words = history
    lowered, raised = judge_way_back(findings, words)
    raised += flag_new_fields(findings, release_of(call), newest, earlier, analysis.get("places"))
    lost = _errors_lost(findings, call, newest, earlier)
    before = len(findings)
    if earlier and _newest_with_request(call, newest):
        for judge in (
            _sent_elsewhere,
            _constants_lost,
            _constants_changed,
            _items_renamed,
            _objects_as_values,
        ):
            raised += judge(findings, call, earlier, template)
    added = len(findings) - before
    if not raised and not lost and not lowered:
        return analysis
    places = analysis.get("places") or {}
    index = {id(f): str(i) for i, f in enumerate(findings[:before])}
    ordered = sort_findings(findings + lost)
    analysis["findings"] = ordered
    if places:
        analysis["places"] = {
            str(i): places[index[id(f)]]
            for i, f in enumerate(ordered)
            if index.get(id(f)) in places
        }
    summary = analysis.setdefault("summary", {})
    summary["info"] = max(summary.get("info", 0) - len(raised) + added + len(lowered), 0)
    summary["warning"] = max(summary.get("warning", 0) + len(raised) + len(lost) - len(lowered), 0)
    if lowered and analysis.get("worst") != "error":
        # only warnings are lowered: one of them may have been the worst
        analysis["worst"] = worst([f["severity"] for f in ordered])
    if raised or lost:
        analysis["worst"] = worst([analysis.get("worst"), "warning"])
    return analysis


def _errors_lost(findings: list[dict], call: dict, newest, earlier) -> list[dict]:
    """Return the error_shape warnings of the fields a newest call's error answer lost.

    The fields every error answer of the earlier releases carried; not those already told."""
    if earlier is None or not newest or release_of(call) != newest:
        return []
    told = {f["right"]["path"] for f in findings if f["kind"] == "error_shape" and f["right"]}
    response = call["snapshots"].get("response")
    found = lost_fields(response, earlier.error_fields.carried(response))
    return [f for f in found if f["right"]["path"] not in told]


def _newest_with_request(call: dict, newest) -> bool:
    """Say whether a call is of the newest release and has its arguments and request."""
    snaps = call["snapshots"]
    if not newest or release_of(call) != newest:
        return False
    return bool(snaps.get("arguments") and snaps.get("request"))


def _sent_elsewhere(findings: list, call: dict, earlier, template) -> list[dict]:
    """Flag the arguments a newest-release call sends under a new key, or converted.

    A key no earlier call used, where every earlier call sent them to one other; or their place,
    where every earlier call sent them as they were (webapp/inference/places.py)."""
    snaps = call["snapshots"]
    if not earlier.places:
        return []
    arguments = leaves(snaps["arguments"]["payload"])
    request = request_leaves(snaps, template)
    moves = sent_elsewhere(arguments, request, earlier.places, earlier.request)
    raised = flag_sent_elsewhere(findings, moves, arguments) if moves else []
    converted = converted_otherwise(arguments, request, earlier.places)
    return raised + (flag_converted(findings, converted) if converted else [])


def _constants_lost(findings: list, call: dict, earlier, template) -> list[dict]:
    """Add a warning for each earlier constant a newest call's request lacks.

    A request field every earlier call sent.

    One no argument explains (webapp/inference/constants.py); not one a finding already names."""
    snaps = call["snapshots"]
    if not earlier.constants:
        return []
    arguments = leaves(snaps["arguments"]["payload"])
    found = constants_gone(
        arguments, wire_leaves(snaps, template), earlier.constants, earlier.request
    )
    return _untold(findings, found, "left")


def _constants_changed(findings: list, call: dict, earlier, template) -> list[dict]:
    """Add a warning for each earlier constant a newest call sends another value in.

    A request field every earlier call sent alike (a URL's word segment, an enum the layer
    writes), no argument explains (webapp/inference/constants.py); not one a finding names."""
    snaps = call["snapshots"]
    if not earlier.texts:
        return []
    arguments = leaves(snaps["arguments"]["payload"])
    found = constants_changed(arguments, wire_leaves(snaps, template), earlier.texts)
    return _untold(findings, found, "right")


def _untold(findings: list, found: list[dict], side: str) -> list[dict]:
    """Add the found findings whose place no warning or error names yet; return them."""
    told = {
        e["path"] for f in findings if f["severity"] != "info" for e in (f["left"], f["right"]) if e
    }
    found = [f for f in found if f[side]["path"] not in told]
    findings.extend(found)
    return found


def _items_renamed(findings: list, call: dict, earlier, template) -> list[dict]:
    """Add a warning for each item key and list a newest call sends renamed.

    A key every earlier item of its list carried, a list every earlier call sent, left out for
    one no earlier call sent (webapp/inference/item_keys.py); not a place a finding names."""
    snaps = call["snapshots"]
    if not (earlier.item_keys or earlier.lists):
        return []
    document = request_document(snaps, template)
    payload = snaps["arguments"]["payload"]
    # the keys the model's arguments name: their items are the model's to shape
    argued = {
        p.rsplit("/", 1)[-1] for p in (*leaves(payload), *item_leaves(payload), *earlier.arguments)
    }
    found = items_renamed(document, earlier.item_keys, frozenset(argued), earlier.request, external)
    if earlier.lists:
        sent = {
            *external_leaves(leaves(document, wrapped=True)),
            *map(external, item_leaves(document)),
        }
        found += lists_renamed(sent, earlier.lists, earlier.request)
    return _untold(findings, found, "left")


def _objects_as_values(findings: list, call: dict, earlier, template) -> list[dict]:
    """Add a warning per value a newest call sends where earlier calls sent an object.

    Not at a place a loud finding names already (webapp/inference/novel.py `became_values`)."""
    snaps = call["snapshots"]
    if not earlier.objects:
        return []
    arguments = leaves(snaps["arguments"]["payload"])
    found = became_values(arguments, request_leaves(snaps, template), earlier)
    return _untold(findings, found, "right")


def release_of(call: dict) -> str | None:
    """Return the release a call's snapshots name.

    Its request's or its arguments' first."""
    snaps = call["snapshots"]
    mine = [s for s in (snaps.get("request"), snaps.get("arguments")) if s]
    return next((s.get("release") for s in mine if s.get("release")), None)
