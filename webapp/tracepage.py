"""What the trace page shows, computed from a stored trace: no Flask, no database."""
from dataclasses import dataclass

from .analysis import full_alignment
from .analysis.alignment import Expander
from .analysis.documents import documents, json_error, status_code
from .analysis.pointers import MISSING, ancestors, resolve
from .anchors import finding_anchors
from .inference.hints import map_command, rename_guesses
from .report import end_text
from .tree import BIG_PAYLOAD, TreeOptions, node_id, payload_size, tree_tokens, value_text

SNAPSHOTS = ("arguments", "request", "response")
ICONS = {"error": "✖", "warning": "▲", "info": "ℹ"}
ALIGNED_LIMIT = 500
BROKEN_CHARS = 2000    # characters shown of a payload that is not JSON
SHOWN_HEADERS = ("content-type", "content-length", "retry-after", "x-request-id", "request-id",
                 "idempotency-key", "traceparent", "user-agent", "location", "www-authenticate")


def select_call(trace: dict, call_id: str | None) -> dict:
    """Return the call named by `call_id` (else the first), with its alignment rebuilt in full."""
    for call in trace["calls"]:
        if call["call_id"] == call_id:
            return with_full_alignment(call)
    return with_full_alignment(trace["calls"][0])


def with_full_alignment(call: dict) -> dict:
    """Return a copy of a call whose alignment holds every row, not only the stored sparse ones."""
    rows, cut = full_rows(call)
    return {**call, "alignment": rows, "alignment_sparse": False, "alignment_truncated": cut,
            "stored_alignment": call["alignment"], "alignment_sparse_stored": call.get("alignment_sparse")}


def full_rows(call: dict) -> tuple[list[dict], bool]:
    """Return every alignment row of a call (up to the analysis' budget) and whether some were cut."""
    if not call.get("validation"):   # not analysed yet: there is nothing to rebuild from
        return call["alignment"], bool(call.get("alignment_truncated"))
    return full_alignment(call["snapshots"], call)


def alignment(call: dict) -> list[dict]:
    """Return every alignment row of a call, one per field, from its payloads and stored rows."""
    return full_rows(call)[0]


def call_marks(call: dict) -> dict[str, dict]:
    """Map each snapshot's marked pointers to (kind, severity), findings over validation errors."""
    marks = {name: {} for name in SNAPSHOTS}
    for name in SNAPSHOTS:
        for error in (call["validation"].get(name) or {}).get("errors", []):
            marks[name].setdefault(error["path"], ("invalid", "error"))
    for finding in reversed(call["findings"]):     # errors come first, so they win
        for end in (finding.get("left"), finding.get("right")):
            if end and end["snapshot"] in marks:
                marks[end["snapshot"]][end["path"]] = (finding["kind"], finding["severity"])
    return marks


def end_id(end: dict | None) -> str | None:
    """Return the node id of one end of a finding."""
    return node_id(end["snapshot"], end["path"]) if end else None


def findings_view(call: dict) -> list[dict]:
    """Return the call's findings with their anchors, the ids of both ends, a one-line text and,
    for a dropped argument that may have been renamed, the request fields to pair it with."""
    out = []
    guesses = rename_guesses(call["findings"]) if call.get("tool") else {}
    anchors = finding_anchors(call["findings"])
    for index, finding in enumerate(call["findings"]):
        pair = guesses.get(index)
        out.append({**finding, "anchor": anchors[index], "index": index + 1, "icon": ICONS[finding["severity"]],
                    "left_id": end_id(finding.get("left")), "right_id": end_id(finding.get("right")),
                    "left_text": end_text(finding.get("left")), "right_text": end_text(finding.get("right")),
                    "pair_with": pair or [],
                    "pair_command": map_command(call["tool"], [(finding["left"]["path"], pair[0])]) if pair else ""})
    return out


def validation_view(call: dict) -> list[dict]:
    """Return every validation error with its snapshot, schema and the id of its node."""
    out = []
    for name in SNAPSHOTS:
        result = call["validation"].get(name) or {}
        for error in result.get("errors", []):
            out.append({**error, "snapshot": name, "schema": result.get("schema"),
                        "id": node_id(name, error["path"]), "where": f"{name} {error['path'] or '(root)'}"})
    return out


@dataclass(frozen=True)
class Hidden:
    """How many aligned rows were left out; `at_least` when only a lower bound is known."""
    count: int = 0
    at_least: bool = False

    def __bool__(self) -> bool:
        return self.count > 0

    def __str__(self) -> str:
        return ("at least " if self.at_least else "") + f"{self.count:,}"


