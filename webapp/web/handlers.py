"""How every error is answered.

The one JSON shape for the API and the `.json` twins, a page for a person."""

from flask import current_app, render_template, request
from werkzeug.exceptions import HTTPException

from ..contracts import ContractError
from ..ingest import IngestError
from ..store import StoreUnavailable
from .errors import ApiError, error_response, http_error_code
from .metrics import note_store_unavailable
from .paths import API_PREFIXES

# the page errors a person meets by following or editing a link, shown in the site's layout
PAGE_TITLES = {400: "Bad request", 404: "Not found"}


def init_app(app) -> None:
    """Register the error handlers on the app."""
    for error, handler in (
        (ApiError, api_error),
        (IngestError, ingest_error),
        (ContractError, contract_error),
        (StoreUnavailable, store_unavailable),
        (HTTPException, http_error),
        (Exception, unexpected_error),
    ):
        app.register_error_handler(error, handler)


def api_error(error: ApiError):
    # slowed for wrong tokens: a page says why
    if error.status == 429 and not wants_json():
        return render_template("throttled.html", error=error), 429, error.headers
    if request.method not in ("GET", "HEAD", "OPTIONS") and not wants_json():
        # a form posted from a page (a refused token, a cross-site post) answers a page a person can
        # read
        return render_template("refused.html", error=error), error.status, error.headers
    return error_response(error.status, error.code, error.message, error.retryable, error.headers)


def ingest_error(error: IngestError):
    return error_response(error.status, error.code, error.message, error.retryable)


def contract_error(error: ContractError):
    return error_response(error.status, error.code, str(error))


def store_unavailable(error: StoreUnavailable):
    note_store_unavailable(error)
    seconds = current_app.config["RETRY_AFTER"]
    message = f"the database is busy or unavailable now ({error}); retry later"
    # a person at a page gets a page
    if not wants_json():
        return (
            render_template("unavailable.html", message=message, seconds=seconds),
            503,
            {"Retry-After": str(seconds)},
        )
    return error_response(
        503, "store_unavailable", message, retryable=True, headers={"Retry-After": str(seconds)}
    )


def wants_json() -> bool:
    """Whether an error answers in the JSON shape.

    The API, every `.json` twin of a page, a raw value, or a client that asks for JSON."""
    return (
        request.path.startswith(API_PREFIXES)
        or request.path.endswith((".json", "/value"))
        or request.accept_mimetypes.best == "application/json"
    )


def http_error(error: HTTPException):
    """Answer every HTTP error of the API in the one JSON shape."""
    if not wants_json():
        # a page in the site's layout, not the bare Werkzeug one
        if error.code in PAGE_TITLES:
            page = render_template(
                "http_error.html", title=PAGE_TITLES[error.code], message=error.description
            )
            return page, error.code
        return error
    retryable = error.code in (429, 503)
    message = error.description or error.name
    if error.code == 413:
        message = f"the request body is larger than {current_app.config['MAX_BODY_BYTES']} bytes"
    # what the error says besides its page: a 405's Allow (RFC 9110 asks for it)
    headers = {k: v for k, v in error.get_headers() if k.lower() != "content-type"}
    return error_response(error.code, http_error_code(error), message, retryable, headers)


def unexpected_error(error: Exception):
    """Log a bug and still answer in the error shape."""
    current_app.logger.exception("unhandled error")
    if not wants_json():
        return "Internal server error", 500
    return error_response(
        500, "internal_error", "tracediff hit an unexpected error; it has been logged"
    )
