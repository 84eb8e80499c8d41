"""The aligned view.

One row per field with its path in each of the three snapshots.

The analysis stores the rows sparse: only those the payloads cannot tell by themselves (a finding,
a counterpart at another path, an echo in the response). `full_alignment` rebuilds every row, in
the order a full walk gives them: arguments, then request leftovers, then the response.
"""

from collections.abc import Iterator
from itertools import islice

from ...common.pointers import child
from ...common.stages import CORE
from ..findings.kinds import rank
from ..rules.response_checks import echo_from
from ..snapshots.documents import documents, status_code
from ..wire.locations import external, internal, request_document

MAX_ROWS = 5000
# the aligned columns; a call's result gets a column of its own (result_column.py)
STAGES = CORE


class Full(Exception):
    """The row budget is spent."""


def children(value):
    """Return the (key or index, item) pairs of a container."""
    return value.items() if isinstance(value, dict) else enumerate(value)


def nonempty_container(value) -> bool:
    """Tell whether a value is an object or an array with something in it."""
    return isinstance(value, (dict, list)) and bool(value)


def row_marks(findings) -> dict[tuple, tuple]:
    """Map (snapshot, path) to the (kind, severity) of its most severe finding."""
    marks: dict[tuple, tuple] = {}
    for f in findings:
        for side in (f["left"], f["right"]):
            if side:
                key = (side["snapshot"], side["path"])
                if rank(f["severity"]) < rank(marks.get(key, (None, None))[1]):
                    marks[key] = (f["kind"], f["severity"])
    return marks


def marked_row(paths: dict, inherited, marks: dict) -> dict:
    """Build a row from its paths, marked with the most severe finding at any of them."""
    row = {stage: paths.get(stage) for stage in STAGES}
    mark = inherited or (None, None)
    for stage in STAGES:
        if row[stage] is not None:
            found = marks.get((stage, row[stage]))
            if found and rank(found[1]) < rank(mark[1]):
                mark = found
    row["kind"], row["severity"] = mark
    return row


def is_default(row: dict, docs: dict) -> bool:
    """Tell whether the payloads alone tell this row.

    So a sparse alignment leaves it out."""
    if row["kind"] is not None or row["severity"] is not None:
        return False
    if row["arguments"] is not None:
        same = row["arguments"] if docs.get("request") is not None else None
        return row["request"] == same and row["response"] is None
    if row["request"] is not None:
        # With arguments present, a request row is a leftover the payloads cannot place.
        return docs.get("arguments") is None and row["response"] is None
    return row["response"] is not None


def add_forced_rows(findings, marks, seen: set, rows: list) -> None:
    """Append a row for each finding none of whose ends has a row yet.

    These rows go past the budget."""
    for f in findings[:MAX_ROWS]:
        ends = [e for e in (f["left"], f["right"]) if e]
        if ends and not any((e["snapshot"], e["path"]) in seen for e in ends):
            row = marked_row({e["snapshot"]: e["path"] for e in ends}, None, marks)
            seen.update((stage, row[stage]) for stage in STAGES if row[stage] is not None)
            rows.append(row)


def full_alignment(snapshots: dict, result: dict, limit: int = MAX_ROWS) -> tuple[list[dict], bool]:
    """Return every alignment row of an analysed call and whether some were cut.

    At most `limit` rows."""
    stored = result.get("alignment") or []
    if (
        result.get("alignment_sparse") is False
        or result.get("incomplete")
        or len(stored) > MAX_ROWS
    ):
        # Stored in full already (a list past the budget is an older, full, truncated one).
        return list(stored), bool(result.get("alignment_truncated")) or len(stored) > MAX_ROWS
    status = status_code(snapshots.get("response"))
    docs, located = result_documents(snapshots, result)
    return expand(docs, stored, result.get("findings") or [], status, limit, located)


def result_documents(snapshots: dict, result: dict) -> tuple[dict, bool]:
    """Return a call's row documents and whether its request is located.

    A located request had its URL and headers read: its rows name `query:/...` fields, under the
    request's location keys."""
    docs = documents(snapshots)
    if not result.get("located"):
        return docs, False
    docs["request"] = request_document(snapshots, result.get("request_template"))
    return docs, True


def expand(
    docs: dict,
    stored: list[dict],
    findings: list[dict],
    status: int | None = None,
    limit: int = MAX_ROWS,
    located: bool = False,
) -> tuple[list[dict], bool]:
    """Rebuild the full rows from the documents and the sparse rows.

    Return (rows, truncated)."""
    rows, cut = take(
        expanded_rows(docs, stored, status is None or status < 400, located), min(limit, MAX_ROWS)
    )
    if cut:
        add_forced_rows(findings, row_marks(findings), seen_ends(rows, findings), rows)
    return rows, cut


def expanded_rows(
    docs: dict, stored: list[dict], echoes: bool, located: bool = False
) -> Iterator[dict]:
    """Yield the full rows.

    A located request's stored rows are read in the analysis' own pointers and the rows yielded name
    its fields as findings do (`query:/page_size`)."""
    if not located:
        return Expander(docs, stored, echoes).rows()
    inside = [
        {**row, "request": internal(row["request"])} if row.get("request") else row
        for row in stored
    ]
    return _named(Expander(docs, inside, echoes).rows())


