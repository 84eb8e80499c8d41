"""Request fields new in the newest release: a change to report.

Fields the newest release sends that no call of an earlier release carried.

A field no argument explains is info one call at a time (a layer adds its own constants and
defaults), and so is an argument sent under another key (a layer renames on purpose). With history
they are not: every call of the earlier releases shows what the layer adds and where each argument
goes, so a field the newest release adds and none of them carried (an internal field a spread
leaked, a consumed argument sent after all), or an argument the earlier releases held now sent under
a key none of them used, is loud. So is an argument every call of the earlier releases held and sent
that the newest leaves out: one call cannot tell it consumed (rules/dropped.py), its history can.
"""

from dataclasses import dataclass

from ..analysis import end, finding, show
from ..common.pointers import child, parent
from .constants import constant_texts, learnt_constants
from .consumed import constant_calls
from .epochs import BOTH, established, several
from .error_fields import Envelope, envelopes
from .item_keys import learnt_item_keys, learnt_lists
from .leaves import ITEM, in_a_list, starred
from .places import learnt_places
from .relations import EQUAL
from .segments import constant_segments

# calls of earlier releases before their fields say what the layer adds
MIN_EARLIER_CALLS = 5
# info findings a request path never seen before makes loud
RAISED = ("added", "renamed", "moved")
# earlier calls that held an argument and sent it every time, before its absence is loud
MIN_TRAVELLED = 3


@dataclass(frozen=True)
class Earlier:
    """The paths calls of the releases before the newest held.

    Request fields and arguments."""

    request: frozenset
    arguments: frozenset
    # arguments held by MIN_TRAVELLED earlier calls at least, and sent by each of them
    travelled: frozenset = frozenset()
    # the fields every earlier error answer carried, and per status (error_fields.py)
    error_fields: Envelope = Envelope()
    # (argument, request path, relation) of each argument earlier calls sent to one place
    # (webapp/inference/places.py)
    places: tuple = ()
    # (request path, arguments paired with it) of each field every earlier call sent
    # (webapp/inference/constants.py)
    constants: tuple = ()
    # the starred request leaves every earlier item carried, the lists every earlier call sent
    # (webapp/inference/item_keys.py)
    item_keys: tuple = ()
    lists: tuple = ()
    # the request paths earlier calls sent as objects only: leaves under them, none at them
    objects: frozenset = frozenset()
    # (request path, its text's number, arguments paired with it) of each constant every earlier
    # call sent alike (webapp/inference/constants.py)
    texts: tuple = ()


def earlier_fields(
    presence: dict, releases, evidence: dict | None = None, service: dict | None = None
) -> Earlier | None:
    """Return the paths held by calls of releases before the newest.

    None without such history. With the tool's pair `evidence`, the place each argument always
    went to too; with `service` (the error counts of every tool of its service), what their
    error answers carried."""
    if not several(releases):
        return None
    held = {(side, path) for (side, path), c in presence.items() if established(c).get("calls", 0)}
    counts = [
        established(c).get("calls", 0) for (side, _), c in presence.items() if side == "request"
    ]
    if max(counts, default=0) < MIN_EARLIER_CALLS:
        return None
    # an argument only ever paired, as another value, with a segment every call sent alike never
    # travelled: the calls learnt before the constant was paired it by elimination (segments.py)
    stuck = _only_at_constants(evidence or {}, constant_segments(presence))
    # paired only with a field that held one value whatever the argument: never sent there
    # (consumed.py), so it never travelled
    constant = {a for (a, _), c in (evidence or {}).items() if constant_calls(established(c))}
    constants = learnt_constants(presence, evidence, MIN_EARLIER_CALLS)
    return Earlier(
        frozenset(p for side, p in held if side == "request"),
        frozenset(p for side, p in held if side == "arguments"),
        frozenset(
            path
            for (side, path), c in presence.items()
            if side == "arguments"
            and established(c).get("calls", 0) >= MIN_TRAVELLED
            and not established(c).get("dropped", 0)
            and path not in stuck
            and path not in constant
        ),
        envelopes(presence, established, service),
        learnt_places(evidence, presence, releases) if evidence else (),
        constants,
        learnt_item_keys(presence),
        learnt_lists(presence, MIN_EARLIER_CALLS),
        _objects(presence),
        constant_texts(presence, constants),
    )


def _objects(presence: dict) -> frozenset:
    """Return the request paths earlier calls sent as objects only.

    A leaf under the path in MIN_EARLIER_CALLS earlier calls at least, and no earlier call sent a
    value at the path itself: a value sent there is the object's type changed (a JSON text sent as
    it is where every earlier call sent it decoded). Not inside a list's items."""
    held = {
        path: established(c).get("calls", 0)
        for (side, path), c in presence.items()
        if side == "request"
    }
    out = set()
    for path, calls in held.items():
        if calls < MIN_EARLIER_CALLS or in_a_list(path):
            continue
        up = parent(path)
        while up and not up.endswith(":") and not held.get(up):
            out.add(up)
            up = parent(up)
    return frozenset(out)


