"""URL path segments a tool's history shows never varying: the layer's constants.

A segment no template names is read by its index (`path:/0`) when it holds a digit: Twilio's API
version `2010-04-01` is one. One call cannot tell it from an id an argument gave; the tool's history
can: a segment that held one and the same text in every call that sent it is the layer's constant,
and an argument left over beside it (a filter the layer consumed) is never paired with it by
elimination (being the last text of the request says nothing of where a constant came from). The
same segment holding another text in a call is no constant there: a changed id is still found.
"""

from ..analysis import learnt
from .epochs import tagged

# the calls that sent a segment before its one text makes it a constant
MIN_CALLS = 5
# distinct texts counted per segment: past one it varies, and more change nothing
MAX_TEXTS = 2
_SEGMENT = "path:/"


def segment_texts(request: dict, presence: dict, newest: bool) -> dict:
    """Return the counts of the texts a call's URL path segments hold.

    `{("request", "path:/0"): {"seen <digest>": 1}}`; `request` holds the call's external request
    leaves, `presence` the tool's path counts so far (a segment keeps MAX_TEXTS digests at most)."""
    out = {}
    for path, value in request.items():
        if not path.startswith(_SEGMENT):
            continue
        text = learnt.digest(value)
        if text is None:
            continue
        counts = presence.get(("request", path)) or {}
        key = learnt.SEEN + text
        if key in counts or sum(1 for name in counts if name.startswith(learnt.SEEN)) < MAX_TEXTS:
            out[("request", path)] = tagged({key: 1}, newest)
    return out


def constant_segments(presence: dict) -> dict:
    """Return {segment path: its one text's digest} of the segments sent alike.

    MIN_CALLS calls at least."""
    out = {}
    for (side, path), counts in presence.items():
        if side != "request" or not path.startswith(_SEGMENT):
            continue
        seen = [(name, n) for name, n in counts.items() if name.startswith(learnt.SEEN)]
        calls = counts.get("calls", 0)
        if calls >= MIN_CALLS and len(seen) == 1 and seen[0][1] == calls:
            out[path] = seen[0][0][len(learnt.SEEN) :]
    return dict(sorted(out.items()))
