"""Retention, giving space back to the disk, and online backups: the Store's upkeep.

Pruning must work on a full disk, where it matters most, so every transaction it writes is bounded
and none needs the file to grow (a checkpoint that cannot grow the file keeps the WAL from restarting):
deletions go oldest first, a few traces at a time (fewer when SQLite cannot grow its WAL), and the
search index is merged by hand in steps of a few pages. The search index is a contentless FTS5 table:
deleting a row *adds* delete markers, and FTS5's own automerge would rewrite up to 64 pages per level
in whichever transaction crosses its work unit (a megabyte or two of WAL on a disk that has one). A
prune that deleted much of the index merges it whole, step by step, so the deleted rows' space comes
back; on files with incremental auto_vacuum (every file made since 0.2.0) free pages then move off
the end of the file step by step.
"""
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from .errors import StoreUnavailable
from .hours import hour_keys, refresh_hours
from .problems import forget_calls
from .sql import PRUNE_QUARANTINE

VACUUM_STEP_PAGES = 2048  # 8 MiB of 4 KiB pages per step at most; fewer while the disk is full
MIN_STEP_PAGES = 8
MERGE_PAGES = 64  # index pages one merge step writes at most; fewer while the disk is full
FTS_AUTOMERGE = 4  # FTS5's default, restored after a prune
WHOLE_MERGE_SHARE = 0.25  # merge the whole index when a prune deleted at least this share of the traces


class DiskFull(StoreUnavailable):
    """Even the smallest transaction cannot be written: the disk has no room for SQLite's log."""

    def __init__(self, message: str, deleted: int = 0):
        super().__init__(message)
        self.deleted = deleted  # traces deleted (and committed) before it ran out


@dataclass
class Reclaimed:
    before: int  # bytes of the database file and its WAL
    after: int
    incremental: bool  # whether the file can give pages back without a full VACUUM


def _disk_full(error: StoreUnavailable) -> bool:
    return "full" in str(error).lower()


def file_bytes(path) -> int:
    """Bytes taken by a database file and its WAL."""
    return sum(os.path.getsize(p) for p in (str(path), f"{path}-wal") if os.path.exists(p))


