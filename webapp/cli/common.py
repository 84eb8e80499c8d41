"""What every command shares.

The --db option, the report options, the settings, opening the store, and the one-line input
error."""

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from ..store import Store

DB_OPTION = click.option(
    "--db",
    "database",
    envvar="TRACEDIFF_DATABASE",
    default=None,
    help="SQLite database file [env TRACEDIFF_DATABASE; default tracediff.db].",
)


def _operations(ctx, param, values):
    from ..contracts import ContractError, parse_operations

    try:
        return parse_operations(values)
    except ContractError as error:
        raise click.BadParameter(str(error), ctx, param) from None


OPERATION_OPTION = click.option(
    "--operation",
    "operations",
    multiple=True,
    metavar="TOOL=OPERATION_ID",
    callback=_operations,
    help="Map a tool name to an OpenAPI operationId, or to the operation's `METHOD /path` "
    "('adoptObserved=POST /api/v1/tools/{name}/observed/adopt'; repeatable).",
)


def report_options(command):
    """--format and --junit, as `check` and `lint` report."""
    command = click.option(
        "--junit",
        type=click.Path(dir_okay=False),
        default=None,
        help="Also write a JUnit XML report here.",
    )(command)
    return click.option(
        "--format",
        "output",
        type=click.Choice(["text", "github", "json"]),
        default="text",
        show_default=True,
        help="Report as text, as GitHub Actions annotations, or as JSON.",
    )(command)


class InputError(click.ClickException):
    """A usage or input error found after parsing the options.

    One line, exit code 2."""

    exit_code = 2


def _settings(database=None, **overrides) -> dict:
    from ..config import SettingError, load_settings

    extra = {k: v for k, v in overrides.items() if v is not None}
    if database:
        extra["DATABASE"] = database
    try:
        return load_settings(extra)
    except SettingError as error:
        raise click.ClickException(str(error)) from None


def _shown(database) -> str:
    """The database as messages show it: a URL without its password."""
    # the store package is imported only by the commands that use it
    from ..store.urls import redacted_url

    return redacted_url(database)


def _open_store(settings: dict, create: bool = True) -> "Store":
    """Open the database, or fail with one line saying why."""
    import sqlite3

    from ..store import SchemaTooNew, Store, StoreUnavailable

    try:
        return Store.from_settings(settings, create=create)
    except (sqlite3.Error, OSError, StoreUnavailable, SchemaTooNew) as error:
        raise click.ClickException(
            f"cannot open the database {_shown(settings['DATABASE'])}: {error}"
        ) from None


def _open_existing_store(database) -> "Store":
    """Open a database that must already exist; never create one."""
    from ..store.urls import is_postgres_url

    settings = _settings(database)
    if not is_postgres_url(settings["DATABASE"]) and not Path(settings["DATABASE"]).is_file():
        raise click.ClickException(f"there is no database at {_shown(settings['DATABASE'])}")
    store = _open_store(settings, create=False)
    if not store.has_tables():
        raise click.ClickException(
            f"the database {store.path} holds no tracediff tables yet: start "
            "`tracediff serve` on it (or `tracediff migrate --to` it) first"
        )
    return store
