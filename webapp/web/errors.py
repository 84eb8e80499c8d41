"""The one JSON error shape: {"error": {"code", "message", "retryable"}}."""

from flask import jsonify
from werkzeug.exceptions import HTTPException


class ApiError(Exception):
    """An error an API client can act on, with its HTTP status."""

    def __init__(self, status: int, code: str, message: str, retryable: bool = False, headers=None):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.retryable, self.headers = retryable, headers or {}


def error_response(status: int, code: str, message: str, retryable: bool = False, headers=None):
    """Build the JSON error response."""
    response = jsonify(error={"code": code, "message": message, "retryable": retryable})
    response.status_code = status
    response.headers.update(headers or {})
    return response


# One code per status where several refusals share it: every 413 (sent size, decompressed size,
# chunked body) is too_large, whether werkzeug or tracediff refuses the body.
_CODES = {413: "too_large"}


def http_error_code(error: HTTPException) -> str:
    """Name a werkzeug HTTP error in snake_case ("Not Found" -> "not_found").

    A 413 is too_large."""
    if error.code in _CODES:
        return _CODES[error.code]
    return (error.name or "error").lower().replace(" ", "_").replace("'", "")
