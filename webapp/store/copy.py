"""Copy a SQLite database into an empty PostgreSQL one, row for row.

`tracediff migrate --to`.

Every table is copied as it is, ids included, so permalinks, problem ids (TD-42), alert rules and
stored analyses carry over; the search words are computed on the way, and events the SQLite store
had not projected yet are queued for projection.

Rows travel by COPY, into tables whose secondary indexes are dropped for the load and built again
after it (one sort per index instead of one index insert per row): a million traces, three million
events, copy in minutes where row-by-row inserts took hours. VACUUM ANALYZE follows, so the pages
start with planner statistics and a visibility map, as autovacuum would leave them.
"""

from .postgresql.sql import WORDS

# the destination keeps its own
SKIPPED = ("schema_migrations", "progress")
BATCH = 10_000
# Indexes that back a constraint (primary keys, unique keys) stay: COPY checks them as it goes.
SECONDARY_INDEXES = """SELECT i.indexname, i.indexdef FROM pg_indexes i
 WHERE i.schemaname = current_schema() AND i.tablename = ? AND NOT EXISTS
 (SELECT 1 FROM pg_constraint c WHERE c.conindid = (quote_ident(i.schemaname) || '.' ||
  quote_ident(i.indexname))::regclass)"""


def copy_database(source, destination, report=lambda table, rows: None) -> dict[str, int]:
    """Copy every table of a SQLite Store into an empty PostgresStore.

    Return rows per table."""
    _refuse_older(source, destination)
    tables = _tables(source)
    held = [
        table
        for table in tables
        if destination.db.execute(f"SELECT EXISTS (SELECT 1 FROM {table})").fetchone()[0]
    ]
    if held:
        raise ValueError(
            f"{destination.path} already holds {', '.join(held[:3])}: copy into an empty database"
        )
    copied = {}
    with destination.write() as conn:
        # index builds sort in memory
        conn.execute("SET LOCAL maintenance_work_mem = '256MB'")
        for table in tables:
            columns = _shared_columns(source, conn, table)
            indexes = conn.execute(SECONDARY_INDEXES, (table,)).fetchall()
            for name, _ in indexes:
                conn.execute(f'DROP INDEX "{name}"')
            copied[table] = _copy_table(source, conn, table, columns)
            for _, definition in indexes:
                conn.execute(definition)
            report(table, copied[table])
        _restart_identities(conn, copied)
        projected = source.db.execute(
            "SELECT coalesce(max(seq), 0) FROM progress WHERE name = 'projected'"
        ).fetchone()[0]
        conn.execute(
            "INSERT INTO projection_queue (seq) SELECT seq FROM events WHERE seq > ?", (projected,)
        )
    # outside the transaction: VACUUM cannot run in one
    for table in tables:
        destination.db.execute(f"VACUUM ANALYZE {table}")
    return copied


def _refuse_older(source, destination) -> None:
    """Refuse a source whose schema is behind.

    Its rows would skip a migration's rewrite, e.g. 10's times."""
    versions = [
        {row[0] for row in store.db.execute("SELECT version FROM schema_migrations")}
        for store in (source, destination)
    ]
    if versions[1] - versions[0]:
        raise ValueError(
            f"{source.path} is at schema version {max(versions[0], default=0)}: open it with this "
            "tracediff first (any command that writes, e.g. `tracediff serve`) to upgrade it"
        )


def _tables(source) -> list[str]:
    rows = source.db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "AND name NOT LIKE 'events_fts%' ORDER BY name"
    )
    return [name for (name,) in rows if name not in SKIPPED]


def _shared_columns(source, conn, table: str) -> list[str]:
    ours = [row[1] for row in source.db.execute(f'PRAGMA table_info("{table}")')]
    theirs = {
        row[0]
        for row in conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = ?", (table,)
        )
    }
    if not theirs:
        raise ValueError(f"table {table} of the SQLite database has no PostgreSQL counterpart")
    return [column for column in ours if column in theirs]


def _copy_table(source, conn, table: str, columns: list[str]) -> int:
    """COPY a table's rows (identity values included, as COPY always takes them).

    Return how many."""
    names = ", ".join(columns)
    target = table
    # through a staging table, so each event is written once, words and all
    if table == "events":
        target = "copy_staging"
        conn.execute(f"CREATE TEMP TABLE {target} AS SELECT {names} FROM events WITH NO DATA")
    cursor = source.db.execute(f"SELECT {names} FROM {table}")
    total = 0
    with conn.live().cursor().copy(f"COPY {target} ({names}) FROM STDIN") as copy:
        while rows := cursor.fetchmany(BATCH):
            for row in rows:
                copy.write_row(row)
            total += len(rows)
    if table == "events":
        conn.execute(
            f"INSERT INTO events ({names}, words) OVERRIDING SYSTEM VALUE "
            f"SELECT {names}, {WORDS.format('payload')} FROM {target}"
        )
        conn.execute(f"DROP TABLE {target}")
    return total


def _restart_identities(conn, copied: dict) -> None:
    """Make the next generated id follow the copied ones.

    events.seq, problem and rule ids..."""
    for table, column in conn.execute(
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE is_identity = 'YES' AND table_schema = current_schema()"
    ).fetchall():
        if copied.get(table):
            conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), (SELECT "
                f"max({column}) FROM {table}))"
            )
