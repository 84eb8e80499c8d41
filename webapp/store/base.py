"""The store's shared half.

What a Store does alike on both engines, over their hooks (engine.py).

Events are kept forever (every version of every snapshot); `calls` points at the current version
of each snapshot and holds the stored analysis; `traces` is a denormalised row per trace so the
list stays fast at a million traces.
"""

import contextlib
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass, field

from .alerts import AlertStore
from .analyses import AnalysisBookkeeping
from .codec import dumps, utc_now
from .engine import Engine
from .errors import StoreUnavailable
from .hours import hour_keys, refresh_hours
from .mappings import ToolMappings
from .observed import ObservedShapes
from .ops import OpsReads
from .problem_reads import ProblemReads
from .problems import ProblemWrites
from .reads import TraceReads
from .releases import ReleaseReads
from .retention import Retention
from .rows import event_row
from .tools import ToolContracts
from .urls import is_postgres_url

# what a read projects a transaction (PostgreSQL indexes an event's words in ~0.5 ms)
READ_CHUNK = 200
INSERT_QUARANTINE = (
    "INSERT INTO quarantine (received_at, code, message, raw, source) VALUES (?, ?, ?, ?, ?)"
)


@dataclass
class IngestResult:
    accepted: int = 0
    duplicates: int = 0
    # source -> (accepted, duplicates)
    by_source: dict = field(default_factory=dict)


def engine_class(database) -> type["Store"]:
    """Return the engine a DATABASE setting names.

    PostgresStore for a postgresql:// URL, else SqliteStore: each engine's module puts its class in
    Store.engines as it is defined, and the package's face imports both."""
    return Store.engines["postgresql" if is_postgres_url(database) else "sqlite"]


