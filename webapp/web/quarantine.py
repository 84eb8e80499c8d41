"""The quarantine, visible: rejected records on a page and in the API, so a broken shipper shows in minutes."""

from flask import Blueprint, jsonify, request, url_for

from .db import get_store
from .paging import next_cursor, page_args
from .views import page_or_fragment

bp = Blueprint("quarantine", __name__)
PAGE = 50


def _page(args, strict: bool) -> dict:
    limit, before = page_args(args, PAGE, strict)
    rows = get_store().quarantine(limit + 1, before)
    return {
        "records": [_record(row) for row in rows[:limit]],
        "next_cursor": next_cursor(rows, limit),
        "counts": get_store().quarantine_counts(),
    }


def _record(row: dict) -> dict:
    return {
        "id": row["id"],
        "received_at": row["received_at"],
        "code": row["code"],
        "message": row["message"],
        "source": row.get("source"),
        "raw": row["raw"],
    }


@bp.get("/api/v1/quarantine")
def api_list():
    """List rejected records newest first (redacted as stored), with a keyset cursor."""
    return jsonify(_page(request.args, strict=True))


@bp.get("/quarantine.json")
def page_json():
    """The quarantine page's data."""
    return jsonify(_page(request.args, strict=False))


@bp.get("/quarantine")
def page():
    """Show rejected records newest first: when, who sent it, why, and the record as stored."""
    context = _page(request.args, strict=False)
    cursor = context["next_cursor"]
    context["next_url"] = url_for("quarantine.page", cursor=cursor) if cursor else None
    return page_or_fragment("quarantine.html", "partials/quarantine_rows.html", **context)
