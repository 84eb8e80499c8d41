"""The alerts settings page: the rules, each with its deliveries, and the forms that add and change them."""

from flask import Blueprint, redirect, request, url_for

from ...common.resources import doc_page
from ...ops.sender import describe
from ..api.alerts import create_rule, named, rule_or_404, send_test, shown
from ..db import get_store
from ..errors import ApiError
from ..render.pages import page_or_fragment
from ..security import change_hint, may_change_contracts

bp = Blueprint("alerting", __name__)


@bp.get("/settings/alerts")
def settings_page():
    """List the rules, each with its deliveries, and a form to add one (to a browser holding the token)."""
    return _settings()


def _settings(created=None, error=None, tested=None):
    store = get_store()
    rules = [{**shown(rule), "deliveries": named(store.deliveries(rule["id"], 20))} for rule in store.list_rules()]
    can_change = may_change_contracts()  # the token that changes contracts manages rules too
    return page_or_fragment(
        "alerts.html",
        "partials/alert_rules.html",
        rules=rules,
        created=created,
        error=error,
        tested=tested,
        can_change=can_change,
        hint=None if can_change else change_hint(),
        alerts_doc=doc_page("alerts.md"),  # where the installed package keeps it (the wheel ships docs/)
    )


@bp.post("/settings/alerts")
def settings_create():
    """Create a rule from the form and show its secret once."""
    form = request.form
    body = {
        "url": form.get("url", "").strip(),
        "format": form.get("format") or "webhook",
        "on": form.getlist("on") or ["new", "regressed"],
        "min_interval_s": _int(form.get("min_interval_s")),
    }
    for name in ("tool", "kind", "min_severity", "source"):
        if form.get(name):
            body[name] = form[name]
    try:
        return _settings(created=create_rule(body))
    except ApiError as refused:
        return _settings(error=refused.message)


@bp.post("/settings/alerts/<int:rule_id>/<action>")
def settings_action(rule_id, action):
    """Delete, resume or test a rule from its page; redeliver one of its messages."""
    store = get_store()
    rule_or_404(rule_id)
    if action == "test":  # the answer is the page, saying in one line what the test send did
        return _settings(tested={"rule": rule_id, "line": describe(send_test(rule_id))})
    if action == "delete":
        store.delete_rule(rule_id)
    elif action == "resume":
        store.resume_rule(rule_id)
    elif action == "redeliver":
        store.redeliver(request.form.get("message", ""))
    else:
        raise ApiError(404, "not_found", f"no action {action}")
    return redirect(url_for("alerting.settings_page"), 303)


def _int(text):
    try:
        return int(text) if text not in (None, "") else 600
    except ValueError:
        return text  # parse_rule says what is wrong with it
