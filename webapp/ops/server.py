"""Run the app under gunicorn, the production WSGI server.

Threaded workers, metrics files, reloads."""

import errno
import logging
import os
import shutil
import socket
import tempfile
from pathlib import Path

from gunicorn.app.base import BaseApplication
from gunicorn.glogging import Logger

from ..config import SettingError, load_settings
from . import logs

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


DRAINING_WORKER = "webapp.ops.draining.DrainingWorker"
# worker classes that mean "gunicorn's own threads": tracediff's worker is that, with a stop that
# drains
THREADED_CLASSES = {
    "sync",
    "gthread",
    "gunicorn.workers.sync.SyncWorker",
    "gunicorn.workers.gthread.ThreadWorker",
    "SyncWorker",
    "ThreadWorker",
    DRAINING_WORKER,
}


class ServerError(Exception):
    """The server cannot start (the address cannot be bound)."""


class ServerLogger(Logger):
    """gunicorn's logger with tracediff's line format and request ids.

    No query strings by default."""

    def setup(self, cfg):
        super().setup(cfg)
        logs.use_format(self.error_log, self.access_log)

    def access(self, resp, req, environ, request_time):
        fields = logs.access_fields(
            environ, resp.status_code, getattr(resp, "sent", 0) or 0, request_time.total_seconds()
        )
        self.access_log.info(logs.access_message(fields), extra={"fields": fields})


class TracediffServer(BaseApplication):
    """A gunicorn application whose workers each build the app.

    With the factory the command line passes in.

    On SIGHUP gunicorn calls load_config again: the settings (environment and
    TRACEDIFF_SETTINGS_FILE) are read anew, then fresh workers start with them and the old ones
    finish their requests.
    """

    def __init__(self, app_factory, settings: dict, overrides: dict | None = None):
        self.app_factory = app_factory
        self.settings = settings
        self.overrides = overrides or {}
        super().__init__()

    def load_config(self):
        # a reload (SIGHUP), not the start
        if getattr(self, "_loaded", False):
            self._reread_settings()
        self._loaded = True
        for key, value in gunicorn_options(self.settings).items():
            # settings newer than the installed gunicorn are skipped
            if key in self.cfg.settings:
                self.cfg.set(key, value)
        # GUNICORN_CMD_ARGS (e.g. "--keep-alive 5 --backlog 512") wins over tracediff's choices
        parsed = self.cfg.parser().parse_args(self.cfg.get_cmd_args_from_env())
        for key, value in vars(parsed).items():
            if value is not None and key in self.cfg.settings:
                self.cfg.set(key.lower(), value)
        keep_draining_worker(self.cfg)

    def _reread_settings(self) -> None:
        try:
            self.settings = load_settings(self.overrides)
            logs.configure(self.settings)
            logging.getLogger("webapp").info(
                "reload: settings read again; new workers start with them"
            )
        # a typo in the settings file must not stop a running server
        except SettingError as error:
            logging.getLogger("webapp").error(
                "reload refused, keeping the running settings: %s", error
            )

    def load(self):
        logs.configure(self.settings)
        return self.app_factory(self.settings)


def gunicorn_options(settings: dict) -> dict:
    """Return the gunicorn settings tracediff runs with.

    GUNICORN_CMD_ARGS may override any."""
    return {
        "bind": bind_address(settings["HOST"], settings["PORT"]),
        "workers": settings["WORKERS"],
        # threads answer health and pages while other requests read slow bodies or wait for the
        # database
        "worker_class": DRAINING_WORKER,
        "threads": settings["THREADS"],
        "timeout": 60,
        "graceful_timeout": settings["GRACEFUL_TIMEOUT"],
        # seconds a connection may sit idle, before its first request or between two
        "keepalive": 5,
        # open connections per worker; past it the idlest is closed (draining.py)
        "worker_connections": 1000,
        "accesslog": "-",
        "errorlog": "-",
        "logger_class": ServerLogger,
        "child_exit": _child_exit,
        # gunicorn 25+ opens a control socket at one path per user: servers side by side would share
        # it
        "control_socket_disable": True,
    }


def bind_address(host: str, port) -> str:
    """Return gunicorn's bind for a host and port.

    An IPv6 address in brackets (`[::1]:8000`)."""
    host = host.strip()
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{host}:{port}"


def keep_draining_worker(cfg) -> None:
    """Run DrainingWorker for any threaded class GUNICORN_CMD_ARGS names.

    `unsupported_worker` tells the rest.

    gunicorn would turn `--worker-class sync` into its stock gthread worker (threads above 1), whose
    stop resets the connections waiting in the listen queue.
    """
    if unsupported_worker(cfg) is None:
        cfg.set("worker_class", DRAINING_WORKER)


def unsupported_worker(cfg) -> str | None:
    """Name a worker class GUNICORN_CMD_ARGS chose that DrainingWorker can't replace.

    One that is not threaded."""
    chosen = cfg.settings["worker_class"].get()
    name = chosen if isinstance(chosen, str) else f"{chosen.__module__}.{chosen.__qualname__}"
    return None if name in THREADED_CLASSES else name


def address_url(address) -> str:
    """Name an address as the start line shows it."""
    if isinstance(address, tuple):
        host, port = address
        return f"http://{f'[{host}]' if ':' in host else host}:{port}/"
    return f"unix:{address}" if isinstance(address, str) else f"fd://{address}"


def _child_exit(server, worker) -> None:
    """Fold a finished worker's metrics into the totals of the dead.

    prometheus_client multiprocess."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def check_bindable(host: str, port) -> None:
    """Raise ServerError saying why `host:port` cannot be listened on.

    In use, no permission..."""
    if not isinstance(port, int) or not 1 <= port <= 65535:
        raise ServerError(f"port {port!r} is not a port number (1-65535)")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError) as error:
        raise ServerError(f"cannot listen on {host}:{port}: unknown host ({error})") from None
    with socket.socket(family, kind, proto) as probe:
        # as gunicorn does
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                raise ServerError(
                    f"port {port} on {host} is already in use; stop the other server or choose "
                    "another --port"
                ) from None
            raise ServerError(
                f"cannot listen on {host}:{port}: {error.strerror or error}"
            ) from None


def metrics_folder() -> tuple[Path, bool]:
    """Set and empty PROMETHEUS_MULTIPROC_DIR; return it and if it is ours.

    Set before prometheus_client is imported, emptied of an earlier run's files; return it and
    whether it is a temporary folder of ours."""
    given = os.environ.get(MULTIPROC_ENV)
    folder = Path(given) if given else Path(tempfile.mkdtemp(prefix="tracediff-metrics-"))
    folder.mkdir(parents=True, exist_ok=True)
    # counters of dead processes from a previous run
    for stale in folder.glob("*.db"):
        stale.unlink()
    os.environ[MULTIPROC_ENV] = str(folder)
    return folder, not given


def serve(server: TracediffServer) -> None:
    """Serve until stopped, with the configuration the server was made with."""
    folder, temporary = metrics_folder()
    master = os.getpid()
    try:
        server.run()
    finally:
        # a worker leaves through here too (gunicorn ends it with sys.exit): only the master cleans
        # up
        if temporary and os.getpid() == master:
            shutil.rmtree(folder, ignore_errors=True)
