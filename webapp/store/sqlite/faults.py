"""A process's note of storage faults (a read-only or full disk).

So that what it keeps open is reopened.

SQLite shares one view of a file among a process's connections while any of them stays open: a
connection kept since a read-only mount keeps every new one read-only after the remount ("attempt to
write a readonly database" until a restart). Long-lived stores (the background loops') reopen once a
fault was noted, and health reports a fault no later write has cleared, as readiness does.
"""

import threading
import time

_lock = threading.Lock()
_state = {"count": 0, "message": None, "since": None}


def note(message: str) -> None:
    """Record that a write failed for the disk's sake (not for a lock)."""
    with _lock:
        _state["count"] += 1
        if _state["message"] is None:
            _state["since"] = time.time()
        _state["message"] = message


def clear() -> None:
    """Record that a write committed: the disk takes writes again."""
    if _state["message"] is not None:
        with _lock:
            _state["message"] = _state["since"] = None


def count() -> int:
    """Return how many faults this process has noted.

    A store opened before the latest one is stale."""
    return _state["count"]


def current() -> str | None:
    """Return the last fault's message while no write has committed since, else None."""
    return _state["message"]
