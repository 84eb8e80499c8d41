"""Access tokens and the security headers of every response."""
import hmac

from flask import current_app, request

from .config import token_set
from .errors import ApiError

INGEST_PATHS = ("/api/v1/ingest", "/v1/traces")
OPEN_PATHS = ("/static/", "/api/v1/health")
API_PREFIXES = ("/api/", "/v1/")
TOOLS_PATH = "/api/v1/tools/"
ALERT_PATHS = ("/api/v1/alerts", "/settings/alerts")  # rules hold secrets and make the server call out
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
BEARER_CHALLENGE = 'Bearer realm="tracediff"'
# A browser asks for this once, then sends it with every request to the site, htmx ones included.
BASIC_CHALLENGE = 'Basic realm="tracediff", charset="UTF-8"'


def bearer_token() -> str:
    """Return the token of an `Authorization: Bearer` header, or ""."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def basic_password() -> str:
    """Return the password of an `Authorization: Basic` header (any user name), or ""."""
    auth = request.authorization
    return (auth.password or "") if auth is not None and auth.type == "basic" else ""


def token_matches(token: str, allowed: frozenset[str]) -> bool:
    """Compare a token with every allowed one in constant time."""
    found = False
    for candidate in allowed:
        found |= hmac.compare_digest(token.encode(), candidate.encode())
    return found


def required_scope(path: str, method: str) -> str | None:
    """Name what a request needs: "ingest", "write" (changing contracts), "read", or None (open)."""
    if path.startswith(OPEN_PATHS):
        return None
    if path in INGEST_PATHS:
        return "ingest"
    if path.startswith((TOOLS_PATH, *ALERT_PATHS)) and method not in SAFE_METHODS:
        return "write"
    return "read"


def check_access():
    """Refuse a request whose path needs a token it does not carry."""
    scope = required_scope(request.path, request.method)
    if scope == "ingest":
        _require_bearer("INGEST_TOKENS")
    elif scope == "write":
        _require_write_token()
    elif scope == "read":
        _require_read_token()


def _tokens(setting: str) -> frozenset[str]:
    return token_set(current_app.config[setting])


def _require_bearer(setting: str) -> None:
    allowed = _tokens(setting)
    if allowed and not token_matches(bearer_token(), allowed):
        raise _unauthorized(f"this endpoint needs 'Authorization: Bearer <token>' with a token from "
                            f"TRACEDIFF_{setting}", BEARER_CHALLENGE)


def _require_write_token() -> None:
    """Changing contracts needs an ingest token; with no ingest tokens set, a read token."""
    ingest = _tokens("INGEST_TOKENS")
    if not ingest:
        _require_bearer("READ_TOKENS")
    elif not token_matches(bearer_token(), ingest):
        if token_matches(bearer_token(), _tokens("READ_TOKENS")):
            raise ApiError(403, "read_only_token", "a read token cannot change contracts; send a token "
                           "from TRACEDIFF_INGEST_TOKENS")
        _require_bearer("INGEST_TOKENS")


def _require_read_token() -> None:
    """Let a read token in as a Bearer token or as the password of HTTP Basic auth (for browsers)."""
    allowed = _tokens("READ_TOKENS")
    if not allowed or token_matches(bearer_token(), allowed) or token_matches(basic_password(), allowed):
        return
    if request.path.startswith(API_PREFIXES):
        raise _unauthorized("this endpoint needs 'Authorization: Bearer <token>' with a token from "
                            "TRACEDIFF_READ_TOKENS", BEARER_CHALLENGE)
    raise _unauthorized("this page needs a token from TRACEDIFF_READ_TOKENS, as the password of HTTP "
                        "Basic auth (any user name) or as 'Authorization: Bearer <token>'",
                        BASIC_CHALLENGE, BEARER_CHALLENGE)


def _unauthorized(message: str, *challenges: str) -> ApiError:
    return ApiError(401, "unauthorized", message, retryable=False,
                    headers={"WWW-Authenticate": list(challenges)})


def refuse_cross_site_writes():
    """Refuse a state-changing request that a browser sent from another site (CSRF).

    Log shippers and scripts send neither Sec-Fetch-Site nor Origin; a browser sends
    them on every cross-site POST, including a plain HTML form with no token to check.
    """
    if request.method in SAFE_METHODS:
        return
    fetch_site = request.headers.get("Sec-Fetch-Site", "")
    origin = request.headers.get("Origin", "")
    own_origin = request.host_url.rstrip("/")
    if fetch_site in ("cross-site", "same-site") or (origin and origin != own_origin):
        raise ApiError(403, "cross_site_request", "state-changing requests from another site's pages "
                       "are refused; send them from a script or a log shipper, or from tracediff's own pages")


def secure_headers(response):
    """Add the content security policy and friends to every response."""
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    return response


def init_app(app) -> None:
    app.before_request(refuse_cross_site_writes)
    app.before_request(check_access)
    app.after_request(secure_headers)
