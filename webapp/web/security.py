"""Scoped tokens: which scope a request needs, and whether its token has it.

The Host allow-list, the cross-site refusal and the security headers are guards.py's; this module
puts them in front of every request with the token check."""

import logging

from flask import current_app, g, request

from ..common.tokens import SETTINGS, Keyring, Token
from ..ops import logs
from . import guards, throttle
from .errors import ApiError
from .paths import (
    ALERT_PAGES_PATH,
    ALERT_PATHS,
    API_PREFIXES,
    INGEST_PATHS,
    METRICS_PATH,
    OPEN_PATHS,
    PROBLEM_PAGES_PATH,
    PROBLEMS_API_PATH,
    SAFE_METHODS,
    TOOL_PAGES_PATH,
    TOOLS_PATH,
)

BEARER_CHALLENGE = 'Bearer realm="tracediff"'
# A browser asks for this once, then sends it with every request to the site, htmx ones included.
BASIC_CHALLENGE = 'Basic realm="tracediff", charset="UTF-8"'
# under "webapp", so its INFO lines reach the server's log
LOG = logging.getLogger(__name__)


def bearer_token() -> str:
    """Return the token of an `Authorization: Bearer` header, or ""."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def basic_password() -> str:
    """Return the password of an `Authorization: Basic` header (any user name), or ""."""
    auth = request.authorization
    return (auth.password or "") if auth is not None and auth.type == "basic" else ""


def admin_only(view):
    """Mark a view as needing an admin token (contracts, problems' state, alert rules)."""
    view.tracediff_scope = "admin"
    return view


def required_scope(path: str, method: str, view=None) -> str | None:
    """Name what a request needs: "admin", "ingest", "read", or None (open)."""
    if path.startswith(OPEN_PATHS):
        return None
    marked = getattr(view, "tracediff_scope", None)
    if marked:
        return marked
    if path == METRICS_PATH:
        return "metrics"
    if path in INGEST_PATHS:
        return "ingest"
    if (
        path.startswith((TOOLS_PATH, PROBLEMS_API_PATH, *ALERT_PATHS))
        and method not in SAFE_METHODS
    ):
        # contracts, problems' state and alert rules
        return "admin"
    if (
        path.startswith((TOOL_PAGES_PATH, PROBLEM_PAGES_PATH, ALERT_PAGES_PATH))
        and method not in SAFE_METHODS
    ):
        return "page_admin"
    return "read"


def check_access():
    """Refuse a request whose path needs a token it does not carry.

    Note the token's name in `g`."""
    view = current_app.view_functions.get(request.endpoint) if request.endpoint else None
    scope = required_scope(request.path, request.method, view)
    if scope is not None:
        count_token(scope)
    if scope == "page_admin":
        _require_page_admin()
    elif scope == "metrics":
        _require_metrics_token()
    elif scope is not None:
        g.token = require_scope(scope)


def count_token(scope: str) -> None:
    """Slow a client whose tokens keep failing (throttle.py).

    Refuse it before its token is compared, else count a token that matches none."""
    ring = keyring()
    scheme, secret = ("Bearer", bearer_token()) if bearer_token() else ("Basic", basic_password())
    if not secret or not ring.tokens:
        # no token, or none to guess: nothing to slow
        return
    tried = "admin" if scope == "page_admin" else scope
    throttle.refuse_if_slowed(tried)
    if ring.find(secret) is None:
        throttle.note_failure(tried, scheme)


def keyring() -> Keyring:
    """The tokens of the current settings.

    Rebuilt when the settings change, e.g. on reload."""
    key = tuple(str(current_app.config.get(setting, "")) for setting in SETTINGS.values())
    cached = current_app.extensions.get("tracediff.keyring")
    if cached is None or cached[0] != key:
        cached = (key, Keyring.from_settings(current_app.config))
        current_app.extensions["tracediff.keyring"] = cached
    return cached[1]


def require_scope(scope: str) -> Token | None:
    """Return the request's token if it opens `scope` (None where the scope is open).

    Else raise 401/403.

    Other features call this (or mark their views with `admin_only`) for what needs an admin token.
    """
    ring = keyring()
    token = ring.find(bearer_token())
    if token is None and scope == "read":
        # browsers: Basic auth only ever reads
        token = ring.find(basic_password())
    # refused or not, the access line says which token it was
    if token is not None:
        request.environ[logs.TOKEN_NAME_KEY] = token.name
    wanted = scope
    if scope == "admin" and not ring.configured("admin"):
        # as before admin tokens existed: an ingest token, else a read token, else nothing
        scope = "ingest" if ring.configured("ingest") else "read"
    if token is not None and token.grants(scope):
        return token
    if not ring.configured(scope):
        return None
    # a metrics token: 401
    if token is not None and wanted == "admin" and token.scope in ("read", "ingest"):
        code = "read_only_token" if token.scope == "read" else "ingest_only_token"
        needed = "TRACEDIFF_ADMIN_TOKENS" if scope == "admin" else "TRACEDIFF_INGEST_TOKENS"
        article = "an" if token.scope == "ingest" else "a"
        raise ApiError(
            403,
            code,
            f"{article} {token.scope} token cannot do this (change contracts or other admin "
            f"state); send a token from {needed}",
        )
    raise _refusal(scope, token)


def changing_scope(ring: Keyring | None = None) -> str:
    """Name the scope whose tokens change contracts, problems' state and alert rules.

    Admin tokens, else (as before admin tokens existed) ingest ones, else read ones."""
    ring = ring or keyring()
    return (
        "admin" if ring.configured("admin") else "ingest" if ring.configured("ingest") else "read"
    )


def change_hint() -> str:
    """Say which token a page's changes need and how a browser sends it.

    On a page that shows no forms."""
    setting = f"TRACEDIFF_{SETTINGS[changing_scope()]}"
    return (
        f"Changes need a token from {setting}, given as the password of HTTP Basic auth (any user "
        "name)"
    )


def may_change_contracts() -> bool:
    """Say whether this request may change contracts from a page.

    Or problems, or alert rules: the scope is open, or it sent a token that opens it (a Bearer
    token, or the password of Basic auth: a browser holds one)."""
    ring = keyring()
    scope = changing_scope(ring)
    if not ring.configured(scope):
        return True
    return any(
        token is not None and token.grants(scope)
        for token in (ring.find(bearer_token()), ring.find(basic_password()))
    )


def _require_metrics_token() -> None:
    """Let in a metrics token or a read token; with neither set, anyone.

    A metrics token is one of TRACEDIFF_METRICS_TOKENS."""
    ring = keyring()
    token = ring.find(bearer_token())
    if token is not None and token.grants("metrics"):
        # the access line names it, as for other scopes
        request.environ[logs.TOKEN_NAME_KEY] = token.name
        g.token = token
        return
    if (
        ring.configured("metrics")
        and not ring.configured("read")
        and not (token and token.grants("read"))
    ):
        if token is not None:
            request.environ[logs.TOKEN_NAME_KEY] = token.name
        raise _unauthorized(
            "/metrics needs 'Authorization: Bearer <token>' with a token from "
            "TRACEDIFF_METRICS_TOKENS",
            BEARER_CHALLENGE,
        )
    g.token = require_scope("read")


def _require_page_admin() -> None:
    """Refuse a page's change without the token it needs.

    A browser is asked for it (Basic)."""
    if not may_change_contracts():
        setting = f"TRACEDIFF_{SETTINGS[changing_scope()]}"
        raise _unauthorized(
            f"this change needs a token from {setting}, as the password of HTTP Basic auth "
            "(any user name) or as 'Authorization: Bearer <token>'; or use the `tracediff` "
            "command on the server",
            BASIC_CHALLENGE,
            BEARER_CHALLENGE,
        )


def _refusal(scope: str, token: Token | None = None) -> ApiError:
    """Refuse a request without a token of `scope` (401, which shippers retry).

    A known token of another scope is named, so a read token sent to ingest is not taken for a
    wrong secret."""
    settings = f"TRACEDIFF_{SETTINGS[scope]}" + (
        "" if scope == "admin" else " or TRACEDIFF_ADMIN_TOKENS"
    )
    if token is not None:
        article = "an" if token.scope[0] in "aeiou" else "a"
        settings += f" (the token sent is {article} {token.scope} token)"
    if scope == "read" and not request.path.startswith(API_PREFIXES):
        return _unauthorized(
            f"this page needs a token from {settings}, as the password of HTTP Basic auth "
            "(any user name) or as 'Authorization: Bearer <token>'",
            BASIC_CHALLENGE,
            BEARER_CHALLENGE,
        )
    return _unauthorized(
        f"this endpoint needs 'Authorization: Bearer <token>' with a token from {settings}",
        BEARER_CHALLENGE,
    )


def _unauthorized(message: str, *challenges: str) -> ApiError:
    return ApiError(
        401,
        "unauthorized",
        message,
        retryable=False,
        headers={"WWW-Authenticate": list(challenges)},
    )


def log_token_use(response):
    """Log which named token changed something (never the token itself)."""
    token = g.get("token")
    if token is not None and request.method not in SAFE_METHODS:
        LOG.info(
            "token %s (%s): %s %s -> %s",
            token.name,
            token.scope,
            request.method,
            request.path,
            response.status_code,
        )
    return response


def init_app(app) -> None:
    # a bad token setting stops the start, not the first request
    Keyring.from_settings(app.config)
    app.before_request(guards.check_host)
    app.before_request(guards.refuse_cross_site_writes)
    app.before_request(check_access)
    app.before_request(guards.refuse_nul_in_url)
    app.after_request(guards.secure_headers)
    app.after_request(log_token_use)
