"""What one analysed call adds to problems.

Its findings grouped by fingerprint (pure)."""

import hashlib
from functools import lru_cache

from ..analysis import request_document, resolve_request, worst
from ..common import jsontext
from ..common.digits import is_digits
from ..common.pointers import MISSING, tokens
from .fingerprint import FIRST_VERSION, describe_finding, describe_violation, key
from .transforms import values

# value pairs kept per call and problem
MAX_PAIRS = 5
# a value pair shows a value's start, not a megabyte
MAX_VALUE_CHARS = 200


def call_problems(tool: str | None, analysis: dict, docs: dict | None = None) -> dict[str, dict]:
    """Return the problems one call's analysis shows, by fingerprint.

    {fingerprint: {"descriptor", "severity", "occurrences", "pairs", "older"}}.

    Info findings open no problem; a schema violation at a path a finding already names is that
    finding's problem, not a second one. `docs` ({snapshot: payload}) tells arrays from objects in
    paths. `older` holds the items' first-version fingerprints: a call re-analysed keeps a problem
    made under them.
    """
    out: dict[str, dict] = {}
    named: dict[tuple[str, str], dict] = {}
    for finding in analysis.get("findings") or []:
        descriptor = describe_finding(tool, finding, docs or {})
        if descriptor is None:
            continue
        name_places(named, finding, finding)
        first = key(describe_finding(tool, finding), FIRST_VERSION)
        occurrences = int(finding.get("occurrences") or 1)
        _add(out, descriptor, first, finding["severity"], occurrences, _pairs(finding, docs or {}))
    for stage, checked in (analysis.get("validation") or {}).items():
        for error in checked.get("errors") or []:
            if error.get("keyword") == "invalid_json" or explained(stage, error, named):
                continue
            first = key(describe_violation(tool, stage, error), FIRST_VERSION)
            _add(out, describe_violation(tool, stage, error, docs or {}), first, "error", 1, [])
    return out


def name_places(named: dict, finding: dict, what) -> None:
    """Record `what` under each place a problem-opening finding names (first kept)."""
    for side in ("left", "right"):
        if finding.get(side):
            named.setdefault((finding[side]["snapshot"], finding[side].get("path")), what)


def explained(stage: str, error: dict, named: dict):
    """Return what `named` holds for a finding naming this violation's place.

    None when no finding of the same call does. Its own path, a path above it (a finding about the
    whole body), or a sibling for a violation about the object's keys (`required`,
    `additionalProperties`: the field a rename moved away)."""
    path = error.get("path") or ""
    parent = path.rsplit("/", 1)[0]
    for (snapshot, where), what in named.items():
        if snapshot != stage or where is None:
            continue
        if (
            where == path
            or path.startswith(where + "/")
            or where == ""
            or where.rsplit("/", 1)[0] == path
        ):
            return what
        if (
            error.get("keyword") in ("required", "additionalProperties")
            and where.rsplit("/", 1)[0] == parent
        ):
            return what
    return None


def _add(
    out: dict, descriptor: dict, first: str, severity: str, occurrences: int, pairs: list
) -> None:
    fingerprint = key(descriptor)
    entry = out.setdefault(
        fingerprint,
        {
            "descriptor": descriptor,
            "severity": severity,
            "occurrences": 0,
            "pairs": {},
            "older": [],
        },
    )
    if first != fingerprint and first not in entry["older"]:
        entry["older"].append(first)
    entry["severity"] = worst([entry["severity"], severity])
    entry["occurrences"] += occurrences
    for pair in pairs:
        if pair in entry["pairs"] or len(entry["pairs"]) < MAX_PAIRS:
            entry["pairs"][pair] = entry["pairs"].get(pair, 0) + 1


def _pairs(finding: dict, docs: dict) -> list[str]:
    """Return the finding's value pairs as canonical JSON texts `[left, right]`.

    Values as stored, with a third item naming the sides that hold no value (`[5, null,
    ["right"]]`); a pair that says nothing is left out."""
    found = []
    examples = finding.get("examples") or [finding]
    for example in examples[:MAX_PAIRS]:
        if isinstance(example, dict):
            left, right = values(example)
            missing = [
                side
                for side, value in (("left", left), ("right", right))
                if value is None and _no_value(example.get(side), docs)
            ]
            # a value against a missing side says something; two missing sides or null on both do
            # not
            if len(missing) == 1 or not missing and (left, right) != (None, None):
                found.append(_pair_text(left, right, missing))
    return found


def _no_value(end: dict | None, docs: dict) -> bool:
    """Say whether a finding's end holds no value.

    It has no end, or its path is missing from the payload."""
    if not end:
        return True
    payload = docs.get(end.get("snapshot"), MISSING)
    # without the payload a null cannot be told from a missing field: read it as the null it says
    return (
        payload is not MISSING
        and resolve_request(payload, end.get("path") or "", MISSING) is MISSING
    )


def _pair_text(left, right, missing: list[str] = ()) -> str:
    pair = [_short(left), _short(right), *([list(missing)] if missing else [])]
    return jsontext.dumps(pair, option=jsontext.OPT_SORT_KEYS).decode()


