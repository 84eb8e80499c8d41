"""Arguments the mapping layer keeps for itself.

Their values reach the result, never the wire or the answer.

Figma's `download_figma_images` saves each image under the model's `localPath` and `fileName` and
says so in its result ("Downloaded 2 images to `/srv/app/public/images`: hero.png ..."); neither
reaches Figma. One call shows where such an argument went: its value is in what the layer handed
the model, and nowhere in the request or the server's answer, so the layer read it itself. That it
read it rightly (or should also have sent it) is what one call cannot tell: the finding is info,
and says what would settle it. Values too short or too common to tell apart (`true`, `png`, `10`)
are never read so.
"""

from ...common import jsontext
from ..values.json_values import is_container

KEPT = (
    "its value is in the result and nowhere in the request or the response, so the layer used it "
    "itself; seen in one call: a mapping or `consumed` in the contract, or the tool's earlier "
    "calls, would tell an argument the layer keeps from one it lost"
)
# a value this short or this common is found in any text by chance
_MIN_CHARS = 4
_MAX_CHARS = 500
# the arguments' nodes looked at, and the texts searched, at most: a call's own size
_MAX_NODES = 256
_MAX_TEXT = 256 * 1024


def kept_arguments(arguments, request, response, reading) -> set[str]:
    """Return the argument paths whose text values only the result holds.

    Of the arguments' first nodes (_MAX_NODES); empty when the result is too big to search."""
    result = _result_text(reading)
    if not result or not is_container(arguments):
        return set()
    candidates = [
        (path, value)
        for path, value in _text_leaves(arguments)
        if _MIN_CHARS <= len(value.strip()) and value in result
    ]
    if not candidates:
        return set()
    elsewhere = _text(request) + "\n" + _text(response)
    return {path for path, value in candidates if value not in elsewhere}


def _result_text(reading) -> str:
    """Return the text the model read, and its structured value as JSON, or ""."""
    # its size first: a big result is never written out again to be searched
    if reading is None or reading.size > _MAX_TEXT:
        return ""
    parts = [reading.text or ""]
    if is_container(reading.structured):
        parts.append(_text(reading.structured))
    text = "\n".join(parts)
    return text if len(text) <= _MAX_TEXT else ""


def _text(doc) -> str:
    if doc is None:
        return ""
    try:
        return jsontext.dumps(doc).decode()
    except (TypeError, ValueError):
        return str(doc)


def _text_leaves(doc):
    """Yield (pointer, text) of a document's text leaves, breadth first.

    Of its first _MAX_NODES nodes; texts a JSON dump writes as they are (no quote, backslash or
    control character)."""
    todo, seen = [("", doc)], 0
    while todo:
        later = []
        for path, node in todo:
            items = node.items() if isinstance(node, dict) else enumerate(node)
            for key, value in items:
                seen += 1
                if seen > _MAX_NODES:
                    return
                token = str(key).replace("~", "~0").replace("/", "~1")
                if isinstance(value, str):
                    if len(value) <= _MAX_CHARS and value.isprintable() and not _escaped(value):
                        yield f"{path}/{token}", value
                elif is_container(value):
                    later.append((f"{path}/{token}", value))
        todo = later


def _escaped(value: str) -> bool:
    return '"' in value or "\\" in value
