"""`tracediff serve`.

Check what gunicorn will really listen on, prepare the database, then run.

Everything serve says once its settings are read goes through the logging setup (text or JSON lines
on stderr, with a timestamp); a setting or option it refuses before that is one plain line, as for
every command.
"""

import logging
from datetime import UTC

import click

from .common import DB_OPTION, _open_store, _settings, _shown

log = logging.getLogger("webapp.serve")


@click.command()
@click.option("--host", default=None, help="Address to listen on [default 127.0.0.1].")
@click.option(
    "--port", type=click.IntRange(1, 65535), default=None, help="Port to listen on [default 8000]."
)
@click.option(
    "--workers", type=click.IntRange(1), default=None, help="Worker processes [default 2]."
)
@DB_OPTION
@click.option("--demo", is_flag=True, help="Load sample_traces/ when the database is empty.")
@click.option(
    "--allow-open",
    is_flag=True,
    default=None,
    help="Listen on a non-loopback address with no token set [env TRACEDIFF_ALLOW_OPEN].",
)
def serve(host, port, workers, database, demo, allow_open):
    """Run the dashboard and the ingest API with gunicorn."""
    from ..ops import logs
    from ..ops.server import DRAINING_WORKER, TracediffServer, address_url, unsupported_worker
    from ..ops.server import serve as run_server
    from ..web.proxies import trusted_networks

    overrides = {
        k: v
        for k, v in {
            "HOST": host,
            "PORT": port,
            "WORKERS": workers,
            "ALLOW_OPEN": allow_open,
        }.items()
        if v is not None
    }
    settings = _settings(database, **overrides)
    if database:
        overrides["DATABASE"] = database
    from .. import create_app

    # GUNICORN_CMD_ARGS may change the addresses and worker class
    server = TracediffServer(create_app, settings, overrides)
    if unsupported_worker(server.cfg):
        raise click.ClickException(
            f"worker class {unsupported_worker(server.cfg)} is not supported: tracediff serve "
            f"runs {DRAINING_WORKER} (gunicorn's threaded worker with a stop that resets no "
            "connection); set TRACEDIFF_THREADS instead"
        )
    addresses = server.cfg.address
    _check_exposure(settings, addresses)
    try:
        trusted_networks(settings["TRUSTED_PROXIES"])
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    _check_bindable(addresses)
    logs.configure(settings)
    # a database it cannot open is then the one line serve says
    _prepare_database(settings, demo, addresses)
    _warn_about_tokens(settings)
    log.info(
        "tracediff on %s (database %s)",
        ", ".join(map(address_url, addresses)),
        _shown(settings["DATABASE"]),
    )
    run_server(server)


def _check_exposure(settings: dict, addresses: list) -> None:
    """Refuse to serve a network where anyone could ingest (unless told to).

    Every address gunicorn binds counts.

    Read or admin tokens alone leave ingest open (ingest is open while no ingest token is set), so
    they do not count: a careful operator who set some tokens expects the rest closed, not a warning
    in the log."""
    from ..common.tokens import Keyring
    from ..web.hosts import is_loopback

    keyring = Keyring.from_settings(settings)
    if keyring.configured("ingest") or settings["ALLOW_OPEN"]:
        return
    for address in addresses:
        # a unix socket or an inherited descriptor is reached through whatever made it (nginx,
        # systemd)
        if isinstance(address, tuple) and not is_loopback(address[0]):
            raise click.ClickException(_exposure_message(address[0], keyring.empty))


def _exposure_message(host: str, empty: bool) -> str:
    if empty:
        return (
            f"refusing to listen on {host} with no token set: anyone who reaches it could ingest, "
            "read and "
            "change contracts. Set TRACEDIFF_ADMIN_TOKENS, TRACEDIFF_INGEST_TOKENS and "
            "TRACEDIFF_READ_TOKENS, "
            "or pass --allow-open (TRACEDIFF_ALLOW_OPEN=1) behind a proxy that authenticates people"
        )
    return (
        f"refusing to listen on {host} with ingest open: no TRACEDIFF_INGEST_TOKENS is set, so "
        "anyone who "
        "reaches it could send events (read and admin tokens do not close ingest). Set "
        "TRACEDIFF_INGEST_TOKENS, "
        "or pass --allow-open (TRACEDIFF_ALLOW_OPEN=1) to serve ingest open on purpose"
    )


def _check_bindable(addresses: list) -> None:
    """Say in one line, before anything starts, that an address cannot be listened on."""
    from ..ops.server import ServerError, check_bindable

    for address in addresses:
        if isinstance(address, tuple):
            try:
                check_bindable(*address)
            except ServerError as error:
                raise click.ClickException(str(error)) from None


def _warn_about_tokens(settings: dict) -> None:
    from ..common.tokens import Keyring, startup_warnings

    for warning in startup_warnings(Keyring.from_settings(settings)):
        log.warning("%s", warning)


def _prepare_database(settings: dict, demo: bool, addresses=()) -> None:
    """Create or migrate the database and get it ready to serve.

    Load the demo traces, take back a stopped server's claims and note the address people reach this
    server at (for `tracediff alerts test` run beside it)."""
    from datetime import datetime

    from ..common.resources import resource_dir
    from ..ops.server import address_url
    from ..redaction.redactor import redactor_for
    from ..store import StoreUnavailable
    from .demo import load_folder

    store = _open_store(settings)
    if demo and store.count_traces() == 0:
        # moved to the day before now, so "last 24h" and "new" show the demo (README: the demo's
        # times)
        result = load_folder(
            store, resource_dir("sample_traces"), redactor_for(settings), now=datetime.now(UTC)
        )
        log.info("demo: loaded %d events from sample_traces/", result.accepted)
    elif demo:
        log.info(
            "demo: the database holds traces already; sample_traces/ not loaded (it loads into an "
            "empty one)"
        )
    try:
        released, resent = store.release_claims(), store.release_alert_leases()
        own = [address_url(a) for a in addresses if isinstance(a, tuple)]
        if settings["PUBLIC_URL"] or own:
            store.note_server_url(settings["PUBLIC_URL"] or own[0])
    # a read-only database: nothing is analysed or sent anyway
    except StoreUnavailable:
        released = resent = 0
    if resent:
        log.info("alerts: %d message(s) a stopped server was sending are retried now", resent)
    # let this server analyse at once what a stopped one had claimed (claims expire after 30 s)
    if released:
        log.info("analysis: took back %d call(s) a stopped server was analysing", released)
    store.close()
