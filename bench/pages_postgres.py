"""bench/pages.py on PostgreSQL.

Each generated SQLite database copied into a PostgreSQL database of its own.

Size N goes to `<database>_N` (made on first use), and a copy is reused while its SQLite source
holds the same rows: copying 1M traces takes minutes, so a second run measures at once.
"""

import statistics
import time
from urllib.parse import urlsplit

import psycopg
from ingest_postgres import reset

from webapp.store import Store
from webapp.store.copy import copy_database

MARKER = "bench_copied_from"


def size_url(url: str, count: int) -> str:
    """Return the URL of the database that holds the copy of `count` traces."""
    base, mark, options = url.partition("?")
    return f"{base.rstrip('/')}_{count}{mark}{options}"


def copy_into_postgres(
    path, url: str, count: int, report=lambda table, rows: None
) -> tuple[str, float | None]:
    """Copy the SQLite database at path into its own PostgreSQL database.

    Return its URL and the seconds the copy took (None when an earlier copy was reused)."""
    target = size_url(url, count)
    name = urlsplit(target).path.lstrip("/")
    with psycopg.connect(url, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
    # upgraded first: copy_database refuses a file behind the destination's schema
    source = Store(path)
    source_id = _source_id(path, source)
    if _copied_from(target) == source_id:
        source.close()
        return target, None
    began = time.perf_counter()
    reset(target)
    destination = Store.open(target)
    # VACUUM ANALYZE included, as after `tracediff migrate`
    copy_database(source, destination, report)
    destination.project_all()
    source.close()
    destination.close()
    with psycopg.connect(target, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE {MARKER} (source TEXT)")
        conn.execute(f"INSERT INTO {MARKER} VALUES (%s)", (source_id,))
    return target, time.perf_counter() - began


def _source_id(path, source) -> str:
    """Name what was copied by its content, not its file size.

    A WAL checkpoint changes that."""
    newest, traces, problems = source.db.execute(
        "SELECT (SELECT max(seq) FROM events), (SELECT count(*) FROM traces), (SELECT count(*) "
        "FROM problems)"
    ).fetchone()
    return f"{path.name}:{newest}:{traces}:{problems}"


def _copied_from(url: str) -> str | None:
    with psycopg.connect(url) as conn:
        if not conn.execute("SELECT to_regclass(%s)", (MARKER,)).fetchone()[0]:
            return None
        row = conn.execute(f"SELECT source FROM {MARKER}").fetchone()
        return row[0] if row else None


def bare_select_ms(url: str, sql: str, repeats: int) -> float:
    """Return the median time of the bare first-page SELECT on PostgreSQL, in ms."""
    with psycopg.connect(url) as conn:
        times = []
        for _ in range(repeats + 1):
            began = time.perf_counter()
            conn.execute(sql).fetchall()
            times.append((time.perf_counter() - began) * 1000)
    return round(statistics.median(times[1:]), 3)
