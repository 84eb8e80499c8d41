"""Mappings of a tool as the pipeline, the pages, the API and the CLI use them.

Declared pairs live in the contract's `mapping`; inferred ones are learnt from traffic
(webapp/inference) and handed to the analysis as extra `mapping` entries marked
`"inferred": true`, never written into the stored contract.
"""

from ..analysis import external, is_located_path, request_document, unread_parts
from ..common.pointers import is_pointer
from ..contracts import ContractError, validated_contract
from ..inference import infer, leaves
from ..inference.consumed import learnt_consumed
from ..inference.contract import declared_pairs
from ..inference.decide import candidates, strongest
from ..inference.item_keys import through_lists_of_one


def request_leaves(snaps: dict, template=None) -> dict:
    """Return the request's leaves as findings name them.

    Body pointers, and `query:/page_size`-like names for what travels in the URL, the headers or a
    form body."""
    return external_leaves(leaves(request_document(snaps, template), wrapped=True))


def wire_leaves(snaps: dict, template=None) -> dict:
    """Return request_leaves and what the reading leaves out.

    The URL's word segments, the secret headers' presence (`unread_parts`): what a tool's history
    compares beside the fields."""
    document = request_document(snaps, template)
    return {
        **external_leaves(leaves(document)),
        **unread_parts(snaps.get("request"), document),
    }


def read_request(snaps: dict, template, read: tuple | None):
    """Return request_document, or the document read already under the same template."""
    if read is not None and read[0] == template:
        return read[1]
    return request_document(snaps, template)


def external_leaves(found: dict) -> dict:
    """Name a request document's paths as findings do (`query:/page_size`)."""
    return {external(path): value for path, value in found.items()}


def update_inference(store, tool: str, conn=None) -> bool:
    """Recompute a tool's inferred pairs and consumed arguments from its evidence.

    Say whether they changed (then its newest calls are queued again). With `conn`, in the
    caller's transaction: a tool's `learning` (webapp/pipeline/learning.py)."""
    presence, releases = store.path_counts(tool), store.release_state(tool)
    evidence = through_lists_of_one(store.evidence(tool), presence)
    pairs = infer(
        evidence,
        store.rejected_pairs(tool),
        declared_pairs(store.get_tool(tool)),
        store.inferred_pairs(tool),
        releases,
    )
    consumed = learnt_consumed(evidence, presence, releases)
    pairs = [(p.arguments, p.request) for p in pairs]
    if conn is not None:
        return store.set_inferred_in(conn, tool, pairs, consumed=consumed)
    return store.set_inferred(tool, pairs, consumed=consumed)


def mapping_rows(store, tool: str) -> dict:
    """Return a tool's declared, inferred and candidate pairs with evidence.

    For the pages and API."""
    contract = store.get_tool(tool)
    evidence, rejected = store.evidence(tool), store.rejected_pairs(tool)
    declared = declared_pairs(contract)
    inferred = store.inferred_pairs(tool)

    def row(pair, source, transform=None):
        counts = evidence.get(pair)
        found = (
            strongest(pair, counts).as_dict()
            if counts
            else {
                "arguments": pair[0],
                "request": pair[1],
                "relation": None,
                "agree": 0,
                "both": 0,
                "evidence": "no calls with both fields yet",
            }
        )
        return {**found, "source": source, **({"transform": transform} if transform else {})}

    transforms = {
        (m["arguments"], m["request"]): m.get("transform")
        for m in (contract or {}).get("mapping") or ()
        if isinstance(m, dict) and (m.get("arguments"), m.get("request")) in set(declared)
    }
    seen = set(declared) | set(inferred)
    return {
        "tool": tool,
        "declared": [row(p, "declared", transforms.get(p)) for p in declared],
        "inferred": [row(tuple(p), "inferred") for p in inferred],
        "candidates": [
            {**c.as_dict(), "source": "candidate"} for c in candidates(evidence, rejected, seen)
        ],
        "rejected": [{"arguments": a, "request": r} for a, r in sorted(rejected)],
        "changes": inference_changes(store, tool),
    }


