"""Request fields a tool always sent that no argument explains: its constants.

Gone in the newest release, a change to report.

A layer adds fields of its own to every request (`format=json`, an API version header, a fixed
`type`). One call cannot tell such a field missing (it was never told it belonged); a tool's
history can: a request field every call of the releases before the newest carried, that no argument
was ever paired with, is the layer's constant, and a call of the newest release that leaves it out
dropped it. A field sent only when an argument is given is in every earlier call only when every one
of them gave it: when an argument paired with it is missing from the call, its absence is no news.
"""

from ..analysis import end, finding, show
from .epochs import established
from .leaves import in_a_list
from .segments import one_text, text_number

# the side and path of the count of calls whose request was counted (epochs.presence_of)
CALLS = ("calls", "")


def learnt_constants(presence: dict, evidence: dict | None, least: int) -> tuple:
    """Return (request path, arguments paired with it) of each earlier constant.

    A field every earlier call sent.

    Every call of the releases before the newest, `least` of them at least; `evidence`
    ({(argument, request): counts}) names the arguments ever paired with each."""
    calls = established(presence.get(CALLS) or {}).get("calls", 0)
    if calls < least:
        return ()
    sent = {
        path: established(counts).get("calls", 0)
        for (side, path), counts in presence.items()
        if side == "request"
    }
    # a field held by more calls than were counted was counted before calls were: no verdict
    if max(sent.values(), default=0) > calls:
        return ()
    # items come and go by index: a list's item leaves are never always there (a URL path's
    # segment named by its index is no item)
    always = {
        path for path, n in sent.items() if n == calls and (_segment(path) or not in_a_list(path))
    }
    paired: dict = {}
    for a, r in evidence or {}:
        if r in always:
            paired.setdefault(r, set()).add(a)
    return tuple(sorted((r, frozenset(paired.get(r, ()))) for r in always))


def constant_texts(presence: dict, constants) -> tuple:
    """Return (request path, text number, arguments) of each constant sent alike.

    Each of `constants` (`learnt_constants`) whose every earlier call sent one and the same text
    (segments.py counts them)."""
    out = []
    for path, sources in constants:
        number = one_text(established(presence.get(("request", path)) or {}))
        if number is not None:
            out.append((path, number, sources))
    return tuple(out)


def constants_changed(arguments: dict, request: dict, texts) -> list[dict]:
    """Warn of each constant a call's request sends another text in.

    `texts` is `constant_texts`. A field paired with an argument this call holds, or holding one
    of its arguments' values, travels with the argument: left alone."""
    given = {text_number(value) for value in arguments.values()} - {None}
    out = []
    for path, number, sources in texts:
        value = request.get(path)
        sent = text_number(value) if value is not None else None
        if sent is None or sent == number or sent in given:
            continue
        if any(_given(a, arguments) for a in sources):
            continue
        text = (
            f"{path}: every call of an earlier release sent one and the same value, no argument "
            f"explains it; this call sends {show(value)}"
        )
        out.append(
            finding("value_changed", "warning", None, end("request", path), None, value, text)
        )
    return out


def constants_gone(arguments: dict, request: dict, constants, carried) -> list[dict]:
    """Warn of each constant a call's request lacks.

    `arguments` and `request` are the call's leaves ({path: value}); `constants` is
    `learnt_constants`, `carried` the request paths earlier releases sent. A field paired with an
    argument this call does not hold is left alone (it travels when the argument is given)."""
    out = []
    for path, sources in constants:
        if path in request or any(_under(path, p) for p in request):
            continue
        if any(not _given(a, arguments) for a in sources):
            continue
        text = f"{path}: every call of an earlier release sent it, no argument explains it"
        fresh = [r for r in request if r not in carried and _location(r) == _location(path)]
        # one new key where it was: likely the same field renamed
        text += f"; this call sends {fresh[0]} instead" if len(fresh) == 1 else "; this call none"
        out.append(finding("dropped", "warning", end("request", path), None, None, None, text))
    return out


def _segment(path: str) -> bool:
    """Tell a URL path segment named by its index (`path:/3`)."""
    return path.startswith("path:/") and path.count("/") == 1


def _given(argument: str, arguments: dict) -> bool:
    """Tell whether a call holds an argument (or leaves under it)."""
    return any(_under(argument, p) for p in arguments)


def _under(path: str, other: str) -> bool:
    """Tell whether `other` is `path` or a path under it."""
    return other == path or other.startswith(path + "/")


def _location(path: str) -> str:
    """Return where a request path travels: `query`, `header`, `form`, the body ('')."""
    head, colon, _ = path.partition(":")
    return head if colon and "/" not in head else ""
