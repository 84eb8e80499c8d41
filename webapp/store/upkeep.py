"""Retention, giving space back to the disk, and online backups: the Store's upkeep.

Pruning must work on a full disk, where it matters most: it deletes in small transactions (halving
them when SQLite cannot grow its WAL), then truncates the WAL and, on files with incremental
auto_vacuum (every file made since 0.2.0), moves free pages off the end of the file step by step.
"""
import contextlib
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from .errors import StoreUnavailable
from .hours import hour_keys, refresh_hours
from .problems import forget_calls
from .sql import PRUNE_QUARANTINE

FTS_DEFERRED = (("automerge", 0), ("crisismerge", 1999))  # 1999: the most FTS5 takes
FTS_DEFAULTS = (("automerge", 4), ("crisismerge", 16))  # FTS5's own defaults
MERGE_STEP = 200  # the work of one bounded FTS5 merge transaction (about a megabyte of WAL at most)
VACUUM_STEP_PAGES = 2048  # 8 MiB of 4 KiB pages per step at most; fewer while the disk is full
MIN_STEP_PAGES = 8


class DiskFull(StoreUnavailable):
    """Even the smallest transaction cannot be written: the disk has no room for SQLite's log."""


@dataclass
class Reclaimed:
    before: int  # bytes of the database file and its WAL
    after: int
    incremental: bool  # whether the file can give pages back without a full VACUUM


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
        self.checkpoint(required=False)  # and a projection that did not fit leaves a grown WAL behind
        with self.index_merges_deferred():
            deleted = self._prune_traces(before_ts, batch)
            self._prune_quarantine(before_ts, batch)
        return deleted

    def _prune_traces(self, before_ts: str, batch: int) -> int:
        """Delete in transactions that shrink when the WAL cannot grow and grow back when they fit."""
        deleted, size = 0, batch
        while True:
            try:
                gone = self._prune_some(before_ts, size)
            except StoreUnavailable as error:
                if "full" not in str(error).lower():
                    raise
                if size == 1:
                    raise DiskFull(f"{error}: SQLite needs some free space to record a deletion "
                                   f"({deleted} trace(s) deleted before it ran out)") from error
                self.checkpoint(required=False)  # the failed attempt grew the WAL: give that space back
                size = max(1, size // 4)  # a smaller transaction needs less room in the WAL
                continue
            deleted += gone
            # TRUNCATE, not PASSIVE: the WAL never holds more than one transaction, so it never fills the disk
            self.checkpoint(required=False)
            if gone < size:
                return deleted
            size = min(batch, size * 2)

    @contextlib.contextmanager
    def index_merges_deferred(self):
        """Hold back the full-text index's segment merges while deleting (restored after, merged by reclaim).

        Each deletion adds a small segment of markers to the FTS5 index; every 16th on a level FTS5 merges
        the level at once (a crisis merge), which can write a megabyte in one transaction: more than a
        nearly full disk has for the WAL. Merging is done after the space is given back, in bounded steps.
        """
        self._set_index_merging(FTS_DEFERRED)
        try:
            yield
        finally:
            self._set_index_merging(FTS_DEFAULTS)

    def _set_index_merging(self, settings) -> None:
        with self.write() as conn:
            for key, value in settings:
                conn.execute("INSERT INTO events_fts (events_fts, rank) VALUES (?, ?)", (key, value))

    def _prune_some(self, before_ts: str, size: int) -> int:
        with self.write() as conn:
            self.take_summaries_turn(conn)
            ids = [r[0] for r in conn.execute(
                "SELECT trace_id FROM traces WHERE last_ts < ? LIMIT ?", (before_ts, size))]
            if not ids:
                return 0
            calls = conn.execute(
                f"SELECT trace_id, call_id FROM calls WHERE trace_id IN ({','.join('?' * len(ids))})",
                ids).fetchall()
            hours = hour_keys(conn, calls, self.sql)
            forget_calls(conn, [tuple(call) for call in calls])
            for statement in self.sql.DELETE_TRACE:
                conn.executemany(statement, [(i,) for i in ids])
            refresh_hours(conn, hours, self.sql)
        return len(ids)

    def _prune_quarantine(self, before_ts: str, batch: int) -> None:
        """Delete quarantined records received before a time (they hold payload text too)."""
        while True:
            with self.write() as conn:
                gone = conn.execute(PRUNE_QUARANTINE, (before_ts, batch)).rowcount
            if gone < batch:
                return

    def reclaim(self, full_vacuum: bool = False) -> Reclaimed:
        """Give free pages back to the disk (incremental vacuum, or VACUUM), merge the index, truncate the WAL."""
        before = file_bytes(self.path)
        conn = self.db.conn
        if full_vacuum:
            self.checkpoint()
            with self.unavailable_as_error(), self._writer_turn():
                conn.execute("PRAGMA auto_vacuum = INCREMENTAL")  # VACUUM makes it so from now on
                conn.execute("VACUUM")
        incremental = conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2
        if incremental:
            self._vacuum_steps()
        self._merge_index()  # with the space back, the deferred merges fit; they free pages too
        if incremental:
            self._vacuum_steps()
        self.checkpoint()
        return Reclaimed(before, file_bytes(self.path), incremental)

    def _vacuum_steps(self) -> None:
        """Move free pages off the end of the file a few at a time, checkpointing between steps."""
        conn, step = self.db.conn, VACUUM_STEP_PAGES
        while conn.execute("PRAGMA freelist_count").fetchone()[0] > 0:
            try:
                with self.unavailable_as_error(), self._writer_turn():
                    # executescript runs the pragma to its end (execute() frees one page per step). The
                    # file shrinks in the WAL first, so the checkpoint needs no room to grow the file.
                    conn.executescript(f"PRAGMA incremental_vacuum({step});")
            except StoreUnavailable as error:
                if "full" not in str(error).lower() or step <= MIN_STEP_PAGES:
                    raise
                step //= 4  # moving fewer pages at a time needs less room in the WAL
            self.checkpoint(required=False)

    def _merge_index(self) -> None:
        """Merge the full-text index's small segments in bounded steps; on a full disk leave it to later writes."""
        step = MERGE_STEP
        while True:
            try:
                with self.write() as conn:
                    before = conn.total_changes
                    conn.execute("INSERT INTO events_fts (events_fts, rank) VALUES ('merge', ?)", (step,))
                    done = conn.total_changes - before < 2  # FTS5's sign that nothing was left to merge
            except StoreUnavailable as error:
                if "full" not in str(error).lower() or step <= MIN_STEP_PAGES:
                    return  # FTS5's automerge finishes it with later writes, once there is room
                step //= 4
                done = False
            self.checkpoint(required=False)
            if done:
                return

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
