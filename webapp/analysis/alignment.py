"""The aligned view: one row per field with its path in each of the three snapshots."""

from .kinds import rank
from .pointers import ancestors, child

MAX_ROWS = 5000
STAGES = ("arguments", "request", "response")


class _Full(Exception):
    pass


def _children(value):
    if isinstance(value, dict):
        return value.items()
    return enumerate(value)


class Aligner:
    """Build alignment rows in document order, bounded by a row budget."""

    def __init__(self, docs: dict, pairing, echo, dropped: set, added: set, findings, limit=MAX_ROWS):
        self.docs, self.pairing, self.echo = docs, pairing, echo
        self.dropped, self.added, self.limit = dropped, added, limit
        self.diff_left = {d[0] for d in pairing.diffs} if pairing else set()
        self.echo_back = {rs: rq for rq, rs in echo.pairs.items()} if echo else {}
        self.marks: dict[tuple, tuple] = {}
        self.findings = findings
        for f in findings:
            for side in (f["left"], f["right"]):
                if side:
                    key = (side["snapshot"], side["path"])
                    if rank(f["severity"]) < rank(self.marks.get(key, (None, None))[1]):
                        self.marks[key] = (f["kind"], f["severity"])
        self.rows: list[dict] = []
        self.seen: set[tuple] = set()
        self.truncated = False

    def build(self) -> list[dict]:
        """Walk arguments, then request, then response; then add marked rows past the budget."""
        try:
            if self.docs.get("arguments") is not None:
                self._arguments("", self.docs["arguments"], None, None)
            if self.docs.get("request") is not None:
                self._request("", self.docs["request"])
            if self.docs.get("response") is not None:
                self._response("", self.docs["response"])
        except _Full:
            self.truncated = True
            for f in self.findings[:MAX_ROWS]:
                ends = [e for e in (f["left"], f["right"]) if e]
                if ends and not any((e["snapshot"], e["path"]) in self.seen for e in ends):
                    self._row({e["snapshot"]: e["path"] for e in ends}, None, force=True)
        return self.rows

    def _row(self, paths: dict, inherited, force=False) -> None:
        if len(self.rows) >= self.limit and not force:
            raise _Full
        row = {stage: paths.get(stage) for stage in STAGES}
        mark = inherited or (None, None)
        for stage in STAGES:
            if row[stage] is not None:
                self.seen.add((stage, row[stage]))
                found = self.marks.get((stage, row[stage]))
                if found and rank(found[1]) < rank(mark[1]):
                    mark = found
        row["kind"], row["severity"] = mark
        self.rows.append(row)

    def _response_for(self, rp):
        if rp is None or not self.echo:
            return None
        if rp in self.echo.pairs:
            return self.echo.pairs[rp]
        for up in ancestors(rp):
            if up in self.echo.whole:
                return self.echo.pairs[up] + rp[len(up):]
        return None

    def _arguments(self, lp, value, implied, inherited) -> None:
        rp = self.pairing.pairs.get(lp, implied)
        mark = self.marks.get(("arguments", lp)) if rp is not None and rp != lp else None
        whole = lp in self.pairing.whole
        if isinstance(value, (dict, list)) and value and lp not in self.dropped \
                and lp not in self.diff_left:
            for key, item in _children(value):
                below = child(rp, key) if whole and rp is not None else None
                self._arguments(child(lp, key), item, below, mark or inherited)
            return
        self._row({"arguments": lp, "request": rp, "response": self._response_for(rp)}, inherited)

    def _request(self, rp, value) -> None:
        lp = self.pairing.back.get(rp) if self.pairing else None
        if lp is not None and lp in self.pairing.whole:
            return
        if isinstance(value, (dict, list)) and value and rp not in self.added:
            for key, item in _children(value):
                self._request(child(rp, key), item)
        elif lp is None and ("request", rp) not in self.seen:
            self._row({"request": rp, "response": self._response_for(rp)}, None)

    def _response(self, path, value) -> None:
        rq = self.echo_back.get(path)
        if rq is not None and rq in self.echo.whole:
            return
        if isinstance(value, (dict, list)) and value:
            for key, item in _children(value):
                self._response(child(path, key), item)
        elif rq is None:
            self._row({"response": path}, None)
