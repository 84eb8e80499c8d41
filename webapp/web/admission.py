"""Bodies admitted by a byte budget.

A worker parses at most PARSE_BUDGET_BYTES of request bodies at once.

Past it a body is refused before it is parsed, with 429 and Retry-After, which every shipper
retries; a worker that took six 16 MB bodies at once parsed them all, answered 503 after 10-12 s and
kept 832 MiB. One body alone is always admitted, however large (the size limits bound it), so none
is refused forever.
"""

import functools
import threading

from flask import current_app, g, request

from ..common.memory import give_back_memory
from .errors import ApiError

# a body this large leaves enough freed heap to hand back
TRIM_AFTER_BYTES = 1024 * 1024


class ByteBudget:
    """The bytes of the bodies one process is parsing, against a budget."""

    def __init__(self, limit: int):
        self.limit, self.held = limit, 0
        self.lock = threading.Lock()

    def take(self, size: int) -> bool:
        """Hold `size` bytes if they fit (or nothing else is held).

        Say whether they were taken."""
        with self.lock:
            if self.held and self.held + size > self.limit:
                return False
            self.held += size
            return True

    def give_back(self, size: int) -> None:
        with self.lock:
            self.held -= size


def init_app(app) -> None:
    app.extensions["tracediff.parse_budget"] = ByteBudget(app.config["PARSE_BUDGET_BYTES"])


def budgeted(view):
    """Run an ingest view within the worker's byte budget.

    A body with a Content-Length is admitted before it is read, a chunked one by `hold_read` once
    read; the bytes are given back, and freed heap to the system after a large body, once the view
    has returned (its parsed events are gone then)."""

    @functools.wraps(view)
    def within_budget(*args, **kwargs):
        g.parse_budgeted = True
        try:
            if request.content_length is not None:
                _hold(request.content_length)
            return view(*args, **kwargs)
        finally:
            _release()

    return within_budget


def hold_read(size: int) -> None:
    """Admit a body read without a Content-Length.

    Before it is parsed (429 when the budget is full); a view that is not budgeted (a contract
    import) is not counted."""
    if g.get("parse_budgeted") and "parse_held" not in g:
        _hold(size)


def _hold(size: int) -> None:
    budget: ByteBudget = current_app.extensions["tracediff.parse_budget"]
    if budget.limit and not budget.take(size):
        raise _busy(budget, size)
    g.parse_held = size if budget.limit else 0
    g.parse_size = size


def _release() -> None:
    held, size = g.pop("parse_held", 0), g.pop("parse_size", 0)
    if held:
        current_app.extensions["tracediff.parse_budget"].give_back(held)
    if size >= TRIM_AFTER_BYTES:
        give_back_memory()


def _busy(budget: ByteBudget, size: int) -> ApiError:
    seconds = current_app.config["RETRY_AFTER"]
    mib = 1024 * 1024
    return ApiError(
        429,
        "ingest_busy",
        f"this worker is parsing {budget.held / mib:.1f} MiB of other bodies (budget "
        f"{budget.limit / mib:.0f} MiB, TRACEDIFF_PARSE_BUDGET_BYTES); this {size / mib:.1f} MiB "
        "body was not "
        f"parsed: send it again in {seconds} s",
        retryable=True,
        headers={"Retry-After": str(seconds), "Connection": "close"},
    )
