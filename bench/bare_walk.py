"""The per-node floor of bench/shapes.py.

A bare Python differ that visits every node once.

It walks the arguments and the request side by side (object members by key, array items by
position), builds the JSON Pointer of every node and lists the leaves that differ, then walks the
response alone. No pairing, no classifying, no findings: what any analysis that looks at each node
in Python pays at least. A shape whose every node differs costs tracediff a multiple of this; the
friendly shape, whose subtrees compare equal in C, costs a fraction of it.
"""


def _pointer(path: str, key) -> str:
    return f"{path}/{str(key).replace('~', '~0').replace('/', '~1')}"


def diff(left, right) -> list[tuple[str, object, object]]:
    """Return (pointer, left, right) for every leaf that differs.

    Visit every node of both sides."""
    out, stack = [], [("", left, right)]
    while stack:
        path, a, b = stack.pop()
        if isinstance(a, dict) or isinstance(b, dict):
            da, db = (a if isinstance(a, dict) else {}), (b if isinstance(b, dict) else {})
            if da is not a or db is not b:
                # a container on one side only: still visit its nodes
                out.append((path, a, b))
            for key in da.keys() | db.keys():
                stack.append((_pointer(path, key), da.get(key), db.get(key)))
        elif isinstance(a, list) or isinstance(b, list):
            la, lb = (a if isinstance(a, list) else []), (b if isinstance(b, list) else [])
            if la is not a or lb is not b:
                out.append((path, a, b))
            for i in range(max(len(la), len(lb))):
                stack.append(
                    (
                        _pointer(path, i),
                        la[i] if i < len(la) else None,
                        lb[i] if i < len(lb) else None,
                    )
                )
        elif type(a) is not type(b) or a != b:
            out.append((path, a, b))
    return out


def walk(value) -> int:
    """Visit every node of one document, building its pointer.

    Return the number of nodes."""
    count, stack = 0, [("", value)]
    while stack:
        path, node = stack.pop()
        count += 1
        if isinstance(node, dict):
            stack += [(_pointer(path, k), v) for k, v in node.items()]
        elif isinstance(node, list):
            stack += [(_pointer(path, i), v) for i, v in enumerate(node)]
    return count


def bare(snapshots: dict) -> int:
    """Diff the arguments against the request and walk the response.

    Return how much was found."""
    payload = {name: (snap or {}).get("payload") for name, snap in snapshots.items()}
    return len(diff(payload.get("arguments"), payload.get("request"))) + walk(
        payload.get("response")
    )