class Store(
    Engine,
    TraceReads,
    ToolContracts,
    ToolMappings,
    ObservedShapes,
    AlertStore,
    ProblemReads,
    ProblemWrites,
    ReleaseReads,
    AnalysisBookkeeping,
    Retention,
    OpsReads,
):
    """A tracediff database, on the engine its address names.

    Ingest is here; reads, contracts, mappings, alerts, problems, analysis bookkeeping, retention
    and operations' figures in mixins; the rest is the engine's (SqliteStore, PostgresStore).
    `Store(path or URL, **options)` opens the engine the address names, as `Store.open` does.
    """

    # a background loop's store lets requests take their write turns first (see sqlite/turns.py)
    background = False
    # engine name -> its class; the engines' modules import this one, never the other way round
    engines: dict[str, type["Store"]] = {}

    def __init_subclass__(cls, **options):
        super().__init_subclass__(**options)
        # a class that names its engine is one (SqliteStore, PostgresStore)
        if "engine" in vars(cls):
            Store.engines[cls.engine] = cls

    def __new__(cls, database, *args, **options):
        return super().__new__(engine_class(database) if cls is Store else cls)

    @classmethod
    def open(cls, database, **options) -> "Store":
        """Open a SQLite file, or a PostgresStore for a postgresql:// URL."""
        return engine_class(database)(database, **options)

    @classmethod
    def from_settings(
        cls,
        settings: dict,
        create: bool = False,
        busy_timeout_ms: int = 10_000,
        pooled: bool = False,
    ) -> "Store":
        """Open the store that a settings dict (see webapp.config) names.

        `pooled`: a request's store, on an idle connection of the process where the engine keeps
        them (SQLite: sqlite/pool.py; PostgreSQL pools every connection)."""
        return cls.open(
            settings["DATABASE"],
            synchronous=settings["SYNCHRONOUS"],
            create=create,
            min_free_bytes=settings.get("MIN_FREE_MB", 0) * 1024 * 1024,
            busy_timeout_ms=busy_timeout_ms,
            pooled=pooled,
        )

    # -- what one engine needs and the other does not: nothing here ----------

    def stale(self) -> bool:
        """Say whether a storage fault was noted since this store opened (it then reopens).

        Never, here: a pooled connection is replaced when a restarted server broke it; SQLite's
        shared view of a file that a fault left behind is its own (sqlite/)."""
        return False

    def keep_headroom(self) -> None:
        """Refuse new writes while the disk is nearly full (NearlyFull).

        Nothing here: a database server watches its own disk; a file on this machine's disk is
        SQLite's to watch (sqlite/upkeep.py)."""

    def near_headroom(self) -> bool:
        """Say whether the disk is within one floor of TRACEDIFF_MIN_FREE_MB.

        Never, here (see keep_headroom)."""
        return False

    def settle_when_tight(self) -> None:
        """After a background write on a nearly full disk, give its log back at once.

        Nothing here: a database server checkpoints its own log; SQLite's WAL is upkeep.py's."""

    def take_summaries_turn(self, conn) -> None:
        """Become the one writer of trace summaries until the transaction ends.

        Nothing here: under SQLite the write transaction already is the one writer; PostgreSQL
        takes an advisory lock."""

    def take_turn(self, conn, what: str) -> None:
        """Become the one writer of `what` until the transaction ends.

        Nothing here, as for take_summaries_turn."""

    # -- ingest -------------------------------------------------------------

    def add_events(self, events, rejected=(), also=None) -> IngestResult:
        """Commit a batch of events and quarantined records in one transaction.

        `also(conn)`, when given, writes more in the same transaction (the alerts a rejection
        causes).

        Only the event log is written here, so acknowledging a batch costs one insert per
        event; `project` folds new events into calls, traces and the full-text index.
        """
        self.keep_headroom()
        received = utc_now()
        rows = [event_row(event, received) for event in events]
        result = IngestResult()
        with self.write() as conn:
            result.by_source = self.insert_events(conn, rows)
            result.accepted = sum(added for added, _ in result.by_source.values())
            result.duplicates = len(rows) - result.accepted
            if rejected:
                conn.executemany(
                    INSERT_QUARANTINE,
                    [(received, r.code, r.message, r.raw, r.source or None) for r in rejected],
                )
            if also is not None:
                also(conn)
        return result

    def fold_calls(self, conn, calls) -> None:
        """Recompute these (trace_id, call_id) calls from their events.

        Then their hours and traces."""
        hours = hour_keys(conn, calls, self.sql)
        touched = {"calls": dumps([list(call) for call in calls])}
        conn.execute(self.sql.PROJECT_CALLS, touched)
        conn.execute(self.sql.DROP_EMPTY_CALLS, touched)
        refresh_hours(conn, hours | hour_keys(conn, calls, self.sql), self.sql)
        self.refresh_traces(conn, {trace_id for trace_id, _ in calls})

    def catch_up_for_read(self, seconds: float | None = None) -> None:
        """Make every acknowledged event visible to a reader.

        A locked database only delays it.

        With `seconds`, the read waits for the writer's lock about that long at most and projects
        READ_CHUNK events at a time for about that long (a trace read reads the rest through its
        events: readthrough.py)."""
        try:
            with self.waiting_at_most(seconds):
                self.project_all(seconds, READ_CHUNK if seconds is not None else None)
        except StoreUnavailable:
            pass

    def waiting_at_most(self, seconds: float | None) -> AbstractContextManager:
        """Wait at most `seconds` for the writer's lock within the block (None: as opened).

        Nothing here: PostgreSQL's projection tries its lock and never waits (postgresql/);
        SQLite's writers take turns (sqlite/)."""
        return contextlib.nullcontext()

    def project_all(
        self, seconds: float | None = None, chunk: int | None = None, before_each=None
    ) -> int:
        """Project every pending event, or what about `seconds` of work projects.

        `chunk` events at most a transaction, `before_each()` called before each; return how
        many."""
        total = 0
        if not self.behind():
            return 0
        began = time.monotonic()
        while True:
            if before_each is not None:
                before_each()
            count = self.project() if chunk is None else self.project(chunk)
            if not count:
                break
            total += count
            if seconds is not None and time.monotonic() - began >= seconds:
                break
        return total
