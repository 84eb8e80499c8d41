"""The Host allow-list, the cross-site refusal and the security headers.

What every request must pass, whoever sends it, and every response carries."""

from flask import current_app, request
from werkzeug.exceptions import BadRequest

from .errors import ApiError
from .handlers import wants_json
from .hosts import allowed_hosts, host_allowed
from .paths import MCP_PATH, OPEN_PATHS, SAFE_METHODS

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)


def check_host():
    """Refuse a request whose Host header names no address or name of ours.

    No address or allowed name of this server (DNS rebinding)."""
    if request.path.startswith(OPEN_PATHS):
        return
    allowed = allowed_hosts(current_app.config["ALLOWED_HOSTS"], current_app.config.get("HOST", ""))
    header = request.headers.get("Host", "")
    if not host_allowed(header, allowed):
        raise ApiError(
            400,
            "host_not_allowed",
            f"the Host header {header[:100]!r} is not a name of this "
            "server; add it to TRACEDIFF_ALLOWED_HOSTS if it is",
        )


# query parameters whose readers make a NUL harmless themselves (see refuse_nul_in_url)
CLEANED_BY_THEIR_READERS = ("q", "tool", "cursor")


def refuse_nul_in_url():
    """Refuse a URL that holds a NUL character (%00) in its path or query.

    No id, name or search can hold one (ingest refuses them) and PostgreSQL's text cannot: every
    read it reached failed there, as SQLite answered "not found"; now both answer this 400. A PUT,
    which names what it creates, says why it cannot take the name itself (a tool's `bad_name`). A
    search (`q`, `tool`) drops its control characters (filters.printable), and a cursor, ours to
    decode, is a `bad_cursor` (a page's first page) as any cursor not ours."""
    if request.method == "PUT":
        return
    query = [(k, v) for k, v in request.args.items(multi=True) if k not in CLEANED_BY_THEIR_READERS]
    if "\x00" not in request.path and not any("\x00" in k + v for k, v in query):
        return
    message = "the URL holds a NUL character (%00), which no id, name or search can hold"
    if wants_json():
        raise ApiError(400, "bad_parameter", message)
    raise BadRequest(message)


def refuse_cross_site_writes():
    """Refuse a state-changing request that a browser sent from another site (CSRF).

    Log shippers and scripts send neither Sec-Fetch-Site nor Origin; a browser sends
    them on every cross-site POST, including a plain HTML form with no token to check.
    """
    # the MCP specification asks an HTTP server to check Origin on every request (DNS rebinding),
    # not only on writes
    if request.method in SAFE_METHODS and not request.path.startswith(MCP_PATH):
        return
    fetch_site = request.headers.get("Sec-Fetch-Site", "")
    origin = request.headers.get("Origin", "")
    own_origin = request.host_url.rstrip("/")
    if fetch_site in ("cross-site", "same-site") or (origin and origin != own_origin):
        raise ApiError(403, "cross_site_request", _cross_site_message())


def _cross_site_message() -> str:
    """Say why a cross-site request was refused, and how to reach us instead.

    How the caller can reach us."""
    if request.path.startswith(MCP_PATH):
        return (
            "MCP requests from another site's pages are refused (the MCP specification's guard "
            "against DNS rebinding); connect from an MCP client, which sends no Origin or this "
            "server's own"
        )
    return (
        "state-changing requests from another site's pages are refused; send them from a script "
        "or a log shipper, or from tracediff's own pages"
    )


def secure_headers(response):
    """Add the content security policy and friends to every response."""
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    return response
