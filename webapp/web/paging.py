"""Keyset pages over rows numbered by id (the quarantine, a rule's delivery log): `limit` and an id `cursor`."""

from ..common.digits import is_digits
from .errors import ApiError

MAX_PAGE = 500


def page_args(args, default: int, strict: bool = True) -> tuple[int, int | None]:
    """Return (limit, before id) from the args; a 400 naming the bad one when strict, the defaults otherwise."""
    limit, cursor = (args.get("limit") or str(default)).strip(), (args.get("cursor") or "").strip()
    if not (is_digits(limit) and 1 <= int(limit) <= MAX_PAGE):
        if strict:
            raise ApiError(
                400, "bad_parameter", f"limit must be a whole number from 1 to {MAX_PAGE}; got {limit[:40]!r}"
            )
        limit = str(default)
    if cursor and not (is_digits(cursor) and 0 < int(cursor) < 2**63):  # ids are positive 64-bit integers
        if strict:
            raise ApiError(400, "bad_cursor", f"cursor {cursor[:40]!r} is not a next_cursor this server gave out")
        cursor = ""
    return int(limit), int(cursor) if cursor else None


def next_cursor(rows: list[dict], limit: int) -> str | None:
    """Return the cursor of the page after `rows` (fetched as limit + 1), or None on the last page."""
    return str(rows[limit - 1]["id"]) if len(rows) > limit else None
