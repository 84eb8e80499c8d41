"""POST /mcp of `tracediff serve`.

The MCP server over Streamable HTTP, as a view of the app.

A view, not an ASGI app mounted beside it: the request first passes everything the app does to any
request (the Host allow-list, the token of the read scope, the Origin check, the request id, logs
and metrics), then the SDK's session manager answers it (server.py). GET and DELETE are 405: a
stateless server opens no stream and keeps no session. The SDK is imported on a worker's first /mcp
request, so the app starts without it.
"""

from flask import Blueprint, Response, current_app, jsonify, request

from .inprocess import AppSource

bp = Blueprint("mcp", __name__)
PATH = "/mcp"
NOT_JSON = "an MCP request is JSON-RPC: send it with Content-Type: application/json"


@bp.post(PATH)
def endpoint():
    """Answer one MCP request with the tools reading this app's API in-process.

    JSON-RPC in, JSON out."""
    from .server import serve_http

    # the SDK would answer a plain-text 400; the app's clients read one error shape
    if request.mimetype != "application/json":
        error = {"code": "unsupported_media_type", "message": NOT_JSON, "retryable": False}
        return jsonify(error=error), 415
    app = current_app._get_current_object()
    source = AppSource(
        app, request.url_root, request.headers.get("Authorization"), request.remote_addr
    )
    body = request.get_data(cache=False)
    status, headers, data = serve_http(source, asgi_scope(), body, app.config["MAX_BODY_BYTES"])
    return Response(data, status=status, headers=headers)


def asgi_scope() -> dict:
    """Return the ASGI scope of this request, as the SDK's Starlette request reads it."""
    environ = request.environ
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": environ.get("SERVER_PROTOCOL", "HTTP/1.1").partition("/")[2] or "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": PATH,
        "raw_path": PATH.encode(),
        "query_string": environ.get("QUERY_STRING", "").encode("latin-1"),
        "root_path": request.script_root,
        "headers": [
            (name.lower().encode("latin-1"), value.encode("latin-1"))
            for name, value in request.headers
        ],
        "client": (request.remote_addr or "", 0),
        "server": (request.host.rpartition(":")[0] or request.host, 0),
    }
