"""What the trace list can be filtered by, as the store runs it.

Plain values in the store's terms (times, a problem's number); webapp/web/filters.py parses a query
string into it (2h, a stale value, TD-42)."""

from dataclasses import dataclass

from ..common.stages import NAMES

SEVERITIES = ("error", "warning", "info", "clean")
STATUS_CLASSES = ("2xx", "3xx", "4xx", "5xx")
# the list's "missing" filter offers every stage
SNAPSHOTS = NAMES


@dataclass(frozen=True)
class TraceQuery:
    # trace id prefix, tool name or words inside payloads
    q: str = ""
    tool: str = ""
    # one of SEVERITIES: the trace's worst finding
    severity: str = ""
    # a finding kind, e.g. type_changed
    kind: str = ""
    # an HTTP status class, e.g. 5xx
    status: str = ""
    # a snapshot name that has not arrived
    missing: str = ""
    # lower bound of last seen: an RFC 3339 time or a day, compared as the stored time it is
    since: str = ""
    # upper bound of last seen
    until: str = ""
    # a problem's number: the traces it was seen in
    problem: int | None = None
    # a release one of the trace's calls named
    release: str = ""
    limit: int = 50