def _named(rows) -> Iterator[dict]:
    for row in rows:
        if row["request"] is not None:
            row["request"] = external(row["request"])
        yield row


def take(rows, limit: int) -> tuple[list[dict], bool]:
    """Return the first `limit` rows of an iterator and whether it held more."""
    out = list(islice(rows, limit))
    return out, next(rows, None) is not None


def seen_ends(rows: list[dict], findings: list[dict]) -> set[tuple]:
    """Return the findings' ends that some row shows at its exact path.

    What add_forced_rows asks."""
    ends = {(e["snapshot"], e["path"]) for f in findings for e in (f["left"], f["right"]) if e}
    return {(stage, row[stage]) for row in rows for stage in STAGES if (stage, row[stage]) in ends}


def _row(row: dict) -> dict:
    return {
        **{stage: row.get(stage) for stage in STAGES},
        "kind": row.get("kind"),
        "severity": row.get("severity"),
    }


class Expander:
    """Walk the documents as the full alignment does.

    Taking stored rows where they exist.

    `rows()` yields the rows one at a time, so a reader takes what it needs (the trace page: its
    first screen, then a count) and the walk builds no row it does not ask for."""

    def __init__(self, docs: dict, stored: list[dict], echoes: bool):
        self.docs, self.echoes = docs, echoes
        # (request, response) of the rows so far: echoes
        self.pairs: list[tuple] = []
        # stored rows by the path of their first stage
        self.at = {stage: {} for stage in STAGES}
        # request rows when arguments are present
        self.leftovers = []
        for row in stored:
            first = next((stage for stage in STAGES if row.get(stage) is not None), None)
            if first == "request" and docs.get("arguments") is not None:
                self.leftovers.append(row)
            elif first:
                self.at[first].setdefault(row[first], row)

    def rows(self) -> Iterator[dict]:
        """Yield the rows of the arguments, then of the request, then of the response."""
        args, request = self.docs.get("arguments"), self.docs.get("request")
        if args is not None:
            yield from self._walk("arguments", args, request is not None)
        if request is not None:
            if args is not None:
                for row in self.leftovers:
                    yield self._stored(row)
            else:
                yield from self._walk("request", request, False)
        if self.docs.get("response") is not None:
            yield from self._response()

    def _stored(self, row: dict) -> dict:
        row = _row(row)
        if row["request"] is not None and row["response"] is not None:
            self.pairs.append((row["request"], row["response"]))
        return row

    def _walk(self, stage: str, doc, same: bool) -> Iterator[dict]:
        """Yield a document's rows depth first.

        A stored row where there is one, else one per leaf."""
        # A stack of child iterators, not of (path, value) lists: a 1 MB document of 60-level chains
        # has 134,000 containers and four rows a chain, so the cost per container is what counts.
        stored = self.at[stage]
        if "" in stored or not nonempty_container(doc):
            yield self._stored(stored[""]) if "" in stored else _default(stage, "", same)
            return
        stack = [("", iter(children(doc)))]
        while stack:
            path, items = stack[-1]
            for key, value in items:
                # common.pointers.child and children(), inlined: this loop runs once per node
                here = (
                    f"{path}/{key}"
                    if type(key) is int
                    else path + "/" + key.replace("~", "~0").replace("/", "~1")
                )
                row = stored.get(here)
                if row is not None:
                    yield self._stored(row)
                elif value and isinstance(value, dict):
                    stack.append((here, iter(value.items())))
                    break
                elif value and isinstance(value, list):
                    stack.append((here, enumerate(value)))
                    break
                else:
                    yield _default(stage, here, same)
            else:
                stack.pop()

    def _response(self) -> Iterator[dict]:
        request = self.docs.get("request")
        pairs = self.pairs
        # an error body echoes nothing
        if not self.echoes or request is None:
            pairs, request = [], None
        echo = echo_from(pairs, request, self.docs["response"])
        echo_back = {rs: rq for rq, rs in echo.pairs.items()}
        stored = self.at["response"]
        stack = [("", self.docs["response"])]
        while stack:
            path, value = stack.pop()
            rq = echo_back.get(path)
            if rq is not None and rq in echo.whole:
                continue
            if nonempty_container(value):
                stack.extend(reversed([(child(path, key), item) for key, item in children(value)]))
            elif rq is None:
                yield (
                    self._stored(stored[path])
                    if path in stored
                    else _default("response", path, False)
                )


def _default(stage: str, path: str, same: bool) -> dict:
    """Return the row the payloads alone give a path.

    The same path in the request when `same`."""
    if stage == "arguments":
        return {
            "arguments": path,
            "request": path if same else None,
            "response": None,
            "kind": None,
            "severity": None,
        }
    return {
        "arguments": None,
        "request": path if stage == "request" else None,
        "response": path if stage == "response" else None,
        "kind": None,
        "severity": None,
    }
