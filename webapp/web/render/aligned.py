"""The aligned view of the trace page.

Its rows, a page at a time, and how many are left out.

The first page holds the first rows and every row that shows a finding's end, so each finding can
be highlighted; the other rows come a page at a time ("load more", or a plain link without JS).
A folded finding shows by its examples: its normalised path (/tags/*) names no single row.
"""

import re
from dataclasses import dataclass
from itertools import chain, islice

from ...analysis import (
    MAX_ROWS,
    add_forced_rows,
    expanded_rows,
    full_alignment,
    is_located_path,
    json_error,
    request_document,
    resolve_request,
    result_document,
    result_documents,
    row_marks,
    seen_ends,
    status_code,
    with_result_column,
)
from ...common.pointers import MISSING, ancestors
from ...common.stages import CORE, NAMES, shown
from ...reports.anchors import finding_anchors
from .tree import node_id, value_text

# the columns every call shows
SNAPSHOTS = CORE
# and each other stage the call has (a result: a fourth column)
WITH_RESULT = NAMES
ICONS = {"error": "✖", "warning": "▲", "info": "ℹ"}
# rows on the first screen, besides those that show a finding
FIRST_ROWS = 200
# rows per "load more"
MORE_ROWS = 500
# about the bytes of HTML the first screen's plain rows may take (long keys, ids)
FIRST_WEIGHT = 150_000
# characters shown of a payload that is not JSON
BROKEN_CHARS = 2000
# rows counted for "N more rows not shown"; past it the page says "at least N"
COUNT_ROWS = 20_000


def full_rows(call: dict) -> tuple[list[dict], bool]:
    """Return every alignment row of a call and whether some were cut.

    Up to the analysis' budget."""
    return counted_rows(call)[:2]


def stages(call: dict) -> tuple:
    """Return the snapshots a call's views show.

    The core three, and each other one the call has."""
    snapshots = call.get("snapshots") or {}
    return shown({name for name in NAMES if snapshots.get(name)})


def counted_rows(call: dict) -> tuple[list[dict], bool, tuple | None]:
    """Return a call's rows (up to MAX_ROWS), whether cut, and the uncut counts.

    When cut, how many rows and marked rows the uncut alignment has and whether that is exact (not
    past COUNT_ROWS); else None. A call with a result gets its result cells (from the stored way
    back) on the way out."""
    rows, cut, counted = _counted_rows(call)
    if "result" in stages(call) and call.get("validation") and not call.get("result_column"):
        rows = with_result_column(rows, call["snapshots"], call.get("returned"))
    return rows, cut, counted


def _counted_rows(call: dict) -> tuple[list[dict], bool, tuple | None]:
    # not analysed yet: there is nothing to rebuild from
    if not call.get("validation"):
        return call["alignment"], bool(call.get("alignment_truncated")), None
    stored = call["alignment"]
    countable = call.get("alignment_sparse") is True and not call.get("incomplete")
    if not countable or len(stored) > MAX_ROWS:
        rows, cut = full_alignment(call["snapshots"], call)
        return rows, cut, (_count(_walk(call)) if cut and countable else None)
    walk = _walk(call)
    # One walk for both: the rows the page keeps, then a count of the rest (no second pass).
    rows = list(islice(walk, MAX_ROWS + 1))
    if len(rows) <= MAX_ROWS:
        return rows, False, None
    counted = _count(chain(rows, walk))
    rows = rows[:MAX_ROWS]
    add_forced_rows(
        call["findings"], row_marks(call["findings"]), seen_ends(rows, call["findings"]), rows
    )
    return rows, True, counted


def _walk(call: dict):
    status = status_code(call["snapshots"].get("response"))
    docs, located = result_documents(call["snapshots"], call)
    return expanded_rows(docs, call["alignment"], status is None or status < 400, located)


def _count(rows) -> tuple[int, int, bool]:
    """Count rows and marked rows, up to COUNT_ROWS: (rows, marked, exact)."""
    count = marked = 0
    for row in rows:
        if count >= COUNT_ROWS:
            # Counting a 1 MB document's 40,000 rows was most of its page's time, for one number.
            return count, marked, False
        count += 1
        marked += bool(row["kind"])
    return count, marked, True


def finding_places(finding: dict) -> list[tuple]:
    """Return the (left, right) ends a finding shows at.

    Its own, or a folded finding's examples'."""
    if finding.get("examples"):
        return [(e.get("left"), e.get("right")) for e in finding["examples"]]
    return [(finding.get("left"), finding.get("right"))]


