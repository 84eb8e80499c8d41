"""Error answers as services send them.

The common shapes, told by their marks, and what each must carry.

With no error schema declared, an error body is read by its status and the shape it follows. A shape
is known by a mark (Slack's `"ok": false`, GitHub's `documentation_url`, Notion's `"object":
"error"`, an `errors` list as GraphQL, Asana or Cloudflare send it, an `{"error": {...}}` object as
Stripe, OpenAI or PagerDuty send it), and each carries what tells the error: its text or code. A
body in a known shape without it lost what the agent needed to tell the user why (`error_shape`, a
warning: the shape is read, not declared).
"""

from collections.abc import Callable
from dataclasses import dataclass

from ...common.pointers import child
from ..findings.kinds import end, finding
from ..values.json_values import norm_key
from ..values.names import ERROR_TEXT_NAMES

# Where services put an error's text, by meaning (compared without case or separators): the one
# shared list, so the shapes and the rest of the analysis read the same names.
_TEXTS = tuple(sorted(ERROR_TEXT_NAMES))


@dataclass(frozen=True)
class Shape:
    """A common error shape.

    Its name, its mark, and the fields one of which it must carry (reported: the first)."""

    name: str
    marked: Callable[[dict], bool]
    carries: tuple[str, ...]


SHAPES = (
    Shape(
        'Slack\'s `"ok": false`', lambda b: b.get("ok") is False, ("error", "errorcode", *_TEXTS)
    ),
    Shape(
        "GitHub's (`documentation_url`)", lambda b: "documentation_url" in b, ("message", *_TEXTS)
    ),
    Shape('Notion\'s `"object": "error"`', lambda b: b.get("object") == "error", ("message",)),
    Shape('Notion\'s `"object": "error"`', lambda b: b.get("object") == "error", ("code",)),
)


def shape_findings(body) -> list[dict]:
    """Warn of an error body in a common shape that lost what tells its error.

    The warnings are of kind error_shape."""
    if not isinstance(body, dict):
        return []
    out = [
        _missing("", s.carries[0], s.name)
        for s in SHAPES
        if s.marked(body) and not _carries(body, s.carries)
    ]
    errors = body.get("errors")
    if isinstance(errors, list):
        for i, item in enumerate(errors[:20]):
            if isinstance(item, dict) and not _carries(item, ("message", *_TEXTS, "code")):
                out.append(
                    _missing(
                        child("/errors", i),
                        "message",
                        "an `errors` list's (GraphQL, Asana, Cloudflare)",
                    )
                )
    inner = body.get("error")
    if isinstance(inner, dict) and not _carries(inner, _TEXTS + ("errors",)):
        out.append(_missing("/error", "message", 'an `{"error": {...}}` object\'s'))
    return out


def _carries(node: dict, names: tuple[str, ...]) -> bool:
    return any(
        isinstance(k, str) and norm_key(k) in names and node[k] not in (None, "", [], {})
        for k in node
    )


def _missing(at: str, name: str, shape: str) -> dict:
    path = child(at, name)
    text = f"error body at {path}: an error in {shape} shape carries its {name}; this one has none"
    return finding("error_shape", "warning", None, end("response", path), None, None, text)
