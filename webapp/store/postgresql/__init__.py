"""The PostgreSQL store: the same interface as the SQLite Store, for several app nodes on one database.

Only what differs is here: connections from a per-process pool, events queued for projection in
the ingest transaction, claims with FOR UPDATE SKIP LOCKED, one writer of trace summaries at a
time (an advisory lock), and the statements of postgresql/sql.py. Reads, contracts, mappings,
alerts and problems run the shared mixins' SQL, whose placeholders connection.py passes on.
"""

import contextlib
import time
from collections import Counter

from ...common.resources import doc_page
from .. import CLAIM_SECONDS, Store, migrations
from ..codec import dumps
from ..errors import NotOnThisEngine
from ..spans import join_orphan_spans
from ..upkeep import Reclaimed
from ..urls import redacted_url
from . import connection
from . import listing as pg_listing
from . import sql as pg_sql
from .connection import Connection, unavailable_as_error
from .migrate import PostgresMigrations


class PostgresStore(Store):
    """A tracediff database in PostgreSQL (TRACEDIFF_DATABASE=postgresql://...)."""

    engine = "postgresql"
    sql = pg_sql
    listing = pg_listing

    def __init__(self, url: str, *, busy_timeout_ms: int = 10_000, create: bool = True, **_sqlite_only):
        self.url = url
        self.path = redacted_url(url)
        self.min_free_bytes = 0
        self._turns = None
        self.db = Connection(url, busy_timeout_ms / 1000)
        try:
            if create:
                self.create_schema()
            else:
                self.check_schema()
        except BaseException:
            self.close()  # give the pooled connection back: a refused open must not drain the pool
            raise

    def has_tables(self) -> bool:
        with self.unavailable_as_error():
            return self.db.execute("SELECT to_regclass('events') IS NOT NULL").fetchone()[0]

    def backup(self, target) -> int:
        raise NotOnThisEngine(
            f'a PostgreSQL database is backed up with pg_dump -Fc (see "Backups" in {doc_page("deploy.md")})'
        )

    def create_schema(self) -> list:
        with self.unavailable_as_error():
            return migrations.apply(PostgresMigrations(self), where=self.path)

    def check_schema(self) -> None:
        with self.unavailable_as_error():
            migrations.refuse_newer(PostgresMigrations(self))

    def close(self) -> None:
        self.db.close()

    def unavailable_as_error(self):
        return unavailable_as_error()

    def stale(self) -> bool:
        """Never: the pool replaces a connection a restarted server broke (SQLite's shared file view is not here)."""
        return False

    @contextlib.contextmanager
    def write(self):
        """Run a block as one transaction; commit on success."""
        with self.unavailable_as_error(), self.db.transaction() as conn:
            yield conn

    def take_summaries_turn(self, conn) -> None:
        """Wait for the one writer of trace summaries across all nodes (held until this transaction ends)."""
        conn.execute("SELECT pg_advisory_xact_lock(?)", (pg_sql.SUMMARIES_LOCK,))

    def take_turn(self, conn, what: str) -> None:
        """Wait for the one writer of `what` across all nodes (read-modify-write rows such as evidence counts)."""
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(?))", (what,))

    def count_by(self, sql: str, params, deadline: float | None) -> int | None:
        """Run a count, cancelled by the server at the monotonic deadline (None: not counted in time)."""
        if deadline is None:
            return self.db.execute(sql, params).fetchone()[0]
        left_ms = int((deadline - time.monotonic()) * 1000)
        if left_ms <= 0:
            return None
        psycopg = connection.psycopg_modules()[0]
        try:  # one round trip per count: a facet panel runs ~30 of them
            return self.db.execute_within(sql, params, left_ms).fetchone()[0]
        except psycopg.errors.QueryCanceled:
            return None

    def keep_headroom(self) -> None:
        """Disk space is the database server's to watch."""

    def checkpoint(self, mode: str = "PASSIVE", required: bool = True) -> None:
        """The server checkpoints its own write-ahead log."""

    def settle_when_tight(self) -> None:
        """The server checkpoints its own write-ahead log."""

    def _index_setting(self, name: str, value: int, required: bool = True) -> None:
        """The full-text index is a GIN index that PostgreSQL maintains itself."""

    def _shrink_index(self) -> None:
        """VACUUM (autovacuum) gives a GIN index's deleted entries back."""

    def free_bytes(self) -> None:
        """Disk space is the database server's to watch (see keep_headroom)."""
        return None

    def _secure_delete(self, mode) -> None:
        """SQLite's pragma; PostgreSQL's VACUUM decides when freed tuples are overwritten."""

    def _wal_bytes(self) -> int:
        return 0  # the server's write-ahead log is its own; deletions stay at the batch size

    def _delete_events(self, conn, trace_id: str, unindex: bool) -> None:
        conn.execute("DELETE FROM events WHERE trace_id = ?", (trace_id,))

    # -- ingest -------------------------------------------------------------

    def _insert_events(self, conn, rows: list[tuple]) -> dict:
        """Insert event rows and queue each new one for projection, in one statement."""
        if not rows:
            return {}
        columns = pg_sql.EVENT_COLUMNS.split(", ")
        records = [dict(zip(columns, row), n=n) for n, row in enumerate(rows)]
        added = dict(conn.execute(pg_sql.INSERT_EVENTS, (dumps(records),)).fetchall())
        sent = Counter(record["source"] or "" for record in records)
        return {source: (added.get(source, 0), count - added.get(source, 0)) for source, count in sent.items()}

    def project(self, limit: int = 5000) -> int:
        """Fold queued events into calls, traces and the search words; 0 while another node is at it."""
        with self.write() as conn:
            if not conn.execute("SELECT pg_try_advisory_xact_lock(?)", (pg_sql.SUMMARIES_LOCK,)).fetchone()[0]:
                return 0  # that node projects the queue; a reader need not wait for it
            seqs = [row[0] for row in conn.execute(pg_sql.TAKE_QUEUED, (limit,)).fetchall()]
            if not seqs:
                return 0
            rows = conn.execute(pg_sql.INDEX_EVENTS, (seqs,)).fetchall()
            calls = {(trace_id, call_id) for _, trace_id, call_id in rows}
            calls |= join_orphan_spans(conn, pg_sql, seqs)
            self._fold_calls(conn, calls)
            conn.execute(pg_sql.SET_PROGRESS, ("projected", max(seqs)))
        return len(seqs)

    def _refresh_traces(self, conn, trace_ids) -> None:
        """Recompute the list rows of these traces in a few set-wide statements (a round trip each)."""
        ids = (sorted(trace_ids),)
        conn.execute(pg_sql.REFRESH_TRACES, ids)
        for statement in pg_sql.REFRESH_TRACE_INDEXES:
            conn.execute(statement, ids)

    def behind(self) -> bool:
        with self.unavailable_as_error():
            return bool(self.db.execute("SELECT EXISTS (SELECT 1 FROM projection_queue)").fetchone()[0])

    def claim_pending(self, limit: int = 100) -> list[dict]:
        """Claim out-of-date calls; rows another node is claiming are skipped, never claimed twice."""
        self.catch_up_for_read()
        now = time.time()
        with self.write() as conn:
            rows = conn.execute(pg_sql.CLAIM_PENDING, (now, now - CLAIM_SECONDS, limit)).fetchall()
        return [{"trace_id": r[0], "call_id": r[1], "version": r[2]} for r in rows]

    def reclaim(self, full_vacuum: bool = False) -> Reclaimed:
        """Autovacuum reuses the space of deleted rows; VACUUM FULL, when asked, gives it back to the disk."""
        before = self.file_sizes()["database"]
        if full_vacuum:
            with self.unavailable_as_error():
                self.db.live().execute("VACUUM FULL")  # outside a transaction: the connection is in autocommit
        return Reclaimed(before, self.file_sizes()["database"], incremental=True)

    def release_claims(self) -> int:
        """Release nothing: other nodes' claims look the same as a stopped node's; they expire after CLAIM_SECONDS."""
        return 0

    def release_alert_leases(self) -> int:
        """Release nothing, for the same reason: a lease held by another node expires after LEASE_S."""
        return 0

    def _save_rows(self, conn, rows) -> int:
        return conn.executemany(pg_sql.SAVE_ANALYSIS, rows).rowcount

    def file_sizes(self) -> dict:
        """Return the bytes of the database (the server keeps its write-ahead log apart)."""
        return {"database": self.db.execute("SELECT pg_database_size(current_database())").fetchone()[0], "wal": 0}

    def waiting_events(self, conn) -> tuple[int, int | None]:
        return tuple(conn.execute("SELECT count(*), min(seq) FROM projection_queue").fetchone())
