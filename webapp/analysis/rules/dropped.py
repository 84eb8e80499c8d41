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
from itertools import combinations
from typing import Any

from ...common.pointers import child, last, parent, resolve
from ..findings.kinds import end, finding
from ..schemas.declared import field_schemas, requires
from ..values.json_values import (
    is_container,
    is_empty,
    is_number,
    is_redacted,
    norm_key,
    show,
    type_name,
)
from ..values.readings import read_number
from ..wire.locations import external, in_text, secret_place
from ..wire.parameters import parameters, template_of
from ..wire.request import template_variables
from ..wire.values import wire_reading

SETTLES = (
    "one call cannot tell an argument the layer consumes from a dropped one: a mapping or "
    "`consumed` in the contract, or the tool's earlier calls, would settle it"
)
SETTLES_REQUIRED = (
    "one call cannot tell it dropped from sent in another's place or computed again: "
    "a mapping in the contract, or the tool's earlier calls, would settle it"
)
# the least size of a number told by its value (not 0 or 1)
_MIN_NUMBER = 1
# how near a product or sum of two numbers lies to a number computed from them
_NEAR = 1e-9
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
    # the arguments, and the paths of those the request holds
    arguments: Any = None
    travelled: frozenset = frozenset()

    @cached_property
    def added_values(self) -> dict:
        """Return {a scalar's key: the first added field holding it}.

        Texts read as numbers."""
        out: dict = {}
        budget = [_MAX_NODES]
        for top, whole in self.added:
            for path, sent in _scalars(top, whole, budget):
                number = read_number(sent) if isinstance(sent, str) else None
                key = _scalar_key(sent if number is None else number)
                if key is not None and not secret_place(path, sent):
                    out.setdefault(key, path)
        return out

    @cached_property
    def argument_counts(self) -> dict:
        """Return {a scalar's key: how many arguments hold it}."""
        out: dict = {}
        for _, value in _scalars("", self.arguments, [_MAX_NODES]):
            key = _scalar_key(value)
            if key is not None:
                out[key] = out.get(key, 0) + 1
        return out

    @cached_property
    def travelled_values(self) -> dict:
        """Return {a scalar's key: the first argument of it the request holds}."""
        out: dict = {}
        for path in sorted(self.travelled):
            key = _scalar_key(resolve(self.arguments, path, None))
            if key is not None:
                out.setdefault(key, path)
        return out

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
        # what the contract or the tool's history says travels is settled: an error still
        settled = said_to_travel(path, seen) or _every_item(path) in seen.mapped
        told = None if settled else _told_apart(path, value, seen)
        why = f" (required by the arguments schema; {told}: {SETTLES_REQUIRED})" if told else ""
        severity, why = ("info", why) if told else ("error", " (required by the arguments schema)")
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


def _told_apart(path: str, value, seen: Seen) -> str | None:
    """Say what else in one call explains a required argument the request lacks.

    None when nothing does. Its number travels as another argument's (two equal fields, one
    paired), or a field no argument explains holds it and another argument holds it too (the
    pairing could not tell which it came from), or it is the product or sum of two sibling numbers
    that travel (a line total of a price and a count)."""
    key = _scalar_key(value)
    if key is None:
        return None
    other = seen.travelled_values.get(key)
    if other is not None and other != path:
        return f"its value travels as {_name(other)}"
    # two equal arguments beside one field of their value: which one it came from is a guess
    held = seen.added_values.get(key)
    if held is not None and seen.argument_counts.get(key, 0) > 1:
        return f"{external(held)}, which no argument explains, holds its value and another's"
    if not is_number(value):
        return None
    siblings = [
        (p, v)
        for p in seen.travelled
        if parent(p) == parent(path) and is_number(v := resolve(seen.arguments, p, None))
    ]
    for (a, x), (b, y) in combinations(sorted(siblings), 2):
        for made, sign in ((x * y, "×"), (x + y, "+")):
            if abs(made - value) <= _NEAR * max(1.0, abs(value)):
                return f"it is {_name(a)} {sign} {_name(b)}, which travel"
    return None


def _every_item(path: str) -> str:
    """Return a path with each list index written `*`: a learnt item leaf's name."""
    return "/".join("*" if token.isdigit() else token for token in path.split("/"))


def _scalar_key(value):
    """Return a number's key when it is telling enough to stand for its field, or None.

    Above 1 in size. Two equal texts are two names (an owner and a repository called alike),
    each with its place; two equal numbers are often one quantity said twice (a price and the
    total of one bought)."""
    if is_number(value) and abs(value) > _MIN_NUMBER:
        return ("number", float(value))
    return None


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


def _scalars(path: str, doc, budget: list, depth: int = 0):
    """Yield (path, value) of the scalars a document holds, within a budget of nodes."""
    budget[0] -= 1
    if budget[0] < 0 or depth > 50:
        return
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from _scalars(child(path, key), value, budget, depth + 1)
    elif isinstance(doc, list):
        for index, value in enumerate(doc):
            yield from _scalars(child(path, index), value, budget, depth + 1)
    else:
        yield path, doc


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