@dataclass(frozen=True)
class Hidden:
    """How many aligned rows were left out.

    `at_least` when only a lower bound is known."""

    count: int = 0
    at_least: bool = False

    def __bool__(self) -> bool:
        return self.count > 0

    def __str__(self) -> str:
        return ("at least " if self.at_least else "") + f"{self.count:,}"


def finding_ends(call: dict) -> dict[tuple, list[dict]]:
    """Map each end of a finding to the labels of the findings ending there.

    Ends as (snapshot, path)."""
    ends: dict[tuple, list[dict]] = {}
    for finding, anchor in zip(call["findings"], finding_anchors(call["findings"])):
        label = {
            "kind": finding["kind"],
            "severity": finding["severity"],
            "icon": ICONS[finding["severity"]],
            "anchor": anchor,
        }
        for end in (end for pair in finding_places(finding) for end in pair):
            if end and end["snapshot"] in WITH_RESULT:
                ends.setdefault((end["snapshot"], end["path"]), []).append(label)
    return ends


def row_paths(row: dict) -> list[tuple]:
    """Return the (snapshot, pointer) of each cell of a row that has a path."""
    return [(name, row[name]) for name in WITH_RESULT if row.get(name) is not None]


def end_lengths(ends: dict) -> set[int]:
    """Return the lengths of the ends' pointers.

    The only prefixes of a row's path that can be an end."""
    return {len(ptr) for _, ptr in ends}


def ends_covered(paths: list[tuple], ends: dict, lengths: set[int] | None = None) -> set[tuple]:
    """Return the ends that one of `paths` is or lies below.

    A container end shows as its fields."""
    # Only prefixes as long as some end can be one: rows 60 levels deep would walk 60 ancestors
    # each.
    lengths = end_lengths(ends) if lengths is None else lengths
    return {
        (name, ptr[:n])
        for name, ptr in paths
        for n in lengths
        if n <= len(ptr) and (n == len(ptr) or ptr[n] == "/") and (name, ptr[:n]) in ends
    }


# more ends than this: no pattern (its alternatives are tried one by one)
MOST_ENDS_MATCHED = 256


class _Ends:
    """Finding ends, and a pattern per snapshot to tell a pointer at or below one.

    Most rows show no end: the pattern says so in C (asking each row for its ends was a third of a
    0.8 MB call's page)."""

    def __init__(self, ends: dict):
        self.ends, self.lengths = ends, end_lengths(ends)
        pointers: dict[str, list[str]] = {}
        for name, ptr in ends:
            pointers.setdefault(name, []).append(re.escape(ptr) + r"(?:/|\Z)")
        self.patterns = (
            {name: re.compile("|".join(found)) for name, found in pointers.items()}
            if len(ends) <= MOST_ENDS_MATCHED
            else None
        )

    def covered(self, paths: list[tuple]) -> set[tuple]:
        """Return the ends that one of `paths` is or lies below (as ends_covered)."""
        patterns = self.patterns
        if patterns is not None:
            paths = [
                (name, ptr)
                for name, ptr in paths
                if name in patterns and patterns[name].match(ptr) is not None
            ]
            if not paths:
                return set()
        return ends_covered(paths, self.ends, self.lengths)


def end_rows(rows: list[dict], ends: dict) -> list[dict]:
    """Return the rows to add for finding ends no row shows.

    The root of a broken-JSON snapshot, say."""
    covered, index = set(), _Ends(ends)
    for row in rows:
        covered |= index.covered(row_paths(row))
    added = []
    for (name, ptr), labels in ends.items():
        if (name, ptr) not in covered:
            added.append(
                {
                    **{stage: None for stage in WITH_RESULT},
                    name: ptr,
                    "kind": labels[0]["kind"],
                    "severity": labels[0]["severity"],
                }
            )
    return added


class _Picker:
    """Keep the first `limit` rows, and past it the rows of findings' ends.

    Every row that shows a finding's end or its ancestor."""

    def __init__(self, ends: dict, limit: int):
        self.ends, self.limit, self.covered, self.weight = ends, limit, set(), 0
        self.near = {(name, up) for name, ptr in ends for up in ancestors(ptr)}
        self.index = _Ends(ends)

    def keep(self, row: dict, shown: int) -> bool:
        paths = row_paths(row)
        new = self.index.covered(paths) - self.covered
        if shown < self.limit or new or any(path in self.near for path in paths):
            self.covered |= new
            # A row's HTML: its markup, its values (200 characters at most) and each pointer thrice
            # (text, data-ptr, a percent-encoded id): what the first screen's size budget counts.
            self.weight += 700 + 7 * sum(len(ptr) for _, ptr in paths)
            return True
        return False


