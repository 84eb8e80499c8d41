"""The alerts settings page.

The rules, each with its deliveries, and the forms that add and change them."""

from flask import Blueprint, redirect, request, url_for

from ...alerts.secrets import public
from ...ops.sender import describe
from ..api.alerts import create_rule, edit_rule, named, rule_or_404, rules_page, send_test
from ..db import get_store
from ..errors import ApiError
from ..render.pages import page_or_fragment
from ..security import change_hint, may_change_contracts

ALERTS_DOC = "docs/alerts.md"

bp = Blueprint("alerting", __name__)


@bp.get("/settings/alerts")
def settings_page():
    """List the rules, each with its deliveries, and a form to add one.

    The form shows to a browser holding the token."""
    return _settings()


def _log(store, rule: dict) -> list[dict]:
    """A rule's latest deliveries, as its page shows them."""
    return named(store.deliveries(rule["id"], 20), rule)


def _settings(created=None, error=None, tested=None, changed=None):
    store = get_store()
    found, cursor = rules_page(request.args, strict=False)
    rules = [{**public(rule), "deliveries": _log(store, rule)} for rule in found]
    # the token that changes contracts manages rules too
    can_change = may_change_contracts()
    return page_or_fragment(
        "alerts.html",
        "partials/alert_rules.html",
        rules=rules,
        next_url=url_for(".settings_page", cursor=cursor) if cursor else None,
        created=created,
        error=error,
        tested=tested,
        changed=changed,
        can_change=can_change,
        hint=None if can_change else change_hint(),
        # where the installed package keeps it (the wheel ships docs/)
        # the page named as in the documentation, never the install path (no reader needs the
        # server's file system)
        alerts_doc=ALERTS_DOC,
    )


@bp.post("/settings/alerts")
def settings_create():
    """Create a rule from the form and show its secret once."""
    try:
        return _settings(created=create_rule(form_rule(request.form)))
    except ApiError as refused:
        return _settings(error=refused.message)


def form_rule(form) -> dict:
    """Read a rule from the page's form, as the API takes it."""
    body = {
        "url": form.get("url", "").strip(),
        "format": form.get("format") or "webhook",
        "on": form.getlist("on") or ["new", "regressed"],
        "min_interval_s": _int(form.get("min_interval_s")),
        "secret_parts": [_int(part, None) for part in _listed(form.get("secret_parts", ""))],
    }
    for name in ("tool", "kind", "min_severity", "source"):
        if form.get(name):
            body[name] = form[name]
    return body


@bp.post("/settings/alerts/<int:rule_id>/<action>")
def settings_action(rule_id, action):
    """Edit, delete, resume or test a rule from its page.

    Redeliver one of its messages."""
    store = get_store()
    rule_or_404(rule_id)
    # the answer is the page, saying in one line what the test send did
    if action == "test":
        return _settings(tested={"rule": rule_id, "line": describe(send_test(rule_id))})
    if action == "edit":
        try:
            edit_rule(rule_id, form_rule(request.form))
        except ApiError as refused:
            return _settings(error=f"rule {rule_id} not changed: {refused.message}")
        return _settings(changed=rule_id)
    if action == "delete":
        store.delete_rule(rule_id)
    elif action == "resume":
        store.resume_rule(rule_id)
    elif action == "redeliver":
        store.redeliver(request.form.get("message", ""))
    else:
        raise ApiError(404, "not_found", f"no action {action}")
    return redirect(url_for("alerting.settings_page"), 303)


def _listed(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _listed(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _int(text, default=600):
    """Read a number from a form field.

    `default` when empty, the text itself when not a number (a query parameter name, or what
    parse_rule says is wrong)."""
    try:
        return int(text) if text not in (None, "") else default
    except ValueError:
        return text
