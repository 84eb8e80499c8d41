"""The releases API: GET /api/v1/releases, each release's calls and problems, and what one broke or fixed."""

from flask import Blueprint, jsonify, request, url_for

from ...pipeline.releases import compare_releases, list_releases
from ..db import get_store
from ..errors import ApiError
from . import problems as problems_api

bp = Blueprint("releases_api", __name__)


class Refused(Exception):
    """A releases query that cannot be answered: (status, code, message)."""


def releases_data(args) -> dict:
    """Return the releases (newest first seen first), only `release` when it is asked alone, and with `compare`
    the comparison; Refused for `compare` without `release` or a release no call named."""
    base, other = ((args.get(name) or "").strip() for name in ("release", "compare"))
    if other and not base:
        raise Refused(400, "bad_parameter", "compare needs release: ?release=A&compare=B says what B broke and fixed")
    store = get_store()
    releases = list_releases(store)
    known = {entry["release"] for entry in releases}
    for name in (base, other):
        if name and name not in known:
            raise Refused(404, "release_not_found", f"no call named the release {name[:80]!r}")
    for entry in releases:
        entry["new_problems_url"] = url_for("problems_pages.problems_page", new_in=entry["release"], _external=True)
        entry["permalink"] = url_for("releases.page", release=entry["release"], _external=True)
    data = {"releases": [e for e in releases if e["release"] == base] if base and not other else releases}
    if base and other:
        found = compare_releases(store, base, other)
        data["comparison"] = {
            "release": base,
            "compare": other,
            **{name: [problems_api.with_links(p) for p in problems] for name, problems in found.items()},
        }
    return data


@bp.get("/api/v1/releases")
def api_releases():
    """List releases newest first seen first; with ?release=A&compare=B, what B broke and fixed."""
    try:
        return jsonify(releases_data(request.args))
    except Refused as refused:
        raise ApiError(*refused.args) from None
