"""What the problem list can be filtered by, and the SQL conditions for it."""
from dataclasses import dataclass, fields
from datetime import datetime, timedelta, timezone

from .. import times
from ..analysis.kinds import KIND_NAMES
from ..problems.fingerprint import SCHEMA_KIND
from ..problems.states import NEW_DAYS, STATES
from .filters import MAX_LIMIT, absolute_time, bad_filter, is_time, query_args

TICKETS = ("linked", "unlinked")
CHOICES = {"state": STATES, "severity": ("error", "warning"), "kind": (*KIND_NAMES, SCHEMA_KIND), "ticket": TICKETS}


@dataclass(frozen=True)
class ProblemQuery:
    q: str = ""          # words in the tool, kind, paths or transform, or a problem id
    tool: str = ""
    kind: str = ""
    severity: str = ""
    state: str = ""      # new, ongoing, resolved, regressed, archived
    source: str = ""
    release: str = ""
    ticket: str = ""     # linked (has ticket links) or unlinked
    since: str = ""      # last seen at or after (RFC 3339, a day, or 2h / 7d ago)
    until: str = ""      # last seen at or before
    limit: int = 50

    @classmethod
    def from_args(cls, args) -> "ProblemQuery":
        """Build a query from request args, ignoring values it does not know (the pages' lenient way)."""
        values = {f.name: "".join(ch for ch in (args.get(f.name) or "") if ch.isprintable()).strip()
                  for f in fields(cls) if f.name != "limit"}
        for name, choices in CHOICES.items():
            if values[name] not in choices:
                values[name] = ""
        for name in ("since", "until"):
            if values[name] and not is_time(values[name]):
                values[name] = ""
        limit = args.get("limit", "50")
        limit = min(max(int(limit), 1), MAX_LIMIT) if (str(limit).isascii() and str(limit).isdigit()) else 50
        return cls(limit=limit, **values)

    @staticmethod
    def bad_value(args) -> str | None:
        """Say what is wrong with the first bad value in args (the API's strict way)."""
        return bad_filter(args, CHOICES)

    def as_args(self, **changes) -> dict:
        """Return the non-empty filters as query-string arguments, with changes applied."""
        return query_args(self, changes)


def new_since(now: datetime | None = None) -> str:
    """Return the first-seen time after which an open problem reads as new."""
    now = now or datetime.now(timezone.utc)
    return times.stamp(now - timedelta(days=NEW_DAYS))


def conditions(query: ProblemQuery, now: datetime | None = None) -> tuple[list[str], list]:
    """Return the WHERE conditions and parameters of a problem query (merged problems left out)."""
    where, params = ["p.merged_into IS NULL", "p.calls > 0"], []
    for name in ("tool", "kind", "severity"):
        if getattr(query, name):
            where.append(f"p.{name} = ?")
            params.append(getattr(query, name))
    if query.state in ("new", "ongoing"):
        where.append("p.state = 'open' AND p.first_seen " + (">= ?" if query.state == "new" else "< ?"))
        params.append(new_since(now))
    elif query.state:
        where.append("p.state = ?")
        params.append(query.state)
    for dim in ("source", "release"):
        if getattr(query, dim):
            # one search of problem_splits_by_value, not a probe per problem; `+` keeps the walk by last_seen
            where.append("+p.id IN (SELECT s.problem_id FROM problem_splits s WHERE s.dim = ? AND s.value = ?)")
            params += [dim, getattr(query, dim)]
    if query.ticket:
        where.append("p.links " + ("!=" if query.ticket == "linked" else "=") + " '[]'")  # links is a JSON list
    if query.since:
        where.append("p.last_seen >= ?")
        params.append(absolute_time(query.since, now))
    if query.until:
        where.append("p.last_seen <= ?")
        params.append(absolute_time(query.until, now))
    if query.q:
        _search(query.q, where, params)
    return where, params


def _search(text: str, where: list, params: list) -> None:
    number = text.upper().removeprefix("TD-")
    if (number.isascii() and number.isdigit()) and len(number) <= 18:
        where.append("p.id = ?")
        params.append(int(number))
        return
    for word in text.split()[:5]:
        like = "%" + word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        where.append("(p.tool LIKE ?1 ESCAPE '\\' OR p.kind LIKE ?1 ESCAPE '\\' OR p.left_path LIKE ?1 ESCAPE '\\' "
                     "OR p.right_path LIKE ?1 ESCAPE '\\' OR p.transform LIKE ?1 ESCAPE '\\')".replace(
                         "?1", "?"))
        params += [like] * 5
