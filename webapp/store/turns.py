"""Writers of one database take turns on a lock file beside it, tried every few milliseconds.

SQLite's own busy handler sleeps up to 100 ms between tries; under load it left a third of the
CPU idle while the background analyzer and ingest requests waited for each other.
"""

import fcntl
import os
import time

FIRST_PAUSE, LONGEST_PAUSE = 0.0002, 0.002


class WriterTurns:
    """A lock file shared by every thread and process that writes one database."""

    def __init__(self, fd: int):
        self.fd = fd

    @classmethod
    def beside(cls, path) -> "WriterTurns | None":
        """Open `<database>.lock`; None where it cannot be made (a read-only folder, a memory database)."""
        if str(path) == ":memory:" or str(path).startswith("file:"):
            return None
        try:
            return cls(os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644))
        except OSError:  # SQLite's busy handler alone orders the writers then
            return None

    def take(self, wait_seconds: float) -> float:
        """Wait for the turn; return the deadline it was taken under, or raise TimeoutError."""
        deadline, pause = time.monotonic() + wait_seconds, FIRST_PAUSE
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return deadline
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise TimeoutError("other writers kept the database busy") from None
                time.sleep(pause)
                pause = min(pause * 2, LONGEST_PAUSE)

    def give_back(self) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_UN)

    def close(self) -> None:
        os.close(self.fd)
