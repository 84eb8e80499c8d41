"""The request contract of an OpenAPI operation outside its JSON body.

Method, URL template, parameters, media type.

It becomes the contract's `http` (see analysis/wire/parameters.py): `{"method", "path",
"parameters", "content_type"}`, `parameters` being the operation's and its path item's parameter
objects (the operation's win), inlined."""

from ..analysis import LOCATIONS
from .errors import ContractError

FORM = "application/x-www-form-urlencoded"

_KEPT = ("name", "in", "required", "schema", "style", "explode", "description")
# path, query, header (cookies are the client's)
_IN = tuple(name for name in LOCATIONS if name != "form")


def operation_http(inliner, path: str, method: str, item: dict, op: dict) -> dict:
    """Return the `http` contract of one operation.

    Its method, URL template, parameters and body media type."""
    params = {}
    for holder in (item, op):
        listed = holder.get("parameters") if isinstance(holder, dict) else None
        if listed is None:
            continue
        if not isinstance(listed, list):
            raise ContractError(
                f"OpenAPI document: parameters of {method.upper()} {path} must be a list",
                "bad_openapi",
            )
        for param in listed:
            param = inliner.inline(param)
            if (
                isinstance(param, dict)
                and param.get("in") in _IN
                and isinstance(param.get("name"), str)
            ):
                params[param["in"], param["name"]] = {k: param[k] for k in _KEPT if k in param}
    http = {"method": method.upper(), "path": path, "parameters": list(params.values())}
    media = _media(inliner, op.get("requestBody"))
    if media:
        http["content_type"] = media
    return http


def _media(inliner, body) -> str | None:
    """Return the request body's media type when it is not JSON (a form), else None."""
    body = inliner.inline(body) if isinstance(body, dict) else None
    content = body.get("content") if isinstance(body, dict) else None
    if not isinstance(content, dict) or any("json" in str(m) for m in content):
        return None
    return FORM if any(str(m).split(";")[0].strip() == FORM for m in content) else None


def check_http(http) -> list[str]:
    """Return what is wrong with a contract's `http`, each naming its place.

    [] when fine."""
    if http is None:
        return []
    if not isinstance(http, dict):
        return ["http: must be an object with method, path, parameters and content_type"]
    problems = [
        f"http: unknown field {key!r}"
        for key in http
        if key not in ("method", "path", "parameters", "content_type")
    ]
    if http.get("path") is not None and not (
        isinstance(http["path"], str) and http["path"].startswith("/")
    ):
        problems.append(
            'http/path: must be a URL template starting with / (e.g. "/v1/invoices/{invoiceId}")'
        )
    for key in ("method", "content_type"):
        if http.get(key) is not None and not isinstance(http[key], str):
            problems.append(f"http/{key}: must be a string")
    params = http.get("parameters")
    if params is not None and not isinstance(params, list):
        return problems + ["http/parameters: must be a list of {name, in} parameter objects"]
    for i, param in enumerate(params or ()):
        if (
            not isinstance(param, dict)
            or not isinstance(param.get("name"), str)
            or param.get("in") not in _IN
        ):
            problems.append(
                f"http/parameters/{i}: must have a name and `in` one of path, query, header"
            )
    return problems
