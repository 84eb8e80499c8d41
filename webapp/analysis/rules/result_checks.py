"""The way back: the tool's result checked against the server's answer.

What the tool handed the model (its result) checked against what the server answered.

A failed response must reach the model as a failure (`error_hidden`, and `error_invented` for the
reverse); its envelope's code, message and retryable must reach a structured result, and the code
and whether it may be retried must be said in a text one; a structured result pairs with a
successful response like any stage pair; a result past the tool's budget is `result_large`.
"""

import re

from ...common import jsontext
from ...common.pointers import MISSING, child, last, resolve
from ..findings.kinds import end, finding
from ..pairing.walk import Pairing
from ..snapshots.result_forms import Reading
from ..values.json_values import is_container, is_number, norm_key, show
from ..values.units import follows, unit_of
from .failures import ENVELOPE_NAMES, Failure, response_failure
from .mapping import mapping_findings, pair_arguments

DEFAULT_BUDGET_BYTES = 8 * 1024
# the usual estimate for English and JSON text
BYTES_PER_TOKEN = 4
# a result picks what it needs
_QUIET_KINDS = ("dropped", "added", "renamed", "case_changed", "moved")
# The model reads these the same whatever the form: "PAID" for "paid", a date written another way. A
# type change stays a warning, as on the way out: a client reading the structured result gets
# `"false"` (truthy) for false, and the model copies `"42"` into its next call's integer argument.
_SAME_TO_A_READER = ("enum_changed", "format_changed")
_WORDS = re.compile(r"[^0-9a-z]+")
# a result saying nothing was found: `No web results found`, `0 items`, `nothing matched`
_NOTHING = re.compile(
    r"\b(?:no|zero|0)\s+(?:\w+\s+){0,2}(?:results?|items?|matches|records?|entries|hits|"
    r"found)\b|\bnothing\b|\bnot found\b|\bempty\b",
    re.I,
)
# how deep a response is walked for its lists
_MAX_DEPTH = 32
_NO_RETRY = re.compile(
    r"\b(?:not|non|no|never|don'?t|do not|cannot|can'?t|won'?t|should not|shouldn'?t)[- ]?(?:be )?"
    r"(?:retry|retryable|retriable|retried|retrying|try again)|\bpermanent(?:ly)?\b|"
    r"retr[yi]able\W{0,4}(?:false|no)\b|retr\w* (?:will|would|does|did) not help|retr\w* won'?t "
    r"help|"
    r"no point (?:in )?retrying|\bpointless\b|\bnot (?:a )?(?:temporary|transient)\b|fail the same "
    r"way|"
    r"\b(?:don'?t|do not|never) (?:repeat|resend|call (?:it |this )?again)|\bfix the "
    r"(?:input|request)\b"
)
_RETRY = re.compile(
    r"\bretry\b|\bretr[yi]able\b|\bretrying\b|\btry "
    r"again\b|\btemporar(?:y|ily)\b|\btransient\b|\blater\b|"
    r"\b(?:call|ask|send|run) (?:it |this )?again\b|\bresend\b|\bcan be repeated\b|\bback off\b|"
    r"\bwait (?:a|and|for)\b|\bgive it a (?:minute|moment|second)\b|\bin a (?:minute|moment|few)\b"
)


def result_findings(
    response, status: int | None, reading: Reading | None, contract, arguments=None
) -> tuple[list[dict], Pairing]:
    """Return the findings of a call's way back and its result pairing.

    The pairing is of its response with its structured result; a result value that is one of the
    `arguments` is the model's own value handed back."""
    pairing = Pairing(response, None)
    if reading is None:
        return [], pairing
    out = _large(reading, contract)
    if response is None and status is None:
        return out, pairing
    failure = response_failure(response, status, contract)
    if failure is not None:
        return out + _failure_findings(failure, reading), _error_pairing(response, failure, reading)
    if reading.is_error:
        out.append(_invented(reading, status, _nothing_found(response, reading.text)))
    elif is_container(reading.structured) and is_container(response):
        pairing, found = _structured(response, reading, contract, arguments)
        out += found
    return out, pairing


