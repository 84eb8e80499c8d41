"""Test databases: a SQLite file, or a fresh PostgreSQL database cloned from a migrated template.

PostgreSQL runs when TRACEDIFF_TEST_POSTGRES names a server (an admin URL such as
postgresql:///postgres); .ci/run starts one and sets it.
"""
import itertools
import os
from urllib.parse import urlsplit

ADMIN_URL = os.environ.get("TRACEDIFF_TEST_POSTGRES", "")
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
    """One migrated template per test process; each test gets a copy of it, dropped afterwards."""

    def __init__(self):
        self.prefix = f"tracediff_test_{os.getpid()}"
        self.template = None

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
        if self.template is not None:
            self.drop(self.template)