def inference_changes(store, tool: str) -> list[dict]:
    """Return the tool's inference changes, newest first.

    With their pairs as {arguments, request}."""

    def named(pairs):
        return [{"arguments": a, "request": r} for a, r in pairs]

    return [
        {**c, "added": named(c["added"]), "removed": named(c["removed"])}
        for c in store.inference_changes(tool)
    ]


def confirm(store, tool: str, arguments: str, request: str) -> dict:
    """Write a pair into the tool's contract `mapping`.

    Creating the contract if needed."""
    return declare(store, tool, [(arguments, request)])


ARGUMENTS_TO_REQUEST, RESPONSE_TO_RESULT = ("arguments", "request"), ("response", "result")


def declare(store, tool: str, pairs, stages=ARGUMENTS_TO_REQUEST) -> dict:
    """Write pairs into the contract's `mapping`, replacing those of same fields.

    (arguments, request[, transform]) pairs, or (response, result[, transform]) ones with `stages`
    RESPONSE_TO_RESULT (the way back); the contract is read and written as its one writer, so a
    change made meanwhile is kept."""
    way_back = tuple(stages) == RESPONSE_TO_RESULT
    for left, right, *_ in pairs:
        _check_pointers(left, right, way_back)
    saved = store.change_tool(
        tool, lambda stored: _with_pairs(tool, stored or {}, pairs, tuple(stages))
    )
    if not way_back:
        for arguments, request, *_ in pairs:
            store.unreject_pair(tool, arguments, request)
    update_inference(store, tool)
    return saved


def _with_pairs(tool: str, contract: dict, pairs, stages=ARGUMENTS_TO_REQUEST) -> dict:
    mapping = list(contract.get("mapping") or [])
    first, second = stages
    for left, right, *transform in pairs:
        mapping = [
            m
            for m in mapping
            if not (
                isinstance(m, dict)
                and set(stages) <= m.keys()
                and (m.get(first) == left or m.get(second) == right)
            )
        ]
        mapping.append(
            {
                first: left,
                second: right,
                **({"transform": transform[0]} if transform and transform[0] else {}),
            }
        )
    return validated_contract(tool, {**_parts(contract), "mapping": mapping})


def reject(store, tool: str, arguments: str, request: str) -> None:
    """Keep a pair out of inference, and out of the contract if it was declared."""
    _check_pointers(arguments, request)
    store.reject_pair(tool, arguments, request)
    store.change_tool(tool, lambda stored: _without_pair(tool, stored, arguments, request))
    update_inference(store, tool)


def _without_pair(tool: str, contract: dict | None, arguments: str, request: str) -> dict | None:
    """Return the contract without a declared pair, else None.

    None when it does not declare it."""
    if not contract or (arguments, request) not in declared_pairs(contract):
        return None
    mapping = [
        m
        for m in contract["mapping"]
        if not (
            isinstance(m, dict) and m.get("arguments") == arguments and m.get("request") == request
        )
    ]
    return validated_contract(tool, {**_parts(contract), "mapping": mapping})


def _parts(contract: dict) -> dict:
    """Return a stored contract's parts, without what the store adds.

    Its name, when it changed."""
    return {k: v for k, v in contract.items() if k not in ("name", "updated_at")}


def _check_pointers(arguments, request, way_back: bool = False) -> None:
    names = RESPONSE_TO_RESULT if way_back else ARGUMENTS_TO_REQUEST
    for name, pointer in zip(names, (arguments, request)):
        if name == "request" and is_located_path(pointer):
            # query:/page_size, path:/invoiceId: a field outside the body
            continue
        if not is_pointer(pointer) or not pointer:
            raise ContractError(
                f'{name}: {pointer!r} is not a JSON Pointer to a field (e.g. "/seats")',
                "bad_pointer",
            )
