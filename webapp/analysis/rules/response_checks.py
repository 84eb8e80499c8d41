"""Check the response against the request it answers.

Echoes, error envelopes, status."""

import re

from ...common.pointers import MISSING, child, resolve
from ..budget import tick
from ..findings.kinds import DEFAULT_ERROR_SCHEMA, end, finding
from ..pairing.walk import equal, pair_items
from ..schemas.validation import is_valid, validate
from ..values.classify import classify
from ..values.json_values import is_container, is_number, norm_key, show
from ..values.names import ERROR_FIELD_NAMES
from ..values.readings import read_number, read_truth
from .error_shapes import shape_findings

# a word: letters alone, as a symbolic value is written (`bottom`, `top`, `end`)
_A_WORD = re.compile(r"^[^\W\d_]{1,40}$")


def error_schema_for(contract) -> tuple[str | None, dict | None]:
    """Return (name, schema) of the error schema a contract declares, or (None, None).

    Error answers are checked against a schema only where one is declared (the default envelope
    {code, message, retryable}, DEFAULT_ERROR_SCHEMA, is advice: `tracediff lint` gives it).
    Otherwise an error is read as services send it, by its status and the common shapes
    (failures.py)."""
    schema = contract.get("error_schema") if contract else None
    if schema is None:
        return None, None
    return ("default_error_schema" if is_the_envelope(schema) else "error_schema"), schema


def is_the_envelope(schema) -> bool:
    """Tell whether a declared error schema is the default envelope.

    Read at the top or inside `error`."""
    return (
        isinstance(schema, dict)
        and sorted(schema.get("required") or ()) == ["code", "message", "retryable"]
        and "error" not in (schema.get("properties") or {})
    )


def error_body(body, name: str | None):
    """Return (prefix, body) of the error envelope.

    Unwrapping {"error": {...}} unless a declared schema says."""
    if (
        name != "error_schema"
        and isinstance(body, dict)
        and isinstance(body.get("error"), dict)
        and "code" not in body
    ):
        return "/error", body["error"]
    return "", body


def looks_like_error(body, schema_name: str, schema: dict, success: dict | None = None) -> bool:
    """Tell whether a body reads as an error report rather than a result.

    The contract's success schema outranks the guess from field names: a body valid against it is a
    result even when it holds `code` and `message` ({"code": 0, "message": "ok", "data": ..}). A
    body that says it failed in so many words (a non-empty `error` or `errors`, `ok` or `success`
    false) or that matches the error schema in full is an error body all the same: a success schema
    rarely forbids extra keys, so its verdict cannot clear those. Matching the error schema takes
    what makes a body an error (`marks`): a schema whose fields are all optional is valid for almost
    any object, and would make every result an error body."""
    if not isinstance(body, dict) or not body:
        return False
    _, inner = error_body(body, schema_name)
    # none declared: the default envelope, whole, still says it is an error
    if schema is None:
        schema_name, schema = "default_error_schema", DEFAULT_ERROR_SCHEMA
    if _says_it_failed(body) or (
        isinstance(inner, dict) and marks(inner, schema, success) and is_valid(inner, schema)
    ):
        return True
    if success is not None and is_valid(body, success):
        return False
    return "code" in body and "message" in body


def marks(body: dict, schema, success=None) -> bool:
    """Tell whether a body carries what makes it an error under `schema`.

    Beyond being valid against it.

    Its required fields, all of them; with none required, the fields that tell it apart from the
    success schema (one at least), or with no success schema, only fields the error schema names."""
    required, named = _fields(schema)
    if required:
        return required <= body.keys()
    if not named:
        # `{}` or a schema of no named fields: nothing marks an error
        return False
    _, ordinary = _fields(success)
    distinct = named - ordinary
    if success is not None and isinstance(success, dict):
        return bool(distinct & body.keys())
    return bool(body) and body.keys() <= named


