"""The values a list filter suggests as one types.

`/values/<facet>` (tool, release, source), at most 50 of them."""

from flask import Blueprint, abort, jsonify, request

from ...store import values
from ..db import get_store
from ..filters import printable
from ..render.pages import page_or_fragment

bp = Blueprint("values", __name__)


def _typed() -> str:
    """Return the text typed.

    `q`, or the one value an input sends under its own filter's name (`tool=...`)."""
    sent = [value for value in request.args.values() if value.strip()]
    return printable(request.args.get("q") or (sent[0] if len(sent) == 1 else ""))[:200]


def _matching(facet: str) -> list[str]:
    if facet not in values.FACETS:
        abort(404, description=f"no filter {facet[:40]!r}: one of {', '.join(values.FACETS)}")
    return values.matching(get_store(), facet, _typed())


@bp.get("/values/<facet>")
def suggestions(facet):
    """Return a datalist's options.

    The facet's values that contain the typed text (htmx swaps them in)."""
    return page_or_fragment(
        "values.html", "partials/value_options.html", values=_matching(facet), facet=facet
    )


@bp.get("/values/<facet>.json")
def suggestions_json(facet):
    """Return the facet's values that contain the typed text, in name order.

    At most 50."""
    return jsonify(values=_matching(facet), limit=values.SHOWN_VALUES)
