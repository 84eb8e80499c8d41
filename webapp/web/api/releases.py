"""The releases API.

GET /api/v1/releases, each release's calls and problems, and what one broke or fixed."""

from flask import Blueprint, jsonify, request, url_for

from ...pipeline.releases import compare_releases, list_releases
from ..db import get_store
from ..errors import ApiError
from ..paging import key_cursor, key_page_args
from . import problems as problems_api

bp = Blueprint("releases_api", __name__)
# tools a release names (`tool_count` says how many it has)
SHOWN_TOOLS = 50


class Refused(Exception):
    """A releases query that cannot be answered: (status, code, message)."""


def releases_data(args, strict: bool = True) -> dict:
    """Return a page of the releases and the next page's cursor.

    Newest first seen first, `limit` of them after `cursor`; only `release` when it is asked alone,
    and with `compare` the comparison; Refused for `compare` without `release` or a release no call
    named (and, when strict, for a bad limit or cursor). Each release names the one first seen
    before it (`previous`)."""
    base, other = ((args.get(name) or "").strip() for name in ("release", "compare"))
    if other and not base:
        raise Refused(
            400,
            "bad_parameter",
            "compare needs release: ?release=A&compare=B says what B broke and fixed",
        )
    store = get_store()
    releases = list_releases(store)
    known = {entry["release"] for entry in releases}
    for name in (base, other):
        if name and name not in known:
            raise Refused(404, "release_not_found", f"no call named the release {name[:80]!r}")
    try:
        limit, after = key_page_args(args, 2, strict=strict)
    except ApiError as error:
        raise Refused(error.status, error.code, error.message) from None
    shown, last = (
        ([e for e in releases if e["release"] == base], None)
        if base and not other
        else page(releases, after, limit)
    )
    # newest first: the one after a release in the whole list came before it
    previous = {e["release"]: releases[i + 1]["release"] for i, e in enumerate(releases[:-1])}
    for entry in shown:
        entry["previous"] = previous.get(entry["release"])
        entry["new_problems_url"] = url_for(
            "problems_pages.problems_page", new_in=entry["release"], _external=True
        )
        entry["permalink"] = url_for("releases.page", release=entry["release"], _external=True)
        entry["tool_count"], entry["tools"] = len(entry["tools"]), entry["tools"][:SHOWN_TOOLS]
    data = {"releases": shown, "next_cursor": key_cursor(last)}
    if base and other:
        found = compare_releases(store, base, other)
        data["comparison"] = {
            "release": base,
            "compare": other,
            **{
                name: [problems_api.with_links(p) for p in problems]
                for name, problems in found.items()
            },
        }
    return data


def page(releases: list[dict], after: tuple | None, limit: int) -> tuple[list[dict], tuple | None]:
    """Return at most limit releases after a (first seen, name) key.

    In their order (newest first seen first, a tie by name), and the key of the last one when more
    follow."""
    start = 0
    if after is not None:
        first_seen, name = after
        start = next(
            (
                i
                for i, e in enumerate(releases)
                if (e["first_seen"], name) < (first_seen, e["release"])
            ),
            len(releases),
        )
    shown = releases[start : start + limit]
    more = start + limit < len(releases)
    return shown, (shown[-1]["first_seen"], shown[-1]["release"]) if more and shown else None


@bp.get("/api/v1/releases")
def api_releases():
    """List releases newest first seen first.

    With ?release=A&compare=B, what B broke and fixed."""
    try:
        return jsonify(releases_data(request.args))
    except Refused as refused:
        raise ApiError(*refused.args) from None
