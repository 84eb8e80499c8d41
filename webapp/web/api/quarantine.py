"""The quarantine API.

Rejected records newest first, so a broken shipper shows in minutes."""

from flask import Blueprint, current_app, jsonify, request

from ...store import values
from ..db import get_store
from ..paging import next_cursor, page_args
from ..render.crowds import crowd_warnings

bp = Blueprint("quarantine_api", __name__)
PAGE = 50


def quarantine_page(args, strict: bool) -> dict:
    """Return a page of rejected records.

    The counts per reason, and the crowds of values that look misconfigured."""
    limit, before = page_args(args, PAGE, strict)
    rows = get_store().quarantine(limit + 1, before)
    return {
        "records": [_record(row) for row in rows[:limit]],
        "next_cursor": next_cursor(rows, limit),
        "counts": get_store().quarantine_counts(),
        "warnings": crowd_warnings(
            values.crowds(get_store(), current_app.config["CROWD_THRESHOLD"])
        ),
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
    return jsonify(quarantine_page(request.args, strict=True))