def _short(value):
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return value if len(value) <= MAX_VALUE_CHARS else value[:MAX_VALUE_CHARS] + "..."
    text = jsontext.dumps(value, option=jsontext.OPT_SORT_KEYS).decode()
    return value if len(text) <= MAX_VALUE_CHARS else text[:MAX_VALUE_CHARS] + "..."


def exercises(arguments, path: str | None) -> bool:
    """Say whether an arguments payload has a normalised path.

    `*` and `{id}` match any key."""
    if path is None or arguments is None:
        return False
    nodes = [arguments]
    for part in _steps(path):
        nodes = [child for node in nodes for child in _children(node, part)]
        if not nodes:
            return False
    return True


@lru_cache(maxsize=4096)
def _steps(path: str) -> tuple[str, ...]:
    """A normalised path's tokens, read once.

    Every call of a tool is checked against its problems' paths."""
    return tuple(tokens(path))


def _children(node, part: str) -> list:
    if part in ("*", "{id}"):
        if isinstance(node, list):
            return node
        return list(node.values()) if isinstance(node, dict) else []
    if isinstance(node, dict):
        return [node[part]] if part in node else []
    if isinstance(node, list) and is_digits(part) and int(part) < len(node):
        return [node[int(part)]]
    return []


def contract_digest(contract: dict | None) -> str | None:
    """Return a short digest of the contract an analysis used.

    As people declared it (None: none declared).

    What inference added (pairs marked `inferred`, arguments in `consumed_inferred`) is left out: it
    grows with the tool's traffic, and a problem resolved "when the contract changes" waits for a
    person's change, not for the next pair learnt."""
    body = _declared(contract or {})
    if not body:
        return None
    return hashlib.sha256(jsontext.dumps(body, option=jsontext.OPT_SORT_KEYS)).hexdigest()[:12]


# a contract's name, time and what inference alone adds
_NOT_DECLARED = ("updated_at", "name", "consumed_inferred", "constant_segments_inferred")


def _declared(contract: dict) -> dict:
    """Return the contract without its name, time and inferred additions.

    What inference added to it goes (a list left empty by that goes too, so a contract with nothing
    learnt keeps the digest it always had)."""
    learnt = set(contract.get("consumed_inferred") or ())
    body = {k: v for k, v in contract.items() if k not in _NOT_DECLARED}
    kept = {
        "mapping": lambda m: not (isinstance(m, dict) and m.get("inferred")),
        "consumed": lambda c: c not in learnt,
    }
    for part, keep in kept.items():
        if isinstance(body.get(part), list) and not all(map(keep, body[part])):
            body[part] = [item for item in body[part] if keep(item)] or None
    return {k: v for k, v in body.items() if v is not None or k not in kept}


def call_documents(call: dict, template: str | None = None) -> dict:
    """Return {snapshot: payload} of a call's current snapshots.

    What paths are read against; the request's is the document the analysis read, its body with its
    URL's and headers' fields (analysis/wire/locations.py)."""
    snapshots = call.get("snapshots") or {}
    docs = {name: snap["payload"] for name, snap in snapshots.items() if isinstance(snap, dict)}
    if "request" in docs:
        docs["request"] = request_document(snapshots, template or call.get("request_template"))
    return docs


def finding_fingerprints(call: dict) -> list[tuple[dict, list[str]]]:
    """Return each problem-opening item of a stored call with its fingerprints.

    (finding or schema error, its fingerprints, current version first): a call grouped before the
    fingerprint's version changed keeps its older problem. As call_problems groups them: a schema
    violation a finding already names has that finding's fingerprints, an invalid_json one none."""
    out, docs, tool = [], call_documents(call), call.get("tool")
    named: dict[tuple[str, str], list[str]] = {}
    for finding in call.get("findings") or []:
        descriptor = describe_finding(tool, finding, docs)
        if descriptor is not None:
            prints = [key(descriptor), key(describe_finding(tool, finding), FIRST_VERSION)]
            out.append((finding, prints))
            name_places(named, finding, prints)
    for stage, checked in (call.get("validation") or {}).items():
        for error in (checked or {}).get("errors") or []:
            if error.get("keyword") == "invalid_json":
                out.append((error, []))
                continue
            prints = explained(stage, error, named) or [
                key(describe_violation(tool, stage, error, docs)),
                key(describe_violation(tool, stage, error), FIRST_VERSION),
            ]
            out.append((error, prints))
    return out


def link_problems(trace: dict, problem_ids) -> dict:
    """Give each finding of a trace its `problem` id, each call its `problems`.

    Schema errors count as findings.

    `problem_ids` maps fingerprints to ids (the store's lookup); an item with no problem gets
    null."""
    pairs = [
        (call, item, prints)
        for call in trace["calls"]
        for item, prints in finding_fingerprints(call)
    ]
    ids = (
        problem_ids([fingerprint for _, _, prints in pairs for fingerprint in prints])
        if pairs
        else {}
    )
    for call in trace["calls"]:
        call["problems"] = []
    for call, item, prints in pairs:
        item["problem"] = next(
            (ids[fingerprint] for fingerprint in prints if fingerprint in ids), None
        )
        if item["problem"] and item["problem"] not in call["problems"]:
            call["problems"].append(item["problem"])
    return trace
