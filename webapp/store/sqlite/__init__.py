"""The SQLite engine: a tracediff database in one file, the default.

What differs from PostgreSQL is here: the connection, writers taking turns (turns.py), projection by
a range of seq with the FTS5 index filled in the same transaction, the statements of sql.py and
listing.py, and the file's upkeep on its disk (upkeep.py, search_upkeep.py, space.py, faults.py).
"""

import contextlib
import os
import sqlite3
import time

import sqlite_utils

from ..analyses import SAVE_ANALYSIS
from ..base import Store
from ..errors import StoreUnavailable
from ..rows import runs_by_source
from ..spans import join_orphan_spans
from . import faults, pool
from . import listing as sqlite_listing
from . import sql as sqlite_sql
from .backup import Backup
from .migrate import check, upgrade
from .space import explained
from .sql import INDEX_EVENTS, INSERT_EVENT, NEW_EVENTS, SET_PROGRESS
from .turns import WriterTurns
from .upkeep import Upkeep

# 60 MB of 560-key events took one 4.9 s transaction to project, and every ingest commit waited for
# it
PROJECT_BYTES = 1024 * 1024
_PROJECTED = "SELECT coalesce((SELECT seq FROM progress WHERE name = 'projected'), 0)"
_SYNCHRONOUS = {"FULL": "FULL", "NORMAL": "NORMAL", "EXTRA": "EXTRA", "OFF": "OFF"}


def within_bytes(rows: list, most: int) -> list:
    """Keep the first rows whose payloads add up to at most `most`.

    Rows as (seq, ..., payload length); at least one."""
    total = 0
    for count, row in enumerate(rows):
        total += row[-1] or 0
        if total > most and count:
            return rows[:count]
    return rows


class SqliteStore(Upkeep, Backup, Store):
    """A tracediff database in one SQLite file.

    One writer at a time (taking turns on a lock file beside it, turns.py), the search index in
    FTS5, and upkeep of the file on its disk (upkeep.py)."""

    engine = "sqlite"
    # `tracediff serve` is the one server of a file
    sole_server = True
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
        pooled: bool = False,
    ):
        self.path, self._closed = str(path), False
        # `pooled`: the connection is an idle one of this process when there is one (pool.py)
        reused = pool.take(self.path) if pooled else None
        self.pooled, self._opened = pooled, reused and reused[1]
        conn = reused[0] if reused else None
        if conn is None:
            conn = sqlite3.connect(
                self.path,
                timeout=busy_timeout_ms / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
        self.db = sqlite_utils.Database(conn)
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
            if pooled and self._opened is None:
                self._opened = pool.identity(self.path)
        except BaseException:
            # a store refused at open (newer schema, full disk) keeps no file or lock open
            self.pooled = False
            self.close()
            raise

    def has_tables(self) -> bool:
        """Say whether the database was made by tracediff.

        An empty file or database was not."""
        return (
            self.db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'events'").fetchone()[
                0
            ]
            == 1
        )

    def create_schema(self) -> list:
        """Apply the numbered migrations the database lacks (see migrations/).

        Return them."""
        with self.unavailable_as_error():
            return upgrade(self)

    def check_schema(self) -> None:
        """Refuse a database made by a newer tracediff.

        Every command and request opens through here."""
        with self.unavailable_as_error():
            check(self)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        # a connection that saw a storage fault is not handed on (faults.py)
        if self.pooled and self._opened is not None and not self.stale():
            pool.give_back(self.path, self._opened, self.db.conn)
            # another store may hold it next: this one must not reach it
            self.db = None
        else:
            self.db.conn.close()
        if self._turns is not None:
            self._turns.close()

    # -- transactions -------------------------------------------------------

    @contextlib.contextmanager
    def unavailable_as_error(self):
        """Turn 'locked', 'full' and 'read-only' into StoreUnavailable.

        Saying so when the disk is full."""
        try:
            yield
        except sqlite3.OperationalError as error:
            text = str(error).lower()
            if any(
                word in text
                for word in (
                    "locked",
                    "busy",
                    "full",
                    "readonly",
                    "read-only",
                    "disk i/o",
                    "unable to open",
                )
            ):
                message = explained(self.path, str(error))
                if "locked" not in text and "busy" not in text:
                    faults.note(message)
                raise StoreUnavailable(message) from error
            raise

    def stale(self) -> bool:
        """Say whether a storage fault was noted since this store opened.

        A kept store then reopens."""
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
    def waiting_at_most(self, seconds: float | None):
        """Wait at most `seconds` for the writer's turn and SQLite's lock within the block."""
        opened = self._wait_seconds
        if seconds is not None:
            self._wait_seconds = min(opened, seconds)
        try:
            yield
        finally:
            self._wait_seconds = opened

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

    def insert_events(self, conn, rows: list[tuple]) -> dict:
        """Insert event rows, skipping event ids already stored.

        Return {source: (added, duplicates)}."""
        by_source: dict = {}
        # counted per source for /metrics; order kept
        for source, run in runs_by_source(rows):
            before = conn.total_changes
            conn.executemany(INSERT_EVENT, run)
            added = conn.total_changes - before
            earlier = by_source.get(source, (0, 0))
            by_source[source] = (earlier[0] + added, earlier[1] + len(run) - added)
        return by_source

    def project(self, limit: int = 5000) -> int:
        """Fold events committed since the last projection into calls.

        And traces and FTS, at most about PROJECT_BYTES of payload a transaction: the writer's lock
        is held for tenths of a second, not seconds."""
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
            self.fold_calls(conn, calls)
            conn.execute(SET_PROGRESS, ("projected", last))
        return len(rows)

    def refresh_traces(self, conn, trace_ids) -> None:
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

    def behind(self) -> bool:
        """Say whether committed events wait for projection (a cheap read, no lock)."""
        row = self.db.execute(
            "SELECT (SELECT coalesce(max(seq), 0) FROM events) > "
            "coalesce((SELECT seq FROM progress WHERE name = 'projected'), 0)"
        ).fetchone()
        return bool(row[0])

    def waiting_events(self, conn) -> tuple[int, int | None]:
        """Return how many events wait for projection and the first of them (seq), if any."""
        projected = conn.execute(_PROJECTED).fetchone()[0]
        last = conn.execute("SELECT coalesce(max(seq), 0) FROM events").fetchone()[0]
        return last - projected, (projected + 1 if last > projected else None)

    def save_rows(self, conn, rows) -> int:
        before = conn.total_changes
        conn.executemany(SAVE_ANALYSIS, rows)
        return conn.total_changes - before

    def file_sizes(self) -> dict:
        """Return the bytes of the database file and of its write-ahead log."""
        path = self.db.conn.execute("PRAGMA database_list").fetchone()[2]
        return {"database": _size(path), "wal": _size(path + "-wal") if path else 0}


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size if path else 0
    except OSError:
        return 0
