"""Compare the same stage of two calls field by field.

Pure, skips equal subtrees."""

from collections import deque

from ...analysis import external, pair_by_id, request_document, segments, url_path
from ...common import jsontext
from ...common.pointers import child
from ...common.stages import CORE
from .tree import value_text

MAX_ROWS = 2000
_ABSENT = object()


def _kind(a, b) -> str:
    if type(a) is not type(b) and not (
        isinstance(a, (int, float))
        and isinstance(b, (int, float))
        and not isinstance(a, bool)
        and not isinstance(b, bool)
    ):
        return "type_changed"
    return "value_changed"


def _row(status: str, ptr_a: str | None, ptr_b: str | None, a, b) -> dict:
    # `ptr` is where the row sits in A (in B for an item only B has); `ptr_b` is B's own place,
    # which differs when an item was paired by id or value across positions.
    return {
        "ptr": ptr_a if ptr_a is not None else ptr_b,
        "ptr_b": ptr_b or "",
        "status": status,
        "a": "" if a is _ABSENT else value_text(a, 200),
        "b": "" if b is _ABSENT else value_text(b, 200),
    }


def compare_values(
    a,
    b,
    pointer: str = "",
    out: list | None = None,
    limit: int = MAX_ROWS,
    pointer_b: str | None = None,
) -> list[dict]:
    """Return rows {ptr, ptr_b, status, a, b} for every leaf of a and b.

    Status same/changed/only_a/only_b."""
    out = [] if out is None else out
    pointer_b = pointer if pointer_b is None else pointer_b
    if len(out) >= limit:
        return out
    if a == b and type(a) is type(b):
        out.append(_row("same", pointer, pointer_b, a, b))
    elif isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            _pair(
                a.get(key, _ABSENT),
                b.get(key, _ABSENT),
                child(pointer, key),
                child(pointer_b, key),
                out,
                limit,
            )
    elif isinstance(a, list) and isinstance(b, list):
        for i, j in merged_order(pair_list(a, b), len(a), len(b)):
            _pair(
                _ABSENT if i is None else a[i],
                _ABSENT if j is None else b[j],
                None if i is None else child(pointer, i),
                None if j is None else child(pointer_b, j),
                out,
                limit,
            )
    else:
        out.append(_row(_kind(a, b), pointer, pointer_b, a, b))
    return out


def pair_list(a: list, b: list) -> list[tuple[int, int]]:
    """Pair the items of two arrays as the engine does.

    By an id-like key, else by equal value, else in order."""
    if a and b and isinstance(a[0], dict) and isinstance(b[0], dict):
        by_id = pair_by_id(a, b)
        if by_id is not None:
            return by_id
    waiting: dict[bytes, deque] = {}
    for j, value in enumerate(b):
        waiting.setdefault(_value_key(value), deque()).append(j)
    pairs, rest_a = [], []
    for i, value in enumerate(a):
        queue = waiting.get(_value_key(value))
        if queue:
            pairs.append((i, queue.popleft()))
        else:
            rest_a.append(i)
    # What no id or equal value paired is paired in order: a value changed in place stays one row.
    used = {j for _, j in pairs}
    return pairs + list(zip(rest_a, [j for j in range(len(b)) if j not in used]))


def merged_order(
    pairs: list[tuple[int, int]], len_a: int, len_b: int
) -> list[tuple[int | None, int | None]]:
    """Order pairs by A's index, with unpaired items placed among them.

    Each unpaired item of A or B goes just before the first pair that follows it."""
    left = deque(sorted(set(range(len_a)) - {i for i, _ in pairs}))
    right = deque(sorted(set(range(len_b)) - {j for _, j in pairs}))
    out: list = []
    for i, j in sorted(pairs):
        while left and left[0] < i:
            out.append((left.popleft(), None))
        while right and right[0] < j:
            out.append((None, right.popleft()))
        out.append((i, j))
    return out + [(i, None) for i in left] + [(None, j) for j in right]


def _value_key(value) -> bytes:
    try:
        return jsontext.dumps(value, option=jsontext.OPT_SORT_KEYS)
    # what JSON cannot write (a lone surrogate)
    except TypeError:
        return repr(value).encode()


def _pair(a, b, ptr_a, ptr_b, out, limit) -> None:
    if a is _ABSENT:
        out.append(_row("only_b", None, ptr_b, a, b))
    elif b is _ABSENT:
        out.append(_row("only_a", ptr_a, None, a, b))
    else:
        compare_values(a, b, ptr_a, out, limit, ptr_b)


def compare_calls(call_a: dict, call_b: dict, stages=CORE) -> list[dict]:
    """Return per stage the rows comparing two calls, and a difference count.

    The rows compare call A's snapshot with call B's."""
    out = []
    for stage in stages:
        snap_a, snap_b = call_a["snapshots"].get(stage), call_b["snapshots"].get(stage)
        if snap_a is None or snap_b is None:
            out.append(
                {
                    "stage": stage,
                    "rows": [],
                    "differences": None,
                    "missing": [name for name, s in (("A", snap_a), ("B", snap_b)) if s is None],
                }
            )
            continue
        if stage == "request" and (_url(snap_a) or _url(snap_b)):
            rows = _located_rows(call_a["snapshots"], call_b["snapshots"])
        else:
            rows = compare_values(snap_a["payload"], snap_b["payload"])
        out.append(
            {
                "stage": stage,
                "rows": rows,
                "missing": [],
                "differences": sum(row["status"] != "same" for row in rows),
            }
        )
    return out


def _url(snapshot: dict) -> str | None:
    return (snapshot.get("http") or {}).get("url")


def _located_rows(snapshots_a: dict, snapshots_b: dict) -> list[dict]:
    """Compare two requests where fields travel: body, query string, path, headers.

    A GET sends no body: its arguments are in the URL. Rows name the fields as findings do
    (`query:/status`, `path:/0`)."""
    rows = compare_values(_located(snapshots_a), _located(snapshots_b))
    for row in rows:
        row["ptr"], row["ptr_b"] = external(row["ptr"]), external(row["ptr_b"])
    return rows


def _located(snapshots: dict):
    """Return the request as the analysis reads it, its URL's path segments included."""
    request = snapshots["request"]
    document = request_document(snapshots)
    url = _url(request)
    if not isinstance(document, dict) or url is None or "path:" in document:
        return document
    parts = segments(url_path(url))
    return {**document, "path:": {str(i): part for i, part in enumerate(parts)}}
