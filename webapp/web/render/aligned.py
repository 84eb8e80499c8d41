"""The aligned view of the trace page.

Its rows, a page at a time, and how many are left out.

The first page holds the first rows and every row that shows a finding's end, so each finding can
be highlighted; the other rows come a page at a time ("load more", or a plain link without JS).
A folded finding shows by its examples: its normalised path (/tags/*) names no single row.
"""

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
from ...common.pointers import MISSING
from ...common.stages import CORE, NAMES, shown
from .ends import Picker, end_rows, finding_ends, row_labels, row_paths
from .tree import node_id, value_text

# the columns every call shows
SNAPSHOTS = CORE
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
    picker, first, rest = Picker(ends, limit), [], []
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
