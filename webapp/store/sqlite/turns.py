"""Writers of one database take turns on a lock file beside it.

Tried every few milliseconds.

SQLite's own busy handler sleeps up to 100 ms between tries; under load it left a third of the
CPU idle while the background analyzer and ingest requests waited for each other.

Requests go first: one waiting for its turn holds a shared lock on `<database>.waiting`, and a
background writer (the analyser, the alert sender) lets it pass while it can see one, for up to
YIELD_SECONDS, so that an ingest commit waits behind one short background transaction at most, never
behind a run of them.
"""

import fcntl
import os
import time

FIRST_PAUSE, LONGEST_PAUSE = 0.0002, 0.002
# a background writer is never starved: past this it takes its turn with the rest
YIELD_SECONDS = 1.0


class WriterTurns:
    """A lock file shared by every writer of one database.

    Every thread and process that writes it; and one that says a request waits."""

    def __init__(self, fd: int, waiting_fd: int | None = None):
        self.fd, self.waiting_fd = fd, waiting_fd

    @classmethod
    def beside(cls, path) -> "WriterTurns | None":
        """Open `<database>.lock`.

        None where it cannot be made (a read-only folder, a memory database)."""
        if str(path) == ":memory:" or str(path).startswith("file:"):
            return None
        try:
            fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        # SQLite's busy handler alone orders the writers then
        except OSError:
            return None
        try:
            waiting_fd = os.open(f"{path}.waiting", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        # turns without the requests' priority
        except OSError:
            waiting_fd = None
        return cls(fd, waiting_fd)

    def take(self, wait_seconds: float, background: bool = False) -> float:
        """Wait for the turn.

        Return the deadline it was taken under, or raise TimeoutError.

        A `background` writer lets waiting requests go first (see the module's docstring)."""
        deadline = time.monotonic() + wait_seconds
        if background:
            return self._take(deadline, polite_until=time.monotonic() + YIELD_SECONDS)
        self._mark_waiting(fcntl.LOCK_SH)
        try:
            return self._take(deadline)
        finally:
            self._mark_waiting(fcntl.LOCK_UN)

    def _take(self, deadline: float, polite_until: float = 0.0) -> float:
        pause = FIRST_PAUSE
        while True:
            if time.monotonic() >= polite_until or not self._request_waits():
                try:
                    fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    return deadline
                except BlockingIOError:
                    pass
            if time.monotonic() >= deadline:
                raise TimeoutError("other writers kept the database busy") from None
            time.sleep(pause)
            pause = min(pause * 2, LONGEST_PAUSE)

    def _mark_waiting(self, operation: int) -> None:
        if self.waiting_fd is not None:
            fcntl.flock(self.waiting_fd, operation)

    def _request_waits(self) -> bool:
        """Say whether a request waits for its turn.

        It holds the shared lock an exclusive try is refused by."""
        if self.waiting_fd is None:
            return False
        try:
            fcntl.flock(self.waiting_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(self.waiting_fd, fcntl.LOCK_UN)
        return False

    def give_back(self) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_UN)

    def close(self) -> None:
        os.close(self.fd)
        if self.waiting_fd is not None:
            os.close(self.waiting_fd)
