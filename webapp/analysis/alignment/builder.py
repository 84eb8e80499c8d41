"""Build the alignment rows of one analysed call from its pairing and echo.

Full or sparse."""

from ...common.pointers import ancestors, child
from ..budget import tick
from .rows import (
    MAX_ROWS,
    STAGES,
    Full,
    add_forced_rows,
    children,
    is_default,
    marked_row,
    nonempty_container,
    row_marks,
)


def _with_ancestors(paths) -> set[str]:
    """Return the paths and all their ancestors."""
    out = set()
    for path in paths:
        # Stop at the first path already in: its ancestors are in too (O(n), not O(n * depth)).
        while path not in out:
            out.add(path)
            if not path:
                break
            # parent(), inline: 1,103 leaves 60 levels deep
            path = path[: path.rfind("/")]
    return out


def _unpaired_below(pairing) -> set[str]:
    """Return the request paths a node may be unpaired under, and their ancestors.

    The walk pairs a node's children or leaves them over (`orphans_right`), unless the two nodes
    differ in type or nest too deep (a diff): under any other paired node every node is paired.
    A superset is harmless: the request rows walk into it."""
    if pairing is None:
        return set()
    roots = [path for path, _, _ in pairing.orphans_right]
    roots += [rp for _, rp, _, rv in pairing.diffs if isinstance(rv, (dict, list))]
    return _with_ancestors(roots)


class Aligner:
    """Build alignment rows in document order, bounded by a row budget.

    Sparse leaves out default rows."""

    def __init__(
        self,
        docs: dict,
        pairing,
        echo,
        dropped: set,
        added: set,
        findings,
        limit=MAX_ROWS,
        sparse=False,
    ):
        self.docs, self.pairing, self.echo = docs, pairing, echo
        self.dropped, self.added, self.limit, self.sparse = dropped, added, limit, sparse
        self.diff_left = {d[0] for d in pairing.diffs} if pairing else set()
        self.echo_back = {rs: rq for rq, rs in echo.pairs.items()} if echo else {}
        self.findings = findings
        self.marks = row_marks(findings)
        self.unpaired_below = _unpaired_below(pairing)
        self.rows: list[dict] = []
        self.seen: set[tuple] = set()
        self.truncated = False
        if sparse:
            self._index_busy()

    def _index_busy(self) -> None:
        # Subtrees holding none of these paths give only default rows: the sparse walk skips them.
        self.busy = {
            stage: _with_ancestors(p for s, p in self.marks if s == stage) for stage in STAGES
        }
        pairs = self.echo.pairs if self.echo else {}
        self.busy["request"] |= _with_ancestors(pairs)
        self.busy["response"] |= _with_ancestors(pairs.values())
        self.busy["arguments"] |= _with_ancestors(self.pairing.claimed_left if self.pairing else ())
        self.echo_whole = self.echo.whole if self.echo else set()

    def build(self) -> list[dict]:
        """Walk arguments, then request, then response.

        Then add marked rows past the budget."""
        try:
            if self.docs.get("arguments") is not None:
                self._arguments("", self.docs["arguments"], None, None)
            if self.docs.get("request") is not None:
                self._request("", self.docs["request"])
            if self.docs.get("response") is not None:
                self._response("", self.docs["response"])
        except Full:
            self.truncated = True
            # a sparse alignment needs no such rows: full_alignment adds them
            if not self.sparse:
                add_forced_rows(self.findings, self.marks, self.seen, self.rows)
        return self.rows

    def _row(self, paths: dict, inherited) -> None:
        tick()
        row = marked_row(paths, inherited, self.marks)
        keep = not (self.sparse and is_default(row, self.docs))
        if keep and len(self.rows) >= self.limit:
            raise Full
        self.seen.update((stage, row[stage]) for stage in STAGES if row[stage] is not None)
        if keep:
            self.rows.append(row)

    def _response_for(self, rp):
        if rp is None or not self.echo:
            return None
        if rp in self.echo.pairs:
            return self.echo.pairs[rp]
        for up in ancestors(rp):
            if up in self.echo.whole:
                return self.echo.pairs[up] + rp[len(up) :]
        return None

    def _quiet_request(self, rp) -> bool:
        """Tell whether no row at or below request path `rp` has a mark or a response."""
        if rp in self.busy["request"]:
            return False
        return not self.echo_whole or not any(up in self.echo_whole for up in ancestors(rp))

    def _quiet_arguments(self, lp, rp, whole: bool) -> bool:
        """Tell whether every row of the arguments subtree at `lp` is a default one."""
        if lp in self.busy["arguments"]:
            return False
        return self.docs.get("request") is None or (whole and rp == lp and self._quiet_request(rp))

    def _arguments(self, lp, value, implied, inherited) -> None:
        pairs, equal = self.pairing.pairs, self.pairing.whole
        rp = pairs.get(lp, implied)
        mark = self.marks.get(("arguments", lp)) if rp is not None and rp != lp else None
        # Equal subtrees pair child by child: a child's counterpart is implied by its parent's.
        whole = lp in equal or (implied is not None and lp not in pairs)
        if nonempty_container(value) and lp not in self.dropped and lp not in self.diff_left:
            if self.sparse and inherited is None and self._quiet_arguments(lp, rp, whole):
                return
            quick = self.sparse and not (mark or inherited) and self.docs.get("request") is not None
            for key, item in children(value):
                path = child(lp, key)
                # The common case of big arrays, tested here rather than in a call per item: an
                # item equal, or changed (one row), at its own path and unmarked is a default row.
                if (
                    quick
                    and (path in equal or path in self.diff_left)
                    and pairs[path] == path
                    and self._quiet_arguments(path, path, True)
                ):
                    continue
                below = child(rp, key) if whole and rp is not None else None
                self._arguments(path, item, below, mark or inherited)
            return
        self._row({"arguments": lp, "request": rp, "response": self._response_for(rp)}, inherited)

    def _request(self, rp, value) -> None:
        back, equal = (self.pairing.back, self.pairing.whole) if self.pairing else ({}, set())
        paired = back.get(rp)
        # A paired subtree with no unpaired node below gives no row (69,000 nested keys paired).
        if paired in equal or (paired is not None and rp not in self.unpaired_below):
            return
        if nonempty_container(value) and rp not in self.added:
            if self.sparse and self.docs.get("arguments") is None and self._quiet_request(rp):
                return
            for key, item in children(value):
                path = child(rp, key)
                # equal subtrees were aligned with the arguments
                if back.get(path) not in equal:
                    self._request(path, item)
        elif back.get(rp) is None and ("request", rp) not in self.seen:
            self._row({"request": rp, "response": self._response_for(rp)}, None)

    def _response(self, path, value) -> None:
        rq = self.echo_back.get(path)
        if rq is not None and rq in self.echo.whole:
            return
        if nonempty_container(value):
            if self.sparse and path not in self.busy["response"]:
                return
            for key, item in children(value):
                self._response(child(path, key), item)
        elif rq is None:
            self._row({"response": path}, None)