def _fields(schema) -> tuple[set, set]:
    """Return (required, named) top-level fields of an object schema.

    Its allOf/anyOf/oneOf branches too."""
    if not isinstance(schema, dict):
        return set(), set()
    required = {k for k in schema.get("required") or () if isinstance(k, str)}
    named = (
        set(schema.get("properties") or {}) if isinstance(schema.get("properties"), dict) else set()
    )
    for word in ("allOf", "anyOf", "oneOf"):
        branches = [_fields(b) for b in schema.get(word) or () if isinstance(b, dict)]
        named |= set().union(*(n for _, n in branches)) if branches else set()
        if word == "allOf":
            required |= set().union(*(r for r, _ in branches)) if branches else set()
        elif branches and all(r for r, _ in branches):
            required |= set.intersection(*(r for r, _ in branches))
    return required, named


def _says_it_failed(body: dict) -> bool:
    """Tell whether a body carries an explicit failure marker."""
    if isinstance(body.get("error"), (dict, str)) and body.get("error"):
        return True
    if isinstance(body.get("errors"), list) and body["errors"]:
        return True
    return body.get("ok") is False or body.get("success") is False


def status_findings(body, status, contract) -> list[dict]:
    """Report status_mismatch and error_shape for a response body and its HTTP status."""
    if status is None or body is None:
        return []
    name, schema = error_schema_for(contract)
    where = end("response", "")
    success = (contract or {}).get("response_schema")
    failed = status >= 400 or looks_like_error(body, name, schema, success)
    # read by the common shapes
    shaped = shape_findings(body) if schema is None and failed else []
    if 200 <= status < 300 and failed and not answers_with_2xx(body):
        mismatch = finding(
            "status_mismatch", "error", None, where, None, body, f"HTTP {status} with an error body"
        )
        return [mismatch] + shaped
    if status < 400:
        return shaped
    prefix, inner = error_body(body, name)
    errors = validate(inner, schema) if schema is not None else []
    told = errors if schema is not None else not carries_an_error(body)
    if told and success is not None and is_valid(body, success):
        return [
            finding(
                "status_mismatch",
                "error",
                None,
                where,
                None,
                status,
                f"HTTP {status} with a success body",
            )
        ]
    return shaped + [
        finding(
            "error_shape",
            "error",
            None,
            end("response", prefix + e["path"]),
            None,
            resolve(inner, e["path"], None),
            f"error body at {prefix + e['path'] or '(root)'}: {e['message']}",
        )
        for e in errors
    ]


def answers_with_2xx(body) -> bool:
    """Tell whether a body is an error from a service that answers errors with 2xx.

    Slack's `{"ok": false, "error": "channel_not_found"}` and GraphQL's `{"errors": [{"message":
    ..}], "data": ..}` (Shopify, Linear, GitHub's GraphQL API) come with HTTP 200: the status is no
    mismatch there, nor for a JSON-RPC error (`{"jsonrpc": "2.0", "error": {"code", "message"}}`).
    """
    if not isinstance(body, dict):
        return False
    if body.get("ok") is False and isinstance(body.get("error"), str):
        return True
    if "jsonrpc" in body and isinstance(body.get("error"), dict) and "result" not in body:
        return True
    errors = body.get("errors")
    return (
        isinstance(errors, list)
        and bool(errors)
        and all(isinstance(e, dict) and "message" in e for e in errors)
        and body.keys() <= {"errors", "data", "extensions"}
    )


# What an error body carries where services put it: the common names, and a `fault` (SOAP's, a
# gateway's).
_ERROR_WORDS = ERROR_FIELD_NAMES | {"fault"}


def carries_an_error(body) -> bool:
    """Tell whether a body reads as an error report by the common shapes.

    Any status, no schema declared."""
    if not isinstance(body, dict):
        return isinstance(body, str) and bool(body.strip())
    return _says_it_failed(body) or any(
        isinstance(k, str) and norm_key(k) in _ERROR_WORDS and body[k] not in (None, "", [], {})
        for k in body
    )


class Echo:
    """Request fields paired with their echo in the response."""

    def __init__(self, findings: bool = True):
        self.pairs: dict[str, str] = {}
        self.whole: set[str] = set()
        # None: pairs wanted, not findings
        self.findings: list[dict] | None = [] if findings else None


