"""Read a request body against a deadline.

So a client sending a byte a second cannot hold a thread."""

import contextlib
import socket
import threading

from flask import current_app, request
from gunicorn.http.errors import NoMoreData, ParseException

from ..ingest.model import too_large
from .admission import hold_read
from .errors import ApiError


@contextlib.contextmanager
def body_deadline(environ: dict, seconds: float):
    """Cut the reading side of the connection when the body is not in after `seconds`.

    Then raise 408.

    A socket timeout bounds one recv() only: a client dribbling a byte a second never trips it.
    Shutting the reading side ends any recv at once, and the answer can still be written.
    """
    sock = environ.get("gunicorn.socket")
    # the Flask test client, or no limit
    if sock is None or seconds <= 0:
        yield
        return
    fired = threading.Event()

    def cut():
        fired.set()
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RD)

    timer = threading.Timer(seconds, cut)
    timer.daemon = True
    timer.start()
    try:
        yield
    except Exception as error:
        if fired.is_set():
            raise _timed_out(seconds) from None
        # gunicorn reads the body as the app asks for it
        if isinstance(error, (ParseException, NoMoreData)):
            raise _broken(error) from None
        raise
    finally:
        timer.cancel()
    if fired.is_set():
        raise _timed_out(seconds)


def _timed_out(seconds: float) -> ApiError:
    return ApiError(
        408,
        "body_timeout",
        f"the request body did not arrive within {seconds:g} s; send it faster or in smaller "
        "batches",
        retryable=True,
        headers={"Connection": "close"},
    )


def cut_short(received: int, declared: int | None) -> None:
    """Refuse a body that ended before its Content-Length.

    Its last records would be parsed cut."""
    if declared is not None and received < declared:
        raise _broken(NoMoreData())


def _broken(error: Exception) -> ApiError:
    what = (
        "ended before its Content-Length"
        if isinstance(error, NoMoreData)
        else f"has broken framing ({error})"
    )
    return ApiError(
        400,
        "bad_body",
        f"the request body {what}; nothing in it was acknowledged: send it again whole",
        headers={"Connection": "close"},
    )


def whole_body() -> bytes:
    """Return the request body, or raise 413 when it is over the size limit.

    Werkzeug refuses a Content-Length over MAX_CONTENT_LENGTH before reading, but reads a chunked
    body (no Content-Length) only up to the limit and says nothing of the rest: parsed as it is,
    its last records would be lost or reported as broken. One more byte tells.
    """
    with body_deadline(request.environ, current_app.config["BODY_TIMEOUT"]):
        raw = request.get_data(cache=False)
        limit = request.max_content_length
        if (
            limit is not None
            and request.content_length is None
            and len(raw) >= limit
            and request.environ["wsgi.input"].read(1)
        ):
            raise too_large(limit)
        cut_short(len(raw), request.content_length)
    hold_read(len(raw))
    return raw
