"""The quarantine page and its JSON twin.

Rejected records, when, who sent them, why, and as stored."""

from flask import Blueprint, jsonify, request, url_for

from ..api.quarantine import quarantine_page
from ..render.pages import page_or_fragment

bp = Blueprint("quarantine", __name__)


@bp.get("/quarantine.json")
def page_json():
    """The quarantine page's data."""
    return jsonify(quarantine_page(request.args, strict=False))


@bp.get("/quarantine")
def page():
    """Show rejected records newest first.

    When, who sent it, why, and the record as stored."""
    context = quarantine_page(request.args, strict=False)
    cursor = context["next_cursor"]
    context["next_url"] = url_for("quarantine.page", cursor=cursor) if cursor else None
    return page_or_fragment("quarantine.html", "partials/quarantine_rows.html", **context)
