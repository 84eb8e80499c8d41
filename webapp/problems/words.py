"""Problems in words (pure).

Counts ("3 calls") and what broke, one phrase per finding kind, which the alert's one line and the
ticket's Markdown title both say.

Only a rename, a move or a case change breaks by the path it lands on; every other kind says what it
did to the value, and where it landed when that is another path: "value changed between /adults and
/guests/adult_count (0 -> 2)", never "/adults sent as /guests/adult_count", which reads like a
correct rename.
"""

from ..common import jsontext

# a value in one line is cut here: the line says what broke, the page shows the rest
VALUE_CHARS = 40
# a kind whose values say what broke: the line shows a pair
VALUE_KINDS = ("value_changed", "echo_mismatch")


def counted(number: int, noun: str) -> str:
    """Return a count with its noun, singular for exactly one.

    counted(1, "call") -> "1 call"."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def problem_phrase(problem: dict, pair: dict | None = None) -> str:
    """Phrase what broke from a problem's kind, paths and transform.

    "/limit sent as string instead of integer"; `pair` ({"left", "right"}), a common pair of values,
    is shown for the kinds whose values say what broke."""
    left, right = problem.get("left") or {}, problem.get("right") or {}
    here, there = _path(left or right), _path(right) if left and right else None
    moved = there if there is not None and there != here else None
    to = f" to {moved}" if moved else ""
    kind, transform = problem.get("kind") or "problem", problem.get("transform") or ""
    before, arrow, after = transform.partition(">")
    values = _pair(pair) if kind in VALUE_KINDS else ""
    # the key it lands on is what broke: the mapping declares another
    if kind in ("renamed", "moved") and moved:
        return (
            f"{here} sent {'under another key' if kind == 'renamed' else 'at another level'}, "
            f"{moved}"
        )
    if kind == "case_changed" and moved:
        return f"{here} sent as {moved}{f' ({after} instead of {before})' if arrow else ''}"
    if kind == "drift":
        return _drift(f"{(left or right).get('snapshot', '')} {here}".strip(), transform)
    if arrow and kind in ("type_changed", "format_changed", "enum_changed", "case_changed"):
        return f"{here} sent{to} as {after} instead of {before}"
    phrases = {
        "scaled": f"{here} sent{to} {_scale(transform)}",
        "value_changed": (
            f"value changed between {here} and {moved}" if moved else f"value of {here} changed"
        )
        + values,
        "dropped": f"{here} dropped on the way to the "
        f"{str(problem.get('stages') or 'request').split('>')[-1]}",
        "added": f"{here} sent but given by no argument",
        "echo_mismatch": f"the response echoes {here}{' at ' + moved if moved else ''} with "
        f"another value{values}",
        "error_shape": f"an error response breaks the error schema at {here}",
        "status_mismatch": f"the status and the body disagree at {here}",
        "error_hidden": f"an error response ({here}) reached the model as a success",
        "error_invented": "a successful response reached the model as a failure",
        "result_large": "the result handed to the model is past the tool's budget",
        "invalid_json": f"the {(left or right).get('snapshot', 'snapshot')} is a string that is "
        "not valid JSON",
        "schema_violation": f"{(left or right).get('snapshot', '')} {here} breaks the schema"
        f"{' (' + problem['keyword'] + ')' if problem.get('keyword') else ''}".strip(),
    }
    return phrases.get(kind, f"{kind.replace('_', ' ')} at {here}{to}")


def _drift(where: str, transform: str) -> str:
    """Say how traffic drifted from its learnt shape.

    "response /total_cents now a string, where it was integer"."""
    before, arrow, after = transform.partition(">")
    if transform == "present>missing":
        return f"{where} missing, where every call had it"
    if transform == "enum":
        return f"{where} has a value outside the ones its traffic showed"
    if arrow:
        return f"{where} now {after}, where it was {before}"
    return f"{where} departs from its traffic's shape"


def _path(end: dict) -> str:
    return (end.get("path") or "/") if end else "?"


def _scale(transform: str) -> str:
    if transform[:1] in ("x", "/"):
        return f"{'multiplied' if transform[0] == 'x' else 'divided'} by {transform[1:]}"
    return "scaled by a power of ten"


def _pair(pair: dict | None) -> str:
    """Write a pair of values short: " (0 -> 2)", " ("EUR" -> "eur")".

    Empty without one."""
    if not pair:
        return ""
    return f" ({_value(pair.get('left'))} -> {_value(pair.get('right'))})"


def _value(value) -> str:
    text = jsontext.dumps(value).decode()
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 1] + "…"
