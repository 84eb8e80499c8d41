"""What a tool of the real-layer corpus is.

Its definition, how its code builds the request, what comes back.

Each project module describes tools rebuilt from a public repository (named with the file and commit
read): the tool's input schema as the project declares it, a function turning arguments into the
HTTP request the project's code sends, the vendor's success and error answers, and the result the
layer hands the model. Bugs are planted on a copy of a correct call (`Bug.plant`), each naming the
place tracediff should flag.
"""

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode


class _Nobody:
    """A request with no body (a GET), told from a JSON `null`; copies are itself."""

    def __deepcopy__(self, memo):
        return self

    def __repr__(self):
        return "NOBODY"


NOBODY = _Nobody()


@dataclass(frozen=True)
class Source:
    """The public code a tool was read from."""

    repo: str
    path: str
    commit: str


@dataclass
class Wire:
    """One HTTP request as a mapping layer sends it."""

    method: str
    # scheme, host and path, no query
    url: str
    # [(key, text)] in the order the code appends them
    query: list = field(default_factory=list)
    headers: dict = field(default_factory=dict)
    json: Any = NOBODY
    # [(key, text)] of an x-www-form-urlencoded body
    form: list | None = None

    def http(self) -> dict:
        """The request's `http` as the ingest envelope takes it."""
        url = self.url + (
            "?" + urlencode(self.query, quote_via=quote, safe="") if self.query else ""
        )
        return {"method": self.method, "url": url, "headers": dict(self.headers)}

    def payload(self):
        """The request body as logged: JSON, a form's text, or None."""
        if self.form is not None:
            return urlencode(self.form)
        return None if self.json is NOBODY else self.json


@dataclass
class Answer:
    """The server's answer: status, body and the headers worth logging."""

    status: int
    body: Any
    headers: dict = field(default_factory=dict)


@dataclass
class Bug:
    """A planted bug: its kind, how it breaks a call, and where tracediff should flag it.

    `plant(call)` changes the call (a dict of arguments, wire, answer, result) in place and returns
    False when the bug does not apply to these arguments. `arguments` and `request` (or `response`)
    are the places as tracediff names them: a JSON Pointer into the arguments, a located request
    path (`query:/limit`, `form:/amount`, `header:/idempotency-key`, `/variables/input/title`), a
    response path. `single`: one call alone can decide it (issue 32, item 2), so `tracediff check`
    should flag it."""

    kind: str
    plant: Callable[[dict], bool]
    arguments: str | None = None
    request: str | None = None
    response: str | None = None
    single: bool = False
    # planted on a call whose server answered an error
    error: bool = False


@dataclass
class Tool:
    """A tool of a real mapping layer."""

    project: str
    name: str
    source: Source
    description: str
    schema: dict
    # rng -> arguments a model sends
    args: Callable
    # arguments -> Wire, as the project's code builds it
    request: Callable
    # (arguments, rng) -> Answer on success
    response: Callable
    # [(arguments, rng) -> Answer]: the vendor's error answers
    errors: list
    # (arguments, Answer) -> what the model is handed back
    result: Callable
    bugs: list = field(default_factory=list)

    def definition(self) -> dict:
        """The MCP tool definition the project's server lists."""
        return {"name": self.name, "description": self.description, "inputSchema": self.schema}


# --- building blocks the project modules share ----------------------------------------------------


def mcp_text(data, is_error: bool | None = None, indent: int | None = None) -> dict:
    """An MCP CallToolResult holding `data` as JSON text (strings as they are)."""
    text = data if isinstance(data, str) else json.dumps(data, indent=indent)
    out = {"content": [{"type": "text", "text": text}]}
    if is_error is not None:
        out["isError"] = is_error
    return out


def mcp_json(data, indent: int | None = 2) -> dict:
    """An MCP CallToolResult with the JSON both as text and as `structuredContent`."""
    return {
        "content": [{"type": "text", "text": json.dumps(data, indent=indent)}],
        "structuredContent": data,
    }


