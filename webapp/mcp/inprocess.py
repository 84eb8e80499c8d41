"""The JSON API called inside the server's own process.

The source of `/mcp`.

Each read is a WSGI request to the same app, built by werkzeug and run to its end (no socket, no
second worker thread), carrying the MCP request's token and address so the API checks and logs it as
its own. It runs in an empty context: a request nested in the `/mcp` one would otherwise share its
Flask app context (`g`, the store's connection) across threads.
"""

import contextvars

from werkzeug.test import EnvironBuilder, run_wsgi_app

from ..common import jsontext
from .source import SourceError, _plain, answer


class AppSource:
    """The JSON API of the app this process serves.

    As the client of one `/mcp` request sees it."""

    def __init__(self, app, base_url: str, authorization: str | None, remote_addr: str | None):
        self.app, self.base_url = app, base_url.rstrip("/")
        self.headers = {"Authorization": authorization} if authorization else {}
        self.environ = {"REMOTE_ADDR": remote_addr or "127.0.0.1"}

    def _call(self, method: str, path: str, params: dict | None = None, body: bytes | None = None):
        builder = EnvironBuilder(
            path=path,
            base_url=self.base_url + "/",
            method=method,
            query_string=_plain(params) or None,
            data=body,
            content_type="application/json" if body is not None else None,
            headers=self.headers,
            environ_base=self.environ,
        )
        try:
            environ = builder.get_environ()
        finally:
            builder.close()
        chunks, status, headers = contextvars.Context().run(run_wsgi_app, self.app, environ, True)
        try:
            return int(status.split(" ", 1)[0]), b"".join(chunks), headers
        finally:
            getattr(chunks, "close", lambda: None)()

    def get(self, path: str, params: dict | None = None) -> dict:
        status, body, headers = self._call("GET", path, params)
        # a merged problem answers where it went
        if status in (301, 308) and headers.get("Location"):
            status, body, _ = self._call("GET", _local(headers["Location"], self.base_url))
        return answer(status, body, f"GET {path}")

    def post(self, path: str, body: dict) -> dict:
        status, data, _ = self._call("POST", path, body=jsontext.dumps(body))
        return answer(status, data, f"POST {path}")

    def location(self, path: str) -> str | None:
        status, body, headers = self._call("GET", path)
        if status in (301, 302, 303, 307, 308):
            return headers.get("Location")
        if status == 404:
            return None
        answer(status, body, f"GET {path}")
        return None


def _local(location: str, base_url: str) -> str:
    """Return a redirect's path on this server.

    An absolute Location of our own, or a path."""
    if location.startswith(base_url):
        return location[len(base_url) :] or "/"
    if location.startswith("/"):
        return location
    raise SourceError("bad_answer", f"the API redirected off this server: {location[:100]!r}")
