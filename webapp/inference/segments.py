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

from ..analysis import REDACTED, learnt
from .epochs import tagged
from .leaves import in_a_list

# the calls that sent a segment before its one text makes it a constant
MIN_CALLS = 5
SUM, SQUARES = "text sum", "text squares"
# calls whose text was counted: a field counted in fewer calls than held it has no one text
TEXT_CALLS = "text calls"
# fields outside the URL path a call counts the texts of (a big body's thousands are not)
MAX_TEXTS = 64
_SEGMENT = "path:/"
# hex digits of a digest read as a text's number
_DIGITS = 5


def text_number(value) -> int | None:
    """Return the number a segment's text counts as, or None for no text."""
    digest = learnt.digest(value)
    return None if digest is None else int(digest[:_DIGITS], 16)


def segment_texts(request: dict, newest: bool) -> dict:
    """Return the counts of the texts a call's request fields hold.

    `{("request", "path:/0"): {"text sum": n, "text squares": n * n, "text calls": 1}}`;
    `request` holds the call's external request leaves (its URL's word segments among them,
    `unread_parts`). Every URL path segment, then the other fields outside lists, MAX_TEXTS of
    them (a constant's value compared: constants.py); never a redacted secret."""
    out, others = {}, 0
    for path, value in request.items():
        segment = path.startswith(_SEGMENT)
        if not segment and (others >= MAX_TEXTS or in_a_list(path) or value == REDACTED):
            continue
        number = text_number(value)
        if number is not None:
            others += not segment
            counts = {SUM: number, SQUARES: number * number, TEXT_CALLS: 1}
            out[("request", path)] = tagged(counts, newest)
    return out


def one_text(counts: dict) -> int | None:
    """Return the number of the one text every counted call held, else None.

    `counts` are established ones; every call that held the field counted its text."""
    calls, total = counts.get("calls", 0), counts.get(SUM)
    if not calls or total is None or counts.get(TEXT_CALLS, calls) != calls:
        return None
    return total // calls if calls * counts.get(SQUARES, 0) == total * total else None


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
