"""The store: the only package that names tables and runs SQL.

Events are kept forever (every version of every snapshot); `calls` points at the
current version of each snapshot and holds the stored analysis; `traces` is a
denormalised row per trace so the list stays fast at a million traces.
"""

import contextlib
import sqlite3
import time
from dataclasses import dataclass, field

import sqlite_utils

from . import faults
from . import listing as sqlite_listing
from . import sql as sqlite_sql
from .alerts import AlertStore
from .analyses import CLAIM_SECONDS, AnalysisBookkeeping  # noqa: F401 (PostgresStore and tests name it)
from .codec import dumps, utc_now
from .errors import NotOnThisEngine, SchemaTooNew, StoreUnavailable  # noqa: F401 (the CLI names them)
from .hours import hour_keys, refresh_hours
from .mappings import ToolMappings
from .observed import ObservedShapes
from .ops import OpsReads
from .problem_reads import ProblemReads
from .problems import ProblemWrites
from .reads import TraceReads
from .releases import ReleaseReads
from .rows import event_row, runs_by_source
from .schema import check, upgrade
from .space import explained
from .spans import join_orphan_spans
from .sql import INDEX_EVENTS, INSERT_EVENT, NEW_EVENTS, SET_PROGRESS
from .tools import ToolContracts
from .turns import WriterTurns
from .upkeep import DiskFull, Reclaimed, Upkeep  # noqa: F401 (the CLI names them)
from .urls import is_postgres_url

# 60 MB of 560-key events took one 4.9 s transaction to project, and every ingest commit waited for it
PROJECT_BYTES = 1024 * 1024
_SYNCHRONOUS = {"FULL": "FULL", "NORMAL": "NORMAL", "EXTRA": "EXTRA", "OFF": "OFF"}


@dataclass
class IngestResult:
    accepted: int = 0
    duplicates: int = 0
    by_source: dict = field(default_factory=dict)  # source -> (accepted, duplicates)


def within_bytes(rows: list, most: int) -> list:
    """Keep the first rows (seq, ..., payload length) whose payloads add up to at most `most` (at least one)."""
    total = 0
    for count, row in enumerate(rows):
        total += row[-1] or 0
        if total > most and count:
            return rows[:count]
    return rows


