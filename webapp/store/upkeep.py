"""Retention, giving space back to the disk, and online backups: the Store's upkeep.

Pruning must work on a full disk, where it matters most: it deletes in small transactions (halving
them when SQLite cannot grow its WAL), then truncates the WAL and, on files with incremental
auto_vacuum (every file made since 0.2.0), moves free pages off the end of the file step by step.
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
                size = max(1, size // 4)  # a smaller transaction needs less room in the WAL
                continue
            deleted += gone
            self.checkpoint("PASSIVE", required=False)  # so the next deletion reuses the WAL, not the disk
            if gone < size:
                self._prune_quarantine(before_ts, batch)
                return deleted

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
        """Give free pages back to the disk: incremental vacuum (or VACUUM), then the WAL truncated."""
        before = file_bytes(self.path)
        conn = self.db.conn
        if full_vacuum:
            self.checkpoint()
            with self.unavailable_as_error(), self._writer_turn():
                conn.execute("PRAGMA auto_vacuum = INCREMENTAL")  # VACUUM makes it so from now on
                conn.execute("VACUUM")
        incremental = conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2
        step = VACUUM_STEP_PAGES
        while incremental and conn.execute("PRAGMA freelist_count").fetchone()[0] > 0:
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
        self.checkpoint()
        return Reclaimed(before, file_bytes(self.path), incremental)

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
