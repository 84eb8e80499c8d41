"""Data on the command line.

Load files of events, prune old traces, back up, move SQLite to PostgreSQL."""

import sys

import click

from ..common.words import counted
from .common import DB_OPTION, _open_existing_store, _open_store, _settings, _shown

MIB = 1024 * 1024


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(allow_dash=True))
@DB_OPTION
@click.option(
    "--batch-size",
    type=click.IntRange(1),
    default=1000,
    show_default=True,
    help="Events committed per transaction.",
)
def ingest(files, database, batch_size):
    """Load NDJSON or JSON files of events (- for stdin) into the database."""
    from ..pipeline.bulk import file_limits, ingest_files
    from ..redaction.redactor import redactor_for

    settings = _settings(database)
    store = _open_store(settings)
    summary = ingest_files(store, files, redactor_for(settings), batch_size, file_limits(settings))
    if summary.stopped:
        raise click.ClickException(summary.stopped_line())
    _analyse_what_fits(store)
    click.echo(summary.describe())
    sys.exit(0 if not summary.failed_files else 1)


def _analyse_what_fits(store) -> None:
    """Analyse what was loaded.

    A database that cannot take the analysis leaves it to a server (stored is stored)."""
    from .. import pipeline
    from ..store import StoreUnavailable

    try:
        pipeline.catch_up(store)
    except StoreUnavailable as error:
        click.echo(
            f"warning: every event was stored, but not yet analysed ({error}); a running server "
            "(or `tracediff reanalyze`) analyses them once the database has room",
            err=True,
        )


@click.command()
@click.option(
    "--to",
    "to",
    required=True,
    metavar="URL",
    help="An empty PostgreSQL database: postgresql://user@host/db",
)
@DB_OPTION
def migrate(to, database):
    """Copy this SQLite database into PostgreSQL.

    Every trace, analysis, contract, problem and alert rule."""
    import sqlite3

    from ..store import StoreUnavailable
    from ..store.copy import copy_database
    from ..store.urls import is_postgres_url

    if not is_postgres_url(to):
        raise click.UsageError("--to takes a postgresql:// URL")
    source = _open_existing_store(database)
    if source.engine != "sqlite":
        raise click.UsageError(
            "the database to copy from is a SQLite file (--db or TRACEDIFF_DATABASE)"
        )
    # an older file is upgraded first, as `tracediff serve` would, so rows copy as they are
    source.create_schema()
    destination = _open_store({"DATABASE": to, "SYNCHRONOUS": "FULL"}, create=True)
    try:
        copied = copy_database(
            source, destination, report=lambda table, rows: click.echo(f"{table}: {rows} row(s)")
        )
    except (ValueError, sqlite3.Error, StoreUnavailable) as error:
        raise click.ClickException(f"nothing copied: {error}") from None
    click.echo(
        f"copied {counted(copied.get('events', 0), 'event')} and "
        f"{counted(copied.get('traces', 0), 'trace')} "
        f"to {destination.path}; point TRACEDIFF_DATABASE at it"
    )


@click.command()
@click.option(
    "--days",
    type=int,
    default=None,
    help="Delete traces not seen for this many days [default TRACEDIFF_RETENTION_DAYS].",
)
@click.option(
    "--vacuum",
    is_flag=True,
    help="Rebuild the file with VACUUM (needs free space the size of the database "
    "on its disk, and as much where SQLITE_TMPDIR points).",
)
@DB_OPTION
def prune(days, vacuum, database):
    """Delete old traces in small transactions, then give the space back to the disk."""
    import sqlite3

    from ..ops.analyser import cutoff
    from ..pipeline.rules import RULES
    from ..store import StoreUnavailable

    settings = _settings(database)
    days = settings["RETENTION_DAYS"] if days is None else days
    if days <= 0:
        raise click.ClickException("give --days N (or set TRACEDIFF_RETENTION_DAYS) with N > 0")
    since = cutoff(days)
    store = _open_existing_store(database)
    # before prune writes its own WAL
    before = sum(store.file_sizes().values())
    try:
        deleted = store.prune(since, rules=RULES)
    except (StoreUnavailable, sqlite3.Error) as error:
        raise click.ClickException(
            f"cannot prune {_shown(settings['DATABASE'])}: {error}. {_advice(error)}"
        ) from None
    click.echo(f"deleted {counted(deleted, 'trace')} not seen since {since}")
    try:
        space = store.reclaim(full_vacuum=vacuum)
    except (StoreUnavailable, sqlite3.Error) as error:
        raise click.ClickException(_not_reclaimed(deleted, vacuum, before, error)) from None
    click.echo(
        f"database and WAL: {before / MIB:.1f} MiB -> {space.after / MIB:.1f} MiB"
        + (
            ""
            if space.incremental
            else " (run prune --vacuum once to have the file give freed pages back)"
        )
    )


def _advice(error) -> str:
    """What to do about a database that stopped prune, by cause.

    Full, cannot be written, locked."""
    text = str(error).lower()
    if "full" in text:
        return "Free some space on its disk and run prune again (what it deleted stays deleted)"
    if any(
        word in text for word in ("readonly", "read-only", "cannot be written", "unable to open")
    ):
        return (
            "It cannot be written: mount its disk read-write and let this user write the file and "
            "its folder "
            "(`lsattr` shows an immutable file, `chattr -i` clears it), then run prune again"
        )
    if any(word in text for word in ("locked", "busy")):
        return "Another process holds it locked: run prune again when that process is done"
    return "Run prune again"


def _not_reclaimed(deleted: int, vacuum: bool, before: int, error) -> str:
    """The deletion worked; giving the space back did not."""
    if vacuum and "full" in str(error).lower():
        return (
            f"{_were_deleted(deleted)}, but VACUUM failed: {error}. VACUUM needs free "
            "space about "
            f"the size of the database ({before / MIB:.1f} MiB) on its disk, and as much for its "
            "temporary files "
            "where SQLITE_TMPDIR points (default /var/tmp): free some, or prune without --vacuum"
        )
    step = "VACUUM" if vacuum else "giving their space back"
    return f"{_were_deleted(deleted)}, but {step} failed: {error}. {_advice(error)}"


@click.command()
@click.argument("path", type=click.Path(dir_okay=False))
@DB_OPTION
def backup(path, database):
    """Copy the database to PATH while the server runs (a consistent snapshot)."""
    import sqlite3

    from ..store import NotOnThisEngine, StoreUnavailable

    store = _open_existing_store(database)
    try:
        click.echo(f"backed up {store.path} to {path} ({store.backup(path) / MIB:.1f} MiB)")
    except (StoreUnavailable, sqlite3.Error, OSError, NotOnThisEngine) as error:
        raise click.ClickException(f"cannot back up to {path}: {error}") from None


def _were_deleted(deleted: int) -> str:
    """Say how many traces were deleted: `the 1 trace was`, `the 200 traces were`."""
    return "the 1 trace was deleted" if deleted == 1 else f"the {deleted} traces were deleted"
