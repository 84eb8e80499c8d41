"""How a page is rendered.

Whole or as the fragment htmx asked for, and the filters every template uses."""

import json

from flask import render_template, request

from ...common import times
from ...common.stages import TAGS
from ...reports.text import visible


def init_app(app) -> None:
    """Give every template the shared filters and names, controls escaped.

    Every template shows control characters as escapes."""
    app.jinja_env.finalize = show_controls
    app.add_template_global(TAGS, "stage_tags")
    app.add_template_filter(pretty_json, "pretty_json")
    app.add_template_filter(when, "when")


def show_controls(value):
    """Render control characters of any template output as visible escapes (\\u202e)."""
    if isinstance(value, str):
        # type(value) keeps template markup as markup and payload text as text (escaped later).
        return type(value)(visible(value))
    return value


def pretty_json(value) -> str:
    """Indent a JSON value as plain text; autoescaping makes it safe in HTML."""
    return json.dumps(value, indent=2, ensure_ascii=False)


def when(value) -> str:
    """Show a stored time as people read it (the fraction's trailing zeros dropped).

    `2026-12-01T10:00:07.5Z`."""
    return times.display(value)


def page_or_fragment(page: str, fragment: str, **context):
    """Render the whole page, or only the fragment for an htmx request."""
    template = fragment if request.headers.get("HX-Request") else page
    response = render_template(template, **context)
    return response, 200, {"Vary": "HX-Request"}