def jsonrpc_error(message: str, call_id: int = 7) -> dict:
    """What an MCP client reads when the tool handler threw (an old SDK's internal error)."""
    return {"jsonrpc": "2.0", "id": call_id, "error": {"code": -32603, "message": message}}


def some(rng, share: float) -> bool:
    """Whether an optional argument is sent (a model leaves most optional ones out)."""
    return rng.random() < share


def put(args: dict, rng, key: str, share: float, make: Callable):
    """Add args[key] = make() with probability share."""
    if some(rng, share):
        args[key] = make()


def schema(properties: dict, required=()) -> dict:
    out = {"type": "object", "properties": properties}
    if required:
        out["required"] = list(required)
    return out


def s(description: str = "", **more) -> dict:
    return {"type": "string", **({"description": description} if description else {}), **more}


def n(description: str = "", kind: str = "number", **more) -> dict:
    return {"type": kind, **({"description": description} if description else {}), **more}


def b(description: str = "") -> dict:
    return {"type": "boolean", **({"description": description} if description else {})}


def strings(description: str = "") -> dict:
    return {
        "type": "array",
        "items": {"type": "string"},
        **({"description": description} if description else {}),
    }


# --- planting bugs: small edits of one place of a call --------------------------------------------


def _pairs(call: dict, where: str) -> list | None:
    wire = call["wire"]
    return wire.query if where == "query" else wire.form


def _body_parent(call: dict, pointer: str, make: bool = False):
    """The JSON body's object holding `pointer`'s last key, and that key (None when absent)."""
    keys = pointer.strip("/").split("/")
    node = call["wire"].json
    for key in keys[:-1]:
        if isinstance(node, list):
            key = int(key)
            if key >= len(node):
                return None, None
        elif key not in node:
            if not make:
                return None, None
            node[key] = {}
        node = node[key]
    return node, keys[-1]


def has(call: dict, where: str, key: str) -> bool:
    """Whether the request carries `key` in `where` (query, form, header, body: a JSON Pointer)."""
    if where in ("query", "form"):
        return any(k == key for k, _ in _pairs(call, where) or [])
    if where == "header":
        return key in call["wire"].headers
    parent, last = _body_parent(call, key)
    return parent is not None and (
        last in parent if isinstance(parent, dict) else int(last) < len(parent)
    )


def edit(where: str, key: str, change: Callable) -> Callable:
    """A planter replacing the value at `key` by change(value) (None from change: not
    applicable)."""

    def plant(call):
        if not has(call, where, key):
            return False
        if where in ("query", "form"):
            pairs = _pairs(call, where)
            index = next(i for i, (k, _) in enumerate(pairs) if k == key)
            new = change(pairs[index][1])
            if new is None or new == pairs[index][1]:
                return False
            pairs[index] = (key, new)
            return True
        if where == "header":
            new = change(call["wire"].headers[key])
            call["wire"].headers[key] = new
            return new is not None
        parent, last = _body_parent(call, key)
        last = int(last) if isinstance(parent, list) else last
        new = change(parent[last])
        if new is None or new == parent[last]:
            return False
        parent[last] = new
        return True

    return plant


def rename(where: str, key: str, new_key: str) -> Callable:
    """A planter sending `key` under another name (same value)."""

    def plant(call):
        if not has(call, where, key):
            return False
        if where in ("query", "form"):
            pairs = _pairs(call, where)
            pairs[:] = [(new_key if k == key else k, v) for k, v in pairs]
            return True
        parent, last = _body_parent(call, key)
        value = parent.pop(last)
        parent[new_key.rsplit("/", 1)[-1]] = value
        return True

    return plant


def drop(where: str, key: str) -> Callable:
    """A planter leaving `key` out of the request."""

    def plant(call):
        if not has(call, where, key):
            return False
        if where in ("query", "form"):
            pairs = _pairs(call, where)
            pairs[:] = [(k, v) for k, v in pairs if k != key]
        elif where == "header":
            del call["wire"].headers[key]
        else:
            parent, last = _body_parent(call, key)
            del parent[last]
        return True

    return plant


