"""Test databases: a SQLite file, or a fresh PostgreSQL database.

The PostgreSQL one cloned from a migrated template.

PostgreSQL runs when TRACEDIFF_TEST_POSTGRES names a server (an admin URL such as
postgresql:///postgres); .ci/run starts one and sets it.
"""

import itertools
import os
import shutil
import time
from pathlib import Path
from urllib.parse import urlsplit

ADMIN_URL = os.environ.get("TRACEDIFF_TEST_POSTGRES", "")
TABLES = (
    "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> "
    "'schema_migrations'"
)
COUNTERS = "SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = 'public'"
_names = itertools.count()


def engines(sqlite_only: bool) -> list[str]:
    return ["sqlite"] if sqlite_only or not ADMIN_URL else ["sqlite", "postgresql"]


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/{name}" + (f"?{parts.query}" if parts.query else "")


def _admin(sql: str) -> None:
    import psycopg

    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        conn.execute(sql)


class PostgresDatabases:
    """One migrated database per test process, renamed and emptied before each test (80 ms where a
    copy of a template takes seconds: CREATE DATABASE checkpoints); `new()` makes a database of its
    own from the template."""

    def __init__(self):
        self.prefix = f"tracediff_test_{os.getpid()}"
        self.template = None
        self.shared = None

    def fresh(self) -> str:
        """Return this process's test database with every table empty and every id counter
        restarted."""
        if self.shared is None:
            self.shared = self.new()
        import psycopg

        from webapp.store.migrations import discover

        self.shared = self._renamed(self.shared)
        with psycopg.connect(self.shared, autocommit=True) as conn, conn.transaction():
            tables = [row[0] for row in conn.execute(TABLES)]
            # TRUNCATE, not DELETE: a table emptied by DELETE keeps its pages and its statistics (a
            # few rows in hundreds of pages), and the next test's burst of inserts was planned as if
            # the table were empty: a projection of 5,000 calls joined every call with every key and
            # ran for minutes
            conn.execute(
                "TRUNCATE " + ", ".join(f'"{table}"' for table in tables) + " RESTART IDENTITY"
            )
            # a test may record a version from the future
            known = [m.version for m in discover("postgresql")]
            conn.execute("DELETE FROM schema_migrations WHERE NOT version = ANY(%s)", (known,))
            for sequence, _ in conn.execute(COUNTERS).fetchall():
                conn.execute(f'ALTER SEQUENCE "{sequence}" RESTART')
        return self.shared

    def _renamed(self, url: str) -> str:
        """Give the database a name no earlier test knew, so nothing an earlier test left running (a
        server, a process, a cache keyed by URL) can reach this test's data: renaming costs a
        catalog update."""
        import psycopg

        from webapp.store.postgresql.connection import close_pool

        # connections the last test left open go, with their locks
        close_pool(url)
        old, name = urlsplit(url).path[1:], f"{self.prefix}_{next(_names)}"
        for _attempt in range(50):
            _admin(
                f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{old}'"
            )
            try:
                _admin(f'ALTER DATABASE "{old}" RENAME TO "{name}"')
                return _with_database(ADMIN_URL, name)
            # a leftover reconnected between the two statements
            except psycopg.errors.ObjectInUse:
                time.sleep(0.05)
        raise RuntimeError(
            f"{old} stays in use: something an earlier test started still writes to it"
        )

    def rows(self, url: str) -> dict:
        """Return what a database holds: every table's rows (COPY's binary form) and where each id
        counter is; the migrations' table is left out, as fresh() leaves it."""
        import psycopg

        with psycopg.connect(url) as conn:
            tables = {}
            for (table,) in conn.execute(TABLES).fetchall():
                with conn.cursor().copy(f'COPY "{table}" TO STDOUT (FORMAT binary)') as copy:
                    tables[table] = b"".join(bytes(block) for block in copy)
            counters = [row for row in conn.execute(COUNTERS).fetchall() if row[1] is not None]
        return {"tables": tables, "counters": counters}

    def fill(self, url: str, rows: dict) -> None:
        """Copy rows() into an emptied database (fresh()), its id counters set where they were (the
        schema has no foreign keys or triggers, so tables go in any order and nothing fires)."""
        import psycopg

        with psycopg.connect(url) as conn:
            for table, data in rows["tables"].items():
                with conn.cursor().copy(f'COPY "{table}" FROM STDIN (FORMAT binary)') as copy:
                    copy.write(data)
            for sequence, value in rows["counters"]:
                conn.execute("SELECT setval(%s, %s)", (sequence, value))

    def new(self) -> str:
        if self.template is None:
            self.template = self._make_template()
        name = f"{self.prefix}_{next(_names)}"
        _admin(f'CREATE DATABASE "{name}" TEMPLATE "{self.prefix}_template"')
        return _with_database(ADMIN_URL, name)

    def drop(self, url: str) -> None:
        from webapp.store.postgresql.connection import close_pool

        close_pool(url)
        _admin(f'DROP DATABASE IF EXISTS "{urlsplit(url).path[1:]}" WITH (FORCE)')

    def _make_template(self) -> str:
        from webapp.store import Store

        name = f"{self.prefix}_template"
        _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        _admin(f'CREATE DATABASE "{name}"')
        url = _with_database(ADMIN_URL, name)
        Store.open(url).close()
        self.drop_pool_only(url)
        return url

    def drop_pool_only(self, url: str) -> None:
        from webapp.store.postgresql.connection import close_pool

        close_pool(url)

    def close(self) -> None:
        for url in (self.shared, self.template):
            if url is not None:
                self.drop(url)


class BuiltDatabases:
    """Databases built once per test process by name ({name: build(store)}), for tests to start from
    copies: a SQLite file (its log folded in) copied byte for byte, or on PostgreSQL every
    table's rows."""

    def __init__(self, folder, builds: dict):
        self.folder, self.builds, self.files, self.postgres_rows = folder, builds, {}, {}

    def file(self, name: str):
        """Return the SQLite file of a built database (build it on first use)."""
        if name not in self.files:
            self._build(name, self.folder / f"{name}.db")
            self.files[name] = self.folder / f"{name}.db"
        return self.files[name]

    def copy_file(self, name: str, path) -> None:
        """Write a copy of a built database's SQLite file at path (a plain file copy: the built
        file's log is folded in when it is built, and SQLite's backup took ~14 ms a copy, syncing
        the new file, where copying its bytes takes well under 1 ms)."""
        shutil.copyfile(self.file(name), path)

    def rows(self, name: str, postgres: "PostgresDatabases") -> dict:
        """Return a built database's rows on PostgreSQL (PostgresDatabases.rows), built in its
        fresh() database."""
        if name not in self.postgres_rows:
            url = postgres.fresh()
            self._build(name, url)
            self.postgres_rows[name] = postgres.rows(url)
        return self.postgres_rows[name]

    def _build(self, name: str, database) -> None:
        from webapp.store import Store

        store = Store.open(database)
        try:
            self.builds[name](store)
        finally:
            store.close()
        if not str(database).startswith("postgres"):
            _log_folded_in(database)


def _log_folded_in(path) -> None:
    """Move everything in a SQLite file's write-ahead log into the file itself and empty the log,
    so the file alone holds the database (what copy_file copies)."""
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    finally:
        conn.close()
    if busy or Path(f"{path}-wal").exists() and Path(f"{path}-wal").stat().st_size:
        raise RuntimeError(f"{path}: its log could not be folded in (a connection still open?)")
