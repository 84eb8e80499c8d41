"""Contract lint before traffic.

A tool's arguments schema against the request of the API operation it maps to.

`lint_contract(contract)` pairs the arguments with the request's body fields and parameters
(pairs.py), then tells each mismatch (compare.py) with both JSON Pointers: an argument that maps to
nothing, a field the API requires that no argument fills, and per pair the types, values, formats,
bounds and required-ness where the tool allows what the API refuses. `lint_targets` reads which
contracts to lint from the documents given (targets.py). All pure: the CLI reads the files and
prints the reports."""

from ...analysis import rank
from ...common.pointers import is_pointer
from .compare import pair_mismatches, record
from .fields import arguments_tree, request_tree
from .pairs import Pairs
from .patterns import pattern_findings
from .schemas import fills_itself
from .targets import Target, lint_targets

__all__ = ["KINDS", "Target", "lint_contract", "lint_targets"]

KINDS = (
    "unmapped_argument",
    "unfilled_field",
    "type_mismatch",
    "enum_mismatch",
    "format_mismatch",
    "range_mismatch",
    "required_mismatch",
    "pattern_skipped",
)


def lint_contract(contract: dict) -> list[dict]:
    """Return the mismatches between a contract's arguments and its request.

    Its arguments schema against its request (body schema and `http`)."""
    consumed = _consumed(contract)
    pairs = Pairs(
        arguments_tree(contract), request_tree(contract), declared_pairs(contract), consumed
    )
    out = []
    for pointer, (found, how) in pairs.pairs.items():
        out += pair_mismatches(pairs.left[pointer], found, how, pairs.transforms.get(pointer))
    for left, right in pairs.also:
        out += pair_mismatches(left, right, "same", pairs.transforms.get(left.pointer))
    out += _unmapped(pairs, consumed) + _unfilled(pairs) + pattern_findings(contract)
    return sorted(out, key=_order)


def declared_pairs(contract: dict) -> dict[str, tuple]:
    """Return the contract's `mapping` as {argument pointer: (field, transform)}.

    The request field and transform, items written `*`."""
    out = {}
    for entry in contract.get("mapping") or ():
        if (
            isinstance(entry, dict)
            and isinstance(entry.get("arguments"), str)
            and isinstance(entry.get("request"), str)
        ):
            transform = entry.get("transform") if isinstance(entry.get("transform"), str) else None
            out[_starred(entry["arguments"])] = (_starred(entry["request"]), transform)
    return out


def _starred(path: str) -> str:
    """Write a pointer's array indexes as `*`, as fields are named.

    `/items/0/sku` -> `/items/*/sku`."""
    location, colon, rest = path.partition(":")
    head, pointer = (location + colon, rest) if colon else ("", path)
    return head + "/".join("*" if token.isdigit() else token for token in pointer.split("/"))


def _consumed(contract: dict) -> set[str]:
    return {p for p in contract.get("consumed") or () if is_pointer(p) and p}


def _open(field) -> bool:
    """Tell whether a field's schema leaves its members unsaid.

    No properties, no items: anything may go in."""
    return not field.children


def _unmapped(pairs: Pairs, consumed: set[str]) -> list[dict]:
    out = []
    for field in pairs.left.values():
        if not field.pointer or field.key == "*" or field.pointer in pairs.pairs:
            continue
        parent = pairs.left[field.pointer[: field.pointer.rfind("/")]]
        above = pairs.pairs.get(parent.pointer)
        if (
            (parent.pointer and above is None)
            or (above is not None and _open(above[0]))
            or _under(field, consumed)
        ):
            # its parent is unmapped (told once, there), sent as an open object, or used by the
            # layer
            continue
        where = "in the request (no body field or parameter of the operation)"
        out.append(
            record(
                "unmapped_argument",
                "warning",
                field.pointer,
                None,
                f"{field.pointer[1:]} maps to nothing {where}",
            )
        )
    return out


def _under(field, consumed: set[str]) -> bool:
    return any(field.pointer == p or field.pointer.startswith(p + "/") for p in consumed)


def _unfilled(pairs: Pairs) -> list[dict]:
    out = []
    for field in pairs.right.values():
        if (
            not field.pointer
            or not field.required
            or field.key == "*"
            or field.location == "header"
        ):
            # a header the API requires is the HTTP client's (an API key, a version)
            continue
        if pairs.filled(field):
            continue
        parent = _parent(pairs, field)
        if parent.pointer and parent.pointer not in pairs.back and not pairs.filled(parent):
            # its parent is unfilled: told once, there
            continue
        if parent.pointer in pairs.back and _open(pairs.back[parent.pointer]):
            # the tool passes the object through as the model writes it
            continue
        name = field.pointer[1:] if field.pointer.startswith("/") else field.pointer
        # read-only, one value or a default: no argument needs to fill it
        if fills_itself(field.schema):
            severity, text = (
                "info",
                f"the API requires it and no argument fills it; {_fills_itself_how(field.schema)}",
            )
        else:
            severity, text = "error", "the API requires it; no argument fills it"
        out.append(record("unfilled_field", severity, None, field.pointer, f"{name}: {text}"))
    return out


def _fills_itself_how(schema: dict) -> str:
    if schema.get("readOnly") is True:
        return "it is read-only (the server fills it)"
    if "default" in schema:
        return "it has a default the layer may send"
    return "it has one value the layer may send"


def _parent(pairs: Pairs, field):
    if field.location != "body" and field.pointer.count("/") == 1:
        # a parameter's parent is the request
        return pairs.request
    return pairs.right[field.pointer[: field.pointer.rfind("/")]]


def _order(found: dict) -> tuple:
    first = found["left"] or found["right"] or {}
    return rank(found["severity"]), first.get("path") or "", KINDS.index(found["kind"])
