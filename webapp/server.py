"""Run the app under gunicorn, the production WSGI server."""
import errno
import socket

from gunicorn.app.base import BaseApplication


class ServerError(Exception):
    """The server cannot start (the address cannot be bound)."""


class TracediffServer(BaseApplication):
    """A gunicorn application whose workers each build the app with create_app."""

    def __init__(self, settings: dict, options: dict):
        self.settings = settings
        self.options = options
        super().__init__()

    def load_config(self):
        for key, value in self.options.items():
            if key in self.cfg.settings:  # settings newer than the installed gunicorn are skipped
                self.cfg.set(key, value)

    def load(self):
        from . import create_app

        return create_app(self.settings)


def check_bindable(host: str, port) -> None:
    """Raise ServerError saying why `host:port` cannot be listened on (in use, no permission...)."""
    if not isinstance(port, int) or not 1 <= port <= 65535:
        raise ServerError(f"port {port!r} is not a port number (1-65535)")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError) as error:
        raise ServerError(f"cannot listen on {host}:{port}: unknown host ({error})") from None
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as gunicorn does
        try:
            probe.bind(address)
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                raise ServerError(f"port {port} on {host} is already in use; stop the other server "
                                  "or choose another --port") from None
            raise ServerError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None


def serve(settings: dict) -> None:
    """Serve until stopped, with the host, port and workers of the settings."""
    options = {
        "bind": f"{settings['HOST']}:{settings['PORT']}",
        "workers": settings["WORKERS"],
        "worker_class": "sync",
        "timeout": 60,
        "graceful_timeout": 10,
        "accesslog": "-",
        "access_log_format": '%(h)s "%(r)s" %(s)s %(b)s %(M)sms',
        "errorlog": "-",
        # gunicorn 25+ opens a control socket at one path per user: servers side by side would share it
        "control_socket_disable": True,
    }
    TracediffServer(settings, options).run()
