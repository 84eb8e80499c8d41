"""Keyset pages over rows numbered by id and over named things.

Over rows numbered by id (the quarantine, a rule's delivery log), `limit` and an id `cursor`; over
named things (tools, releases), `limit` and an opaque `cursor` holding the last one's sort key."""

import base64
import binascii

from ..common.digits import is_digits
from .errors import ApiError

MAX_PAGE = 500
# tools, releases, alert rules a list shows by default
NAMED_PAGE = 50


def page_limit(args, default: int, strict: bool = True) -> int:
    """Return the `limit` of the args.

    A 400 when strict and it is no whole number from 1 to MAX_PAGE."""
    limit = (args.get("limit") or str(default)).strip()
    if not (is_digits(limit) and 1 <= int(limit) <= MAX_PAGE):
        if strict:
            raise ApiError(
                400,
                "bad_parameter",
                f"limit must be a whole number from 1 to {MAX_PAGE}; got {limit[:40]!r}",
            )
        return default
    return int(limit)


def key_page_args(
    args, parts: int, default: int = NAMED_PAGE, strict: bool = True
) -> tuple[int, tuple | None]:
    """Return (limit, the sort key after which the page starts) from the args.

    A 400 for a cursor that is not one of ours when strict, the first page otherwise."""
    limit, text = page_limit(args, default, strict), (args.get("cursor") or "").strip()
    if not text:
        return limit, None
    try:
        # validate: characters outside the alphabet are refused, not skipped into an empty key
        raw = base64.b64decode(text.encode(), altchars=b"-_", validate=True)
        key = tuple(raw.decode().split("\n"))
    except (ValueError, UnicodeDecodeError, binascii.Error):
        key = ()
    if len(key) != parts:
        if strict:
            raise ApiError(
                400, "bad_cursor", f"cursor {text[:40]!r} is not a next_cursor this server gave out"
            )
        return limit, None
    return limit, key


def key_cursor(key: tuple | None) -> str | None:
    """Return the opaque cursor of a sort key (None for none: the last page)."""
    return None if key is None else base64.urlsafe_b64encode("\n".join(key).encode()).decode()


def page_args(args, default: int, strict: bool = True) -> tuple[int, int | None]:
    """Return (limit, before id) from the args.

    A 400 naming the bad one when strict, the defaults otherwise."""
    limit, cursor = str(page_limit(args, default, strict)), (args.get("cursor") or "").strip()
    # ids are positive 64-bit integers
    if cursor and not (is_digits(cursor) and 0 < int(cursor) < 2**63):
        if strict:
            raise ApiError(
                400,
                "bad_cursor",
                f"cursor {cursor[:40]!r} is not a next_cursor this server gave out",
            )
        cursor = ""
    return int(limit), int(cursor) if cursor else None


def next_cursor(rows: list[dict], limit: int) -> str | None:
    """Return the cursor of the page after `rows`, or None on the last page.

    `rows` are fetched as limit + 1."""
    return str(rows[limit - 1]["id"]) if len(rows) > limit else None