def _only_at_constants(evidence: dict, constants: dict) -> set:
    """Return the arguments paired with constant segments only, never as equal.

    `evidence` is {(argument, request): counts}, `constants` segments.py's `constant_segments`."""
    if not constants:
        return set()
    places: dict = {}
    for (argument, request), counts in evidence.items():
        earlier = established(counts)
        # a pair only the newest release showed says nothing of where the earlier ones sent it
        if not earlier.get(BOTH):
            continue
        apart = request in constants and not earlier.get(EQUAL)
        places[argument] = places.get(argument, True) and apart
    return {argument for argument, apart in places.items() if apart}


def flag_new_fields(
    findings: list[dict], release: str | None, newest: str | None, earlier, places=None
) -> list[dict]:
    """Raise quiet findings that send a field new in the newest release.

    Raise to warning each quiet finding of a call of the newest release that sends a request field
    no call of an earlier release carried (added, or an argument they held sent under a new key);
    return those raised. `places` ({index: [[left, right], ...]}, the analysis') holds the places
    of each folded finding: one is raised when one of them is new, and names it."""
    if earlier is None or not release or release != newest:
        return []
    raised = [f for f in findings if _always_sent(f, earlier)]
    for f in raised:
        f["severity"] = "warning"
        f["message"] += "; every call of an earlier release that held it sent it"
    for index, f in enumerate(findings):
        right = f["right"]
        if (
            f["kind"] not in RAISED
            or f["severity"] != "info"
            or not right
            or right["snapshot"] != "request"
            # an empty value holds no leaf the counts could have kept (an `{}` always sent)
            or f.get("right_value") in (None, "", {}, [])
        ):
            continue
        if "occurrences" in f:
            fresh = [
                r for left, r in (places or {}).get(str(index)) or () if _news(f, left, r, earlier)
            ]
            if not fresh:
                continue
            f["message"] += f"; no call of an earlier release sent {', '.join(fresh[:3])}"
        elif _news(f, f["left"] and f["left"]["path"], right["path"], earlier):
            _narrowed(f)
            f["message"] += "; no call of an earlier release sent it"
        else:
            continue
        f["severity"] = "warning"
        raised.append(f)
    return raised


def _news(f: dict, left: str | None, right: str | None, earlier: Earlier) -> bool:
    """Tell whether a finding's place sends a request field no earlier release carried.

    Added, or an argument earlier calls held sent under a new key."""
    if f["kind"] != "added" and not (left and _held(left, earlier.arguments)):
        # an argument no earlier call held: where it goes is news, not a change
        return False
    return bool(right) and _new(right, earlier.request)


def _always_sent(f: dict, earlier: Earlier) -> bool:
    """Tell whether a quiet dropped finding's argument was always sent before.

    Always sent by the earlier releases."""
    left = f["left"]
    return (
        f["kind"] == "dropped"
        and f["severity"] == "info"
        and left is not None
        and left["snapshot"] == "arguments"
        and f.get("left_value") not in (None, "", {}, [])
        # the counts keep leaves: an object argument travelled when its leaves did
        and _held(left["path"], earlier.travelled, under=True)
    )


def _held(path: str, held: frozenset, under: bool = False) -> bool:
    """Tell whether earlier calls held an argument (`under`: or leaves under it).

    Inside a list's items (`/records/0/fields`), its leaves under any item."""
    if path in held or (under and _under(path, held)):
        return True
    return in_a_list(path) and _under(starred(path), held)


def _under(path: str, paths) -> bool:
    """Tell whether `paths` holds a path or one under it."""
    return any(p == path or p.startswith(path + "/") for p in paths)


def _new(path: str, carried: frozenset) -> bool:
    """Tell whether no earlier call carried a request path (nor anything under it).

    A path inside a list's items (`/records/3/cells`) is judged by the leaves earlier calls'
    items carried (`/records/*/fields/Name`); never when they carried none (counts kept before
    items were counted, or a list that was always empty)."""
    if not path:
        return False
    if in_a_list(path):
        path = starred(path)
        tokens = path.split("/")
        deepest = len(tokens) - tokens[::-1].index(ITEM)
        if not any(p.startswith("/".join(tokens[:deepest]) + "/") for p in carried):
            return False
    return not _under(path, carried)


def _narrowed(f: dict) -> None:
    """Name an added object of one field by that field.

    `form:/metadata/mcp_session`, not `form:/metadata`."""
    while (
        f["kind"] == "added" and isinstance(f["right_value"], dict) and len(f["right_value"]) == 1
    ):
        [(key, value)] = f["right_value"].items()
        f["right"] = {**f["right"], "path": child(f["right"]["path"], key)}
        f["right_value"] = value


def became_values(arguments: dict, request: dict, earlier: Earlier) -> list[dict]:
    """Warn of each value a call sends where every earlier call sent an object.

    `arguments` and `request` are the call's leaves ({path: value}); the argument holding the same
    value, when one does, is named too."""
    out = []
    for path, value in request.items():
        if path not in earlier.objects:
            continue
        left = next((a for a, v in arguments.items() if v == value), None)
        text = (
            f"{path.lstrip('/')}: {show(value)} sent as a value where every call of an earlier "
            "release sent an object there"
        )
        out.append(
            finding(
                "type_changed",
                "warning",
                end("arguments", left) if left else None,
                end("request", path),
                value if left else None,
                value,
                text,
            )
        )
    return out
