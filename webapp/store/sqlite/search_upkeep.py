"""The search index's upkeep during a prune, a mixin of Store.

Merged by hand, or emptied and rebuilt.

The search index is a contentless FTS5 table: deleting a row *adds* delete markers, and FTS5's own
automerge would rewrite up to 64 pages per level in whichever transaction crosses its work unit (a
megabyte or two of WAL on a disk that has one). So while a prune runs, automerge is off and the
index is merged in steps of a few pages: whole, after a prune that deleted much of it (so the
deleted rows' entries meet their markers and both go); or, on a tight disk, it is emptied first (a
few pages) and the remaining events are indexed again, step by step, after the deletions.
"""

from ..errors import StoreUnavailable
from . import space
from .sql import INDEX_EVENTS, SET_PROGRESS

MIN_STEP_PAGES = 8
# index pages one merge step writes at most; fewer while the disk is full
MERGE_PAGES = 64
# FTS5's default, restored after a prune
FTS_AUTOMERGE = 4
# events indexed again per transaction; fewer while the disk is full
REINDEX_EVENTS = 500


def _disk_full(error: StoreUnavailable, store=None) -> bool:
    """Say whether an error means the disk is full.

    An I/O error on a disk with no room counts: SQLite reports one when its shared-memory file
    cannot grow."""
    text = str(error).lower()
    if "full" in text:
        return True
    free = store.free_bytes() if store is not None and "disk i/o" in text else None
    return free is not None and free < space.NO_ROOM


class SearchIndexUpkeep:
    """Mixin of Store: the search index's upkeep during a prune.

    Needs write(), checkpoint(), _vacuum_incrementally(), free_bytes(), db."""

    def _shrink_index(self) -> None:
        """Merge the search index whole, so its deleted rows' space comes back.

        The deleted events' pages go back to the disk first: each merge step's WAL then has room on
        a full disk."""
        self._vacuum_incrementally()
        while self._merge_index_step(whole=True):
            pass

    def _empty_index(self) -> None:
        """Empty the search index in one small transaction.

        Its pages go to the free list. Note which events it must hold again: those projected so far
        (the projection indexes the later ones)."""
        with self.write() as conn:
            projected = conn.execute(
                "SELECT coalesce(max(seq), 0) FROM progress WHERE name = 'projected'"
            )
            conn.execute(SET_PROGRESS, ("reindex_to", projected.fetchone()[0]))
            conn.execute(SET_PROGRESS, ("reindexed", 0))
            conn.execute("INSERT INTO events_fts (events_fts) VALUES ('delete-all')")

    def _reindex(self) -> None:
        """Index again, a bounded step at a time, the events an emptied index must hold."""
        size = REINDEX_EVENTS
        while True:
            marks = dict(
                self.db.execute(
                    "SELECT name, seq FROM progress WHERE name IN ('reindexed', 'reindex_to')"
                ).fetchall()
            )
            if len(marks) < 2:
                return
            try:
                with self.write() as conn:
                    self._reindex_some(conn, marks["reindexed"], marks["reindex_to"], size)
            except StoreUnavailable as error:
                self.checkpoint(required=False)
                if not _disk_full(error) or size == 1:
                    raise
                size = max(1, size // 4)
                continue
            # RESTART, as the deletions' steps: after a PASSIVE one a server's reader kept the WAL
            # from restarting, each step was added to its end, and a tight disk ran out
            self.checkpoint("RESTART", required=False)
            # FTS5's usual merges, a bounded step at a time
            while self._merge_index_step(whole=False):
                pass

    def _reindex_some(self, conn, done: int, target: int, size: int) -> None:
        last = conn.execute(
            "SELECT max(seq) FROM (SELECT seq FROM events WHERE seq > ? AND seq <= ? ORDER BY seq "
            "LIMIT ?)",
            (done, target, size),
        ).fetchone()[0]
        if last is None:
            conn.execute("DELETE FROM progress WHERE name IN ('reindexed', 'reindex_to')")
            return
        conn.execute(INDEX_EVENTS, (done, last))
        conn.execute(SET_PROGRESS, ("reindexed", last))

    def _merge_index_step(self, whole: bool) -> bool:
        """Merge the search index's segments by at most MERGE_PAGES pages.

        Fewer on a full disk: those of one level with at least four (FTS5's usual merge), or all of
        them (`whole`: the deleted rows' entries then meet their delete markers and both go). Say
        whether there was work to do."""
        pages = MERGE_PAGES
        while True:
            try:
                with self.write() as conn:
                    changes = conn.total_changes
                    # a negative page count merges across levels (FTS5's 'optimize', a step at a
                    # time)
                    conn.execute(
                        "INSERT INTO events_fts (events_fts, rank) VALUES ('merge', ?)",
                        (-pages if whole else pages,),
                    )
                    # FTS5's own test for "no merge was due"
                    worked = conn.total_changes - changes >= 2
            except StoreUnavailable as error:
                self.checkpoint(required=False)
                if not _disk_full(error, self) or pages <= MIN_STEP_PAGES:
                    raise
                pages //= 4
                continue
            self.checkpoint("RESTART", required=False)
            return worked

    def _index_setting(self, name: str, value: int, required: bool = True) -> None:
        try:
            with self.write() as conn:
                conn.execute(
                    "INSERT INTO events_fts (events_fts, rank) VALUES (?, ?)", (name, value)
                )
        except StoreUnavailable:
            if required:
                raise
