"""Access tokens and the security headers of every response."""
import hmac

from flask import current_app, request

from .config import token_set
from .errors import ApiError

INGEST_PATHS = ("/api/v1/ingest", "/v1/traces")
OPEN_PATHS = ("/static/", "/api/v1/health")
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")


def bearer_token() -> str:
    """Return the token of an `Authorization: Bearer` header, or ""."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def token_matches(token: str, allowed: frozenset[str]) -> bool:
    """Compare a token with every allowed one in constant time."""
    found = False
    for candidate in allowed:
        found |= hmac.compare_digest(token.encode(), candidate.encode())
    return found


def check_access():
    """Refuse a request whose path needs a token it does not carry."""
    path = request.path
    if path.startswith(OPEN_PATHS):
        return
    setting = "INGEST_TOKENS" if path in INGEST_PATHS else "READ_TOKENS"
    allowed = token_set(current_app.config[setting])
    if allowed and not token_matches(bearer_token(), allowed):
        raise ApiError(401, "unauthorized", f"this endpoint needs 'Authorization: Bearer <token>' "
                       f"with a token from TRACEDIFF_{setting}", retryable=False,
                       headers={"WWW-Authenticate": 'Bearer realm="tracediff"'})


SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


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