class _RowCounter(Expander):
    """Walk the documents as the full alignment does, counting rows instead of keeping them."""

    def __init__(self, docs: dict, stored: list[dict], echoes: bool):
        super().__init__(docs, stored, 0, echoes)
        self.count = self.marked = 0

    def _emit(self, row: dict) -> None:
        self.count += 1
        self.marked += bool(row.get("kind"))
        if row.get("request") is not None and row.get("response") is not None:
            self.rows.append(row)   # the response walk pairs echoes from these


def row_total(call: dict, only_diff: bool) -> int | None:
    """Return how many rows (marked rows with `only_diff`) the uncut alignment has; None if unknown."""
    stored = call.get("stored_alignment")
    if stored is None or call.get("alignment_sparse_stored") is not True or call.get("incomplete"):
        return None   # not analysed, or stored in full already: only what it holds is known
    status = status_code(call["snapshots"].get("response"))
    counter = _RowCounter(documents(call["snapshots"]), stored, status is None or status < 400)
    counter.run()
    return counter.marked if only_diff else counter.count


def finding_ends(call: dict) -> dict[tuple, list[dict]]:
    """Map each (snapshot, path) end of a finding to the labels of the findings ending there."""
    ends: dict[tuple, list[dict]] = {}
    for finding, anchor in zip(call["findings"], finding_anchors(call["findings"])):
        label = {"kind": finding["kind"], "severity": finding["severity"],
                 "icon": ICONS[finding["severity"]], "anchor": anchor}
        for end in (finding.get("left"), finding.get("right")):
            if end and end["snapshot"] in SNAPSHOTS:
                ends.setdefault((end["snapshot"], end["path"]), []).append(label)
    return ends


def row_paths(row: dict) -> list[tuple]:
    """Return the (snapshot, pointer) of each cell of a row that has a path."""
    return [(name, row[name]) for name in SNAPSHOTS if row.get(name) is not None]


def ends_covered(paths: list[tuple], ends: dict) -> set[tuple]:
    """Return the ends that one of `paths` is or lies below (a container end shows as its fields)."""
    return {(name, up) for name, ptr in paths for up in (ptr, *ancestors(ptr)) if (name, up) in ends}


def end_rows(rows: list[dict], ends: dict) -> list[dict]:
    """Return the rows to add for finding ends no row shows: the root of a broken-JSON snapshot, say."""
    covered = set()
    for row in rows:
        covered |= ends_covered(row_paths(row), ends)
    added = []
    for (name, ptr), labels in ends.items():
        if (name, ptr) not in covered:
            added.append({**{stage: None for stage in SNAPSHOTS}, name: ptr,
                          "kind": labels[0]["kind"], "severity": labels[0]["severity"]})
    return added


class _Picker:
    """Keep the first `limit` rows, and past it every row that shows a finding's end or its ancestor."""

    def __init__(self, ends: dict, limit: int):
        self.ends, self.limit, self.covered = ends, limit, set()
        self.near = {(name, up) for name, ptr in ends for up in ancestors(ptr)}

    def keep(self, row: dict, shown: int) -> bool:
        paths = row_paths(row)
        new = ends_covered(paths, self.ends) - self.covered
        if shown < self.limit or new or any(path in self.near for path in paths):
            self.covered |= new
            return True
        return False


def row_labels(row: dict, ends: dict) -> list[dict]:
    """Return one label per finding at the row's cells, else the row's own mark."""
    labels = {}
    for path in row_paths(row):
        for label in ends.get(path, []):
            labels.setdefault(label["anchor"], label)
    if not labels and row.get("kind"):
        return [{"kind": row["kind"], "severity": row["severity"], "icon": ICONS.get(row["severity"], "")}]
    return list(labels.values())


def cell_text(value, broken: bool) -> str:
    """Return a cell's text: compact JSON, or the text itself of a payload that is not JSON."""
    if value is MISSING:
        return ""
    return value[:BROKEN_CHARS] + ("…" if len(value) > BROKEN_CHARS else "") if broken else value_text(value, 200)