class Store(
    TraceReads,
    ToolContracts,
    ToolMappings,
    ObservedShapes,
    AlertStore,
    ProblemReads,
    ProblemWrites,
    ReleaseReads,
    AnalysisBookkeeping,
    Upkeep,
    OpsReads,
):
    """A tracediff database in one SQLite file: ingest and projection here; reads, contracts, mappings,
    alerts, problems, analysis bookkeeping, upkeep and operations' figures in mixins.

    `sql` and `listing` hold the statements whose form depends on the engine; PostgresStore
    (postgresql/) swaps them and the few methods that differ.
    """

    engine = "sqlite"
    background = False  # a background loop's store lets requests take their write turns first (see turns.py)
    sql = sqlite_sql
    listing = sqlite_listing

    def __init__(
        self,
        path,
        *,
        busy_timeout_ms: int = 10_000,
        synchronous: str = "FULL",
        create: bool = True,
        min_free_bytes: int = 0,
    ):
        conn = sqlite3.connect(str(path), timeout=busy_timeout_ms / 1000, isolation_level=None, check_same_thread=False)
        self.db = sqlite_utils.Database(conn)
        self.path = str(path)
        self.min_free_bytes = min_free_bytes
        self.faults_seen = faults.count()
        self._turns = WriterTurns.beside(path)
        self._wait_seconds = busy_timeout_ms / 1000
        try:
            with self.unavailable_as_error():
                conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
                conn.execute(f"PRAGMA synchronous = {_SYNCHRONOUS[synchronous.upper()]}")
            if create:
                self.create_schema()
            else:
                self.check_schema()
        except BaseException:
            self.close()  # a store refused at open (newer schema, full disk) keeps no file or lock open
            raise

    @classmethod
    def open(cls, database, **options) -> "Store":
        """Open a SQLite file, or a PostgresStore for a postgresql:// URL."""
        if is_postgres_url(database):
            from .postgresql import PostgresStore  # psycopg is an optional extra: imported only here

            return PostgresStore(str(database), **options)
        return cls(database, **options)

    @classmethod
    def from_settings(cls, settings: dict, create: bool = False, busy_timeout_ms: int = 10_000) -> "Store":
        """Open the store that a settings dict (see webapp.config) names."""
        return cls.open(
            settings["DATABASE"],
            synchronous=settings["SYNCHRONOUS"],
            create=create,
            min_free_bytes=settings.get("MIN_FREE_MB", 0) * 1024 * 1024,
            busy_timeout_ms=busy_timeout_ms,
        )

    def has_tables(self) -> bool:
        """Say whether the database was made by tracediff (an empty file or database was not)."""
        return self.db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'events'").fetchone()[0] == 1

    def create_schema(self) -> list:
        """Apply the numbered migrations the database lacks (see migrations/); return them."""
        with self.unavailable_as_error():
            return upgrade(self)

    def check_schema(self) -> None:
        """Refuse a database made by a newer tracediff: every command and request opens through here."""
        with self.unavailable_as_error():
            check(self)

    def close(self) -> None:
        self.db.conn.close()
        if self._turns is not None:
            self._turns.close()

    # -- transactions -------------------------------------------------------

    @contextlib.contextmanager
    def unavailable_as_error(self):
        """Turn 'locked', 'full' and 'read-only' into StoreUnavailable (saying so when the disk is full)."""
        try:
            yield
        except sqlite3.OperationalError as error:
            text = str(error).lower()
            if any(
                word in text
                for word in ("locked", "busy", "full", "readonly", "read-only", "disk i/o", "unable to open")
            ):
                message = explained(self.path, str(error))
                if "locked" not in text and "busy" not in text:
                    faults.note(message)
                raise StoreUnavailable(message) from error
            raise

    def stale(self) -> bool:
        """Say whether a storage fault was noted since this store opened (a kept store then reopens)."""
        return faults.count() != self.faults_seen

    @contextlib.contextmanager
    def write(self):
        """Run a block as one IMMEDIATE transaction; commit on success."""
        with self.unavailable_as_error(), self._writer_turn():
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db.conn
            except BaseException:
                self.db.conn.rollback()
                raise
            self.db.execute("COMMIT")
        faults.clear()

    @contextlib.contextmanager
    def _writer_turn(self):
        if self._turns is None:
            yield
            return
        try:
            deadline = self._turns.take(self._wait_seconds, background=self.background)
        except TimeoutError:
            raise StoreUnavailable("database is locked: other writers kept it busy") from None
        try:
            # waiting for the turn and then for SQLite's lock share one budget
            left_ms = max(1, int((deadline - time.monotonic()) * 1000))
            self.db.conn.execute(f"PRAGMA busy_timeout = {left_ms}")
            yield
        finally:
            self._turns.give_back()

    def count_by(self, sql: str, params, deadline: float | None) -> int | None:
        """Run a count, interrupted at the monotonic deadline (None: not counted in time)."""
        conn = self.db.conn
        if deadline is not None:
            conn.set_progress_handler(lambda: time.monotonic() > deadline, 10_000)
        try:
            return conn.execute(sql, params).fetchone()[0]
        except sqlite3.OperationalError as error:
            if deadline is None or "interrupt" not in str(error):
                raise
            return None
        finally:
            conn.set_progress_handler(None, 0)

    # -- ingest -------------------------------------------------------------

    def add_events(self, events, rejected=(), also=None) -> IngestResult:
        """Commit a batch of events and quarantined records in one transaction.

        `also(conn)`, when given, writes more in the same transaction (the alerts a rejection causes).

        Only the event log is written here, so acknowledging a batch costs one insert per
        event; `project` folds new events into calls, traces and the full-text index.
        """
        self.keep_headroom()
        received = utc_now()
        rows = [event_row(event, received) for event in events]
        result = IngestResult()
        with self.write() as conn:
            result.by_source = self._insert_events(conn, rows)
            result.accepted = sum(added for added, _ in result.by_source.values())
            result.duplicates = len(rows) - result.accepted
            if rejected:
                conn.executemany(
                    self.sql.INSERT_QUARANTINE,
                    [(received, r.code, r.message, r.raw, r.source or None) for r in rejected],
                )
            if also is not None:
                also(conn)
        return result

    def _insert_events(self, conn, rows: list[tuple]) -> dict:
        """Insert event rows, skipping event ids already stored; return {source: (added, duplicates)}."""
        by_source: dict = {}
        for source, run in runs_by_source(rows):  # counted per source for /metrics; order kept
            before = conn.total_changes
            conn.executemany(INSERT_EVENT, run)
            added = conn.total_changes - before
            earlier = by_source.get(source, (0, 0))
            by_source[source] = (earlier[0] + added, earlier[1] + len(run) - added)
        return by_source

    def project(self, limit: int = 5000) -> int:
        """Fold events committed since the last projection into calls, traces and FTS, at most about
        PROJECT_BYTES of payload a transaction: the writer's lock is held for tenths of a second, not seconds."""
        with self.write() as conn:
            done = conn.execute("SELECT seq FROM progress WHERE name = 'projected'").fetchone()
            done = done[0] if done else 0
            rows = within_bytes(conn.execute(NEW_EVENTS, (done, limit)).fetchall(), PROJECT_BYTES)
            if not rows:
                return 0
            last = rows[-1][0]
            conn.execute(INDEX_EVENTS, (done, last))
            calls = {(trace_id, call_id) for _, trace_id, call_id, _ in rows}
            calls |= join_orphan_spans(conn, self.sql, done, last)
            self._fold_calls(conn, calls)
            conn.execute(SET_PROGRESS, ("projected", last))
        return len(rows)

    def _fold_calls(self, conn, calls) -> None:
        """Recompute these (trace_id, call_id) calls from their events, then their hours and traces."""
        hours = hour_keys(conn, calls, self.sql)
        touched = {"calls": dumps([list(call) for call in calls])}
        conn.execute(self.sql.PROJECT_CALLS, touched)
        conn.execute(self.sql.DROP_EMPTY_CALLS, touched)
        refresh_hours(conn, hours | hour_keys(conn, calls, self.sql), self.sql)
        self._refresh_traces(conn, {trace_id for trace_id, _ in calls})

    def _refresh_traces(self, conn, trace_ids) -> None:
        """Recompute the list rows (and their kind and tool index rows) of these traces."""
        keys = [(trace_id,) for trace_id in trace_ids]
        conn.executemany(self.sql.REFRESH_TRACE, [{"trace_id": trace_id} for trace_id in trace_ids])
        for statement in (
            self.sql.DELETE_TRACE_KINDS,
            self.sql.INSERT_TRACE_KINDS,
            self.sql.DELETE_TRACE_TOOLS,
            self.sql.INSERT_TRACE_TOOLS,
        ):
            conn.executemany(statement, keys)

    def take_summaries_turn(self, conn) -> None:
        """Become the one writer of trace summaries (SQLite: the write transaction already is)."""

    def take_turn(self, conn, what: str) -> None:
        """Become the one writer of `what` until the transaction ends (SQLite: one writer at a time anyway)."""

    def behind(self) -> bool:
        """Say whether committed events wait for projection (a cheap read, no lock)."""
        row = self.db.execute(
            "SELECT (SELECT coalesce(max(seq), 0) FROM events) > "
            "coalesce((SELECT seq FROM progress WHERE name = 'projected'), 0)"
        ).fetchone()
        return bool(row[0])

    def catch_up_for_read(self) -> None:
        """Make every acknowledged event visible to a reader; a locked database only delays it."""
        try:
            self.project_all()
        except StoreUnavailable:
            pass

    def project_all(self) -> int:
        """Project every pending event; return how many."""
        total = 0
        if not self.behind():
            return 0
        while count := self.project():
            total += count
        return total
