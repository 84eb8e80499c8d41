"""Where the MCP tools read from.

Tracediff's JSON API, through one small interface with two adapters.

`HttpSource` speaks to a running tracediff over HTTP with a read token (`tracediff mcp`, on stdio);
`AppSource` (inprocess.py) calls the app in the same process (`/mcp` of `tracediff serve`). Both
answer the API's JSON, and its errors as `SourceError` with the API's code, message and retryable,
so the tools are written once.
"""

from typing import Protocol
from urllib.parse import quote

from ..common import jsontext

# a read may analyse calls within the server's analysis budget (2 s by default) first
TIMEOUT_S = 30.0


class SourceError(Exception):
    """An error the API answered (or the way to it failed).

    Its code, message and whether a retry may help."""

    def __init__(self, code: str, message: str, retryable: bool = False, status: int | None = None):
        super().__init__(message)
        self.code, self.message, self.retryable, self.status = code, message, retryable, status

    def shape(self) -> dict:
        """Return the API's error shape."""
        return {"code": self.code, "message": self.message, "retryable": self.retryable}


class Source(Protocol):
    """What the tools need of tracediff.

    Its address for permalinks, GET and POST of the JSON API, and where a page redirects to."""

    base_url: str

    def get(self, path: str, params: dict | None = None) -> dict: ...

    def post(self, path: str, body: dict) -> dict: ...

    def location(self, path: str) -> str | None: ...


def link(source: Source, *parts: str) -> str:
    """Return a permalink on the source's server.

    Each part a path segment, percent-encoded."""
    return source.base_url.rstrip("/") + "/" + "/".join(quote(part, safe="") for part in parts)


def answer(status: int, body: bytes, where: str) -> dict:
    """Return an API answer's JSON.

    Raise SourceError for an error status, or a body that is not the API's JSON."""
    try:
        data = jsontext.loads(body) if body else None
    except jsontext.JSONDecodeError:
        data = None
    if status >= 400:
        error = data.get("error") if isinstance(data, dict) else None
        if isinstance(error, dict) and isinstance(error.get("code"), str):
            raise SourceError(
                error["code"], str(error.get("message", "")), bool(error.get("retryable")), status
            )
        raise SourceError(
            "bad_answer",
            f"{where} answered HTTP {status} without the API's error",
            status >= 500,
            status,
        )
    if not isinstance(data, dict):
        raise SourceError(
            "bad_answer", f"{where} answered HTTP {status} without a JSON object", False, status
        )
    return data


class HttpSource:
    """The JSON API of a running tracediff over HTTP, with a Bearer token (read scope)."""

    def __init__(self, url: str, token: str | None = None):
        # here: `tracediff mcp --help` starts without it
        import httpx

        self.base_url = url.rstrip("/")
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.client = httpx.Client(base_url=self.base_url, headers=headers, timeout=TIMEOUT_S)
        self._transport_errors = (httpx.TransportError,)

    def _send(self, method: str, path: str, follow: bool = True, **kwargs):
        try:
            return self.client.request(method, path, follow_redirects=follow, **kwargs)
        except self._transport_errors as error:
            raise SourceError(
                "unreachable", f"cannot reach tracediff at {self.base_url}: {error}", retryable=True
            ) from None

    def get(self, path: str, params: dict | None = None) -> dict:
        reply = self._send("GET", path, params=_plain(params))
        return answer(reply.status_code, reply.content, f"GET {path}")

    def post(self, path: str, body: dict) -> dict:
        data = jsontext.dumps(body)
        reply = self._send("POST", path, content=data, headers={"Content-Type": "application/json"})
        return answer(reply.status_code, reply.content, f"POST {path}")

    def location(self, path: str) -> str | None:
        reply = self._send("GET", path, follow=False)
        if reply.status_code in (301, 302, 303, 307, 308):
            return reply.headers.get("Location")
        if reply.status_code == 404:
            return None
        answer(reply.status_code, reply.content, f"GET {path}")
        return None

    def close(self) -> None:
        self.client.close()


def _plain(params: dict | None) -> dict:
    """Return query parameters without the ones left empty."""
    return {key: value for key, value in (params or {}).items() if value not in (None, "")}
