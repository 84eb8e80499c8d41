"""What the store raises.

A database that cannot take writes now, or work another engine does its own way."""


class StoreUnavailable(Exception):
    """The database cannot take writes now (locked, full, read-only)."""


class NearlyFull(StoreUnavailable):
    """The database's disk has less free space than TRACEDIFF_MIN_FREE_MB.

    Ingest answers it with a retryable 503; the background analyser pauses its saves until space
    returns (ops/headroom.py)."""

    def __init__(self, message: str, free: int):
        super().__init__(message)
        # bytes free on the disk when it was raised
        self.free = free


class NotOnThisEngine(Exception):
    """What one store engine does another way (a PostgreSQL backup is pg_dump's job).

    The message says how."""


class SchemaTooNew(StoreUnavailable):
    """The database was migrated by a newer tracediff than this one.

    Refused at open, never guessed at."""


class ChangeRefused(ValueError):
    """A change the stored data cannot take; the message says why.

    A merge across tools, a resolution with nothing to wait for. The web layer and the CLI answer it
    as they answer a bad change."""
