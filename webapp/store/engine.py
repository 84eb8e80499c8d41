"""The engine hooks.

What SQLite (sqlite/) and PostgreSQL (postgresql/) each do their own way.

Everything else a Store does (reads, contracts, mappings, alerts, problems, analysis bookkeeping)
is shared code in this package, which runs the engine's named statements: `sql` and `listing` are
the engine's modules of statements and list queries, holding the same names
(tests/test_store_engines.py checks it).
"""

from abc import ABC, abstractmethod
from contextlib import AbstractContextManager
from types import ModuleType


class Engine(ABC):
    """The hooks each engine implements.

    Connections, ingest and projection, upkeep."""

    # "sqlite" or "postgresql"
    engine: str
    # the engine's named statements (sqlite/sql.py, postgresql/sql.py)
    sql: ModuleType
    # the engine's trace list and search queries (sqlite/listing.py, postgresql/listing.py)
    listing: ModuleType
    # Whether only one server runs on this database (a SQLite file): a starting server may then
    # take back the claims and leases the stopped one held. On a shared database they look the
    # same as another node's.
    sole_server: bool

    # -- connections, schema and transactions --------------------------------

    @abstractmethod
    def has_tables(self) -> bool:
        """Say whether tracediff made the database (an empty file or database it did not)."""

    @abstractmethod
    def create_schema(self) -> list:
        """Apply the numbered migrations the database lacks (see migrations/).

        Return them."""

    @abstractmethod
    def check_schema(self) -> None:
        """Refuse a database a newer tracediff made.

        Every command and request opens through here."""

    @abstractmethod
    def close(self) -> None:
        """Give the connection back."""

    @abstractmethod
    def unavailable_as_error(self) -> AbstractContextManager:
        """Turn 'locked', 'full', 'read-only' and a lost server into StoreUnavailable."""

    @abstractmethod
    def write(self) -> AbstractContextManager:
        """Run a block as one write transaction yielding its connection.

        Commit on success."""

    @abstractmethod
    def count_by(self, sql: str, params, deadline: float | None) -> int | None:
        """Run a count, stopped at the monotonic deadline (None: not counted in time)."""

    # -- ingest and projection ------------------------------------------------

    @abstractmethod
    def insert_events(self, conn, rows: list[tuple]) -> dict:
        """Insert event rows, skipping stored event ids.

        Return {source: (added, duplicates)}."""

    @abstractmethod
    def project(self, limit: int = 5000) -> int:
        """Fold events committed since the last projection into calls, traces and search."""

    @abstractmethod
    def behind(self) -> bool:
        """Say whether committed events wait for projection (a cheap read, no lock)."""

    @abstractmethod
    def waiting_events(self, conn) -> tuple[int, int | None]:
        """Return how many events wait for projection and the first of them (seq), if any."""

    @abstractmethod
    def refresh_traces(self, conn, trace_ids) -> None:
        """Recompute the list rows (and their kind and tool index rows) of these traces."""

    @abstractmethod
    def save_rows(self, conn, rows) -> int:
        """Run SAVE_ANALYSIS for each row; return how many calls it updated."""

    # -- upkeep ---------------------------------------------------------------

    @abstractmethod
    def delete_events(self, conn, trace_id: str, unindex: bool) -> None:
        """Delete a trace's events.

        Where the search index is kept apart (SQLite's FTS5) and `unindex`, its rows too."""

    @abstractmethod
    def prune(self, before_ts: str, batch: int = 500, rules=None) -> int:
        """Delete traces last seen before a time, a few at a time; return how many."""

    @abstractmethod
    def reclaim(self, full_vacuum: bool = False):
        """Give the space of deleted rows back.

        Return a Reclaimed (bytes before and after)."""

    @abstractmethod
    def backup(self, target) -> int:
        """Copy the database to a new file; return its size.

        NotOnThisEngine where another tool does it (pg_dump)."""

    @abstractmethod
    def file_sizes(self) -> dict:
        """Return the bytes of the database and of its write-ahead log."""