def aligned_cells(row: dict, payloads: dict, seen: set) -> list[dict]:
    """Return the three cells of a row; a node id goes to the first cell showing that node."""
    cells = []
    for name in SNAPSHOTS:
        ptr = row.get(name)
        value = MISSING if ptr is None else resolve(payloads[name], ptr)
        cell_id = node_id(name, ptr) if ptr is not None else None
        broken = ptr == "" and json_error(value) is not None   # a payload logged as broken JSON
        cells.append({"snapshot": name, "ptr": ptr, "present": value is not MISSING, "broken": broken,
                      "text": cell_text(value, broken), "id": cell_id if cell_id not in seen else None})
        seen.add(cell_id)
    return cells


def aligned_rows(call: dict, only_diff: bool, limit: int = ALIGNED_LIMIT) -> tuple[list[dict], Hidden]:
    """Return the aligned view's rows (three cells each) and how many rows were left out.

    Past `limit`, rows showing a finding's end (or an ancestor of one) are still shown, so every
    finding can be highlighted; an end no row shows (a snapshot that is not JSON) gets a row of its own.
    """
    payloads = {name: (call["snapshots"][name] or {}).get("payload") for name in SNAPSHOTS}
    full, cut = full_rows(call)
    ends = finding_ends(call)
    extra = end_rows(full, ends)
    numbered = [(f"end-{n}", row) for n, row in enumerate(extra) if row_paths(row)[0][1] == ""]
    numbered += list(enumerate(full)) + [(f"end-{n}", row) for n, row in enumerate(extra)
                                         if row_paths(row)[0][1] != ""]
    picker, rows, seen, candidates = _Picker(ends, limit), [], set(), 0
    for index, row in numbered:
        if only_diff and not row.get("kind"):
            continue
        candidates += 1
        if picker.keep(row, len(rows)):
            labels = row_labels(row, ends)
            rows.append({"index": index, "cells": aligned_cells(row, payloads, seen), "labels": labels,
                         "kind": row.get("kind"), "severity": labels[0]["severity"] if labels else None})
    return rows, hidden_count(call, only_diff, cut, candidates, len(rows), len(extra))


def hidden_count(call: dict, only_diff: bool, cut: bool, candidates: int, shown: int, extra: int) -> Hidden:
    """Return how many rows the view leaves out: counted in full when the alignment itself was cut."""
    if not cut:
        return Hidden(candidates - shown)
    total = row_total(call, only_diff)
    if total is None:
        return Hidden(candidates - shown, at_least=True)
    return Hidden(max(total + extra - shown, candidates - shown))


def row_index(call: dict) -> dict[str, dict]:
    """Map each snapshot's pointers to their alignment row, for hovering counterparts."""
    index = {name: {} for name in SNAPSHOTS}
    for number, row in enumerate(alignment(call)):
        for name in SNAPSHOTS:
            if row.get(name) is not None:
                index[name].setdefault(row[name], number)
    return index


def tree_options(call: dict, name: str, marks: dict | None = None, rows: dict | None = None,
                 reveal: str | None = None) -> TreeOptions:
    """Return the tree options of one snapshot: marks, rows, a node to reveal, and collapsed when big."""
    payload = call["snapshots"][name]["payload"]
    marks = call_marks(call) if marks is None else marks
    rows = row_index(call) if rows is None else rows
    return TreeOptions(name, marks[name], rows[name], collapsed=payload_size(payload) > BIG_PAYLOAD,
                       reveal=reveal)


def raw_trees(call: dict, reveal: tuple[str, str] | None = None) -> dict[str, list | None]:
    """Return the token list of each snapshot's tree (None for a missing snapshot).

    `reveal` is a deep link's (snapshot, pointer): the path to it is rendered open.
    """
    marks, rows = call_marks(call), row_index(call)
    trees = {}
    for name in SNAPSHOTS:
        if not call["snapshots"][name]:
            trees[name] = None
            continue
        pointer = reveal[1] if reveal and reveal[0] == name else None
        trees[name] = tree_tokens(call["snapshots"][name]["payload"],
                                  tree_options(call, name, marks, rows, pointer))
    return trees


def http_view(snapshot: dict | None) -> dict | None:
    """Return method, URL, status and the headers worth showing of one snapshot."""
    http = (snapshot or {}).get("http")
    if not http:
        return None
    headers = {str(k).lower(): v for k, v in (http.get("headers") or {}).items()}
    shown = {k: headers[k] for k in SHOWN_HEADERS if k in headers}
    return {"method": http.get("method"), "url": http.get("url"), "status": http.get("status_code"),
            "headers": shown, "other_headers": len(headers) - len(shown)}
