"""An argument no request field holds.

Dropped, or kept by the mapping layer for itself.

One call alone cannot tell an argument the layer consumes (a `fields` projection, a filter or a
limit it applies to the answer, an option the vendor's API has no place for) from one it lost. What
one call can decide: a required argument gone (an error), and an argument the contract says travels
(its mapping names it, or its request schema has a field of its name): a warning. An optional
argument nothing says travels is info, and says what would settle it; with history, the tool's
earlier calls settle it (inference/novel.py raises it when they always sent it).

An optional argument is lost, not consumed, where the call shows it: a request field no argument
explains has its type (a name or value changed on the way), or a write's body holds no value at all.

A required argument that picks the route is no field of the request either: an operation selector
(`"method": "create"` out of `create`, `update`, or any verb under a name such as `method` or
`action` where no values are declared) whose value the HTTP method agrees with.
"""

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ...common.pointers import last
from ..findings.kinds import end, finding
from ..schemas.declared import field_schemas, requires
from ..values.json_values import (
    is_container,
    is_empty,
    is_redacted,
    norm_key,
    show,
    type_name,
)
from ..wire.locations import external, in_text, secret_place
from ..wire.parameters import parameters, template_of
from ..wire.request import template_variables
from ..wire.values import wire_reading

SETTLES = (
    "one call cannot tell an argument the layer consumes from a dropped one: a mapping or "
    "`consumed` in the contract, or the tool's earlier calls, would settle it"
)
# Operations a selector names, by the HTTP methods that carry them out.
_VERBS = {
    "POST": ("create", "add", "new", "insert", "post", "submit", "send", "start", "run", "open"),
    "PUT": ("update", "edit", "modify", "set", "replace", "upsert", "put", "create"),
    "PATCH": ("update", "edit", "modify", "set", "patch", "change", "rename", "close", "reopen"),
    "DELETE": ("delete", "remove", "destroy", "unset", "del"),
    "GET": ("get", "list", "read", "fetch", "search", "show", "find", "view", "retrieve", "query"),
}
# RPC-style APIs update through POST too
_VERBS["POST"] += _VERBS["PATCH"]
_ALL_VERBS = frozenset().union(*_VERBS.values())
# the names of an argument that selects the operation to run, compared as norm_key does
_SELECTOR_NAMES = frozenset(("method", "action", "operation", "op", "verb", "operationtype"))
# bounds on a schema walked for the names it declares
_MAX_NAMES, _MAX_NODES = 2000, 5000


@dataclass(frozen=True)
class Seen:
    """What else one call shows of its request.

    Its HTTP method, the fields no argument explains ((internal path, value) pairs), the body it
    sent (None when it sent none)."""

    http_method: str | None
    added: list
    body: Any
    # the call's contract: what it says of where arguments go is read once, not per argument
    contract: dict = field(default_factory=dict)

    @cached_property
    def mapped(self) -> dict[str, str]:
        """Return {argument path: why it travels} of the contract's mapping (first wins)."""
        out: dict[str, str] = {}
        for m in self.contract.get("mapping") or ():
            if (
                isinstance(m, dict)
                and isinstance(m.get("arguments"), str)
                and isinstance(m.get("request"), str)
            ):
                told = "the tool's earlier calls send" if m.get("inferred") else "the contract maps"
                out.setdefault(m["arguments"], f"{told} it to {m['request']}")
        return out

    @cached_property
    def added_index(self) -> tuple[dict, int | None, list]:
        """Index the added fields once: 20,000 dropped arguments each look at them.

        (type name -> first body field of it, the first body container, the URL's and headers'
        fields with their places: read as each argument's type, they are tried one by one)."""
        first, container, texts = {}, None, []
        for index, (path, sent) in enumerate(self.added):
            if secret_place(path, sent):
                # the layer's own credentials: never where a model's argument went
                continue
            if in_text(path):
                texts.append((index, path, sent))
                continue
            first.setdefault(type_name(sent), index)
            if container is None and is_container(sent):
                container = index
        return first, container, texts

    @cached_property
    def first_by_type(self) -> dict[str, str | None]:
        """Return {type name: the first added field of it}, filled as arguments ask."""
        return {}

    @cached_property
    def schema_names(self) -> frozenset:
        """Return the names the request schema declares (schema_names)."""
        return schema_names(self.contract.get("request_schema"))

    @cached_property
    def wire_names(self) -> set:
        """Return the names of the contract's URL template and parameters, normalised."""
        return {norm_key(n) for _, n in parameters(self.contract)} | _template_names(self.contract)


def absent_argument(path: str, value, contract: dict, seen: Seen) -> dict:
    """Return the finding of an argument no request field holds.

    As loud as one call can tell."""
    schema = contract.get("arguments_schema")
    route = _picks_the_route(path, value, schema, seen.http_method)
    if route:
        text = f"{_name(path)} {show(value)} picks the route ({route}): consumed by the layer"
        return finding("dropped", "info", end("arguments", path), None, value, None, text)
    if requires(schema, path):
        severity, why = "error", " (required by the arguments schema)"
    elif is_empty(value):
        severity, why = "info", " (empty value)"
    else:
        travels = said_to_travel(path, seen) or _shown_lost(value, seen)
        severity, why = ("warning", f" ({travels})") if travels else ("info", f"; {SETTLES}")
    return finding(
        "dropped",
        severity,
        end("arguments", path),
        None,
        value,
        None,
        f"{_name(path)} dropped: not in the request{why}",
    )


