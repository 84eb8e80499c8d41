"""Where findings end in the aligned view.

The labels a row carries, the rows added for ends no row shows, and the rows a first page keeps."""

import re

from ...common.pointers import ancestors
from ...common.stages import NAMES
from ...reports.anchors import finding_anchors

# the columns of a call: the core snapshots and each other stage it has (a result: a fourth one)
WITH_RESULT = NAMES
ICONS = {"error": "✖", "warning": "▲", "info": "ℹ"}


def finding_places(finding: dict) -> list[tuple]:
    """Return the (left, right) ends a finding shows at.

    Its own, or a folded finding's examples'."""
    if finding.get("examples"):
        return [(e.get("left"), e.get("right")) for e in finding["examples"]]
    return [(finding.get("left"), finding.get("right"))]


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


class Picker:
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
