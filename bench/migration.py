"""Migration 10 (fixed-width times): seconds per 100k traces.

On a generated database whose every time needs rewriting.

A database of N traces (three ~2 KB events each, times as tracediff wrote them before: `...07.000Z`)
is made by gendb.py, its record of migration 10 removed, and the store opened: the seconds that
takes are the migration's. The baseline, in the same run, rewrites the same columns of the same rows
unchanged (`col = col || ''`): the least any in-place rewrite of those times costs. With --database,
the same on PostgreSQL (a copy of the generated file, made with `tracediff migrate`'s copy).

    python bench/migration.py [--traces 100000] [--database postgresql:///tracediff_bench]
"""

import argparse
import importlib.util
import shutil
import tempfile
import time
from pathlib import Path

from common import OUT, ROOT, write_figures
from gendb import generate

from webapp.store import Store

MIGRATION = ROOT / "webapp" / "store" / "migrations" / "sqlite" / "0010_fixed_width_times.py"
PER = 100_000


def columns() -> dict:
    """The tables and time columns migration 10 rewrites.

    Read from the migration itself."""
    spec = importlib.util.spec_from_file_location("migration_10", MIGRATION)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.COLUMNS


def timed_migration(store_url: str, forget) -> float:
    """Forget migration 10 (it must run again), then open the store and time it."""
    forget()
    began = time.perf_counter()
    Store.open(store_url).close()
    return time.perf_counter() - began


def timed_touch(store: Store) -> float:
    """Rewrite every time column of every row unchanged, in one transaction.

    The baseline."""
    began = time.perf_counter()
    with store.write() as conn:
        for table, names in columns().items():
            conn.execute(f"UPDATE {table} SET " + ", ".join(f"{c} = {c} || ''" for c in names))
    return time.perf_counter() - began


def sqlite_figures(pristine, traces: int) -> dict:
    """Time the migration and the baseline on a copy of the generated file."""
    import sqlite3

    # the file, its WAL and its lock file go together
    folder = Path(tempfile.mkdtemp(dir=OUT))
    work = folder / "work.db"
    shutil.copy(pristine, work)

    def forget():
        with sqlite3.connect(work) as conn:
            conn.execute("DELETE FROM schema_migrations WHERE version = 10")

    seconds = timed_migration(str(work), forget)
    with sqlite3.connect(work) as conn:
        left = conn.execute("SELECT count(*) FROM events WHERE length(ts) <> 27").fetchone()[0]
    assert left == 0, f"{left} events not rewritten"
    store = Store(work)
    baseline = timed_touch(store)
    store.close()
    shutil.rmtree(folder)
    return _figures("sqlite", seconds, baseline, traces)


def postgres_figures(pristine, url: str, traces: int) -> dict:
    """Copy the generated file into PostgreSQL and time the migration there.

    The migration and the baseline."""
    import psycopg
    from ingest_postgres import reset

    from webapp.store.copy import copy_database

    # a copy from an earlier run: its times go back to the old form (minutes saved)
    if _held(url) == 3 * traces:
        began = time.perf_counter()
        _age_postgres(url)
        print(f"postgresql: earlier copy aged in {time.perf_counter() - began:.1f} s", flush=True)
    else:
        reset(url)
        source, destination = Store(pristine, create=False), Store.open(url)
        began = time.perf_counter()
        copy_database(source, destination)
        print(f"postgresql: copied in {time.perf_counter() - began:.1f} s", flush=True)
        source.close()
        destination.close()

    def forget():
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("DELETE FROM schema_migrations WHERE version = 10")

    seconds = timed_migration(url, forget)
    store = Store.open(url)
    assert store.db.execute("SELECT count(*) FROM events WHERE length(ts) <> 27").fetchone()[0] == 0
    baseline = timed_touch(store)
    store.close()
    return _figures("postgresql", seconds, baseline, traces)


def _held(url: str) -> int:
    import psycopg

    try:
        with psycopg.connect(url) as conn:
            return conn.execute("SELECT count(*) FROM events").fetchone()[0]
    except psycopg.Error:
        return -1


def _age_postgres(url: str) -> None:
    """Write every time of the database back in the old form, then vacuum.

    The form gendb's old_times gives (`...07.000Z`)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for table, names in columns().items():
            with conn.transaction():
                conn.execute("SET LOCAL maintenance_work_mem = '256MB'")
                collations = dict(
                    conn.execute(
                        "SELECT attname, CASE WHEN attcollation IN (0, 100) THEN '' ELSE ' COLLATE "
                        "' || "
                        "attcollation::regcollation::text END FROM pg_attribute WHERE attrelid = "
                        "%s::regclass "
                        "AND attnum > 0",
                        (table,),
                    ).fetchall()
                )
                conn.execute(
                    f"ALTER TABLE {table} "
                    + ", ".join(
                        f"ALTER COLUMN {c} TYPE text{collations[c]} USING substr({c}, 1, 23) || 'Z'"
                        for c in names
                    )
                )
            conn.execute(f"VACUUM ANALYZE {table}")


def _figures(engine: str, seconds: float, baseline: float, traces: int) -> dict:
    per = seconds * PER / traces
    print(
        f"{engine}: migration 10 on {traces:,} traces: {seconds:.1f} s ({per:.1f} s per 100k "
        "traces; "
        f"1M traces ~{per * 10:.0f} s)",
        flush=True,
    )
    print(
        f"RATIO {engine} migration/plain rewrite of the same times: {seconds / baseline:.2f} "
        f"(baseline {baseline:.1f} s)",
        flush=True,
    )
    return {
        "seconds": round(seconds, 2),
        "seconds_per_100k_traces": round(per, 2),
        "baseline_seconds": round(baseline, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=PER)
    parser.add_argument(
        "--pad", type=int, default=2000, help="characters added to each payload [2000]"
    )
    parser.add_argument(
        "--database", default="", metavar="URL", help="also on this PostgreSQL database (emptied)"
    )
    parser.add_argument("--quick", action="store_true", help="2,000 traces, for the smoke test")
    args = parser.parse_args()
    traces = 2000 if args.quick else args.traces
    OUT.mkdir(parents=True, exist_ok=True)
    pristine = OUT / f"migration-{traces}-{args.pad}.db"
    if not pristine.exists():
        partial = pristine.with_suffix(".partial")
        for leftover in OUT.glob(partial.name + "*"):
            leftover.unlink()
        print(
            f"generating {traces:,} traces in "
            f"{generate(partial, traces, old_times=True, pad=args.pad):.1f} s",
            flush=True,
        )
        partial.rename(pristine)
    figures = {"traces": traces, "pad": args.pad, "sqlite": sqlite_figures(pristine, traces)}
    if args.database:
        figures["postgresql"] = postgres_figures(pristine, args.database, traces)
    write_figures("migration", figures, args.quick)


if __name__ == "__main__":
    main()
