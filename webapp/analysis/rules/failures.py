"""Whether a server's response is a failure, and the error envelope it carries.

Code, message, retryable."""

from dataclasses import dataclass, field

from ...common.pointers import child
from ..values.json_values import norm_key
from .response_checks import error_body, error_schema_for, looks_like_error

# The envelope's fields by what they mean, in the spellings APIs use (compared without case or
# separators).
ENVELOPE_NAMES = {
    "code": ("code", "errorcode", "errortype", "type", "reason"),
    "message": ("message", "errormessage", "detail", "msg", "description", "errordescription"),
    "retryable": ("retryable", "retriable", "isretryable", "canretry", "transient"),
}


# Where a GraphQL mutation's payload lists what refused it (compared without case or separators).
_MUTATION_ERRORS = ("usererrors", "errors")


@dataclass
class Failure:
    """A failed response.

    Its status, where its envelope sits, and the envelope's fields found there."""

    status: int | None
    # the envelope's JSON Pointer in the response ("", "/error")
    at: str = ""
    # "code" | "message" | "retryable" -> (pointer, value)
    fields: dict = field(default_factory=dict)

    def described(self) -> str:
        """Say what the server answered: `HTTP 503 rate_limited`."""
        parts = [f"HTTP {self.status}"] if self.status else []
        if "code" in self.fields:
            parts.append(str(self.fields["code"][1]))
        return " ".join(parts) or "an error"


def response_failure(body, status: int | None, contract) -> Failure | None:
    """Return the failure a response reports, else None.

    A status >= 400, an error envelope, a JSON-RPC error."""
    name, schema = error_schema_for(contract)
    if isinstance(body, dict) and isinstance(body.get("error"), dict) and "jsonrpc" in body:
        return _with_envelope(Failure(status, "/error"), body["error"])
    refused = mutation_errors(body)
    if refused is not None:
        return _with_envelope(Failure(status, refused[0]), refused[1])
    failed = status is not None and status >= 400
    if not failed and not looks_like_error(
        body, name, schema, (contract or {}).get("response_schema")
    ):
        return None
    # {"error": {...}} whatever the contract
    prefix, inner = error_body(body, "default_error_schema")
    failure = Failure(status, prefix)
    return _with_envelope(failure, inner) if isinstance(inner, dict) else failure


def mutation_errors(body) -> tuple[str, dict] | None:
    """Return (pointer, first error) of a GraphQL mutation the API refused.

    Refused in its payload; None when it was not.

    GraphQL APIs answer a mutation's user errors with HTTP 200 inside `data`, beside a null result:
    Shopify's `{"data": {"customerUpdate": {"customer": null, "userErrors": [{"field",
    "message"}]}}}`, Saleor's and others' `errors` list there. A non-empty list of errors that
    carry a message is the failure."""
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, dict):
        return None
    for key, payload in data.items():
        if not isinstance(payload, dict):
            continue
        for name, errors in payload.items():
            if (
                isinstance(name, str)
                and norm_key(name) in _MUTATION_ERRORS
                and isinstance(errors, list)
                and errors
                and isinstance(errors[0], dict)
                and isinstance(errors[0].get("message"), str)
            ):
                return child(child(child("/data", key), name), 0), errors[0]
    return None


def _with_envelope(failure: Failure, inner: dict) -> Failure:
    by_name = {norm_key(k): k for k in inner if isinstance(k, str)}
    for meaning, spellings in ENVELOPE_NAMES.items():
        key = next((by_name[s] for s in spellings if s in by_name), None)
        value = inner.get(key) if key is not None else None
        if not _fits(meaning, value):
            continue
        failure.fields[meaning] = (child(failure.at, key), value)
    _with_bare_error(failure, inner, by_name)
    return failure


def _with_bare_error(failure: Failure, inner: dict, by_name: dict) -> None:
    """Read an `error` given as text or `errors` given as a list.

    Text as Slack's `{"ok": false, "error": "channel_not_found"}` or OAuth's `invalid_grant`; a list
    of texts, or of envelopes as GraphQL sends them. A word is the error's code, a sentence its
    message."""
    for name in ("error", "errors"):
        at = child(failure.at, by_name[name]) if name in by_name else ""
        value = inner[by_name[name]] if name in by_name else None
        if type(value) is list and value:
            at, value = child(at, 0), value[0]
        if type(value) is dict and not failure.fields:
            failure.fields.update(_with_envelope(Failure(failure.status, at), value).fields)
        if not isinstance(value, str) or not value.strip():
            continue
        meaning = "message" if any(ch.isspace() for ch in value.strip()) else "code"
        failure.fields.setdefault(meaning, (at, value))
        return


def _fits(meaning: str, value) -> bool:
    """Tell whether a value can be that envelope field.

    A boolean retryable, a text or number code or message."""
    if meaning == "retryable":
        return isinstance(value, bool)
    return isinstance(value, (str, int)) and not isinstance(value, bool) and value != ""
