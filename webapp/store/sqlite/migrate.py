"""The SQLite schema.

Numbered migrations (migrations/sqlite/) applied when a Store opens to write.

How to add a table or a column: see webapp/store/migrations/__init__.py (a new numbered file).
SCHEMA below is the bridge for features written before the migrations existed: idempotent DDL
(CREATE ... IF NOT EXISTS, grouped under the feature's name) run after the migrations at every
start, until it is moved into a numbered migration and removed from here.
"""

import sqlite3
import time

from ...common import times
from .. import migrations, stagecols

SCHEMA = """
"""

RECORD_TABLE = """CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
)"""


class SqliteMigrations:
    """The migration target of one Store.

    Its writer lock, `BEGIN IMMEDIATE` and its connection."""

    engine = "sqlite"

    def __init__(self, store):
        self.store = store

    def applied_versions(self) -> set[int] | None:
        try:
            return {
                row[0]
                for row in self.store.db.conn.execute("SELECT version FROM schema_migrations")
            }
        # no such table yet: a new or pre-migration database
        except sqlite3.OperationalError:
            return None

    def locked(self):
        return self.store.write()

    def applied_in(self, conn) -> set[int]:
        conn.execute(RECORD_TABLE)
        return {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}

    def run_sql(self, conn, text: str) -> None:
        # executescript would COMMIT first and leave the lock: run the statements one by one instead
        for statement in split_statements(text):
            conn.execute(statement)

    def record(self, conn, migration) -> None:
        conn.execute(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
            (migration.version, migration.name, times.now()),
        )
        # for sqlite3 and other tools
        conn.execute(f"PRAGMA user_version = {int(migration.version)}")


def split_statements(text: str) -> list[str]:
    """Split an SQL script into whole statements.

    Semicolons in comments and strings stay put."""
    statements, buffer = [], ""
    for piece in text.split(";"):
        buffer += piece + ";"
        if sqlite3.complete_statement(buffer):
            if _has_code(buffer):
                statements.append(buffer.strip())
            buffer = ""
    return statements


def _has_code(statement: str) -> bool:
    lines = (line.split("--", 1)[0].strip() for line in statement.splitlines())
    return any(line and line != ";" for line in lines)


def prepare_new_file(conn, seconds: float = 10.0) -> None:
    """Set what only an empty file can take, then WAL (outside any transaction).

    Changing the journal mode takes the file's exclusive lock without waiting on SQLite's busy
    handler: a second process opening the same new file a moment later is told "locked", so it tries
    again for a while."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if conn.execute("PRAGMA page_count").fetchone()[0] == 0:
                # pages freed by prune can then be given back to the disk without a full VACUUM
                conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
            if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def check(store) -> None:
    """Refuse a database a newer tracediff made, without writing.

    A Store opened with create=False."""
    migrations.refuse_newer(SqliteMigrations(store))


def upgrade(store) -> list:
    """Bring a Store's database to the current schema.

    Return the migrations applied."""
    prepare_new_file(store.db.conn)
    applied = migrations.apply(SqliteMigrations(store), where=store.path)
    if SCHEMA.strip():
        with store.write() as conn:
            SqliteMigrations(store).run_sql(conn, SCHEMA)
    add_stage_columns(store)
    return applied


def add_stage_columns(store) -> None:
    """Give each declared stage its columns where they are missing.

    A stage declared after the migrations."""
    tables = ("calls", "traces")
    existing = {
        table: {row[1] for row in store.db.execute(f"PRAGMA table_info({table})")}
        for table in tables
    }
    statements = stagecols.missing(existing, "INTEGER")
    if statements:
        with store.write() as conn:
            SqliteMigrations(store).run_sql(conn, ";\n".join(statements))
