"""The problem list's query string.

Parsed leniently for the pages, strictly for the API and the CLI, and turned into the plain filters
the store runs (webapp/store/problem_filters.py), "new" and "ongoing" as stored state and times."""

from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime

from ..analysis import KIND_NAMES
from ..common.digits import is_digits
from ..problems.fingerprint import SCHEMA_KIND
from ..problems.states import STATES, new_since
from ..store.problem_filters import ProblemFilters
from .filters import MAX_LIMIT, absolute_time, bad_filter, bad_range, known_values, query_args

TICKETS = ("linked", "unlinked")
CHOICES = {
    "state": STATES,
    "severity": ("error", "warning"),
    "kind": (*KIND_NAMES, SCHEMA_KIND),
    "ticket": TICKETS,
}
# as the store runs them
PLAIN = ("q", "tool", "kind", "severity", "source", "release", "new_in", "ticket", "limit")


@dataclass(frozen=True)
class ProblemQuery:
    # words in the tool, kind, paths or transform, or a problem id
    q: str = ""
    tool: str = ""
    kind: str = ""
    severity: str = ""
    # new, ongoing, resolved, regressed, archived
    state: str = ""
    source: str = ""
    release: str = ""
    # a release: only the problems first seen in it (the release of their first call)
    new_in: str = ""
    # linked (has ticket links) or unlinked
    ticket: str = ""
    # seen at or after (RFC 3339, a day, or 2h / 7d ago): an occurrence in the range
    since: str = ""
    # seen at or before
    until: str = ""
    limit: int = 50

    @classmethod
    def from_args(cls, args) -> "ProblemQuery":
        """Build a query from request args, ignoring values it does not know.

        The pages' lenient way."""
        values = {
            f.name: "".join(ch for ch in (args.get(f.name) or "") if ch.isprintable()).strip()
            for f in fields(cls)
            if f.name != "limit"
        }
        values = known_values(values, CHOICES)
        limit = args.get("limit", "50")
        limit = min(max(int(limit), 1), MAX_LIMIT) if is_digits(str(limit)) else 50
        return cls(limit=limit, **values)

    @staticmethod
    def bad_value(args) -> str | None:
        """Say what is wrong with the first bad value in args (the API's strict way)."""
        return bad_filter(args, CHOICES) or bad_range(args)

    def as_args(self, **changes) -> dict:
        """Return the non-empty filters as query-string arguments, with changes applied."""
        return query_args(self, changes)

    def filters(self, now: datetime | None = None) -> ProblemFilters:
        """Return the filters the store runs.

        Times made absolute, "new" and "ongoing" as open problems first seen since the new ones'
        cutoff, or before it."""
        now = now or datetime.now(UTC)
        state: dict = {"state": self.state} if self.state else {}
        if self.state in ("new", "ongoing"):
            side = "first_seen_from" if self.state == "new" else "first_seen_before"
            state = {"state": "open", side: new_since(now)}
        return ProblemFilters(
            **{name: getattr(self, name) for name in PLAIN},
            **state,
            since=absolute_time(self.since, now) if self.since else "",
            until=absolute_time(self.until, now) if self.until else "",
        )

    def counts(self, store, now: datetime | None = None) -> dict:
        """Return how many problems the query keeps per state a person reads.

        The list's tabs, whatever the query's state."""
        now = now or datetime.now(UTC)
        return store.count_problems(replace(self, state="").filters(now), new_since(now))
