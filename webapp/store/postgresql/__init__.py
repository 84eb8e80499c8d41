"""The PostgreSQL store.

The same interface as the SQLite Store, for several app nodes on one database.

What differs from SQLite is here: connections from a per-process pool, events queued for projection
in the ingest transaction, claims with FOR UPDATE SKIP LOCKED, one writer of trace summaries at a
time (an advisory lock), and the statements of postgresql/sql.py. Reads, contracts, mappings, alerts
and problems run the shared mixins' SQL, whose placeholders connection.py passes on; what only
SQLite needs (disk headroom, writer turns on a lock file, a storage fault's stale view) is nothing
here.
"""

import contextlib
import time
from collections import Counter

from ...common.resources import doc_page
from .. import migrations
from ..analyses import SAVE_ANALYSIS
from ..base import Store
from ..codec import dumps
from ..errors import NotOnThisEngine
from ..retention import FIRST_STEP, Reclaimed
from ..spans import join_orphan_spans
from ..urls import redacted_url
from . import connection
from . import listing as pg_listing
from . import sql as pg_sql
from .connection import Connection, unavailable_as_error
from .migrate import PostgresMigrations, add_stage_columns

# The projection holds the one lock of trace summaries (every save of analyses waits for it, a
# read's too); when it made the events' words (~0.5 ms an event, now made before it takes the
# lock: WORD_QUEUED), 5,000 events held it for seconds under load.
PROJECT_EVENTS = 1000


