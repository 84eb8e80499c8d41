"""What every answer is held to: at most so many items and bytes.

Saying what was left out (pure)."""

from .cutting import MARKER, cut, listed, size

# an answer's JSON, payloads of get_trace aside (their budget is the caller's)
MAX_ANSWER_BYTES = 131_072
# a value quoted in a finding or a value pair
VALUE_BYTES = 512
# one schema of a contract or of the observed ones
SCHEMA_BYTES = 16_384
# findings answered per call
FINDINGS = 50
# schema errors answered per snapshot
ERRORS = 20
# a message, a detail or any other single string we pass on
TEXT_CHARS = 2_000


def first(items: list, most: int) -> tuple[list, int]:
    """Return at most `most` items and how many there were."""
    return items[:most], len(items)


def fit(answer: dict, key: str, budget: int = MAX_ANSWER_BYTES) -> dict:
    """Drop items from `answer[key]` until the answer fits the budget.

    From the end, until the answer's JSON fits; count them in `left_out`."""
    items = answer[key]
    dropped = 0
    while items and size(answer) > budget:
        # drop a share at a time: a page of 50 rows is measured a handful of times, not fifty
        step = max(1, len(items) // 4) if size(answer) > 2 * budget else 1
        del items[-step:]
        dropped += step
    answer["left_out"] = answer.get("left_out", 0) + dropped
    return answer


def cut_value(value, budget: int, at: str, cuts: list[dict], **where):
    """Cut one value to its budget, noting each place cut.

    `at` where the value sits in the answer, and `where` (call_id, snapshot) what to ask for it
    again."""
    kept, places = cut(value, budget)
    for place in places:
        cuts.append({"at": at + place.pop("marker"), **where, **place})
    return kept


def cut_together(values: dict, budget: int) -> tuple[dict, dict]:
    """Cut several values to one budget, shared fairly among them.

    Return {key: kept value} and {key: the places cut in it, pointers inside it}. Values too many
    for a share each become a marker whole (place pointer "")."""
    names = {str(n): key for n, key in enumerate(values)}
    kept, places = cut({name: values[key] for name, key in names.items()}, budget)
    cut_in: dict = {key: [] for key in values}
    for place in places:
        top = place["pointer"][1:].split("/", 1)[0]
        # the root cut short (too many values) is told value by value below
        if top:
            inner = {name: place[name][1 + len(top) :] for name in ("pointer", "marker")}
            cut_in[names[top]].append({**place, **inner})
    out = {}
    for name, key in names.items():
        if name in kept:
            out[key] = kept[name]
        else:
            entry = {"type": "value", "bytes": size(values[key])}
            out[key] = {MARKER: entry}
            cut_in[key].append({**entry, "pointer": "", "marker": ""})
    return out, cut_in


def with_cuts(answer: dict, cuts: list[dict]) -> dict:
    """Add the places cut to an answer: the biggest first, and their count."""
    answer["cut"] = listed(cuts)
    answer["cut_total"] = len(cuts)
    return answer


def short(text, chars: int = TEXT_CHARS):
    """Cut a long string we pass on to `chars` characters, saying so.

    A message quoting a payload, say."""
    if isinstance(text, str) and len(text) > chars:
        return text[:chars] + f"... [{len(text) - chars} more characters cut]"
    return text
