"""The background analyzer: a daemon thread per server process.

Ingest only commits events, so acknowledging a batch never waits for analysis;
this thread claims out-of-date calls (a claim in the database keeps two workers
from doing the same call) and analyses them within about a second.
"""
import logging
import threading
import time

from .pipeline import analyze_pending
from .store import Store, StoreUnavailable

log = logging.getLogger(__name__)
IDLE_SECONDS = 0.25


class Analyzer(threading.Thread):
    def __init__(self, database: str):
        super().__init__(name="tracediff-analyzer", daemon=True)
        self.database = database
        self.stopping = threading.Event()

    def run(self) -> None:
        store = Store(self.database, create=False)
        while not self.stopping.is_set():
            try:
                busy = analyze_pending(store, limit=100)
            except StoreUnavailable:
                busy = 0
            except Exception:  # a bad call must not kill the thread
                log.exception("analysis failed")
                busy = 0
            if not busy:
                self.stopping.wait(IDLE_SECONDS)
        store.close()


def init_app(app) -> None:
    """Start the analyzer thread for this process unless the settings turn it off."""
    if app.config["ANALYZER"] == "background" and not app.testing:
        thread = Analyzer(app.config["DATABASE"])
        app.extensions["tracediff.analyzer"] = thread
        thread.start()