def row_labels(row: dict, ends: dict) -> list[dict]:
    """Return one label per finding at the row's cells, else the row's own mark."""
    labels = {}
    for path in row_paths(row):
        for label in ends.get(path, []):
            labels.setdefault(label["anchor"], label)
    if not labels and row.get("kind"):
        return [
            {
                "kind": row["kind"],
                "severity": row["severity"],
                "icon": ICONS.get(row["severity"], ""),
            }
        ]
    return list(labels.values())


def cell_text(value, broken: bool) -> str:
    """Return a cell's text.

    Compact JSON, or the text itself of a payload that is not JSON."""
    if value is MISSING:
        return ""
    return (
        value[:BROKEN_CHARS] + ("…" if len(value) > BROKEN_CHARS else "")
        if broken
        else value_text(value, 200)
    )


def aligned_cells(row: dict, payloads: dict, seen: set) -> list[dict]:
    """Return the cells of a row (three, or four with a result).

    A node id goes to the first cell showing that node."""
    cells = []
    for name in payloads:
        ptr = row.get(name)
        value = MISSING if ptr is None else resolve_request(payloads[name], ptr)
        cell_id = node_id(name, ptr) if ptr is not None else None
        # a payload logged as broken JSON
        broken = ptr == "" and json_error(value) is not None
        cells.append(
            {
                "snapshot": name,
                "ptr": ptr,
                "present": value is not MISSING,
                "broken": broken,
                "text": cell_text(value, broken),
                "id": cell_id if cell_id not in seen else None,
            }
        )
        seen.add(cell_id)
    return cells


def _located(rows: list[dict]) -> bool:
    """Tell whether some row names a request field outside the body.

    `query:/page_size`."""
    return any(is_located_path(row.get("request")) for row in rows)


def aligned_rows(
    call: dict, only_diff: bool, more: int | None = None, limit: int = FIRST_ROWS
) -> tuple[list[dict], Hidden, int | None]:
    """Return one page of the aligned view's rows (three cells each).

    The rows left out, and the next page.

    The first page (`more` None) holds `limit` rows and, past them, every row showing a finding's
    end (or an ancestor of one); an end no row shows (a snapshot that is not JSON) gets a row of its
    own. `more=N` returns the rows the first page left out, from the N-th on, MORE_ROWS of them.
    """
    payloads = {name: (call["snapshots"][name] or {}).get("payload") for name in SNAPSHOTS}
    if "result" in stages(call):
        payloads["result"] = result_document(call["snapshots"])
    full, cut = full_rows(call)
    if call.get("located") or _located(full):
        payloads["request"] = request_document(call["snapshots"], call.get("request_template"))
    ends = finding_ends(call)
    extra = end_rows(full, ends)
    numbered = [(f"end-{n}", row) for n, row in enumerate(extra) if row_paths(row)[0][1] == ""]
    numbered += list(enumerate(full)) + [
        (f"end-{n}", row) for n, row in enumerate(extra) if row_paths(row)[0][1] != ""
    ]
    picker, first, rest = _Picker(ends, limit), [], []
    for index, row in numbered:
        if only_diff and not row.get("kind"):
            continue
        (first if picker.keep(row, len(first)) else rest).append((index, row))
        if picker.weight > FIRST_WEIGHT:
            # keys of a thousand characters: fewer rows fill the first screen
            picker.limit = 0
    page = first if more is None else rest[more : more + MORE_ROWS]
    after = len(rest) if more is None else more + MORE_ROWS
    rows, seen = [], set()
    for index, row in page:
        labels = row_labels(row, ends)
        rows.append(
            {
                "index": index,
                "cells": aligned_cells(row, payloads, seen),
                "labels": labels,
                "kind": row.get("kind"),
                "severity": labels[0]["severity"] if labels else None,
            }
        )
    shown = len(first) + (min(after, len(rest)) if more is not None else 0)
    next_more = (
        (0 if more is None else after) if after < len(rest) or (more is None and rest) else None
    )
    return (
        rows,
        hidden_count(call, only_diff, cut, len(first) + len(rest), shown, len(extra)),
        next_more,
    )


def hidden_count(
    call: dict, only_diff: bool, cut: bool, candidates: int, shown: int, extra: int
) -> Hidden:
    """Return how many rows the view leaves out.

    Counted in full when the alignment itself was cut."""
    if not cut:
        return Hidden(candidates - shown)
    counted = call.get("row_count")
    if counted is None:
        return Hidden(candidates - shown, at_least=True)
    total, marked, exact = counted
    total = marked if only_diff else total
    return Hidden(max(total + extra - shown, candidates - shown), at_least=not exact)
