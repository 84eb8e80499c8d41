"""Pruning on SQLite, and giving space back to the disk.

The SQLite store's upkeep.

Pruning must work on a full disk, where it matters most, so every transaction it writes is bounded
and none needs the file to grow (a checkpoint that cannot grow the file keeps the WAL from
restarting): deletions go oldest first, in transactions sized to the room the disk has for their
WAL, and the search index is kept by hand in steps of a few pages (search_upkeep.py). On files with
incremental auto_vacuum (every file made since 0.2.0) free pages then move off the end of the file
step by step.
"""

import os
import time

from ..errors import NearlyFull, StoreUnavailable
from ..retention import FIRST_STEP, Reclaimed
from . import space
from .search_upkeep import FTS_AUTOMERGE, MIN_STEP_PAGES, SearchIndexUpkeep, _disk_full

# 8 MiB of 4 KiB pages per step at most, its WAL (0.85 frame a page) in half the disk's room: a full
# step at the headroom took a disk to 216 KiB free, next to nothing for a running server's writes
VACUUM_STEP_PAGES = 2048
# WAL frames a vacuum step may write a page it frees: a page moved also rewrites the pages pointing
# to it. Steps sized to one frame a page wrote up to two beside a running server (12 MiB of WAL for
# ~1,500 pages), and took a disk from 10 MiB free to 0 KiB (tests/test_upkeep.py)
VACUUM_FRAMES_PER_PAGE = 3
# merge the whole index when a prune deleted at least this share of the traces
WHOLE_MERGE_SHARE = 0.25
# less free than this (or than a quarter of the file): rebuild the index
TIGHT_FREE_BYTES = 64 * 1024 * 1024
# on a nearly full disk (see keep_headroom)
WAL_GIVEN_BACK_EVERY_SECONDS = 30.0
WAL_GIVEN_BACK_WAIT_MS = 100


# database path -> when this process last emptied its WAL below the headroom
_WAL_GIVEN_BACK: dict[str, float] = {}


class DiskFull(StoreUnavailable):
    """Even the smallest transaction cannot be written.

    The disk has no room for SQLite's log."""

    def __init__(self, message: str, deleted: int = 0):
        super().__init__(message)
        # traces deleted (and committed) before it ran out
        self.deleted = deleted


def file_bytes(path) -> int:
    """Bytes taken by a database file and its WAL."""
    return sum(os.path.getsize(p) for p in (str(path), f"{path}-wal") if os.path.exists(p))


