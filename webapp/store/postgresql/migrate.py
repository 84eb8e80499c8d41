"""Numbered migrations on PostgreSQL (migrations/postgresql/).

Under an advisory lock so nodes that start together migrate once."""

import contextlib
import re

from ...common import times
from .. import stagecols
from . import sql as pg_sql

RECORD_TABLE = """CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL,
    applied_at TEXT NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC',
      'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))"""


class PostgresMigrations:
    """The migration target of a PostgresStore.

    One transaction holding pg_advisory_xact_lock."""

    engine = "postgresql"

    def __init__(self, store):
        self.store = store

    def applied_versions(self) -> set[int] | None:
        exists = self.store.db.execute(
            "SELECT to_regclass('schema_migrations') IS NOT NULL"
        ).fetchone()[0]
        if not exists:
            return None
        return {row[0] for row in self.store.db.execute("SELECT version FROM schema_migrations")}

    @contextlib.contextmanager
    def locked(self):
        with self.store.write() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(?)", (pg_sql.MIGRATIONS_LOCK,))
            yield conn

    def applied_in(self, conn) -> set[int]:
        conn.execute(RECORD_TABLE)
        return {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}

    def run_sql(self, conn, text: str) -> None:
        # comments may hold semicolons and quotes
        text = re.sub(r"--[^\n]*", "", text)
        for statement in text.split(";"):
            if statement.strip():
                # DDL as written: no placeholders to pass on
                conn.raw.execute(statement)

    def record(self, conn, migration) -> None:
        conn.execute(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
            (migration.version, migration.name, times.now()),
        )


def add_stage_columns(store) -> None:
    """Give each declared stage its columns where they are missing.

    A stage declared after the migrations."""
    rows = store.db.execute(
        "SELECT table_name, column_name FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND table_name IN ('calls', 'traces')"
    ).fetchall()
    existing = {}
    for table, column in rows:
        existing.setdefault(table, set()).add(column)
    # IF NOT EXISTS: another node may add them while this one waits for the lock
    missing = [
        s.replace("ADD COLUMN", "ADD COLUMN IF NOT EXISTS")
        for s in stagecols.missing(existing, "BIGINT")
    ]
    if missing:
        with PostgresMigrations(store).locked() as conn:
            PostgresMigrations(store).run_sql(conn, ";".join(missing))
