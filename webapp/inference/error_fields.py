"""A tool's error envelope learnt from its history.

The fields its error answers always carried.

Services answer errors in shapes of their own (a `message`, a `documentation_url`, an `error` object
with its `code`); one call knows the common shapes only (analysis/rules/error_shapes.py). A tool's
earlier error answers show its own: a field every one of them carried that an error answer of the
newest release lacks is an error that lost what the agent needed to tell the user why. Counted as
path counts under the side `error` (the root counts the error answers), each also under its status
(`status 422`), judged on the releases before the newest, as the other counts are (epochs.py).

A service answers each status its own way (a 401 `{"error"}` beside 422s that add a
`description`; a framework's 400 of field errors beside its 403s with a `detail`): the answers of
one status, when the history holds enough of them, say what that status always carried, though
the tool's answers of every status share less. An answer with an empty body lost whatever its
tool's every earlier error answer told, one of them being enough to show it.
"""

from dataclasses import dataclass

from ..analysis import (
    ERROR_FIELD_NAMES,
    end,
    error_field_name,
    error_text_name,
    finding,
    norm_key,
    status_code,
)
from ..common.pointers import child
from .epochs import tagged

SIDE = "error"
# earlier error answers before the fields they all carried are the tool's envelope
MIN_ERROR_ANSWERS = 2
# the count of an error answer's status, beside "calls": "status 404"
STATUS = "status "
# The fields that tell an error, wherever a service puts them: the common names, the short `err`
# (Figma's `{"status": 404, "err": "Not found"}`, Node's callbacks), and the page that explains it.
_TELLING = ERROR_FIELD_NAMES | {"err", "documentationurl", "docurl"}
ERROR_STATUS = 400


def error_presence(response: dict | None, newest: bool) -> dict:
    """Return one call's error path counts.

    {("error", path): {"calls": 1}} of its error answer.

    The root ("") counts the answer; the telling fields at the top, in an object under them and in
    the first item of a list under them. Nothing for a success or a body that is no object."""
    body = _error_answer(response)
    if body is None:
        return {}
    paths = [""] + [path for path, _ in _telling(body)]
    counts = {"calls": 1, f"{STATUS}{status_code(response)}": 1}
    return {(SIDE, path): tagged(counts, newest) for path in paths}


@dataclass(frozen=True)
class Envelope:
    """What a tool's earlier error answers carried, all of them and per status."""

    # the paths every earlier error answer carried, MIN_ERROR_ANSWERS of them at least
    every: frozenset = frozenset()
    # (status, paths every earlier answer of that status carried), MIN_ERROR_ANSWERS each
    by_status: tuple = ()
    # the paths every earlier error answer carried, one of them at least: an empty answer's
    once: frozenset = frozenset()
    # what the earlier error answers of every tool of its service carried (its own among them):
    # the fallback where its own history holds too few
    service: "Envelope | None" = None

    def carried(self, response: dict | None) -> frozenset:
        """Return the paths an error answer is judged against.

        Its status' own envelope where the history holds one, the tool's first, then its
        service's; else the tool's, or its service's; for an answer with an empty body, what
        every earlier answer carried, however few."""
        status = status_code(response) if response else None
        mine = [self, *([self.service] if self.service else [])]
        for known in mine:
            found = [paths for s, paths in known.by_status if s == status]
            if found:
                return found[0]
        for known in mine:
            if known.every:
                return known.every
        if (response.get("payload") if response else None) != {}:
            return frozenset()
        return next((known.once for known in mine if known.once), frozenset())


def envelope(presence: dict, established) -> frozenset:
    """Return the paths every earlier error answer carried.

    MIN_ERROR_ANSWERS of them at least.

    `established` reads the counts of the releases before the newest (epochs.py)."""
    return _carried(presence, established, "calls", MIN_ERROR_ANSWERS)


def envelopes(presence: dict, established, service: dict | None = None) -> Envelope:
    """Return what the earlier error answers carried: all of them, and per status.

    `service` holds the error counts of the tool's service, its own among them: what its
    `service` envelope is learnt from."""
    answers = established(presence.get((SIDE, ""), {}))
    statuses = sorted(
        int(key[len(STATUS) :])
        for key, n in answers.items()
        if key.startswith(STATUS) and key[len(STATUS) :].isdigit() and n >= MIN_ERROR_ANSWERS
    )
    return Envelope(
        envelope(presence, established),
        tuple(
            (status, _carried(presence, established, f"{STATUS}{status}", MIN_ERROR_ANSWERS))
            for status in statuses
        ),
        _carried(presence, established, "calls", 1),
        envelopes(service, established) if service else None,
    )


def _carried(presence: dict, established, key: str, least: int) -> frozenset:
    """Return the paths every earlier error answer counted under `key` carried.

    `least` of them at least."""
    answers = established(presence.get((SIDE, ""), {})).get(key, 0)
    if answers < least:
        return frozenset()
    return frozenset(
        path
        for (side, path), counts in presence.items()
        if side == SIDE and path and established(counts).get(key, 0) >= answers
    )


def lost_fields(response: dict | None, carried: frozenset) -> list[dict]:
    """Warn of an error answer lacking a field its tool's errors carried.

    The warnings are of kind error_shape."""
    body = _error_answer(response)
    if body is None or not carried:
        return []
    told = list(_telling(body))
    has = {path for path, _ in told}
    # an answer in an envelope of its own (a gateway's 429 beside the service's own errors) holds
    # a text of its own and no field at the top the earlier ones all carried: another kind of
    # answer, not one that lost fields; one left with a code and no text lost its text
    own = any(_is_text(path, value) for path, value in told)
    if own and not {_top(p) for p in has} & {_top(p) for p in carried}:
        return []
    out = []
    for path in sorted(carried - has):
        top = _top(path)
        # a field inside an object this answer lacks whole is told at that object
        if path != top and top not in has:
            continue
        text = (
            f"error body at {path}: every earlier error answer of this tool carried it; this one "
            "has none"
        )
        out.append(finding("error_shape", "warning", None, end("response", path), None, None, text))
    return out


def _is_text(path: str, value) -> bool:
    """Tell a telling field that holds an error's text.

    A message, or an `error` said in words."""
    name = path.rsplit("/", 1)[-1]
    key = norm_key(name)
    return error_text_name(name) or (key in ("error", "errors", "err") and isinstance(value, str))


def _top(path: str) -> str:
    """Return the top-level field of a path: `/error` of `/error/message`."""
    return "/" + path.split("/")[1]


def _error_answer(response: dict | None) -> dict | None:
    """Return the body of a response snapshot that is an error answer.

    An error answer with an object body; else None."""
    if not response:
        return None
    status, body = status_code(response), response.get("payload")
    if status is None or status < ERROR_STATUS or not isinstance(body, dict):
        return None
    return body


def _telling(body: dict):
    """Yield (path, value) of the telling fields of an error body.

    One level into its objects."""
    for key, value in list(body.items())[:50]:
        if not isinstance(key, str) or not _tells(key):
            continue
        path = child("", key)
        if value in (None, "", [], {}):
            continue
        yield path, value
        inner = value[0] if isinstance(value, list) and value else value
        at = child(path, 0) if isinstance(value, list) else path
        if isinstance(inner, dict):
            for sub, v in list(inner.items())[:50]:
                if isinstance(sub, str) and _tells(sub) and v not in (None, "", [], {}):
                    yield child(at, sub), v


def _tells(key: str) -> bool:
    """Tell whether a field's name tells an error (`message`, `errorMessages`)."""
    return norm_key(key) in _TELLING or error_field_name(key)
