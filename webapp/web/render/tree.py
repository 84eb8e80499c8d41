"""The raw view's JSON tree as a flat list of tokens.

Bounded so big payloads stay fast.

A container is rendered open with its children while a node budget lasts (or when a
finding sits below it); past that it is rendered closed and its children are fetched
when it is opened. Large containers show a page of children and a "more" token.
"""

import json
from dataclasses import dataclass, field
from urllib.parse import quote, unquote

from ...common.pointers import ancestors, child, is_pointer

# nodes rendered eagerly per snapshot
NODE_BUDGET = 2000
# bytes of JSON from which a snapshot opens collapsed
BIG_PAYLOAD = 200_000
# children shown before a "more" link
CHILD_PAGE = 200
# about this many characters of HTML per snapshot; the rest on demand
TREE_CHARS = 100_000
# characters of a leaf value shown inline
LEAF_CHARS = 400
_ID_SAFE = "/~!$&'()*+,;=:@-._"


def node_id(snapshot: str, pointer: str) -> str:
    """Return the HTML id of a node.

    Snapshot + JSON Pointer, whitespace and % percent-encoded; a request field outside the body
    (`query:/page_size`) is `request/query:/page_size`."""
    return snapshot + ("/" if pointer[:1] not in ("", "/") else "") + quote(pointer, safe=_ID_SAFE)


def parse_node_id(text: str, snapshots) -> tuple[str, str] | None:
    """Return (snapshot, pointer) of a node id made by node_id, else None.

    None when it names no node."""
    name, slash, rest = (text or "").partition("/")
    pointer = unquote(slash + rest)
    if name not in snapshots or not is_pointer(pointer):
        return None
    return name, pointer


def value_text(value, limit: int = LEAF_CHARS) -> str:
    """Render a value as compact JSON text, cut at `limit` characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "…"


def payload_size(value) -> int:
    """Return the size in bytes of a value as JSON."""
    return len(json.dumps(value, ensure_ascii=False).encode())


@dataclass
class TreeOptions:
    """What a tree build knows about the call: marked paths and alignment rows."""

    snapshot: str
    # pointer -> (kind, severity)
    marks: dict = field(default_factory=dict)
    # pointer -> alignment row index
    rows: dict = field(default_factory=dict)
    # big payload: only paths to marks open
    collapsed: bool = False
    budget: int = NODE_BUDGET
    # a deep link's pointer: rendered like a mark
    reveal: str | None = None
    # what is left of the page's characters
    chars: int = TREE_CHARS
    # a later page: marked children past the first page
    shown: int = 0
    # and before this index were shown on it

    def __post_init__(self):
        targets = set(self.marks) | ({self.reveal} if self.reveal is not None else set())
        self.open_paths = {up for ptr in targets for up in ancestors(ptr)}
        self.wanted = self.open_paths | targets
        self.reveal_path = (
            {self.reveal, *ancestors(self.reveal)} if self.reveal is not None else set()
        )
        # "More" links carry the deep link on, so later pages skip what the first page showed.
        self.reveal_id = node_id(self.snapshot, self.reveal) if self.reveal is not None else None


def tree_tokens(value, options: TreeOptions, pointer: str = "", key=None) -> list[dict]:
    """Return the tokens of the node at `pointer` and below it.

    Below it as far as the budget goes."""
    out: list[dict] = []
    _node(value, options, pointer, key, out)
    return out


def children_tokens(value, options: TreeOptions, pointer: str, offset: int = 0) -> list[dict]:
    """Return the tokens of one page of a container's children.

    For a lazy expand or "more"."""
    out: list[dict] = []
    _children(value, options, pointer, offset, out)
    return out


def _node(value, options, pointer, key, out) -> None:
    base = {
        "key": key,
        "ptr": pointer,
        "id": node_id(options.snapshot, pointer),
        "mark": options.marks.get(pointer),
        "row": options.rows.get(pointer),
    }
    options.budget -= 1
    # Keys, values and ids (the pointer, percent-encoded) are what a node's HTML is made of.
    options.chars -= _MARKUP + len(str(key or "")) + len(base["id"]) + len(pointer)
    if not isinstance(value, (dict, list)) or not value:
        out.append({**base, "t": "leaf", "text": value_text(value), "type": _type(value)})
        options.chars -= len(out[-1]["text"])
        return
    on_path = pointer in options.wanted
    eager = on_path or (not options.collapsed and options.budget > 0) or pointer == ""
    is_open = on_path or not options.collapsed or pointer == ""
    out.append(
        {
            **base,
            "t": "open",
            "type": _type(value),
            "size": len(value),
            "open": is_open and eager,
            "lazy": not eager,
        }
    )
    if eager:
        _children(value, options, pointer, 0, out)
    out.append({"t": "close"})


def _children(value, options, pointer, offset, out) -> None:
    items = value.items() if isinstance(value, dict) else enumerate(value)
    end, cut, shown = offset + CHILD_PAGE, None, len(value)
    for index, (key, item) in enumerate(items):
        path = child(pointer, key)
        if path in options.reveal_path:
            # A deep link's node is on the first page of its container, even past a cut (below).
            if not offset:
                _node(item, options, path, key, out)
            continue
        # Marked children past the first page are shown on it, so later pages skip them.
        extra = index >= CHILD_PAGE and path in options.wanted
        if cut is None and (
            (offset <= index < end and not (offset and extra and index < options.shown))
            or (not offset and index >= end and extra)
        ):
            if options.chars <= 0 and index > offset:
                # The page is full: the rest comes on demand, the marked children it has not shown
                # too.
                cut = index
                if index >= end and not offset:
                    shown = index
                continue
            _node(item, options, path, key, out)
    if cut is not None and (cut < end or offset):
        out.append(_more(options, pointer, cut, len(value), options.shown if offset else 0))
    elif len(value) > end:
        out.append(_more(options, pointer, end, len(value), options.shown if offset else shown))


def _more(options, pointer, offset, size, shown) -> dict:
    return {
        "t": "more",
        "ptr": pointer,
        "offset": offset,
        "left": size - offset,
        "open": options.reveal_id,
        "shown": shown,
    }


# characters of a node's tags, classes and buttons around its key and value
_MARKUP = 330


def _type(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"
