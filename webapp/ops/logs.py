"""Log lines: timestamps, request ids, the client behind a proxy, text or JSON.

No query strings by default."""

import json
import logging
import re
import sys
import uuid
from datetime import UTC, datetime

from flask import request

REQUEST_ID_KEY = "tracediff.request_id"
# set by security when a request carries a known token
TOKEN_NAME_KEY = "tracediff.token_name"
_GOOD_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
_STATE = {"json": False, "query": False}
# the app's own loggers, whose INFO lines (retention, catch-up, start-up, reload, migrations) must
# reach the log, and its libraries' (psycopg_pool's reconnect warnings during an outage), in the
# same line format
APP_LOGGERS = {"webapp": logging.INFO, "psycopg": logging.WARNING}
_NAMES = {"gunicorn.access": "access", "gunicorn.error": "server"}
# What ends a line for a reader of the log (a terminal, `str.splitlines`, a shipper) or hides part
# of it: a request's path or an error's text holding one could forge a line of its own.
# C1 too: 0x85 is a line break, 0x9b a terminal's escape
_BREAKS = (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)
TEXT_ESCAPES = {code: f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" for code in _BREAKS}
# JSON escapes the C0 controls itself
JSON_ESCAPES = {code: f"\\u{code:04x}" for code in _BREAKS if code >= 0x7F}


class LineFormatter(logging.Formatter):
    """One line per record.

    `<time> <LEVEL> <logger>: <message>`, or a JSON object."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")
        stamp = stamp.replace("+00:00", "Z")
        name = _NAMES.get(record.name, record.name)
        error = self.formatException(record.exc_info) if record.exc_info else None
        if not _STATE["json"]:
            message = record.getMessage().translate(TEXT_ESCAPES)
            line = f"{stamp} {record.levelname} {name}: {message}"
            return f"{line}\n{error}" if error else line
        fields = {
            "ts": stamp,
            "level": record.levelname,
            "logger": name,
            "message": record.getMessage(),
            **getattr(record, "fields", {}),
        }
        if error:
            fields["exception"] = error
        return json.dumps(fields, ensure_ascii=False, default=str).translate(JSON_ESCAPES)


def configure(settings: dict) -> None:
    """Send the app's INFO lines to stderr as text or JSON lines.

    The format is chosen here."""
    _STATE["json"] = settings.get("LOG_FORMAT") == "json"
    _STATE["query"] = bool(settings.get("LOG_QUERY"))
    for name, level in APP_LOGGERS.items():
        logger = logging.getLogger(name)
        logger.setLevel(level)
        logger.propagate = False
        if not any(getattr(h, "tracediff", False) for h in logger.handlers):
            handler = logging.StreamHandler(sys.stderr)
            handler.tracediff = True
            logger.addHandler(handler)
    use_format(*(logging.getLogger(name) for name in APP_LOGGERS))


def use_format(*loggers: logging.Logger) -> None:
    """Give every handler of these loggers the line format."""
    for logger in loggers:
        for handler in logger.handlers:
            handler.setFormatter(LineFormatter())


def access_fields(environ: dict, status: int, sent: int, seconds: float) -> dict:
    """Return what an access line says about one request.

    The query string only when LOG_QUERY is on."""
    fields = {
        "request_id": environ.get(REQUEST_ID_KEY, ""),
        "client": environ.get("REMOTE_ADDR", ""),
        "method": environ.get("REQUEST_METHOD", ""),
        "path": _utf8(environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "")),
        "status": status,
        "bytes": sent,
        "duration_ms": round(seconds * 1000, 1),
    }
    if _STATE["query"] and environ.get("QUERY_STRING"):
        fields["query"] = environ["QUERY_STRING"]
    # which named token made the request (scoped tokens)
    if environ.get(TOKEN_NAME_KEY):
        fields["token"] = environ[TOKEN_NAME_KEY]
    return fields


def _utf8(wsgi_text: str) -> str:
    """Return a WSGI string (bytes as Latin-1) as the UTF-8 text it holds.

    Bytes that are not UTF-8 as \\x escapes."""
    try:
        return wsgi_text.encode("latin-1").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return wsgi_text


def access_message(fields: dict) -> str:
    """Return the readable text of an access line."""
    query = f"?{fields['query']}" if "query" in fields else ""
    token = f" token={fields['token']}" if "token" in fields else ""
    return (
        f'{fields["client"]} "{fields["method"]} {fields["path"]}{query}" {fields["status"]} '
        f"{fields['bytes']}B {fields['duration_ms']}ms id={fields['request_id']}{token}"
    )


def assign_request_id() -> None:
    """Take the client's (or proxy's) X-Request-Id when it is sane, else make one."""
    given = request.headers.get("X-Request-Id", "")
    request.environ[REQUEST_ID_KEY] = given if _GOOD_ID.fullmatch(given) else uuid.uuid4().hex[:16]


def echo_request_id(response):
    response.headers["X-Request-Id"] = request.environ.get(REQUEST_ID_KEY, "")
    return response


def init_app(app) -> None:
    app.before_request(assign_request_id)
    app.after_request(echo_request_id)
