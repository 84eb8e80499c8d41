"""The PostgreSQL store: the same interface as the SQLite Store, for several app nodes on one database.

Only what differs is here: connections from a per-process pool, events queued for projection in
the ingest transaction, claims with FOR UPDATE SKIP LOCKED, one writer of trace summaries at a
time (an advisory lock), and the statements of postgresql/sql.py. Reads, contracts, mappings,
alerts and problems run the shared mixins' SQL, whose placeholders connection.py passes on.
"""
import contextlib
import time

from .. import Store, IngestResult, CLAIM_SECONDS, _event_row
from .. import migrations
from ..codec import dumps, utc_now
from . import sql as pg_sql
from . import listing as pg_listing
from . import connection
from .connection import Connection, unavailable_as_error
from .migrate import PostgresMigrations
from ..urls import redacted_url


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
        if create:
            self.create_schema()

    def create_schema(self) -> list:
        with self.unavailable_as_error():
            return migrations.apply(PostgresMigrations(self))

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
        try:
            with self.db.transaction() as conn:
                conn.execute(f"SET LOCAL statement_timeout = {left_ms}")
                return conn.execute(sql, params).fetchone()[0]
        except psycopg.errors.QueryCanceled:
            return None

    def keep_headroom(self) -> None:
        """Disk space is the database server's to watch."""

    def checkpoint(self, mode: str = "PASSIVE", required: bool = True) -> None:
        """The server checkpoints its own write-ahead log."""

    # -- ingest -------------------------------------------------------------

    def add_events(self, events, rejected=(), also=None) -> IngestResult:
        """Commit a batch and its quarantined records in one transaction, each new event queued for projection."""
        received = utc_now()
        columns = pg_sql.EVENT_COLUMNS.split(", ")
        rows = [dict(zip(columns, _event_row(event, received)), n=n) for n, event in enumerate(events)]
        result = IngestResult()
        with self.write() as conn:
            if rows:
                for source, added in conn.execute(pg_sql.INSERT_EVENTS, (dumps(rows),)).fetchall():
                    result.by_source[source] = (added, 0)
            for source in {row["source"] or "" for row in rows}:
                added = result.by_source.get(source, (0, 0))[0]
                sent = sum(1 for row in rows if (row["source"] or "") == source)
                result.by_source[source] = (added, sent - added)
            result.accepted = sum(added for added, _ in result.by_source.values())
            result.duplicates = len(rows) - result.accepted
            if rejected:
                conn.executemany(pg_sql.INSERT_QUARANTINE, [
                    (received, r.code, r.message, r.raw, r.source or None) for r in rejected])
            if also is not None:
                also(conn)
        return result

    def project(self, limit: int = 5000) -> int:
        """Fold queued events into calls, traces and the search words; one node at a time."""
        with self.write() as conn:
            self.take_summaries_turn(conn)
            seqs = [row[0] for row in conn.execute(pg_sql.TAKE_QUEUED, (limit,)).fetchall()]
            if not seqs:
                return 0
            rows = conn.execute(pg_sql.INDEX_EVENTS, (seqs,)).fetchall()
            calls = {(trace_id, call_id) for _, trace_id, call_id in rows}
            calls |= _join_orphan_spans(conn, seqs)
            self._fold_calls(conn, calls)
            conn.execute(pg_sql.SET_PROGRESS, ("projected", max(seqs)))
        return len(seqs)

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

    def _save_rows(self, conn, rows) -> int:
        return conn.executemany(pg_sql.SAVE_ANALYSIS, rows).rowcount

    def file_sizes(self) -> dict:
        """Return the bytes of the database (the server keeps its write-ahead log apart)."""
        return {"database": self.db.execute("SELECT pg_database_size(current_database())").fetchone()[0], "wal": 0}

    def events_waiting(self, conn) -> int:
        return conn.execute("SELECT count(*) FROM projection_queue").fetchone()[0]


def _join_orphan_spans(conn, seqs) -> set[tuple[str, str]]:
    """Give call-less span events their parent's call (see webapp/store/spans.py); return calls touched."""
    touched = set()
    for seq, trace_id, call_id, tool, span_id, parent_id in conn.execute(pg_sql.SPAN_EVENTS, (seqs,)).fetchall():
        if call_id:
            if conn.execute(pg_sql.ADOPT_CHILDREN, (call_id, tool, trace_id, span_id)).rowcount:
                touched |= {(trace_id, call_id), (trace_id, "")}
        elif parent_id:
            parent = conn.execute(pg_sql.FIND_PARENT, (trace_id, parent_id)).fetchone()
            if parent:
                conn.execute("UPDATE events SET call_id = ?, tool = coalesce(tool, ?) WHERE seq = ?",
                             (parent[0], parent[1], seq))
                touched |= {(trace_id, parent[0]), (trace_id, "")}
    return touched