def _large(reading: Reading, contract) -> list[dict]:
    budget = (contract or {}).get("result_budget_bytes") or DEFAULT_BUDGET_BYTES
    if reading.size <= budget:
        return []
    tokens = -(-reading.size // BYTES_PER_TOKEN)
    item = finding(
        "result_large",
        "warning",
        None,
        end("result", ""),
        None,
        reading.size,
        f"the result is {reading.size:,} bytes (about {tokens:,} tokens), past this tool's budget "
        f"of {budget:,} bytes",
    )
    item.update(size_bytes=reading.size, tokens=tokens, budget_bytes=budget)
    return [item]


def _failure_findings(failure: Failure, reading: Reading) -> list[dict]:
    if _reads_as_success(failure, reading):
        return [_hidden(failure, reading)]
    out = []
    for meaning in ("code", "message", "retryable"):
        if meaning in failure.fields:
            out += _envelope_field(meaning, *failure.fields[meaning], reading)
    if "retryable" not in failure.fields:
        # A vendor's own error (no envelope promising code, message and retryable), told the model
        # as a failure: a layer that words it its own way ("Failed to create price", the error a
        # client reads when the handler threw) hides nothing one call can blame.
        quiet = ("dropped", "value_changed") if reading.flagged == "error" else ("dropped",)
        for f in out:
            if f["kind"] in quiet:
                f["severity"] = "info"
    return out


def _error_pairing(response, failure: Failure, reading: Reading) -> Pairing:
    """Pair an error response with a structured error result for the aligned view.

    Like any stage pair, and each envelope field with the result field its check read (`/error/code`
    -> `/error/code`)."""
    if not (is_container(response) and is_container(reading.structured)):
        return Pairing(response, None)
    pairing = pair_arguments(response, reading.structured, [], None)
    for meaning, (path, _) in failure.fields.items():
        found = _structured_field(meaning, reading.structured)
        if found is not None and pairing.pairs.get(path) != found[0]:
            pairing.pairs[path] = found[0]
            pairing.whole.discard(path)
    return pairing


def _reads_as_success(failure: Failure, reading: Reading) -> bool:
    """Tell whether the model was told the call worked.

    Its flag says so, or, with no flag set, nothing says it failed (Slack's, Notion's, Asana's
    layers hand the vendor's error back as text, `isError` left out)."""
    if reading.is_error or (reading.is_error is not None and reading.flag_given):
        return not reading.is_error
    said = [value for _, value in failure.fields.values() if not isinstance(value, bool)]
    if failure.status:
        said.append(failure.status)
    return not any(_in_result(value, reading) for value in said) and not _failure_words(
        reading.text
    )


def _failure_words(text: str | None) -> bool:
    return bool(text) and bool(re.search(r"\b(error|failed|failure)\b", text.lower()))


def _hidden(failure: Failure, reading: Reading) -> dict:
    told = {"isError": "isError false or absent", "is_error": "is_error false or absent"}.get(
        reading.flagged
    )
    return finding(
        "error_hidden",
        "error",
        end("response", failure.at),
        end("result", ""),
        failure.described(),
        reading.text if reading.text is not None else _shown(reading.structured),
        f"the server answered {failure.described()} and the result reads as success "
        f"({told or 'no error code or message in it'})",
    )


def _invented(reading: Reading, status: int | None, nothing: bool = False) -> dict:
    answered = f"HTTP {status}" if status else "a success"
    text = (
        f"the server answered {answered} and the result tells the model the call failed "
        f"({reading.flagged or 'is_error'} true)"
    )
    if nothing:
        text += (
            "; every list the response holds is empty and the result says nothing was found: "
            "the layer's way of saying so"
        )
    return finding(
        "error_invented",
        "info" if nothing else "error",
        end("response", ""),
        end("result", ""),
        status,
        reading.text if reading.text is not None else _shown(reading.structured),
        text,
    )


def _nothing_found(response, text: str | None) -> bool:
    """Tell whether a success holds no result and the result's text says so.

    Every list in the response empty (one at least), and the text says nothing (`No web results
    found`, `0 items`): a layer may hand "nothing found" back as a failure."""
    if not text or not _NOTHING.search(text) or not is_container(response):
        return False
    lists, stack = 0, [(response, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, list):
            if value:
                return False
            lists += 1
        elif isinstance(value, dict) and depth < _MAX_DEPTH:
            stack += [(v, depth + 1) for v in value.values()]
    return lists > 0


def _envelope_field(meaning: str, path: str, value, reading: Reading) -> list[dict]:
    """Check one envelope field reached the result.

    At its pair in a structured one, said in a text one."""
    found = _structured_field(meaning, reading.structured)
    if found is not None:
        at, got = found
        if _same_value(value, got) or (meaning == "message" and _worded_in(value, got)):
            return []
        right = end("result", at if reading.prefix is None else reading.prefix + at)
        text = f"{meaning}: the response says {show(value)}, the result {show(got)}"
        return [finding("value_changed", "warning", end("response", path), right, value, got, text)]
    said = _said(meaning, value, reading.text)
    if said is True or (meaning == "message" and reading.structured is MISSING):
        # a text result must say the code and whether to retry; its wording is its own
        return []
    if said is None:
        return [_dropped(meaning, path, value)]
    text = f"retryable: the response says {show(value)}, the result's text says the opposite"
    return [
        finding(
            "value_changed",
            "warning",
            end("response", path),
            end("result", ""),
            value,
            not value,
            text,
        )
    ]


def _dropped(meaning: str, path: str, value) -> dict:
    why = "whether it may be retried is" if meaning == "retryable" else f"the error's {meaning} is"
    return finding(
        "dropped",
        "warning",
        end("response", path),
        None,
        value,
        None,
        f"{meaning} {show(value)} dropped on the way back: {why} not in the result",
    )


def _structured_field(meaning: str, doc):
    """Find the field of one envelope meaning in a structured result.

    Shallowest first; return (pointer, value)."""
    if not is_container(doc):
        return None
    spellings = ENVELOPE_NAMES[meaning]
    todo = [("", doc)]
    while todo:
        later = []
        for path, node in todo:
            if isinstance(node, dict):
                by_name = {norm_key(k): k for k in node if isinstance(k, str)}
                for s in spellings:
                    if s in by_name and not is_container(node[by_name[s]]):
                        return child(path, by_name[s]), node[by_name[s]]
                later += [(child(path, k), v) for k, v in node.items() if is_container(v)]
            elif isinstance(node, list):
                later += [(child(path, i), v) for i, v in enumerate(node[:20]) if is_container(v)]
        todo = later
    return None


def _same_value(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return a == b or _words(str(a)) == _words(str(b))


def _worded_in(message, got) -> bool:
    """Tell whether a result's message holds the response's, in the layer's words.

    A layer words an error with its context around the server's message (`Failed to change
    column values: Not Authenticated (details: ...)`): the model reads the message all the same."""
    words = _words(str(message))
    return isinstance(got, str) and words.strip() != "" and words in _words(got)


def _said(meaning: str, value, text: str | None) -> bool | None:
    """Tell whether a text says an envelope field.

    True, False (says the opposite), None (says nothing)."""
    if not text:
        return None
    if meaning != "retryable":
        return True if _words(str(value)) and _words(str(value)) in _words(text) else None
    lowered = text.lower()
    if _NO_RETRY.search(lowered):
        return value is False
    if _RETRY.search(lowered):
        return value is True
    return None


def _in_result(value, reading: Reading) -> bool:
    words = _words(str(value))
    if not words:
        return False
    if reading.text and words in _words(reading.text):
        return True
    return reading.structured is not MISSING and words in _words(_shown(reading.structured))


def _words(text: str) -> str:
    return f" {_WORDS.sub(' ', text.lower()).strip()} "


def _shown(value) -> str:
    try:
        return jsontext.dumps(value).decode()
    except TypeError:
        return str(value)


def _structured(response, reading: Reading, contract, arguments) -> tuple[Pairing, list[dict]]:
    """Pair a structured result with the response body like any stage pair.

    A result may leave fields out; the contract's response -> result pairs are declared."""
    pairing = pair_arguments(response, reading.structured, _way_back_pairs(contract, reading))
    out, given = [], None
    for f in mapping_findings(pairing, None, set()):
        f["left"] = _moved_end(f["left"], "response", "")
        f["right"] = _moved_end(f["right"], "result", reading.prefix)
        f["message"] = f["message"].replace("not in the request", "not in the result")
        f["message"] = f["message"].replace(
            "comes from no argument", "comes from no response field"
        )
        if f["kind"] in _QUIET_KINDS + _SAME_TO_A_READER or _into_plain_units(f):
            f["severity"] = "info"
        elif _reshaped(f, response):
            f["severity"] = "info"
            f["message"] += " (a reshaping one call cannot tell from a bug)"
        elif word_mapped(f):
            f["severity"] = "info"
            f["message"] += f" ({WORD_MAPPED})"
        elif f["left"] and f["right"] and f["kind"] in _ECHO_KINDS:
            given = _leaves(arguments) if given is None else given
            if _echoed(f["right_value"], given):
                f["severity"] = "info"
                f["message"] += f" ({ECHOED})"
        out.append(f)
    return pairing, out + _unconverted(pairing, reading.prefix)


def _way_back_pairs(contract, reading: Reading) -> list[dict]:
    """Return the contract's response -> result pairs as pair_arguments reads them.

    A result pointer is written as findings show it: under the result's prefix
    (`/structuredContent/ok` for an MCP result), which the structured document lacks."""
    prefix, out = reading.prefix or "", []
    for m in (contract or {}).get("mapping") or ():
        if not isinstance(m, dict) or not {"response", "result"} <= m.keys():
            continue
        at = m["result"]
        if isinstance(at, str) and at.startswith(prefix) and at[len(prefix) :][:1] in ("", "/"):
            out.append({**m, "arguments": m["response"], "request": at[len(prefix) :]})
    return out


# changes of a value the result may hand over from the arguments instead
_VALUE_KINDS = ("type_changed", "value_changed", "format_changed", "scaled")
# only the same value in another type or form: a response's `unpaid` handed back as the `paid`
# the model asked for is the layer overwriting the answer, however much it looks like an echo
_ECHO_KINDS = ("type_changed", "format_changed")
ECHOED = (
    "the result hands back the model's own argument, as the model sent it: an echo of the "
    "arguments, not the response's value changed"
)
# leaves of the arguments read for echoes, at most
MAX_ECHO_LEAVES = 2000


def _leaves(arguments) -> set:
    """Return (type, value) of the arguments' scalars that tell a value apart.

    Not a boolean, a small number, a short or empty text: any field holds those by chance."""
    out, stack = set(), [arguments]
    while stack and len(out) < MAX_ECHO_LEAVES:
        node = stack.pop()
        if isinstance(node, dict):
            stack += node.values()
        elif isinstance(node, list):
            stack += node
        elif _telling(node):
            out.add((type(node), node))
    return out


def _telling(value) -> bool:
    if isinstance(value, str):
        return len(value.strip()) >= 3
    return is_number(value) and not isinstance(value, bool) and abs(value) >= 10


def _echoed(value, given: set) -> bool:
    """Tell whether a result value is one of the arguments' telling scalars.

    Type and all."""
    return not is_container(value) and _telling(value) and (type(value), value) in given


_ID_KEY = re.compile(r"(?:^|[_-])(?:id|gid|uuid)$|[a-z0-9]Id$|ID$|^(?:gid|uuid)$")


def _reshaped(f: dict, response) -> bool:
    """Tell whether a change on the way back is a layer reshaping what it hands.

    As real layers do.

    A container handed over as another one (rows wrapped in text, `{object, data}` as a list of
    ids), a numeric identifier handed over as its digits (JavaScript-safe ids), a value the response
    holds in a sibling field (`url` taken from `html_url`): a function of the response, which
    history, not one call, can tell wrong."""
    left, right = f["left"], f["right"]
    if not left or not right:
        return False
    before, after = f["left_value"], f["right_value"]
    if f["kind"] == "value_changed" and (is_container(before) or is_container(after)):
        return True
    if f["kind"] == "type_changed" and is_number(before) and not isinstance(before, bool):
        key = last(left["path"])
        return isinstance(after, str) and after == str(before) and bool(_ID_KEY.search(key or ""))
    if f["kind"] == "value_changed" and not is_container(after) and after is not None:
        parent = resolve(response, left["path"][: left["path"].rfind("/")], None)
        siblings = parent.items() if isinstance(parent, dict) else ()
        return any(
            k != last(left["path"]) and v == after and type(v) is type(after) for k, v in siblings
        )
    return False


WORD_MAPPED = (
    "a word handed over as another under another name, seen in one call: the tool's history or "
    "a contract would tell the layer's own word from a bug"
)
# a word of a state or a kind: letters, in parts (`closed`, `in_progress`, `on hold`)
_WORD = re.compile(r"^[^\W\d_]+(?:[ _-][^\W\d_]+){0,3}$")
# how a word says its opposite: `unpaid`, `inactive`, `non_billable`, `disabled`
_NEGATIONS = ("un", "in", "im", "il", "ir", "non", "not", "dis", "de")


def word_mapped(f: dict) -> bool:
    """Tell whether a value changed on the way back is one word written as another.

    Under another name (`state: "closed"` handed over as `status: "resolved"`): a layer writing
    the answer in its own words, which one call cannot tell from a state changed by mistake. A
    word and its opposite (`unpaid` -> `paid`) are a state flipped, and the same name says the
    field is the same: both stay loud."""
    left, right = f["left"], f["right"]
    if f["kind"] != "value_changed" or not left or not right:
        return False
    before, after = f["left_value"], f["right_value"]
    if not (isinstance(before, str) and isinstance(after, str)):
        return False
    if not (_WORD.match(before) and _WORD.match(after)) or len(before) + len(after) > 80:
        return False
    if norm_key(last(left["path"]) or "") == norm_key(last(right["path"]) or ""):
        return False
    return not _opposites(norm_key(before), norm_key(after))


def _opposites(a: str, b: str) -> bool:
    """Tell whether one word is the other negated (`unpaid`, `paid`)."""
    short, long = sorted((a, b), key=len)
    return any(long == prefix + short for prefix in _NEGATIONS)


def _unconverted(pairing: Pairing, prefix: str | None) -> list[dict]:
    """Warn where a response's money or ratio unit reaches a plain field unchanged.

    Cents read as dollars."""
    out = []
    for lp in pairing.whole:
        rp, unit = pairing.pairs[lp], unit_of(last(lp))
        if (
            unit is None
            or unit[0] not in ("money", "ratio")
            or unit_of(last(rp)) is not None
            or not last(rp)
        ):
            continue
        value = resolve(pairing.left, lp)
        if not is_number(value) or value == 0:
            continue
        text = (
            f"{lp[1:]} -> {rp[1:]}: {show(value)} handed over unconverted (the response counts in "
            f"{last(lp)})"
        )
        right = _moved_end({"path": rp}, "result", prefix)
        out.append(
            finding("value_changed", "warning", end("response", lp), right, value, value, text)
        )
    return out


def _into_plain_units(f: dict) -> bool:
    """Tell whether a scaled pair converts a named unit into plain units.

    The unit the response names: `amount_cents` -> `amount`."""
    if f["kind"] != "scaled" or not f["left"] or not f["right"]:
        return False
    unit = unit_of(last(f["left"]["path"]))
    if unit is None or unit_of(last(f["right"]["path"])) is not None:
        return False
    return follows(f["left_value"], f["right_value"], unit[1])


def _moved_end(where: dict | None, snapshot: str, prefix: str | None) -> dict | None:
    if where is None:
        return None
    return {
        "snapshot": snapshot,
        "path": (prefix or "") + where["path"] if prefix is not None else where["path"],
    }
