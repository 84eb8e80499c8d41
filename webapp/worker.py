"""The background analyzer: a daemon thread per server process.

Ingest only commits events, so acknowledging a batch never waits for analysis; this
thread folds new events into calls and traces, claims out-of-date calls (a claim in the
database keeps two workers from doing the same call) and analyses them within about a second.
"""
import logging
import threading
import time
from datetime import datetime, timedelta, timezone

from .pipeline import analyze_pending
from .store import Store, StoreUnavailable

log = logging.getLogger(__name__)
IDLE_SECONDS = 0.25
PRUNE_EVERY_SECONDS = 3600


class Analyzer(threading.Thread):
    """Project new events, analyse out-of-date calls and apply retention, until stopped."""

    def __init__(self, settings: dict):
        super().__init__(name="tracediff-analyzer", daemon=True)
        self.settings = settings
        self.stopping = threading.Event()
        self.next_prune = 0.0

    def run(self) -> None:
        store = Store.from_settings(self.settings)
        while not self.stopping.is_set():
            try:
                busy = analyze_pending(store, limit=100, budget=self.settings.get("ANALYSIS_BUDGET"))
                self.prune_when_due(store)
            except StoreUnavailable:
                busy = 0
            except Exception:  # a bad call must not kill the thread
                log.exception("analysis failed")
                busy = 0
            if not busy:
                self.stopping.wait(IDLE_SECONDS)
        store.close()

    def prune_when_due(self, store: Store) -> None:
        days = self.settings["RETENTION_DAYS"]
        if days > 0 and time.monotonic() >= self.next_prune:
            self.next_prune = time.monotonic() + PRUNE_EVERY_SECONDS
            deleted = store.prune(cutoff(days))
            if deleted:
                log.info("retention: deleted %d trace(s) older than %d day(s)", deleted, days)


def cutoff(days: int) -> str:
    """Return the RFC 3339 time `days` ago."""
    return (datetime.now(timezone.utc) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def init_app(app) -> None:
    """Start the analyzer thread for this process unless the settings turn it off."""
    if app.config["ANALYZER"] == "background" and not app.testing:
        thread = Analyzer(dict(app.config))
        app.extensions["tracediff.analyzer"] = thread
        thread.start()
