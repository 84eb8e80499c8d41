"""Request fields the newest release sends that no call of an earlier release carried: a leak to report.

A field no argument explains is info one call at a time (a layer adds its own constants and defaults). With
history it is not: every call of the earlier releases shows what the layer adds, so a field the newest release
adds and none of them carried (an internal field a spread leaked, a consumed argument sent after all) is loud.
"""

from .epochs import established, several

MIN_EARLIER_CALLS = 5  # calls of earlier releases before their fields say what the layer adds


def earlier_fields(presence: dict, releases) -> frozenset | None:
    """Return the request paths calls of releases before the newest carried, or None without such history."""
    if not several(releases):
        return None
    carried = {path: established(c).get("calls", 0) for (side, path), c in presence.items() if side == "request"}
    if max(carried.values(), default=0) < MIN_EARLIER_CALLS:
        return None
    return frozenset(path for path, n in carried.items() if n)


def flag_new_fields(findings: list[dict], release: str | None, newest: str | None, earlier) -> list[dict]:
    """Raise to warning each quiet `added` request field of a call of the newest release that no call of an
    earlier release carried; return the findings raised."""
    if earlier is None or not release or release != newest:
        return []
    raised = []
    for f in findings:
        right = f["right"]
        if f["kind"] != "added" or f["severity"] != "info" or not right or right["snapshot"] != "request":
            continue
        path = right["path"]
        # an empty value holds no leaf the counts could have kept (an `{}` the layer always sends)
        if f.get("right_value") in (None, "", {}, []):
            continue
        if path and not _indexed(path) and not any(p == path or p.startswith(path + "/") for p in earlier):
            f["severity"] = "warning"
            f["message"] += "; no call of an earlier release sent it"
            raised.append(f)
    return raised


def _indexed(path: str) -> bool:
    """Tell whether a path is inside a list (`/items/3/name`): the leaves counted keep no such path."""
    return any(token.isdigit() for token in path.split("/")[1:])
