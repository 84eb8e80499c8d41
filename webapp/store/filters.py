"""What the trace list can be filtered by, parsed from a URL's query string."""
import base64
from dataclasses import dataclass, fields

SEVERITIES = ("error", "warning", "info", "clean")
STATUS_CLASSES = ("2xx", "3xx", "4xx", "5xx")
SNAPSHOTS = ("arguments", "request", "response")


@dataclass(frozen=True)
class TraceQuery:
    q: str = ""            # trace id prefix, tool name or words inside payloads
    tool: str = ""
    severity: str = ""     # one of SEVERITIES: the trace's worst finding
    kind: str = ""         # a finding kind, e.g. type_changed
    status: str = ""       # an HTTP status class, e.g. 5xx
    missing: str = ""      # a snapshot name that has not arrived
    since: str = ""        # RFC 3339 lower bound of last seen
    until: str = ""        # RFC 3339 upper bound of last seen
    limit: int = 50

    @classmethod
    def from_args(cls, args) -> "TraceQuery":
        """Build a query from request args, ignoring values it does not know."""
        values = {f.name: (args.get(f.name) or "").strip() for f in fields(cls) if f.name != "limit"}
        if values["severity"] not in SEVERITIES:
            values["severity"] = ""
        if values["status"] not in STATUS_CLASSES:
            values["status"] = ""
        if values["missing"] not in SNAPSHOTS:
            values["missing"] = ""
        try:
            limit = min(max(int(args.get("limit", 50)), 1), 500)
        except ValueError:
            limit = 50
        return cls(limit=limit, **values)

    def as_args(self, **changes) -> dict:
        """Return the non-empty filters as query-string arguments, with changes applied."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values.update(changes)
        if values.get("limit") == 50:
            values.pop("limit")
        return {k: v for k, v in values.items() if v not in ("", None)}


def encode_cursor(cursor: tuple | None) -> str | None:
    """Encode a (last_ts, trace_id) keyset position as an opaque string."""
    if cursor is None:
        return None
    return base64.urlsafe_b64encode("\n".join(cursor).encode()).decode()


def decode_cursor(text: str | None) -> tuple | None:
    """Decode an opaque cursor; raise ValueError when it is not one of ours."""
    if not text:
        return None
    try:
        last_ts, trace_id = base64.urlsafe_b64decode(text.encode()).decode().split("\n", 1)
    except (ValueError, UnicodeDecodeError) as error:
        raise ValueError(f"cursor {text[:40]!r} is not one this server gave out") from error
    return last_ts, trace_id
