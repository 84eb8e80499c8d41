"""The /releases page and its JSON twin.

Each release with its calls and problems, and a comparison."""

from flask import Blueprint, abort, jsonify, request, url_for

from ...store import values
from ..api.releases import Refused, releases_data
from ..db import get_store
from ..errors import ApiError
from ..render.pages import page_or_fragment

bp = Blueprint("releases", __name__)


def _page_data() -> dict:
    try:
        data = releases_data(request.args, strict=False)
    except Refused as refused:
        abort(refused.args[0], description=refused.args[2])
    asked = {name: (request.args.get(name) or "").strip() for name in ("release", "compare")}
    cursor, kept = data["next_cursor"], {name: value for name, value in asked.items() if value}
    return {
        **data,
        "top_releases": values.recent_releases(get_store()),
        "asked": asked,
        "next_url": url_for(".page", **kept, limit=request.args.get("limit"), cursor=cursor)
        if cursor
        else None,
    }


@bp.get("/releases")
def page():
    """Show the releases, each with its calls, new and regressed problems and sources.

    And a comparison."""
    return page_or_fragment("releases.html", "partials/releases.html", **_page_data())


@bp.get("/releases.json")
def page_json():
    """Return the releases page's data (the API's document)."""
    try:
        return jsonify(releases_data(request.args))
    except Refused as refused:
        raise ApiError(*refused.args) from None
