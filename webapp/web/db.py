"""The store's life cycle inside a Flask app: one store per request.

Its connection an idle one of the process where the engine keeps them."""

from flask import current_app, g

from ..store import Store, StoreUnavailable

# A request waits at most this long for the database before answering 503 + Retry-After, well
# within the export timeouts of shippers and OpenTelemetry SDKs (10 s and more).
REQUEST_WAIT_MS = 5_000


def init_app(app) -> None:
    """Create the schema once and close each request's connection afterwards."""
    try:
        Store.from_settings(app.config, create=True).close()
    # e.g. a worker restarting while the file is read-only
    except StoreUnavailable as error:
        app.logger.warning(
            "the database cannot be written now (%s): reads are served, writes answer 503", error
        )
    app.teardown_appcontext(close_store)


def get_store() -> Store:
    """Return this request's store, opening it on first use."""
    if "store" not in g:
        g.store = Store.from_settings(
            current_app.config, busy_timeout_ms=REQUEST_WAIT_MS, pooled=True
        )
    return g.store


def close_store(_exc=None) -> None:
    store = g.pop("store", None)
    if store is not None:
        store.close()
