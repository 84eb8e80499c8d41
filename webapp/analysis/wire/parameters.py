"""What a contract says of a request outside its body.

The URL template and each parameter's schema and style.

A contract's `http` holds `{"method", "path", "parameters", "content_type"}`: `path` is the URL
template (`/v1/invoices/{invoiceId}/pay`), `parameters` OpenAPI's parameter objects (`name`, `in`:
path, query or header, `required`, `schema`, `style`, `explode`)."""

from .request import template_variables
from .values import SEPARATORS

_STYLE_SEPARATORS = {
    "form": (",",),
    "simple": (",",),
    "spaceDelimited": (" ", "%20"),
    "pipeDelimited": ("|",),
}


def http_of(contract) -> dict:
    """Return a contract's `http` object, or {}."""
    http = (contract or {}).get("http")
    return http if isinstance(http, dict) else {}


def template_of(contract) -> str | None:
    """Return the contract's URL template (`/v1/invoices/{invoiceId}/pay`), or None."""
    path = http_of(contract).get("path")
    return path if isinstance(path, str) and path.startswith("/") else None


def parameters(contract) -> dict[tuple[str, str], dict]:
    """Return {(location, name): parameter} of the contract's parameters.

    Header names lower-cased."""
    out = {}
    for param in http_of(contract).get("parameters") or ():
        if (
            isinstance(param, dict)
            and isinstance(param.get("name"), str)
            and param.get("in") in ("path", "query", "header")
        ):
            name = param["name"].lower() if param["in"] == "header" else param["name"]
            out[param["in"], name] = param
    return out


def path_variables(contract) -> list[str]:
    """Return the variables of the contract's URL template (`invoiceId`).

    Declared as parameters or not."""
    template = template_of(contract)
    return template_variables(template) if template else []


def separators(param: dict | None) -> tuple[str, ...]:
    """Return the separators a list parameter may be joined with.

    Its style's, else the common ones."""
    if not param:
        return SEPARATORS
    style = param.get("style") or ("simple" if param.get("in") == "path" else "form")
    return _STYLE_SEPARATORS.get(style, SEPARATORS)


def schema_of(param: dict | None) -> dict | None:
    """Return a parameter's schema, or None."""
    schema = (param or {}).get("schema")
    return schema if isinstance(schema, dict) else None
