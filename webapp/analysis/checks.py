"""One call checked without storing it.

The analysis `tracediff check` prints and `POST /api/v1/check` answers (under a tool's stored
contract: webapp/pipeline/checks.py), from payloads given as JSON values or text."""

from urllib.parse import urlsplit

from ..common.stages import CORE
from .engine import analyze_call
from .findings.kinds import worst
from .rules.response_checks import carries_an_error, error_body, error_schema_for
from .schemas.validation import is_valid

# the stages a check always reports; the others when given
STAGES = CORE


class CheckError(ValueError):
    """A call that cannot be checked as given.

    One line saying which value and why."""


def snapshot(payload, status: int | None = None) -> dict:
    """Wrap a payload as the snapshot analyze_call reads."""
    http = {"status_code": status} if status is not None else None
    return {"payload": payload, "logged_as_string": False, "http": http}


def checked_url(url: str) -> str:
    """A URL as a request line or a client logs it.

    Absolute (https://host/path?query) or a path (/path?query)."""
    expected = "expected an absolute URL (https://host/path?query) or a path (/path?query)"
    try:
        parts = urlsplit(url)
    except ValueError as error:
        # a host urllib cannot split (an unclosed IPv6 bracket) is a bad value, not a crash
        raise CheckError(f"url {url!r}: {error}; {expected}") from None
    absolute = parts.scheme in ("http", "https") and parts.netloc
    if not (absolute or url.startswith("/")) or any(c.isspace() for c in url):
        raise CheckError(f"url {url!r}: {expected}")
    return url


def call_snapshots(
    payloads: dict,
    status: int | None,
    http: dict | None = None,
    result_is_error: bool | None = None,
) -> dict:
    """Return the snapshots of one call from its payloads, with its HTTP facts.

    Snapshots map snapshot name -> JSON value or text (absent: not given). Also returned: the
    response's status, the request's method, URL and headers (`http`: a request given by its URL
    alone has no body) and what a flagless result told the model."""
    snapshots = {name: None for name in STAGES}
    for name, payload in payloads.items():
        snapshots[name] = snapshot(payload, status if name == "response" else None)
    if isinstance(result_is_error, bool) and snapshots.get("result"):
        snapshots["result"]["meta"] = {"is_error": result_is_error}
    if http:
        snapshots["request"] = {**(snapshots["request"] or snapshot(None)), "http": http}
    return snapshots


def check_call(snapshots: dict, contract: dict | None, status_known: bool) -> dict:
    """Analyse one call.

    Without a known status the response may be an error body."""
    result = analyze_call(snapshots, contract)
    response = snapshots.get("response")
    if response is not None and not status_known:
        _accept_error_body(result, response["payload"], contract)
    return result


def _accept_error_body(result: dict, body, contract) -> None:
    """With no status the response may be an error report.

    Accept one that fits the error schema (or reads as an error by the common shapes, where none is
    declared)."""
    checked = result["validation"]["response"]
    name, schema = error_schema_for(contract)
    if checked["valid"] is not False:
        return
    if not (is_valid(error_body(body, name)[1], schema) if name else carries_an_error(body)):
        return
    # an error read by the common shapes is not validated: no schema is declared for it
    result["validation"]["response"] = {
        "schema": name,
        "valid": True if name else None,
        "errors": [],
    }
    result["summary"]["validation_errors"] -= len(checked["errors"])
    result["worst"] = worst(
        [f["severity"] for f in result["findings"]]
        + (["error"] if result["summary"]["validation_errors"] else [])
    )


def fails_check(result: dict) -> bool:
    """Tell whether a result fails a check.

    Any warning or error finding, or a schema violation."""
    failing = result["summary"].get("error", 0) + result["summary"].get("warning", 0)
    return bool(failing) or any(v.get("valid") is False for v in result["validation"].values())
