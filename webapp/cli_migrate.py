"""`tracediff migrate --to postgresql://...`: move a SQLite database to PostgreSQL."""
import click

from .cli import DB_OPTION, _open_existing_store, _open_store


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
    destination = _open_store({"DATABASE": to, "SYNCHRONOUS": "FULL"}, create=True)
    try:
        copied = copy_database(source, destination,
                               report=lambda table, rows: click.echo(f"{table}: {rows} row(s)"))
    except (ValueError, sqlite3.Error, StoreUnavailable) as error:
        raise click.ClickException(f"nothing copied: {error}") from None
    click.echo(f"copied {copied.get('events', 0)} event(s) and {copied.get('traces', 0)} trace(s) "
               f"to {destination.path}; point TRACEDIFF_DATABASE at it")
