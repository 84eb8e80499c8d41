"""A text rendered as a document: its words, in order, in the document's text.

A layer that takes markdown and sends a rich-text tree (Atlassian's ADF, Notion's or Slack's blocks)
writes every piece of the text into a leaf of its own, in order, with the markup taken out and the
tree's own words beside them (`"type": "paragraph"`, `"marks": [{"type": "strong"}]`). What a
rendering cannot do is lose a word, change one or put them in another order: those depart from the
text, whatever the tree's form.
"""

import re

# the words of a text, markup and punctuation taken out: `**v2.14.1**` -> v2, 14, 1
_WORDS = re.compile(r"[^\W_]+")
# a leaf no word of the text explains is the tree's own: one short name (`paragraph`, `strong`)
_MARKUP = re.compile(r"^[A-Za-z][\w:.-]{0,39}$")
# bounds: a bigger document is no rendering this test reads
MAX_WORDS = 5000
MAX_LEAVES = 2000
MAX_DEPTH = 32


def words(text: str) -> list[str]:
    """Return a text's words, in order and case-folded."""
    return [w.casefold() for w in _WORDS.findall(text)]


def rendering(text, doc) -> bool:
    """Tell whether `doc` (an object or a list) holds `text` rendered.

    Every word of the text, in order, in the document's text leaves, each leaf either a run of the
    text's words or one short name of the tree's own (one at least: a tree, not a value wrapped)."""
    if not isinstance(text, str) or not isinstance(doc, (dict, list)):
        return False
    wanted = words(text)
    found = _text_leaves(doc)
    if not wanted or found is None or len(wanted) > MAX_WORDS:
        return False
    return _aligned(wanted, [(words(leaf), bool(_MARKUP.match(leaf))) for leaf in found])


def _text_leaves(doc) -> list[str] | None:
    """Return a document's text leaves in order (blank ones left out), or None.

    None past the bounds."""
    out: list[str] = []
    stack = [(doc, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH or len(out) > MAX_LEAVES:
            return None
        if isinstance(value, dict):
            stack += [(v, depth + 1) for v in reversed(list(value.values()))]
        elif isinstance(value, list):
            stack += [(v, depth + 1) for v in reversed(value)]
        elif isinstance(value, str) and value.strip():
            out.append(value)
    return out


def _aligned(wanted: list[str], leaves: list[tuple[list[str], bool]]) -> bool:
    """Tell whether the leaves spell `wanted`, markup leaves between (one at least).

    The positions in `wanted` each prefix of leaves can reach, with whether a markup leaf was left
    out on the way: a markup name may be a word of the text too (`text`), so both are kept."""
    reach = {(0, False)}
    for found, markup in leaves:
        step = set()
        for at, skipped in reach:
            if not found:
                # punctuation alone (a rule, a bullet): no word to spell
                step.add((at, skipped))
            elif wanted[at : at + len(found)] == found:
                step.add((at + len(found), skipped))
            if markup:
                step.add((at, True))
        if not step:
            return False
        reach = step
    return (len(wanted), True) in reach
