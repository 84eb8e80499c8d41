"""Run the app under gunicorn, the production WSGI server."""
from gunicorn.app.base import BaseApplication


class TracediffServer(BaseApplication):
    """A gunicorn application whose workers each build the app with create_app."""

    def __init__(self, settings: dict, options: dict):
        self.settings = settings
        self.options = options
        super().__init__()

    def load_config(self):
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self):
        from . import create_app

        return create_app(self.settings)


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
    }
    TracediffServer(settings, options).run()
