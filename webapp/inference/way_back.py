"""Words a layer writes on the way back, learnt from a tool's calls.

A value of the answer handed over in the layer's own words (a state `closed` given to the model as
`resolved`, `snoozed` as `pending`), the same way every call.

One call cannot tell a word mapped on purpose from a value changed by mistake
(rules/result_checks.py makes it info, and says so). The tool's calls can: each counts, per place
(the answer's field and the result's, list indexes written `*`), the input and the output it
showed, both digested. Once inputs repeat, each with one output, the place's table is the layer's: a
call that writes what the table gives is info; another output for a known input is a warning.
Judged on the releases before the newest once there are several: what only the newest release
shows teaches nothing.
"""

from ..analysis import WORD_MAPPED, learnt
from .epochs import established, plain, several, tagged
from .leaves import starred

SIDE = "way back"
# calls an input is seen with one output before the table gives it
MIN_REPEATS = 3
# inputs settled, with outputs that differ, before a place's table is a function (one output for
# every input is a constant the layer writes, or a bug's)
MIN_INPUTS = 2
# entries one place keeps
MAX_ENTRIES = learnt.MAX_TABLE


def way_back_changes(findings) -> list[tuple[str, str, object, object]]:
    """Return (answer path, result path, their values) of each word changed.

    The answer's values handed over as another value (`value_changed` from the response to the
    result), as an analysis found them; folded findings name no one value and are left out."""
    return [
        (f["left"]["path"], f["right"]["path"], f.get("left_value"), f.get("right_value"))
        for f in findings or ()
        if f["kind"] == "value_changed"
        and f.get("left")
        and f.get("right")
        and f["left"]["snapshot"] == "response"
        and f["right"]["snapshot"] == "result"
        and "occurrences" not in f
    ]


def place(answer_path: str, result_path: str) -> str:
    """Name a place: both paths, list indexes written `*`."""
    return f"{starred(answer_path)} > {starred(result_path)}"


def way_back_presence(changes, newest: bool, known: dict | None = None) -> dict:
    """Return one call's counts: {(SIDE, place): {"calls": 1, "maps <in>><out>": 1}}.

    Per place the call changed a word at (once a call, whatever its items); a place past
    MAX_ENTRIES in `known` (the tool's counts so far) counts no new entry."""
    out: dict = {}
    for answer_path, result_path, a, b in changes:
        entry = learnt.maps_key(a, b)
        if not entry:
            continue
        key = (SIDE, place(answer_path, result_path))
        held = (known or {}).get(key) or {}
        if entry not in held and _entries(held) >= MAX_ENTRIES:
            continue
        counts = out.setdefault(key, {"calls": 1})
        counts[entry] = 1
    return {key: tagged(counts, newest) for key, counts in out.items()}


def way_back_tables(presence: dict, releases=None) -> dict[str, dict[str, str]]:
    """Return {place: {input digest: output digest}} of the words learnt.

    Those whose words are a function: MIN_INPUTS inputs at least, each seen MIN_REPEATS times
    with one output, and not one output for all of them."""
    judged = established if several(releases) else plain
    out = {}
    for (side, name), counts in presence.items():
        if side != SIDE:
            continue
        table = {
            x: y for x, y in learnt.table_of(judged(counts)).items() if _repeats(counts, x, judged)
        }
        if len(table) >= MIN_INPUTS and len(set(table.values())) >= 2:
            out[name] = table
    return out


def _repeats(counts: dict, x: str, judged) -> bool:
    seen = sum(
        n for key, n in judged(counts).items() if key.startswith(f"{learnt.MAPS}{x}>") and n > 0
    )
    return seen >= MIN_REPEATS


def _entries(counts: dict) -> int:
    return sum(1 for key in counts if key.startswith(learnt.MAPS))


def judge_way_back(findings: list[dict], tables: dict) -> tuple[list[dict], list[dict]]:
    """Judge each word changed on the way back by its place's table.

    Lower to info a word the table gives; raise to a warning a word one call left undecided
    (rules/result_checks.py `word_mapped`) where the table gives its input another word. Return
    (those lowered, those raised)."""
    lowered, raised = [], []
    for f in findings:
        if not tables or f["severity"] == "error":
            continue
        for answer_path, result_path, a, b in way_back_changes([f]):
            table = tables.get(place(answer_path, result_path))
            verdict = learnt.looked_up(table, a, b) if table else None
            if verdict and f["severity"] == "warning":
                f["severity"] = "info"
                f["message"] += "; written as the tool's earlier calls wrote it"
                lowered.append(f)
            elif verdict is False and f["severity"] == "info" and WORD_MAPPED in f["message"]:
                f["severity"] = "warning"
                f["message"] += "; the tool's earlier calls wrote another word for it"
                raised.append(f)
    return lowered, raised
