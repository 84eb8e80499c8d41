"""Numbered schema migrations, applied once each, in order, under a lock.

By every store engine.

Each engine keeps its migrations in a folder of its own (`sqlite/`; `postgresql/` when that store
lands), files named `NNNN_what_it_does.sql` or `NNNN_what_it_does.py`, numbered from 0001 with no
gap. A `.sql` file is plain SQL for that engine; a `.py` file defines `migrate(conn)` for changes
SQL alone cannot say (a backfill, a column added only where an older build already added it). The
table `schema_migrations (version, name, applied_at)` records what ran; a database that records a
version this code does not know was made by a newer tracediff and is refused.

To add a migration: write the next number's file in every engine's folder (the same change in each
dialect), never edit one that has shipped, and keep it safe to run on a database of any earlier
version. `apply(target)` takes the target's lock (SQLite: the writer lock and `BEGIN IMMEDIATE`;
PostgreSQL: `pg_advisory_xact_lock` in one transaction), re-reads what ran and applies the rest in
that same transaction, so processes starting together migrate once and a failure applies nothing.
"""

import functools
import importlib.util
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..errors import SchemaTooNew  # noqa: F401 (raised here; the store's callers name it)

FOLDER = Path(__file__).resolve().parent
# under "webapp": the logger serve sends to its log
LOG = logging.getLogger("webapp.store.migrations")
_NAME = re.compile(r"(\d{4})_([a-z0-9_]+)\.(sql|py)\Z")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    path: Path

    def apply(self, conn, target: "Target") -> None:
        """Run this migration on a connection inside the target's locked transaction."""
        if self.path.suffix == ".sql":
            target.run_sql(conn, self.path.read_text(encoding="utf-8"))
            return
        spec = importlib.util.spec_from_file_location(
            f"tracediff_migration_{self.version:04d}", self.path
        )
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        module.migrate(conn)


class Target(Protocol):
    """What an engine offers the runner.

    See webapp/store/sqlite/migrate.py for SQLite's."""

    engine: str

    def applied_versions(self) -> set[int] | None:
        """Versions recorded, read without the lock (None when that cannot be read)."""

    def locked(self):
        """Context manager.

        A connection in a transaction that holds the migration lock."""

    def applied_in(self, conn) -> set[int]:
        """Versions recorded, read under the lock (creating the record table if missing)."""

    def run_sql(self, conn, text: str) -> None:
        """Run a script of statements on the locked connection."""

    def record(self, conn, migration: Migration) -> None:
        """Record a migration as applied."""


def discover(engine: str, folder: Path | None = None) -> list[Migration]:
    """List an engine's migrations in order.

    Refuse a misnamed file, a gap or a repeated number."""
    folder = folder or FOLDER / engine
    found = []
    for path in sorted(folder.iterdir()):
        if path.name.startswith((".", "_")) or path.is_dir():
            continue
        match = _NAME.match(path.name)
        if not match:
            raise ValueError(f"{path}: a migration is named NNNN_what_it_does.sql or .py")
        found.append(Migration(int(match[1]), match[2], path))
    versions = [m.version for m in found]
    if versions != list(range(1, len(found) + 1)):
        raise ValueError(
            f"{folder}: migrations must be numbered 1, 2, 3... once each, found {versions}"
        )
    return found


def apply(
    target: Target, migrations: list[Migration] | None = None, where: str = ""
) -> list[Migration]:
    """Apply the migrations the database lacks, under the target's lock.

    Return those applied, each logged (`where` names the database in the line: a path, or a URL
    without its password)."""
    migrations = discover(target.engine) if migrations is None else migrations
    known = {m.version for m in migrations}
    seen = target.applied_versions()
    if seen is not None:
        _refuse_newer(seen, known)
        if known <= seen:
            # the common case: one cheap read, no lock
            return []
    with target.locked() as conn:
        # another process may have migrated while we waited
        done = target.applied_in(conn)
        _refuse_newer(done, known)
        todo = [m for m in migrations if m.version not in done]
        for migration in todo:
            migration.apply(conn, target)
            target.record(conn, migration)
    # once committed: a migration that failed applied nothing
    for migration in todo:
        LOG.info(
            "database %s: applied migration %04d_%s",
            where or target.engine,
            migration.version,
            migration.name,
        )
    return todo


def refuse_newer(target: Target) -> None:
    """Refuse a database that records a migration this code does not know.

    One cheap read, no lock."""
    seen = target.applied_versions()
    if seen:
        _refuse_newer(seen, known_versions(target.engine))


@functools.cache
def known_versions(engine: str) -> frozenset[int]:
    """The versions this code's migrations reach.

    Read from the folder once per process."""
    return frozenset(m.version for m in discover(engine))


def _refuse_newer(done: set[int], known: set[int]) -> None:
    newer = sorted(done - known)
    if newer:
        raise SchemaTooNew(
            f"the database is at schema version {max(done)}, made by a newer tracediff; this "
            f"one knows versions up to {max(known, default=0)}: upgrade tracediff"
        )
