"""Where each argument always went.

Its value sent under another key is a change to report.

One call cannot tell a key a layer renames on purpose from a renamed one (`limit` sent as
`variables/limit` reads as the argument kept as it is). A tool's history can: when every call of the
releases before the newest that held an argument sent its value to one request field, a call of the
newest release that leaves that field out and sends the value under a key no earlier call used
renamed it. Only earlier releases teach a place, so a release that renames a key never teaches it.
"""

from ..analysis import end, finding, show
from ..common.pointers import last, parent
from .decide import AGREEMENT, describe, strongest
from .epochs import established, several
from .relations import EQUAL, relation

# calls of earlier releases that sent an argument to its place before the place is learnt
MIN_PLACE_CALLS = 5


def learnt_places(evidence: dict, presence: dict, releases) -> tuple:
    """Return (argument, request path, relation) of each argument with one place.

    Each argument whose calls of the releases before the newest sent its value to that one request
    field, as one relation (equal, a template...), in AGREEMENT of them; () with one release."""
    if not several(releases):
        return ()
    found: dict = {}
    for (a, r), counts in evidence.items():
        held = established(presence.get(("arguments", a)) or {}).get("calls", 0)
        pair = strongest((a, r), established(counts))
        if pair.agree >= MIN_PLACE_CALLS and pair.agree >= AGREEMENT * held:
            found.setdefault(a, []).append((r, pair.relation))
    # an argument sent to two fields every call has no one place to miss
    return tuple(sorted((a, *places[0]) for a, places in found.items() if len(places) == 1))


def sent_elsewhere(arguments: dict, request: dict, places, carried) -> list[tuple]:
    """Return each argument sent elsewhere than its learnt place.

    As (argument, learnt place, path it went to, value there).

    `arguments` and `request` are one call's leaves ({path: value}); `places` is `learnt_places`;
    `carried` the request paths earlier releases sent. The learnt place is absent and a request
    field no earlier call carried holds the argument's value as its place did."""
    out = []
    for a, place, how in places:
        # an empty value holds nothing to recognise elsewhere
        if arguments.get(a) in (None, "", []) or place in request:
            continue
        gone = [
            r
            for r, value in request.items()
            if r not in carried and _related(arguments[a], value) == how
        ]
        # one new field holding it: several holding the same value name no one key
        if len(gone) == 1:
            out.append((a, place, gone[0], request[gone[0]]))
    return out


def converted_otherwise(arguments: dict, request: dict, places) -> list[tuple]:
    """Return each argument converted at its learnt place where earlier calls kept it.

    As (argument, place, relation shown): every call of the earlier releases sent the value at
    that place as it was, and this one joined it, cased it, wrote it another way. A conversion one
    call cannot tell from a bug (a list joined into one text, a one-item list sent as its item)
    is one the tool's history never made."""
    out = []
    for a, place, how in places:
        if how != EQUAL or arguments.get(a) in (None, "", []) or place not in request:
            continue
        found = _related(arguments[a], request[place])
        if found and found != EQUAL:
            out.append((a, place, found))
    return out


def flag_converted(findings: list[dict], departures: list[tuple]) -> list[dict]:
    """Raise the quiet finding of each departure `converted_otherwise` found.

    Its finding at the place (of the argument or an item of it), raised to a warning; one already
    loud is left as it is. Return those raised."""
    out = []
    for a, place, found in departures:
        mine = [
            f
            for f in findings
            if f["left"]
            and (f["left"]["path"] == a or f["left"]["path"].startswith(a + "/"))
            and f["right"]
            and f["right"]["path"] == place
        ]
        if not mine or any(f["severity"] != "info" for f in mine):
            continue
        mine[0]["severity"] = "warning"
        mine[0]["message"] += (
            f"; every call of an earlier release sent it to {_name(place)} as it was, "
            f"never {describe(found)}"
        )
        out.append(mine[0])
    return out


def _related(a, b) -> str | None:
    try:
        return relation(a, b)
    except (RecursionError, ValueError, OverflowError):
        return None


def flag_sent_elsewhere(findings: list[dict], moves: list[tuple], values: dict) -> list[dict]:
    """Raise, or add, a warning for each argument sent under a new key.

    `moves` is `sent_elsewhere`'s, `values` the call's argument leaves. A quiet finding of the
    argument (renamed, moved) is raised; an argument already loud is left as it is; one the
    analysis found kept as it is (its own name under another parent) gets a finding. Return the
    findings raised or added (those added are appended to `findings`)."""
    out = []
    for a, place, there, sent in moves:
        mine = [f for f in findings if f["left"] and f["left"]["path"] == a]
        if any(f["severity"] != "info" for f in mine):
            continue
        why = f"; every call of an earlier release sent it to {_name(place)}"
        quiet = [f for f in mine if f["right"] and f["right"]["path"] == there]
        if quiet:
            quiet[0]["severity"] = "warning"
            quiet[0]["message"] += why
            out.append(quiet[0])
            continue
        value = values[a]
        moved = last(there) == last(place) and parent(there) != parent(place)
        text = f"{_name(a)} sent as {_name(there)} (value {show(value)}){why}"
        added = finding(
            "moved" if moved else "renamed",
            "warning",
            end("arguments", a),
            end("request", there),
            value,
            sent,
            text,
        )
        findings.append(added)
        out.append(added)
    return out


def _name(path: str) -> str:
    """Name a field by its path: `limit`, `variables/first`, `query:/limit` kept whole."""
    return path[1:] if path.startswith("/") else path
