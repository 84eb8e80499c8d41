"""The background analyser: a daemon thread per server process.

Ingest only commits events, so acknowledging a batch never waits for analysis; this
thread folds new events into calls and traces, claims out-of-date calls (a claim in the
database keeps two workers from doing the same call) and analyses them within about a second.
"""

import logging
import time

from ..common import jsontext, times
from ..pipeline import analyze_pending
from ..pipeline.rules import RULES
from ..store import Store, StoreUnavailable
from ..store.urls import redacted_url
from .headroom import Headroom
from .loop import StoreLoop

log = logging.getLogger(__name__)
IDLE_SECONDS = 0.25
PRUNE_EVERY_SECONDS = 3600
# the gauges of /metrics (backlog, sizes, database_up) are this old at most
SAMPLE_SECONDS = 5
# A batch's work (the thread's CPU time), from its claim to its save: its save holds the writer's
# lock for a share of it, so that an ingest commit waits tenths of a second behind it, never the 5 s
# a request waits (100 calls of 560 keys held it 5.4 s). Counted on the wall, a loaded machine cut
# batches to ~10 calls, 25-30% more CPU a call than batches of 100 (issue 36).
BATCH_SECONDS = 0.2
MOST_CALLS = 100
# How long a turn projects before it analyses a batch; None: until the queue is empty. Under a
# sustained load the queue never empties, so the analyser analyses nothing until the load stops;
# bounded (0.2 s, 2 s) it analysed 1,700-3,500 calls during a 20 s burst but ingest kept only
# 0.62-0.87 of its rate against 0.80-1.02 (issue 36, docs/performance.md): ingest's rate goes first.
PROJECT_SECONDS = None


class Analyser(StoreLoop):
    """Project new events, analyse out-of-date calls and apply retention.

    Until stopped."""

    idle_seconds = IDLE_SECONDS
    failure = "analysis failed"

    def __init__(self, settings: dict):
        super().__init__("tracediff-analyser", settings)
        self.next_prune = 0.0
        self.next_sample = 0.0
        self.streak, self.since = 0, 0.0
        # seconds of CPU a call took in the last batch
        self.per_call = BATCH_SECONDS / MOST_CALLS
        self.headroom = Headroom()

    def turn(self, store: Store) -> int:
        # held to ingest's floor: below it nothing is folded or saved, the work stays pending
        if not self.headroom.room(store):
            return 0
        began = time.thread_time()
        limit = max(1, min(MOST_CALLS, int(BATCH_SECONDS / self.per_call)))
        # near the floor, one call a turn: a batch of 100 begun just above it wrote past it and took
        # a small disk to 0 KiB before a prune could run (tests/test_upkeep.py)
        if store.near_headroom():
            limit = 1
        busy = analyze_pending(
            store,
            limit,
            self.settings.get("ANALYSIS_BUDGET"),
            seconds=BATCH_SECONDS,
            projecting=PROJECT_SECONDS,
        )
        if busy:
            self.per_call = max(1e-4, (time.thread_time() - began) / busy)
            store.settle_when_tight()
        self.count_analysed(busy)
        self.streak, self.since = caught_up(self.streak, self.since, busy)
        # events still queued for projection are work too: no idle pause before them
        return busy or int(store.behind())

    def unavailable(self, error: StoreUnavailable) -> None:
        self.count_error(error)

    def after_turn(self, store: Store | None) -> None:
        # even when analysis cannot write: on a full disk, retention is what frees it
        if store is not None:
            self.prune_when_due(store)
        self.sample_when_due(store)

    def sample_when_due(self, store: Store | None) -> None:
        """Read the database's gauges every few seconds.

        So that a scrape reads them from memory."""
        if time.monotonic() < self.next_sample:
            return
        self.next_sample = time.monotonic() + SAMPLE_SECONDS
        from . import gauges

        gauges.sample_pools(self.settings["DATABASE"])
        # it could not be opened this turn
        if store is None:
            gauges.database_up(False)
            return
        try:
            gauges.sample(store)
        except StoreUnavailable as error:
            self.count_error(error)
        # the gauges must not kill the thread
        except Exception:
            log.exception("reading the database's gauges failed")

    @staticmethod
    def count_error(error: StoreUnavailable) -> None:
        from .counters import record_database_error

        record_database_error(error)

    @staticmethod
    def count_analysed(calls: int) -> None:
        if calls:
            # prometheus_client is imported in workers only (see metrics)
            from .counters import ANALYSED

            ANALYSED.inc(calls)

    def prune_when_due(self, store: Store) -> None:
        days = self.settings["RETENTION_DAYS"]
        if days > 0 and time.monotonic() >= self.next_prune:
            # stopped or not, the next try is a turn away
            self.next_prune = time.monotonic() + PRUNE_EVERY_SECONDS
            try:
                count_pruned(store.prune(cutoff(days), rules=RULES), days)
            except StoreUnavailable as error:
                # what was deleted before it stopped is committed: count it, and say why it stopped
                count_pruned(getattr(error, "deleted", 0), days)
                log.warning(
                    "retention stopped before deleting every trace older than %d day(s): %s; it "
                    "tries again in %d s",
                    days,
                    error,
                    PRUNE_EVERY_SECONDS,
                )
            # retention must not kill the thread either
            except Exception:
                log.exception("retention failed; it tries again in %d s", PRUNE_EVERY_SECONDS)


def count_pruned(deleted: int, days: int) -> None:
    """Count and log traces retention deleted."""
    if deleted:
        from .counters import RETENTION

        RETENTION.inc(deleted)
        log.info("retention: deleted %d trace(s) older than %d day(s)", deleted, days)


# a backlog at least this large gets an INFO line once it is worked off
CATCH_UP_LINE = 1000


def caught_up(streak: int, since: float, busy: int) -> tuple[int, float]:
    """Count a busy streak of analysed calls.

    Log one line when a large backlog is done."""
    if busy:
        return streak + busy, since or time.monotonic()
    if streak >= CATCH_UP_LINE:
        log.info(
            "analysis: caught up, %d call(s) analysed in %.1f s", streak, time.monotonic() - since
        )
    return 0, 0.0


def cutoff(days: int) -> str:
    """Return the time `days` ago, as the store writes times."""
    return times.now(hours_ago=days * 24)


def init_app(app) -> None:
    """Start the analyser thread for this process unless the settings turn it off."""
    if not app.testing:
        log.info(
            "worker started: database %s, analyser %s",
            redacted_url(app.config["DATABASE"]),
            app.config["ANALYZER"],
        )
    if app.config["ANALYZER"] == "background" and not app.testing:
        jsontext.freeze_the_heap()
        thread = Analyser(dict(app.config))
        app.extensions["tracediff.analyser"] = thread
        thread.start()
