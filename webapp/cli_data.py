"""Data on the command line: load files of events, prune old traces, back up, move SQLite to PostgreSQL."""
import sys

import click

from .cli import DB_OPTION, _open_existing_store, _open_store, _settings, _shown

MB = 1024 * 1024


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(allow_dash=True))
@DB_OPTION
@click.option("--batch-size", type=click.IntRange(1), default=1000, show_default=True,
              help="Events committed per transaction.")
def ingest(files, database, batch_size):
    """Load NDJSON or JSON files of events (- for stdin) into the database."""
    from .bulk import file_limits, ingest_files
    from .redact import redactor_for

    settings = _settings(database)
    store = _open_store(settings)
    summary = ingest_files(store, files, redactor_for(settings), batch_size, file_limits(settings))
    if summary.stopped:
        raise click.ClickException(summary.stopped_line())
    _analyse_what_fits(store)
    click.echo(summary.describe())
    sys.exit(0 if not summary.failed_files else 1)


def _analyse_what_fits(store) -> None:
    """Analyse what was loaded; a database that cannot take the analysis leaves it to a server (stored is stored)."""
    from . import pipeline
    from .store import StoreUnavailable

    try:
        pipeline.catch_up(store)
    except StoreUnavailable as error:
        click.echo(f"warning: every event was stored, but not yet analysed ({error}); a running server "
                   "(or `tracediff reanalyze`) analyses them once the database has room", err=True)


@click.command()
@click.option("--to", "to", required=True, metavar="URL", help="An empty PostgreSQL database: postgresql://user@host/db")
@DB_OPTION
def migrate(to, database):
    """Copy this SQLite database (every trace, analysis, contract, problem and alert rule) into PostgreSQL."""
    import sqlite3

    from .store import StoreUnavailable
    from .store.copy import copy_database
    from .store.urls import is_postgres_url

    if not is_postgres_url(to):
        raise click.UsageError("--to takes a postgresql:// URL")
    source = _open_existing_store(database)
    if source.engine != "sqlite":
        raise click.UsageError("the database to copy from is a SQLite file (--db or TRACEDIFF_DATABASE)")
    source.create_schema()  # an older file is upgraded first, as `tracediff serve` would, so rows copy as they are
    destination = _open_store({"DATABASE": to, "SYNCHRONOUS": "FULL"}, create=True)
    try:
        copied = copy_database(source, destination,
                               report=lambda table, rows: click.echo(f"{table}: {rows} row(s)"))
    except (ValueError, sqlite3.Error, StoreUnavailable) as error:
        raise click.ClickException(f"nothing copied: {error}") from None
    click.echo(f"copied {copied.get('events', 0)} event(s) and {copied.get('traces', 0)} trace(s) "
               f"to {destination.path}; point TRACEDIFF_DATABASE at it")


@click.command()
@click.option("--days", type=int, default=None, help="Delete traces not seen for this many days "
              "[default TRACEDIFF_RETENTION_DAYS].")
@click.option("--vacuum", is_flag=True, help="Rebuild the file with VACUUM (needs free space the size of the database).")
@DB_OPTION
def prune(days, vacuum, database):
    """Delete old traces in small transactions, then give the space back to the disk."""
    import sqlite3

    from .store import StoreUnavailable
    from .worker import cutoff

    settings = _settings(database)
    days = settings["RETENTION_DAYS"] if days is None else days
    if days <= 0:
        raise click.ClickException("give --days N (or set TRACEDIFF_RETENTION_DAYS) with N > 0")
    since = cutoff(days)
    store = _open_existing_store(database)
    try:
        deleted = store.prune(since)
        click.echo(f"deleted {deleted} trace(s) not seen since {since}")
        space = store.reclaim(full_vacuum=vacuum)
    except (StoreUnavailable, sqlite3.Error) as error:
        raise click.ClickException(f"cannot prune {_shown(settings['DATABASE'])}: {error}. Free some space on its disk "
                                   "(or stop what holds it locked) and run prune again") from None
    click.echo(f"database and WAL: {space.before / MB:.1f} MB -> {space.after / MB:.1f} MB" + (
        "" if space.incremental else " (run prune --vacuum once to have the file give freed pages back)"))


@click.command()
@click.argument("path", type=click.Path(dir_okay=False))
@DB_OPTION
def backup(path, database):
    """Copy the database to PATH while the server runs (a consistent snapshot)."""
    import sqlite3

    from .store import NotOnThisEngine, StoreUnavailable

    store = _open_existing_store(database)
    try:
        click.echo(f"backed up {store.path} to {path} ({store.backup(path) / MB:.1f} MB)")
    except (StoreUnavailable, sqlite3.Error, OSError, NotOnThisEngine) as error:
        raise click.ClickException(f"cannot back up to {path}: {error}") from None
