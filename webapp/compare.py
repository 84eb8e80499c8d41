"""Compare the same stage of two calls field by field: pure, skips equal subtrees."""
from .analysis.pointers import child
from .tree import value_text

MAX_ROWS = 2000


def _kind(a, b) -> str:
    if type(a) is not type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float))
                                       and not isinstance(a, bool) and not isinstance(b, bool)):
        return "type_changed"
    return "value_changed"


def compare_values(a, b, pointer: str = "", out: list | None = None, limit: int = MAX_ROWS) -> list[dict]:
    """Return rows {ptr, status, a, b} for every leaf of a and b; status same/changed/only_a/only_b."""
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    if a == b and type(a) is type(b):
        out.append({"ptr": pointer, "status": "same", "a": value_text(a, 200), "b": value_text(b, 200)})
    elif isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            _pair(a.get(key, _ABSENT), b.get(key, _ABSENT), child(pointer, key), out, limit)
    elif isinstance(a, list) and isinstance(b, list):
        for index in range(max(len(a), len(b))):
            _pair(a[index] if index < len(a) else _ABSENT, b[index] if index < len(b) else _ABSENT,
                  child(pointer, index), out, limit)
    else:
        out.append({"ptr": pointer, "status": _kind(a, b), "a": value_text(a, 200), "b": value_text(b, 200)})
    return out


_ABSENT = object()


def _pair(a, b, pointer, out, limit) -> None:
    if a is _ABSENT:
        out.append({"ptr": pointer, "status": "only_b", "a": "", "b": value_text(b, 200)})
    elif b is _ABSENT:
        out.append({"ptr": pointer, "status": "only_a", "a": value_text(a, 200), "b": ""})
    else:
        compare_values(a, b, pointer, out, limit)


def compare_calls(call_a: dict, call_b: dict, stages=("arguments", "request", "response")) -> list[dict]:
    """Return per stage the rows comparing call A's snapshot with call B's, and a difference count."""
    out = []
    for stage in stages:
        snap_a, snap_b = call_a["snapshots"].get(stage), call_b["snapshots"].get(stage)
        if snap_a is None or snap_b is None:
            out.append({"stage": stage, "rows": [], "differences": None,
                        "missing": [name for name, s in (("A", snap_a), ("B", snap_b)) if s is None]})
            continue
        rows = compare_values(snap_a["payload"], snap_b["payload"])
        out.append({"stage": stage, "rows": rows, "missing": [],
                    "differences": sum(row["status"] != "same" for row in rows)})
    return out
