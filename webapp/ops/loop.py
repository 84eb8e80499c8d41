"""The base of the background loops.

The analyser with retention, the alert sender: a daemon thread per server process that works in
turns on the store until stopped."""

import logging
import threading
from abc import ABC, abstractmethod

from ..store import Store, StoreUnavailable


class StoreLoop(threading.Thread, ABC):
    """Run `turn(store)` until stopped.

    The store is opened when a turn needs it (a database down at start is tried again), a failed
    turn is logged and the next one comes, a store that saw a disk fault is reopened, and a turn
    that found nothing to do waits `idle_seconds`."""

    idle_seconds = 0.5
    # the log line of a turn that raised
    failure = "a background turn failed"

    def __init__(self, name: str, settings: dict):
        super().__init__(name=name, daemon=True)
        self.settings = settings
        self.stopping = threading.Event()

    @abstractmethod
    def turn(self, store: Store) -> int:
        """Do one turn of work; return how much was done (0: idle)."""

    def unavailable(self, error: StoreUnavailable) -> None:
        """Called when the database could not be reached this turn."""

    def after_turn(self, store: Store | None) -> None:
        """Called after every turn, done or failed.

        `store` is None when it could not be opened."""

    def open_store(self) -> Store:
        """Open the loop's store, a background writer.

        Requests waiting for a write go first."""
        store = Store.from_settings(self.settings)
        store.background = True
        return store

    def run(self) -> None:
        store = None
        while not self.stopping.is_set():
            busy = 0
            try:
                store = store or self.open_store()
                busy = self.turn(store)
            except StoreUnavailable as error:
                self.unavailable(error)
            # one bad call or message must not kill the thread
            except Exception:
                logging.getLogger(type(self).__module__).exception(self.failure)
            self.after_turn(store)
            # a disk fault was seen: reopen (see store/sqlite/faults.py)
            if store is not None and store.stale():
                store.close()
                store = None
            if not busy:
                self.stopping.wait(self.idle_seconds)
        if store is not None:
            store.close()