def said_to_travel(path: str, seen: Seen) -> str | None:
    """Say why the contract expects an argument on the wire, or None.

    Its mapping, its request schema."""
    if path in seen.mapped:
        return seen.mapped[path]
    key = norm_key(last(path) or "")
    if key and key in seen.schema_names:
        return "the request schema has a field of its name"
    if key and key in seen.wire_names:
        return "the contract's URL template or parameters name it"
    return None


def _template_names(contract) -> set:
    template = template_of(contract)
    return {norm_key(v) for v in template_variables(template)} if template else set()


def _shown_lost(value, seen: Seen) -> str | None:
    """Say what shows an optional argument lost rather than consumed, or None.

    What in the call shows it. The redaction marker's text tells nothing of its value's type."""
    path = None if is_redacted(value) else _first_of_its_type(value, seen)
    if path is not None:
        return f"{external(path)}, which no argument explains, holds a value of its type"
    method = (seen.http_method or "").upper()
    if (
        method not in ("GET", "HEAD", "DELETE")
        and is_container(seen.body)
        and not _leaves(seen.body)
    ):
        return "the request's body holds no value at all"
    return None


def _first_of_its_type(value, seen: Seen) -> str | None:
    """Return the first added field holding a value of the argument's type, or None."""
    first, container, texts = seen.added_index
    if not texts:
        # no URL or header field to read as the argument's type: the type alone decides
        kind, known = type_name(value), seen.first_by_type
        if kind not in known:
            known[kind] = _first_in_body(value, seen)
        return known[kind]
    return _first_in_body(value, seen)


def _first_in_body(value, seen: Seen) -> str | None:
    """Return the first added field of the argument's type (URL fields read as it)."""
    first, container, texts = seen.added_index
    found = (first.get(type_name(value)), container if is_container(value) else None)
    best = min((index for index in found if index is not None), default=len(seen.added))
    for index, path, sent in texts:
        if index >= best:
            break
        read = wire_reading(value, sent)
        if type_name(read) == type_name(value) or (is_container(read) and is_container(value)):
            return path
    return seen.added[best][0] if best < len(seen.added) else None


def _leaves(doc, depth: int = 0) -> bool:
    """Tell whether a document holds any value that is not an empty container."""
    if isinstance(doc, dict):
        return depth < 50 and any(_leaves(v, depth + 1) for v in doc.values())
    if isinstance(doc, list):
        return depth < 50 and any(_leaves(v, depth + 1) for v in doc)
    return True


def schema_names(schema) -> frozenset:
    """Return the property names a schema declares at any depth.

    Compared without case or separators."""
    names, todo, seen = set(), [schema], 0
    while todo and seen < _MAX_NODES and len(names) < _MAX_NAMES:
        node, seen = todo.pop(), seen + 1
        if isinstance(node, dict):
            props = node.get("properties")
            if isinstance(props, dict):
                names.update(norm_key(k) for k in props if isinstance(k, str))
            todo += [v for v in node.values() if isinstance(v, (dict, list))]
        elif isinstance(node, list):
            todo += [v for v in node if isinstance(v, (dict, list))]
    return frozenset(names)


def route_selectors(arguments, contract, http_method: str | None) -> set[str]:
    """Return the top-level arguments that are operation selectors.

    Those the HTTP method carries out."""
    if not isinstance(arguments, dict) or not http_method:
        return set()
    schema = (contract or {}).get("arguments_schema")
    return {
        f"/{key}"
        for key, value in arguments.items()
        if "/" not in key
        and "~" not in key
        and _picks_the_route(f"/{key}", value, schema, http_method)
    }


def _picks_the_route(path: str, value, schema, http_method: str | None) -> str | None:
    """Return the HTTP method an operation selector's value agrees with, or None.

    A selector is an argument whose declared values are operations (two at least, each a verb of
    the table); its value picks the route when the request's method carries that operation out."""
    # the value first: most are no verb of the method, and then no schema need be asked
    if not isinstance(value, str) or value.lower() not in _VERBS.get(
        (http_method or "").upper(), ()
    ):
        return None
    subs = field_schemas(schema, path)
    for sub in subs:
        options = sub.get("enum") if isinstance(sub.get("enum"), list) else None
        if (
            options
            and len(options) >= 2
            and all(isinstance(o, str) and o.lower() in _ALL_VERBS for o in options)
        ):
            return http_method.upper()
    # no values declared: the argument's name says it selects the operation (`method: "list"`)
    if norm_key(last(path) or "") in _SELECTOR_NAMES and not any(sub.get("enum") for sub in subs):
        return http_method.upper()
    return None


def _name(path: str) -> str:
    return path[1:] if path else "(document)"
