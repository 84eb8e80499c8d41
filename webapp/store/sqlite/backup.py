"""Online backups of a SQLite store: a consistent copy while writers go on."""

import os
import sqlite3
from pathlib import Path

# every file SQLite may leave, the database first
BESIDE_A_DATABASE = ("", "-journal", "-wal", "-shm")


class Backup:
    """Mixin of SqliteStore: the online backup.

    Needs unavailable_as_error(), db."""

    def backup(self, target) -> int:
        """Copy the database to a new file, consistent while writers go on.

        Return its size in bytes.

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
            # a rollback journal too: the copy starts out in that mode
            for suffix in BESIDE_A_DATABASE:
                Path(f"{partial}{suffix}").unlink(missing_ok=True)
            raise
        copy.close()
        os.replace(partial, target)
        return target.stat().st_size