def echo_pairs(request, response, declared) -> Echo:
    """Pair request fields with their echo in the response.

    Report echoes with another value."""
    echo = Echo()
    for rq, rs in declared:
        a, b = resolve(request, rq), resolve(response, rs)
        if a is not MISSING and b is not MISSING:
            _echo(rq, a, rs, b, echo)
    return _echo_whole_document(request, response, echo)


def _echo_whole_document(request, response, echo: Echo) -> Echo:
    """Pair the request with the response object that echoes most of its keys.

    The object may be a member of the response."""
    if isinstance(request, dict) and isinstance(response, dict):
        root = _echo_root(request, response)
        if root is not None:
            _echo("", request, root, resolve(response, root), echo)
    return echo


def _echo_root(request: dict, response: dict):
    best, best_score = None, 0
    for path, node in [("", response)] + [
        (child("", k), v) for k, v in response.items() if isinstance(v, dict)
    ]:
        score = sum(1 for k in request if k in node)
        if score > best_score:
            best, best_score = path, score
    return best


def _echo(rq, a, rs, b, echo: Echo, depth=0) -> None:
    tick()
    if rq in echo.pairs or is_container(a) != is_container(b) or depth > 200:
        return
    echo.pairs[rq] = rs
    if equal(a, b):
        echo.whole.add(rq)
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key, value in a.items():
            if key in b:
                _echo(child(rq, key), value, child(rs, key), b[key], echo, depth + 1)
    elif isinstance(a, list) and isinstance(b, list):
        if _same_set(a, b):
            # a set of values echoed in the server's own order (tags sorted)
            echo.whole.add(rq)
            return
        for i, j in pair_items(a, b):
            _echo(child(rq, i), a[i], child(rs, j), b[j], echo, depth + 1)
    elif not is_container(a) and echo.findings is not None:
        change = classify(a, b)
        if change:
            name = rq[1:] or "(document)"
            resolved = _resolved_word(a, b)
            echo.findings.append(
                finding(
                    "echo_mismatch",
                    # a null echo is the server keeping no value (GitHub's `"body": null` for ""),
                    # or one it answers as an object elsewhere (a milestone): one call cannot tell
                    # that from a bug. The same date, time or number written in the server's own
                    # form (`...:00Z` echoed as `...:00.000Z`) is the value the request sent.
                    "info" if b is None or change[0] == "format_changed" or resolved else "warning",
                    end("request", rq),
                    end("response", rs),
                    a,
                    b,
                    f"{name}: request sent {show(a)}, response echoed {show(b)}{resolved}",
                )
            )


def _resolved_word(sent, echoed) -> str:
    """Say so when a word sent is echoed as a number (the server's resolution).

    `"pos": "bottom"` answered `65536`: a word no reading makes a number is no value the server
    could have echoed unchanged, so the number is what it made of it, not a value lost."""
    if not isinstance(sent, str) or not is_number(echoed) or isinstance(echoed, bool):
        return ""
    if not _A_WORD.match(sent) or read_number(sent) is not None or read_truth(sent) is not None:
        return ""
    return " (a word answered as a number: the server's own resolution of it)"


def _same_set(a: list, b: list) -> bool:
    """Tell whether two lists of scalars hold the same values in another order."""
    if len(a) != len(b) or len(a) < 2 or any(is_container(x) for x in a + b):
        return False
    return sorted(map(repr, a)) == sorted(map(repr, b))


def echo_from(pairs, request, response) -> Echo:
    """Rebuild an echo's pairs from the pairs alignment rows name, then the root.

    The rows' (request path, response path) pairs. Not its findings: the analysis has them."""
    echo = Echo(findings=False)
    for rq, rs in pairs:
        a, b = resolve(request, rq), resolve(response, rs)
        if a is MISSING or b is MISSING:
            continue
        if rq not in echo.pairs and is_container(a) != is_container(b):
            # Only an equal ancestor pairs these (a redacted value equals anything): keep it.
            echo.pairs[rq] = rs
            if equal(a, b):
                echo.whole.add(rq)
            continue
        _echo(rq, a, rs, b, echo)
    return _echo_whole_document(request, response, echo)
