"""What the trace page shows, computed from a stored trace.

No Flask, no database."""

from ...analysis import rank
from ...common.stages import spelt
from ...inference.hints import map_command, next_stage, rename_guesses
from ...reports.anchors import finding_anchors
from ...reports.text import end_text
from .aligned import counted_rows, full_rows, stages
from .ends import ICONS, WITH_RESULT, finding_places
from .tree import BIG_PAYLOAD, TreeOptions, node_id, payload_size, tree_tokens

SHOWN_HEADERS = (
    "content-type",
    "content-length",
    "retry-after",
    "x-request-id",
    "request-id",
    "idempotency-key",
    "traceparent",
    "user-agent",
    "location",
    "www-authenticate",
)


def select_call(trace: dict, call_id: str | None) -> dict:
    """Return the call named by `call_id` (else the one to open on).

    With its alignment rebuilt in full."""
    for call in trace["calls"]:
        if call["call_id"] == call_id:
            return with_full_alignment(call)
    return with_full_alignment(opening_call(trace["calls"]))


def opening_call(calls: list[dict]) -> dict:
    """Return the call a trace page opens on.

    The worst finding, then a call missing a stage, then the first.

    A call split in two (its arguments in one, its request and response in another) opens on the
    half with the finding, never on the half that merely has nothing to compare."""
    return min(calls, key=lambda call: (rank(call.get("worst")), call.get("complete", True)))


def badge(call: dict) -> str:
    """Return the word a call's badge says.

    Its worst severity, "incomplete" or "clean"."""
    if call.get("worst"):
        return call["worst"]
    return "clean" if call.get("complete", True) else "incomplete"


def not_received(call: dict) -> str | None:
    """Say which core stages never arrived, None when none.

    "request not received: nothing to compare"."""
    lacking = call.get("missing") or []
    return f"{spelt(lacking, 'and')} not received: nothing to compare" if lacking else None


def with_full_alignment(call: dict) -> dict:
    """Return a copy of a call whose alignment holds every row.

    Not only the stored sparse ones."""
    rows, cut, counted = counted_rows(call)
    # row_count: how many rows the uncut alignment has, counted in the same walk (the page's "N
    # more")
    full = {
        **call,
        "alignment": rows,
        "alignment_sparse": False,
        "alignment_truncated": cut,
        "row_count": counted,
    }
    # its rows hold the result cells
    return {**full, "result_column": True} if "result" in stages(call) else full


def alignment(call: dict) -> list[dict]:
    """Return every alignment row of a call.

    One per field, from its payloads and stored rows."""
    return full_rows(call)[0]


def call_marks(call: dict) -> dict[str, dict]:
    """Map each snapshot's marked pointers to (kind, severity).

    Findings over validation errors."""
    marks = {name: {} for name in WITH_RESULT}
    for name in stages(call):
        for error in (call["validation"].get(name) or {}).get("errors", []):
            marks[name].setdefault(error["path"], ("invalid", "error"))
    # errors come first, so they win
    for finding in reversed(call["findings"]):
        for end in (end for pair in finding_places(finding) for end in pair):
            if end and end["snapshot"] in marks:
                marks[end["snapshot"]][end["path"]] = (finding["kind"], finding["severity"])
    return marks


def end_id(end: dict | None) -> str | None:
    """Return the node id of one end of a finding."""
    return node_id(end["snapshot"], end["path"]) if end else None


def findings_view(call: dict) -> list[dict]:
    """Return the call's findings with their anchors.

    The ids of both ends, a one-line text and, for a dropped argument that may have been renamed,
    the request fields to pair it with."""
    out = []
    guesses = rename_guesses(call["findings"]) if call.get("tool") else {}
    anchors = finding_anchors(call["findings"])
    for index, finding in enumerate(call["findings"]):
        # a folded finding links to its first example
        left, right = finding_places(finding)[0]
        pair = guesses.get(index)
        out.append(
            {
                **finding,
                "anchor": anchors[index],
                "index": index + 1,
                "icon": ICONS[finding["severity"]],
                "left_id": end_id(left),
                "right_id": end_id(right),
                "left_text": end_text(finding.get("left")),
                "right_text": end_text(finding.get("right")),
                "number": index + 1,
                # the form declares argument -> request pairs; the way back has its command
                "pair_with": pair if pair and left["snapshot"] == "arguments" else [],
                "pair_command": _pair_command(call.get("tool"), finding, pair),
            }
        )
    return out


def _pair_command(tool: str | None, finding: dict, pair: list | None) -> str:
    """Return the command that declares a dropped field's likeliest counterpart, or ""."""
    if not pair:
        return ""
    stage = finding["left"]["snapshot"]
    return map_command(tool, [(finding["left"]["path"], pair[0])], (stage, next_stage(stage)))


def validation_view(call: dict) -> list[dict]:
    """Return every validation error with its snapshot, schema and the id of its node."""
    out = []
    for name in stages(call):
        result = call["validation"].get(name) or {}
        for error in result.get("errors", []):
            out.append(
                {
                    **error,
                    "snapshot": name,
                    "schema": result.get("schema"),
                    "id": node_id(name, error["path"]),
                    "where": f"{name} {error['path'] or '(root)'}",
                }
            )
    return out


def row_index(call: dict) -> dict[str, dict]:
    """Map each snapshot's pointers to their alignment row, for hovering counterparts."""
    index = {name: {} for name in WITH_RESULT}
    for number, row in enumerate(alignment(call)):
        for name in stages(call):
            if row.get(name) is not None:
                index[name].setdefault(row[name], number)
    return index


def tree_options(
    call: dict,
    name: str,
    marks: dict | None = None,
    rows: dict | None = None,
    reveal: str | None = None,
) -> TreeOptions:
    """Return the tree options of one snapshot.

    Marks, rows, a node to reveal, and collapsed when big."""
    payload = call["snapshots"][name]["payload"]
    marks = call_marks(call) if marks is None else marks
    rows = row_index(call) if rows is None else rows
    return TreeOptions(
        name, marks[name], rows[name], collapsed=payload_size(payload) > BIG_PAYLOAD, reveal=reveal
    )


def raw_trees(call: dict, reveal: tuple[str, str] | None = None) -> dict[str, list | None]:
    """Return the token list of each snapshot's tree (None for a missing snapshot).

    `reveal` is a deep link's (snapshot, pointer): the path to it is rendered open.
    """
    marks, rows = call_marks(call), row_index(call)
    trees = {}
    for name in stages(call):
        if not call["snapshots"][name]:
            trees[name] = None
            continue
        pointer = reveal[1] if reveal and reveal[0] == name else None
        trees[name] = tree_tokens(
            call["snapshots"][name]["payload"], tree_options(call, name, marks, rows, pointer)
        )
    return trees


def http_view(snapshot: dict | None) -> dict | None:
    """Return method, URL, status and the headers worth showing of one snapshot."""
    http = (snapshot or {}).get("http")
    if not http:
        return None
    headers = {str(k).lower(): v for k, v in (http.get("headers") or {}).items()}
    shown = {k: headers[k] for k in SHOWN_HEADERS if k in headers}
    return {
        "method": http.get("method"),
        "url": http.get("url"),
        "status": http.get("status_code"),
        "headers": shown,
        "other_headers": len(headers) - len(shown),
    }