class PostgresStore(Store):
    """A tracediff database in PostgreSQL (TRACEDIFF_DATABASE=postgresql://...)."""

    engine = "postgresql"
    # several app nodes share the database: another node's claims and leases look the same as a
    # stopped one's
    sole_server = False
    sql = pg_sql
    listing = pg_listing

    def __init__(
        self, url: str, *, busy_timeout_ms: int = 10_000, create: bool = True, **_sqlite_only
    ):
        url = str(url)
        self.url = url
        self.path = redacted_url(url)
        self.db = Connection(url, busy_timeout_ms / 1000)
        try:
            if create:
                self.create_schema()
            else:
                self.check_schema()
        except BaseException:
            # give the pooled connection back: a refused open must not drain the pool
            self.close()
            raise

    def has_tables(self) -> bool:
        with self.unavailable_as_error():
            return self.db.execute("SELECT to_regclass('events') IS NOT NULL").fetchone()[0]

    def backup(self, target) -> int:
        raise NotOnThisEngine(
            'a PostgreSQL database is backed up with pg_dump -Fc (see "Backups" in '
            f"{doc_page('deploy.md')})"
        )

    def create_schema(self) -> list:
        with self.unavailable_as_error():
            applied = migrations.apply(PostgresMigrations(self), where=self.path)
            add_stage_columns(self)
            return applied

    def check_schema(self) -> None:
        with self.unavailable_as_error():
            migrations.refuse_newer(PostgresMigrations(self))

    def close(self) -> None:
        self.db.close()

    def unavailable_as_error(self):
        return unavailable_as_error()

    @contextlib.contextmanager
    def write(self):
        """Run a block as one transaction; commit on success."""
        with self.unavailable_as_error(), self.db.transaction() as conn:
            yield conn

    def take_summaries_turn(self, conn) -> None:
        """Wait for the one writer of trace summaries across all nodes.

        Held until this transaction ends."""
        conn.execute("SELECT pg_advisory_xact_lock(?)", (pg_sql.SUMMARIES_LOCK,))

    def take_turn(self, conn, what: str) -> None:
        """Wait for the one writer of `what` across all nodes.

        Read-modify-write rows such as evidence counts."""
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(?))", (what,))

    def count_by(self, sql: str, params, deadline: float | None) -> int | None:
        """Run a count, cancelled by the server at the monotonic deadline.

        None: not counted in time."""
        if deadline is None:
            return self.db.execute(sql, params).fetchone()[0]
        left_ms = int((deadline - time.monotonic()) * 1000)
        if left_ms <= 0:
            return None
        psycopg = connection.psycopg_modules()[0]
        # one round trip per count: a facet panel runs ~30 of them
        try:
            return self.db.execute_within(sql, params, left_ms).fetchone()[0]
        except psycopg.errors.QueryCanceled:
            return None

    def delete_events(self, conn, trace_id: str, unindex: bool) -> None:
        """Delete a trace's events.

        Their search words go with their rows (events.words)."""
        conn.execute("DELETE FROM events WHERE trace_id = ?", (trace_id,))

    # -- ingest -------------------------------------------------------------

    def insert_events(self, conn, rows: list[tuple]) -> dict:
        """Insert event rows and queue each new one for projection, in one statement."""
        if not rows:
            return {}
        columns = pg_sql.EVENT_COLUMNS.split(", ")
        records = [dict(zip(columns, row), n=n) for n, row in enumerate(rows)]
        added = dict(conn.execute(pg_sql.INSERT_EVENTS, (dumps(records),)).fetchall())
        sent = Counter(record["source"] or "" for record in records)
        return {
            source: (added.get(source, 0), count - added.get(source, 0))
            for source, count in sent.items()
        }

    def project(self, limit: int = 5000) -> int:
        """Fold queued events into calls, traces and the search words.

        PROJECT_EVENTS at most a transaction; 0 while another node is at it, or nothing is queued
        (then in one round trip)."""
        limit = min(limit, PROJECT_EVENTS)
        with self.unavailable_as_error():
            queued = self.db.execute(pg_sql.WORD_QUEUED, (limit,)).fetchone()[0]
        if not queued:
            return 0
        with self.write() as conn:
            if not conn.execute(
                "SELECT pg_try_advisory_xact_lock(?)", (pg_sql.SUMMARIES_LOCK,)
            ).fetchone()[0]:
                # that node projects the queue; a reader need not wait for it
                return 0
            seqs = [row[0] for row in conn.execute(pg_sql.TAKE_QUEUED, (limit,)).fetchall()]
            if not seqs:
                return 0
            rows = conn.execute(pg_sql.INDEX_EVENTS, (seqs, seqs)).fetchall()
            calls = {(trace_id, call_id) for _, trace_id, call_id in rows}
            calls |= join_orphan_spans(conn, pg_sql, seqs)
            self.fold_calls(conn, calls)
            conn.execute(pg_sql.SET_PROGRESS, ("projected", max(seqs)))
        return len(seqs)

    def refresh_traces(self, conn, trace_ids) -> None:
        """Recompute the list rows of these traces in a few set-wide statements.

        A round trip each."""
        ids = (sorted(trace_ids),)
        conn.execute(pg_sql.REFRESH_TRACES, ids)
        for statement in pg_sql.REFRESH_TRACE_INDEXES:
            conn.execute(statement, ids)

    def behind(self) -> bool:
        with self.unavailable_as_error():
            return bool(
                self.db.execute("SELECT EXISTS (SELECT 1 FROM projection_queue)").fetchone()[0]
            )

    def prune(self, before_ts: str, batch: int = 500, rules=None) -> int:
        """Delete traces last seen before a time, FIRST_STEP at a time.

        Return how many. The deleted calls leave their problems (see Retention); autovacuum reuses
        the space their rows took."""
        self.catch_up_for_read()
        deleted, size = 0, min(batch, FIRST_STEP)
        while True:
            gone = self._prune_some(before_ts, size, rules=rules)
            deleted += gone
            if gone < size:
                break
        self._prune_quarantine(before_ts, batch)
        return deleted

    def reclaim(self, full_vacuum: bool = False) -> Reclaimed:
        """Autovacuum reuses the space of deleted rows.

        VACUUM FULL, when asked, gives it back to the disk."""
        before = self.file_sizes()["database"]
        if full_vacuum:
            with self.unavailable_as_error():
                # outside a transaction: the connection is in autocommit
                self.db.live().execute("VACUUM FULL")
        return Reclaimed(before, self.file_sizes()["database"], incremental=True)

    def save_rows(self, conn, rows) -> int:
        return conn.executemany(SAVE_ANALYSIS, rows).rowcount

    def file_sizes(self) -> dict:
        """Return the bytes of the database (the server keeps its write-ahead log apart)."""
        return {
            "database": self.db.execute("SELECT pg_database_size(current_database())").fetchone()[
                0
            ],
            "wal": 0,
        }

    def waiting_events(self, conn) -> tuple[int, int | None]:
        return tuple(conn.execute("SELECT count(*), min(seq) FROM projection_queue").fetchone())
