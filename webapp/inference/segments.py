"""URL path segments a tool's history shows never varying: the layer's constants.

A segment no template names is read by its index (`path:/0`) when it holds a digit: Twilio's API
version `2010-04-01` is one. One call cannot tell it from an id an argument gave; the tool's history
can: a segment that held one and the same text in every call that sent it is the layer's constant,
and an argument left over beside it (a filter the layer consumed) is never paired with it by
elimination (being the last text of the request says nothing of where a constant came from). The
same segment holding another text in a call is no constant there: a changed id is still found.

Each call adds its text's number (a digest's first 20 bits) and that number squared: sums, so the
counts are the same whatever the order, batches and learners. The texts were all one exactly when
calls x sum of squares = sum squared.
"""

from ..analysis import learnt
from .epochs import tagged

# the calls that sent a segment before its one text makes it a constant
MIN_CALLS = 5
SUM, SQUARES = "text sum", "text squares"
_SEGMENT = "path:/"
# hex digits of a digest read as a text's number
_DIGITS = 5


def text_number(value) -> int | None:
    """Return the number a segment's text counts as, or None for no text."""
    digest = learnt.digest(value)
    return None if digest is None else int(digest[:_DIGITS], 16)


def segment_texts(request: dict, newest: bool) -> dict:
    """Return the counts of the texts a call's URL path segments hold.

    `{("request", "path:/0"): {"text sum": n, "text squares": n * n}}`; `request` holds the
    call's external request leaves."""
    out = {}
    for path, value in request.items():
        number = text_number(value) if path.startswith(_SEGMENT) else None
        if number is not None:
            out[("request", path)] = tagged({SUM: number, SQUARES: number * number}, newest)
    return out


def constant_segments(presence: dict) -> dict:
    """Return {segment path: its one text's number} of the segments sent alike.

    By MIN_CALLS calls at least, every one of them counted."""
    out = {}
    for (side, path), counts in presence.items():
        if side != "request" or not path.startswith(_SEGMENT) or SUM not in counts:
            continue
        calls, total = counts.get("calls", 0), counts[SUM]
        if calls >= MIN_CALLS and calls * counts.get(SQUARES, 0) == total * total:
            out[path] = total // calls
    return dict(sorted(out.items()))
