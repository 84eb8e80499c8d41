"""Copy a SQLite database into an empty PostgreSQL one, row for row (`tracediff migrate --to`).

Every table is copied as it is, ids included, so permalinks, problem ids (TD-42), alert rules and
stored analyses carry over; the search words are computed on the way, and events the SQLite store
had not projected yet are queued for projection.
"""
from .postgresql.sql import WORDS

SKIPPED = ("schema_migrations", "progress")   # the destination keeps its own
BATCH = 2000


def copy_database(source, destination, report=lambda table, rows: None) -> dict[str, int]:
    """Copy every table of a SQLite Store into an empty PostgresStore; return rows per table."""
    tables = _tables(source)
    held = [table for table in tables if destination.db.execute(f"SELECT EXISTS (SELECT 1 FROM {table})").fetchone()[0]]
    if held:
        raise ValueError(f"{destination.path} already holds {', '.join(held[:3])}: copy into an empty database")
    copied = {}
    with destination.write() as conn:
        for table in tables:
            columns = _shared_columns(source, conn, table)
            copied[table] = _copy_table(source, conn, table, columns)
            report(table, copied[table])
        _restart_identities(conn, copied)
        conn.execute(f"UPDATE events SET words = {WORDS.format('payload')}")
        projected = source.db.execute("SELECT coalesce(max(seq), 0) FROM progress WHERE name = 'projected'").fetchone()[0]
        conn.execute("INSERT INTO projection_queue (seq) SELECT seq FROM events WHERE seq > ?", (projected,))
    return copied


def _tables(source) -> list[str]:
    rows = source.db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                             "AND name NOT LIKE 'events_fts%' ORDER BY name")
    return [name for (name,) in rows if name not in SKIPPED]


def _shared_columns(source, conn, table: str) -> list[str]:
    ours = [row[1] for row in source.db.execute(f'PRAGMA table_info("{table}")')]
    theirs = {row[0] for row in conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = ?", (table,))}
    if not theirs:
        raise ValueError(f"table {table} of the SQLite database has no PostgreSQL counterpart")
    return [column for column in ours if column in theirs]


def _copy_table(source, conn, table: str, columns: list[str]) -> int:
    names = ", ".join(columns)
    insert = (f"INSERT INTO {table} ({names}) OVERRIDING SYSTEM VALUE VALUES "
              f"({', '.join('?' * len(columns))})")
    cursor = source.db.execute(f"SELECT {names} FROM {table}")
    total = 0
    while rows := cursor.fetchmany(BATCH):
        conn.executemany(insert, rows)
        total += len(rows)
    return total


def _restart_identities(conn, copied: dict) -> None:
    """Make the next generated id follow the copied ones (events.seq, problem and rule ids...)."""
    for table, column in conn.execute("SELECT table_name, column_name FROM information_schema.columns "
                                      "WHERE is_identity = 'YES' AND table_schema = current_schema()").fetchall():
        if copied.get(table):
            conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "
                         f"(SELECT max({column}) FROM {table}))")