class Upkeep(SearchIndexUpkeep):
    """Mixin of SqliteStore: prune, reclaim.

    Needs write(), unavailable_as_error(), db, path."""

    def keep_headroom(self) -> None:
        """Refuse new writes while the disk lacks the room prune and checkpoints need.

        NearlyFull: ingest answers it, the analyser pauses on it (ops/headroom.py).
        Going below it, the WAL is first copied into the file and emptied, while there is still room
        to: WAL pages that grow the file cannot be copied once the disk is full, and then the WAL
        can never restart, so that not even prune could write (its deletions would have to grow the
        WAL)."""
        free = self._free_below_headroom()
        if free is not None and self._give_the_wal_back():
            free = self._free_below_headroom()
        if free is not None:
            raise NearlyFull(
                f"the disk is nearly full ({free // 1024} KiB free, less than "
                "TRACEDIFF_MIN_FREE_MB): prune old traces or give it more space",
                free,
            )
        _WAL_GIVEN_BACK.pop(self.path, None)

    def near_headroom(self) -> bool:
        """Say whether the disk has less than twice TRACEDIFF_MIN_FREE_MB free.

        The analyser then writes one call at a time, the floor checked before each."""
        if not self.min_free_bytes or self.path == ":memory:":
            return False
        return self.free_bytes() < 2 * self.min_free_bytes

    def settle_when_tight(self) -> None:
        """After a background write below the headroom, checkpoint its WAL pages.

        Copy them into the file at once (see keep_headroom): a batch the analyser began above the
        headroom may end below it, and what it wrote must not wait for room that another program
        may take."""
        if self._free_below_headroom() is not None:
            self.checkpoint("PASSIVE", required=False)

    def _free_below_headroom(self) -> int | None:
        """The free bytes of the database's disk when below the headroom.

        Fewer than TRACEDIFF_MIN_FREE_MB, else None."""
        if not self.min_free_bytes or self.path == ":memory:":
            return None
        free = self.free_bytes()
        return free if free < self.min_free_bytes else None

    def _give_the_wal_back(self) -> bool:
        """Empty the WAL into the file below the headroom; say if it was tried.

        On going below it, and again every half minute below it (more often would take the
        checkpoints a prune beside it needs)."""
        last = _WAL_GIVEN_BACK.get(self.path)
        if last is not None and time.monotonic() - last < WAL_GIVEN_BACK_EVERY_SECONDS:
            return False
        _WAL_GIVEN_BACK[self.path] = time.monotonic()
        conn = self.db.conn
        try:
            # a reader only delays it to a later try
            conn.execute(f"PRAGMA busy_timeout = {WAL_GIVEN_BACK_WAIT_MS}")
            self.checkpoint(required=False)
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(self._wait_seconds * 1000)}")
        return True

    def prune(self, before_ts: str, batch: int = 500, rules=None) -> int:
        """Delete traces last seen before a time, a few at a time.

        Return how many. The deleted calls leave their problems; `rules` (webapp/pipeline/rules.py)
        count exposure again where a problem's first seen moved.

        With room on the disk, each deleted event leaves a delete marker in the search index. On a
        tight disk the index is emptied first and rebuilt from the events that stay (see the
        module), and the events waiting for projection are folded only once the deletions made
        room (first, they could take the room the deletions need: the analyser leaves them below
        TRACEDIFF_MIN_FREE_MB); a second pass then deletes the old among them."""
        # a WAL copied into the file can be reused from its start
        self.checkpoint(required=False)
        tight = self._tight_disk()
        if not tight:
            self.catch_up_for_read()
        deleted = self._prune_pass(before_ts, batch, rules)
        if tight:
            # on a full disk the projection may not fit; what it wrote before failing goes back
            self.catch_up_for_read()
            self.checkpoint(required=False)
            if self._traces_before(before_ts):
                deleted += self._prune_pass(before_ts, batch, rules)
        return deleted

    def _traces_before(self, before_ts: str) -> bool:
        """Say whether a trace was last seen before a time."""
        sql = "SELECT EXISTS (SELECT 1 FROM traces WHERE last_ts < ?)"
        return bool(self.db.execute(sql, (before_ts,)).fetchone()[0])

    def _prune_pass(self, before_ts: str, batch: int, rules) -> int:
        """Delete the projected traces last seen before a time; return how many."""
        # a prune stopped on a tight disk left part of the index to rebuild
        self._reindex()
        traces = self.db.execute("SELECT count(*) FROM traces").fetchone()[0]
        secure_delete = self._secure_delete("FAST")
        tight = self._tight_disk()
        # no merge bigger than a step while pruning (see the module)
        self._index_setting("automerge", 0)
        try:
            if tight:
                self._empty_index()
            deleted = self._delete_in_steps(before_ts, batch, not tight, rules)
            if tight:
                # the deleted events' pages go back before the index is rebuilt
                self._vacuum_incrementally()
                self._reindex()
            elif deleted and deleted >= WHOLE_MERGE_SHARE * traces:
                self._shrink_index()
            self._prune_quarantine(before_ts, batch)
        finally:
            self._index_setting("automerge", FTS_AUTOMERGE, required=False)
            self._secure_delete(secure_delete)
        return deleted

    def _secure_delete(self, mode) -> int:
        """Set the connection's secure_delete; return what it was.

        Debian's SQLite zeroes every freed page (SECURE_DELETE), which writes each one to the WAL: a
        deletion would need as much room as it frees. FAST skips that; the reclaim then truncates
        the file, so the free pages holding deleted payloads leave it anyway."""
        was = self.db.execute("PRAGMA secure_delete").fetchone()[0]
        self.db.execute(f"PRAGMA secure_delete = {mode}")
        return was

    def _tight_disk(self) -> bool:
        """Say whether the disk has too little room for delete markers and index merges."""
        free = self.free_bytes()
        return free is not None and free < max(TIGHT_FREE_BYTES, file_bytes(self.path) // 4)

    def free_bytes(self) -> int | None:
        """Bytes free on the database's disk for this process (None: not a file)."""
        return None if self.path == ":memory:" else space.free_bytes(self.path)

    def _delete_in_steps(self, before_ts: str, batch: int, unindex: bool, rules=None) -> int:
        """Delete in transactions sized to the room the disk has for their WAL.

        Each deleted trace's cost is measured (its pages, in WAL frames), and a transaction that
        still does not fit is retried smaller."""
        deleted, size, per_trace = 0, min(batch, FIRST_STEP), None
        while True:
            if per_trace:
                room = (self.free_bytes() or 1 << 40) // 4
                size = max(1, min(batch, size * 2, room // per_trace))
            try:
                gone = self._prune_some(before_ts, size, unindex, rules)
            except StoreUnavailable as error:
                if not _disk_full(error, self):
                    raise
                # the failed transaction's frames give their space back
                self.checkpoint(required=False)
                if size == 1:
                    raise DiskFull(
                        f"{error}: SQLite needs some free space to record a deletion "
                        f"({deleted} trace(s) deleted before it ran out)",
                        deleted,
                    ) from error
                size, per_trace = max(1, size // 4), None
                continue
            deleted += gone
            written = self._wal_bytes()
            if gone:
                per_trace = max(per_trace or 0, written // gone)
            if gone < size:
                return deleted

    def _wal_bytes(self) -> int:
        """Copy the WAL into the file, for the next transaction to write it from its start.

        Return the bytes it held. RESTART waits for the readers of the old frames: after a
        PASSIVE checkpoint a server's reader kept the WAL from restarting, every step was added to
        its end, and the disk went from 8 MiB free to 1.2 MiB (tests/test_upkeep.py)."""
        try:
            with self.unavailable_as_error():
                frames = self.db.conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()[1]
                return frames * (self.db.conn.execute("PRAGMA page_size").fetchone()[0] + 24)
        except StoreUnavailable:
            return 0

    def delete_events(self, conn, trace_id: str, unindex: bool) -> None:
        """Delete a trace's events, then their search rows.

        The delete markers FTS5 writes at commit then reuse the pages the payloads freed, so a
        prune's checkpoint never needs the file to grow."""
        indexed = conn.execute(self.sql.INDEXED_TEXT, (trace_id,)).fetchall() if unindex else []
        conn.execute("DELETE FROM events WHERE trace_id = ?", (trace_id,))
        conn.executemany(self.sql.UNINDEX, indexed)

    def reclaim(self, full_vacuum: bool = False) -> Reclaimed:
        """Give free pages back to the disk.

        Incremental vacuum (or VACUUM), then the WAL truncated."""
        before = file_bytes(self.path)
        if full_vacuum:
            self.checkpoint()
            with self.unavailable_as_error(), self._writer_turn():
                # VACUUM makes it so from now on
                self.db.conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
                self.db.conn.execute("VACUUM")
        incremental = self._vacuum_incrementally()
        self.checkpoint()
        return Reclaimed(before, file_bytes(self.path), incremental)

    def _vacuum_incrementally(self) -> bool:
        """Move free pages off the end of the file, a bounded step at a time.

        Say whether the file can."""
        conn = self.db.conn
        if conn.execute("PRAGMA auto_vacuum").fetchone()[0] != 2:
            return False
        most = VACUUM_STEP_PAGES
        while conn.execute("PRAGMA freelist_count").fetchone()[0] > 0:
            step = self._vacuum_step(most)
            try:
                with self.unavailable_as_error(), self._writer_turn():
                    # executescript runs the pragma to its end (execute() frees one page per step).
                    # The file shrinks in the WAL first, so the checkpoint needs no room to grow the
                    # file.
                    conn.executescript(f"PRAGMA incremental_vacuum({step});")
            except StoreUnavailable as error:
                if not _disk_full(error, self) or step <= MIN_STEP_PAGES:
                    raise
                # moving fewer pages at a time needs less room in the WAL
                most = step // 4
            self.checkpoint(required=False)
        return True

    def _vacuum_step(self, most: int) -> int:
        """Return how many pages one vacuum step may move.

        At most `most`, and its WAL within half the disk's room."""
        free = self.free_bytes()
        if free is None:
            return most
        frame = self.db.conn.execute("PRAGMA page_size").fetchone()[0] + 24
        return max(MIN_STEP_PAGES, min(most, free // 2 // (VACUUM_FRAMES_PER_PAGE * frame)))

    def checkpoint(self, mode: str = "TRUNCATE", required: bool = True) -> None:
        """Copy the WAL into the file.

        TRUNCATE also empties it (a busy reader only delays that)."""
        try:
            with self.unavailable_as_error():
                self.db.conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchall()
        except StoreUnavailable:
            if required:
                raise