def leak(where: str, key: str, value) -> Callable:
    """A planter adding an internal field no argument explains."""

    def plant(call):
        if where in ("query", "form"):
            if _pairs(call, where) is None:
                return False
            _pairs(call, where).append((key, value))
        else:
            parent, last = _body_parent(call, key, make=True)
            if parent is None:
                return False
            parent[last] = value
        return True

    return plant


def unwrap(wrapper: str, key: str) -> Callable:
    """A planter moving body field `wrapper/key` out of its wrapper, up one level."""

    def plant(call):
        if not has(call, "body", f"{wrapper}/{key}"):
            return False
        inner, last = _body_parent(call, f"{wrapper}/{key}")
        outer, _ = _body_parent(call, wrapper)
        outer[last] = inner.pop(last)
        return True

    return plant


def lose(pointer: str) -> Callable:
    """A planter taking a field out of an error answer's body (the error losing its message...)."""

    def plant(call):
        node = call["answer"].body
        keys = pointer.strip("/").split("/")
        for key in keys[:-1]:
            if not isinstance(node, dict) or key not in node:
                if isinstance(node, list) and key.isdigit() and int(key) < len(node):
                    node = node[int(key)]
                    continue
                return False
            node = node[key]
        if not isinstance(node, dict) or keys[-1] not in node:
            return False
        del node[keys[-1]]
        call["result"] = call["rebuild_result"](call["answer"])
        return True

    return plant


def path_segment(index: int, change: Callable) -> Callable:
    """A planter changing the URL path's segment `index` (0 is the first after the host)."""

    def plant(call):
        wire = call["wire"]
        head, _, path = wire.url.partition("://")
        host, *segments = path.split("/")
        if index >= len(segments):
            return False
        new = change(segments[index])
        if new is None or new == segments[index]:
            return False
        segments[index] = new
        wire.url = f"{head}://{host}/" + "/".join(segments)
        return True

    return plant


def text_of(value) -> str:
    """A number or boolean written in a URL or a form, as JavaScript's String() writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def as_string(value):
    """5 -> "5" (the type-change bug)."""
    return None if isinstance(value, str) else text_of(value)


def upper(value):
    return value.upper() if isinstance(value, str) and value.upper() != value else None


def plus_one(value):
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    if isinstance(value, str):
        return str(int(value) + 1) if value.isdigit() else None
    return value + 1


def day_first(value):
    """2026-09-14 (or a date-time) -> 14/09/2026: the date-format bug."""
    if not isinstance(value, str) or len(value) < 10 or value[4] != "-":
        return None
    return f"{value[8:10]}/{value[5:7]}/{value[0:4]}" + value[10:]


def to_epoch(value):
    """An RFC 3339 time -> seconds since the epoch (the date-format bug on a time)."""
    from datetime import datetime

    try:
        return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp())
    except (TypeError, ValueError):
        return None


def copied(call: dict) -> dict:
    """A deep copy of a call (its rebuild function shared).

    The wire and the answer are copied apart from the arguments: a layer that puts an argument's
    object into its request as it is shares it, and a bug planted in the request must leave the
    arguments the model sent as they were."""
    rebuild = call.get("rebuild_result")
    parts = ("rebuild_result", "wire", "answer")
    out = copy.deepcopy({k: v for k, v in call.items() if k not in parts})
    out.update({k: copy.deepcopy(call[k]) for k in ("wire", "answer") if k in call})
    out["rebuild_result"] = rebuild
    return out


def swap(first: str, second: str) -> Callable:
    """A planter swapping two JSON body values (when they differ)."""

    def plant(call):
        if not (has(call, "body", first) and has(call, "body", second)):
            return False
        a, ka = _body_parent(call, first)
        b, kb = _body_parent(call, second)
        if a[ka] == b[kb]:
            return False
        a[ka], b[kb] = b[kb], a[ka]
        return True

    return plant
