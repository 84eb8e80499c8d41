"""A value sent whole inside another.

A template or a wrapper the layer applies, or a bug.

One call cannot tell `"2793704217258"` sent as `"gid://shopify/Customer/2793704217258"`, `"hoodie"`
as `"title:*hoodie*"` or a note as `{"content": note}` (what the vendor's API wants) from a value
built wrong: the value reached the request whole, and only the tool's earlier calls (the same
template every time) or a declared transform settle it. So its change is info one call at a time.
"""

from ...common.pointers import MISSING
from ..values.json_values import is_container

SETTLES = (
    "sent whole inside another value: a template or wrapper one call cannot tell from a bug; a "
    "declared transform or the tool's earlier calls would settle it"
)
READ_OUT = (
    "a part of the argument sent alone (an id read out of a URL or a path): one call cannot tell "
    "it from a wrong value; a declared transform or the tool's earlier calls would settle it"
)
# a shorter part meets a longer text by chance (`1` in `v1`)
_MIN_PART = 3


# a wrapper holds the value beside this many settings at most, and texts this short meet by chance
MAX_WRAPPER_LEAVES = 4
MIN_WRAPPED_TEXT = 3


def held_whole(value, sent) -> bool:
    """Tell whether a scalar argument reached the request whole inside another value.

    Inside a longer text, as the only value of a container, or as the one text of a small
    container beside its settings."""
    if isinstance(value, bool) or value is None or is_container(value) or value == sent:
        return False
    if isinstance(value, str) and isinstance(sent, str):
        return bool(value.strip()) and value in sent
    if is_container(sent):
        only = only_leaf(sent)
        if only is not MISSING:
            return only == value and type(only) is type(value)
        # a text wrapped with a few settings beside it (`{"body": note, "public": true}`)
        found = small_leaves(sent)
        return (
            isinstance(value, str)
            and len(value.strip()) >= MIN_WRAPPED_TEXT
            and found is not None
            and sum(1 for leaf in found if leaf == value and isinstance(leaf, str)) == 1
        )
    return False


def small_leaves(doc, limit: int = MAX_WRAPPER_LEAVES) -> list | None:
    """Return the scalars of a small container, or None past `limit` of them."""
    out, todo = [], [(doc, 0)]
    while todo:
        node, depth = todo.pop()
        if is_container(node):
            if depth >= 4:
                return None
            todo += [(v, depth + 1) for v in (node.values() if isinstance(node, dict) else node)]
        elif len(out) == limit:
            return None
        else:
            out.append(node)
    return out


def only_leaf(doc, depth: int = 0):
    """Return the one scalar a small container holds, or MISSING."""
    while is_container(doc) and depth < 4:
        items = list(doc.values()) if isinstance(doc, dict) else list(doc)
        if len(items) != 1:
            return MISSING
        doc, depth = items[0], depth + 1
    return MISSING if is_container(doc) else doc


def read_out(value, sent) -> bool:
    """Tell whether the request holds a part of a text argument standing apart in it.

    `BACKEND-1Z43` out of `https://acme.sentry.io/issues/BACKEND-1Z43/`: a whole segment, no
    letter or digit glued to it on either side."""
    if not (isinstance(value, str) and isinstance(sent, str)) or len(sent) < _MIN_PART:
        return False
    at = value.find(sent)
    while at >= 0:
        before = value[at - 1] if at else ""
        after = value[at + len(sent) : at + len(sent) + 1]
        if not before.isalnum() and not after.isalnum() and sent != value:
            return True
        at = value.find(sent, at + 1)
    return False
