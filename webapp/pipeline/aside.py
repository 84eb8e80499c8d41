"""Calls set aside: a call whose analysis fails on its own.

A batch that fails (the analysis raised, or the database refused what it was to store) is
analysed again call by call; a call that fails alone is saved as analysed, marked incomplete with
its error, so that it neither blocks the batches after it nor keeps the analyser's lag growing
(one such call took every node out of the load balancer). It is analysed again when it changes
or its tool's contract does, or by `tracediff reanalyze`.
"""

import logging
from collections.abc import Callable

from ..analysis import not_analysed
from ..store import Store, StoreUnavailable

log = logging.getLogger(__name__)
BATCH_FAILED = "analysis of a batch of %d call(s) failed; each is tried alone"
# the error as the call's page shows it
SHOWN_ERROR = 300


def whole_or_each(store: Store, calls: list[dict], analyse: Callable[[list[dict]], object]):
    """Analyse and save `calls` by `analyse`: all at once, or each alone if that fails."""
    try:
        analyse(calls)
    except StoreUnavailable:
        raise
    except Exception:
        log.exception(BATCH_FAILED, len(calls))
        each_alone(store, calls, analyse)


def each_alone(store: Store, calls: list[dict], analyse: Callable[[list[dict]], object]) -> int:
    """Analyse and save `calls` one at a time by `analyse`; return how many were done.

    Each that fails alone is set aside. An unavailable database stops the turn: the calls not
    reached stay claimed until their claims expire, as after any failed batch."""
    for call in calls:
        try:
            analyse([call])
        except StoreUnavailable:
            raise
        # one call's bug or bad data, whatever it is, must not hold back the others
        except Exception as error:
            log.exception(
                "analysis of call %r of trace %r failed alone; it is set aside, marked incomplete",
                call["call_id"],
                call["trace_id"],
            )
            set_aside(store, call, error)
    return len(calls)


def set_aside(store: Store, call: dict, error: Exception) -> bool:
    """Save a call as analysed, marked incomplete with `error`; say if it was saved."""
    return store.save_analysis(
        call["trace_id"], call["call_id"], call["version"], not_analysed(failure(error))
    )


def failure(error: Exception) -> str:
    """Say why a call's analysis failed, in one line of printable text."""
    text = " ".join(str(error).split()) or "no message"
    text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
    return (
        f"analysis failed ({type(error).__name__}: {text[:SHOWN_ERROR]}); set aside until the call "
        "or its contract changes, or `tracediff reanalyze`"
    )