class Upkeep:
    """Mixin of Store: prune, reclaim, backup (needs write(), unavailable_as_error(), db, path)."""

    def keep_headroom(self) -> None:
        """Refuse new events while the disk has less free space than prune and checkpoints need."""
        if self.min_free_bytes and self.path != ":memory:":
            stats = os.statvfs(os.path.dirname(os.path.abspath(self.path)))
            free = stats.f_bavail * stats.f_frsize
            if free < self.min_free_bytes:
                raise StoreUnavailable(f"the disk is nearly full ({free // 1024} KiB free, less than "
                                       "TRACEDIFF_MIN_FREE_MB): prune old traces or give it more space")

    def prune(self, before_ts: str, batch: int = 500) -> int:
        """Delete traces last seen before a time, a few at a time; return how many."""
        self.checkpoint(required=False)  # a WAL copied into the file can be reused from its start
        self.catch_up_for_read()  # on a full disk the projection may not fit; pruning still goes on
        traces = self.db.execute("SELECT count(*) FROM traces").fetchone()[0]
        self._index_setting("automerge", 0)  # no merge bigger than a step while pruning (see the module)
        try:
            deleted = self._delete_in_steps(before_ts, batch)
            if deleted and deleted >= WHOLE_MERGE_SHARE * traces:
                self._shrink_index()
        finally:
            self._index_setting("automerge", FTS_AUTOMERGE, required=False)
        self._prune_quarantine(before_ts, batch)
        return deleted

    def _shrink_index(self) -> None:
        """Merge the search index whole, so its deleted rows' space comes back. The deleted events'
        pages go back to the disk first: each merge step's WAL then has room on a full disk."""
        self._vacuum_incrementally()
        while self._merge_index_step():
            pass

    def _delete_in_steps(self, before_ts: str, batch: int) -> int:
        deleted, size, ceiling = 0, batch, batch
        while True:
            try:
                gone = self._prune_some(before_ts, size)
            except StoreUnavailable as error:
                if not _disk_full(error):
                    raise
                self.checkpoint(required=False)  # the failed transaction's frames give their space back
                if size == 1:
                    raise DiskFull(f"{error}: SQLite needs some free space to record a deletion "
                                   f"({deleted} trace(s) deleted before it ran out)", deleted) from error
                # the WAL needs room on the disk for every page a transaction changes: fewer traces fit
                ceiling = size = max(1, size // 4)
                continue
            deleted += gone
            self.checkpoint("PASSIVE", required=False)  # so the next deletion reuses the WAL, not the disk
            if gone < size:
                return deleted
            size = min(ceiling, size * 2)

    def _merge_index_step(self) -> bool:
        """Merge all of the search index's segments by at most MERGE_PAGES pages (fewer on a full disk);
        say whether there was work left. Merged whole, the deleted rows' entries meet their delete
        markers and both go."""
        pages = MERGE_PAGES
        while True:
            try:
                with self.write() as conn:
                    changes = conn.total_changes
                    # a negative page count merges across levels (FTS5's 'optimize', a step at a time)
                    conn.execute("INSERT INTO events_fts (events_fts, rank) VALUES ('merge', ?)", (-pages,))
                    worked = conn.total_changes - changes >= 2  # FTS5's own test for "no merge was due"
            except StoreUnavailable as error:
                self.checkpoint(required=False)
                if not _disk_full(error) or pages <= MIN_STEP_PAGES:
                    raise
                pages //= 4
                continue
            self.checkpoint("PASSIVE", required=False)
            return worked

    def _index_setting(self, name: str, value: int, required: bool = True) -> None:
        try:
            with self.write() as conn:
                conn.execute("INSERT INTO events_fts (events_fts, rank) VALUES (?, ?)", (name, value))
        except StoreUnavailable:
            if required:
                raise

    def _prune_some(self, before_ts: str, size: int) -> int:
        with self.write() as conn:
            self.take_summaries_turn(conn)
            ids = [r[0] for r in conn.execute(
                "SELECT trace_id FROM traces WHERE last_ts < ? ORDER BY last_ts LIMIT ?", (before_ts, size))]
            if not ids:
                return 0
            calls = conn.execute(
                f"SELECT trace_id, call_id FROM calls WHERE trace_id IN ({','.join('?' * len(ids))})",
                ids).fetchall()
            hours = hour_keys(conn, calls, self.sql)
            forget_calls(conn, [tuple(call) for call in calls])
            for trace_id in ids:
                self._delete_events(conn, trace_id)
            for statement in self.sql.DELETE_TRACE:
                conn.executemany(statement, [(i,) for i in ids])
            refresh_hours(conn, hours, self.sql)
        return len(ids)

    def _delete_events(self, conn, trace_id: str) -> None:
        """Delete a trace's events, then their search rows: the delete markers FTS5 writes at commit then
        reuse the pages the payloads freed, so a prune's checkpoint never needs the file to grow."""
        indexed = conn.execute(self.sql.INDEXED_TEXT, (trace_id,)).fetchall()
        conn.execute("DELETE FROM events WHERE trace_id = ?", (trace_id,))
        conn.executemany(self.sql.UNINDEX, indexed)

    def _prune_quarantine(self, before_ts: str, batch: int) -> None:
        """Delete quarantined records received before a time (they hold payload text too)."""
        while True:
            with self.write() as conn:
                gone = conn.execute(PRUNE_QUARANTINE, (before_ts, batch)).rowcount
            if gone < batch:
                return

    def reclaim(self, full_vacuum: bool = False) -> Reclaimed:
        """Give free pages back to the disk: incremental vacuum (or VACUUM), then the WAL truncated."""
        before = file_bytes(self.path)
        if full_vacuum:
            self.checkpoint()
            with self.unavailable_as_error(), self._writer_turn():
                self.db.conn.execute("PRAGMA auto_vacuum = INCREMENTAL")  # VACUUM makes it so from now on
                self.db.conn.execute("VACUUM")
        incremental = self._vacuum_incrementally()
        self.checkpoint()
        return Reclaimed(before, file_bytes(self.path), incremental)

    def _vacuum_incrementally(self) -> bool:
        """Move free pages off the end of the file, a bounded step at a time; say whether the file can."""
        conn = self.db.conn
        if conn.execute("PRAGMA auto_vacuum").fetchone()[0] != 2:
            return False
        step = VACUUM_STEP_PAGES
        while conn.execute("PRAGMA freelist_count").fetchone()[0] > 0:
            try:
                with self.unavailable_as_error(), self._writer_turn():
                    # executescript runs the pragma to its end (execute() frees one page per step). The
                    # file shrinks in the WAL first, so the checkpoint needs no room to grow the file.
                    conn.executescript(f"PRAGMA incremental_vacuum({step});")
            except StoreUnavailable as error:
                if not _disk_full(error) or step <= MIN_STEP_PAGES:
                    raise
                step //= 4  # moving fewer pages at a time needs less room in the WAL
            self.checkpoint(required=False)
        return True

    def checkpoint(self, mode: str = "TRUNCATE", required: bool = True) -> None:
        """Copy the WAL into the file; TRUNCATE also empties it (a busy reader only delays that)."""
        try:
            with self.unavailable_as_error():
                self.db.conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchall()
        except StoreUnavailable:
            if required:
                raise

    def backup(self, target) -> int:
        """Copy the database to a new file, consistent while writers go on; return its size in bytes.

        SQLite's backup API copies every page in one step inside one read transaction: the copy
        is the database as of one commit, and writers are not blocked (WAL). It is written beside
        the target and renamed into place, so a failed backup never leaves a partial file.
        """
        target = Path(target)
        if target.exists():
            raise FileExistsError(f"{target} exists; choose a new file name")
        partial = target.with_name(target.name + ".partial")
        partial.unlink(missing_ok=True)
        copy = sqlite3.connect(partial)
        try:
            with self.unavailable_as_error():
                self.db.conn.backup(copy)
            if copy.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise sqlite3.DatabaseError(f"the copy in {partial} failed its check")
            copy.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except BaseException:
            copy.close()
            for leftover in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
                leftover.unlink(missing_ok=True)
            raise
        copy.close()
        os.replace(partial, target)
        return target.stat().st_size
