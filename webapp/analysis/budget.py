"""The time budget of one analysis.

CPU seconds of the analysing thread, checked in the inner loops.

`tick()` sits in the loops that visit nodes; it reads the clock once every few hundred calls, so
an unlimited analysis pays a counter. Past the deadline it raises OutOfTime, and analyze_call
keeps what the finished stages found and marks the result incomplete.
"""

import threading
import time
from contextlib import contextmanager

_EVERY = 256
_state = threading.local()


class OutOfTime(Exception):
    """The analysis used up its time budget."""


def _clock() -> float:
    return getattr(_state, "clock", time.thread_time)()


@contextmanager
def wall_clock():
    """Count budgets in this block by the clock on the wall.

    A request thread must answer in time, however busy the other threads of its process are."""
    previous = getattr(_state, "clock", time.thread_time)
    _state.clock = time.monotonic
    try:
        yield
    finally:
        _state.clock = previous


@contextmanager
def limited(seconds: float | None):
    """Run the block with a budget of `seconds` of this thread's CPU time.

    None or 0: no limit."""
    previous = getattr(_state, "deadline", None), getattr(_state, "left", _EVERY)
    _state.deadline = _clock() + seconds if seconds and seconds > 0 else None
    _state.left = _EVERY
    try:
        yield
    finally:
        _state.deadline, _state.left = previous


def tick() -> None:
    """Count one unit of work.

    Raise OutOfTime once the budget's deadline has passed."""
    left = getattr(_state, "left", _EVERY) - 1
    if left > 0:
        _state.left = left
        return
    _state.left = _EVERY
    deadline = getattr(_state, "deadline", None)
    if deadline is not None and _clock() > deadline:
        raise OutOfTime


def spent() -> bool:
    """Tell whether the current budget's deadline has passed (checked between stages)."""
    deadline = getattr(_state, "deadline", None)
    return deadline is not None and _clock() > deadline
