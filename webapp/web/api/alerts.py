"""The alert rules API under /api/v1/alerts: thin adapters over the store."""

from flask import Blueprint, current_app, jsonify, request

from ...alerts import RuleError, new_secret, parse_rule
from ...alerts.secrets import keep_secrets, public, scrub
from ...alerts.urls import UrlRefused, allow_list, check_url
from ...alerts.wording import message_problem
from ...common import jsontext
from ...common.digits import is_digits
from ...ops.sender import test_delivery
from ...store.alert_rules import ABOUT
from ..db import get_store
from ..errors import ApiError
from ..paging import key_cursor, key_page_args, next_cursor, page_args

bp = Blueprint("alerts_api", __name__)
DELIVERIES_PAGE = 100


def create_rule(body) -> dict:
    """Check and store a rule; return it with its signing secret.

    The rule's URL is checked too; the secret is shown this once.

    Its URL is stored as given and shown masked, to its maker too: they typed it.
    """
    rule = checked(body)
    secret = new_secret()
    rule_id = get_store().add_rule(rule, secret)
    return {**public(get_store().get_rule(rule_id)), "secret": secret}


def edit_rule(rule_id: int, body) -> dict:
    """Change a rule as `body` says.

    A URL part sent as [REDACTED] keeps what is saved there."""
    saved = rule_or_404(rule_id)
    if isinstance(body, dict) and isinstance(body.get("url"), str):
        try:
            body = {**body, "url": keep_secrets(body["url"], saved)}
        except ValueError as error:
            raise ApiError(400, "bad_rule", str(error)) from error
    get_store().update_rule(rule_id, checked(body))
    return public(get_store().get_rule(rule_id))


def checked(body) -> dict:
    """Return the rule a body says, its URL checked as it will be called.

    Else raise bad_rule."""
    try:
        rule = parse_rule(body)
        check_url(rule["url"], allow_list(current_app.config["WEBHOOK_ALLOW_HOSTS"]))
    except (RuleError, UrlRefused) as error:
        raise ApiError(400, "bad_rule", str(error)) from error
    return rule


def rule_or_404(rule_id: int) -> dict:
    # SQLite integers are 64-bit
    rule = get_store().get_rule(rule_id) if rule_id < 2**63 else None
    if rule is None:
        raise ApiError(404, "not_found", f"no alert rule {rule_id}")
    return rule


def send_test(rule_id: int) -> dict:
    """Send a test message to a rule's URL now and say what came back.

    Outside the outbox."""
    rule_or_404(rule_id)
    return test_delivery(get_store(), rule_id, current_app.config)


@bp.post("/api/v1/alerts")
def api_create():
    """Create a rule; the answer carries its secret, which is never shown again."""
    return jsonify(create_rule(_json_body())), 201


@bp.put("/api/v1/alerts/<int:rule_id>")
def api_edit(rule_id):
    """Change a rule: the body is a whole rule.

    Its URL keeps saved secrets sent as [REDACTED]."""
    return jsonify(edit_rule(rule_id, _json_body()))


def _json_body():
    try:
        return jsontext.loads(request.get_data())
    except jsontext.JSONDecodeError as error:
        raise ApiError(422, "not_json", f"the body is not JSON: {error}") from error


@bp.get("/api/v1/alerts")
def api_list():
    """List the rules in id order, `limit` (50 by default) a page.

    With the cursor of the next (null on the last)."""
    rules, cursor = rules_page(request.args, strict=True)
    return jsonify(rules=[public(rule) for rule in rules], next_cursor=cursor)


def rules_page(args, strict: bool) -> tuple[list[dict], str | None]:
    """Return a page of rules after the args' cursor, and the next cursor.

    The next page's cursor, or None."""
    limit, after = key_page_args(args, 1, strict=strict)
    if after and not is_digits(after[0]):
        if strict:
            raise ApiError(400, "bad_cursor", "cursor is not a next_cursor this server gave out")
        after = None
    rules = get_store().rules_page(int(after[0]) if after else 0, limit + 1)
    return rules[:limit], key_cursor((str(rules[limit - 1]["id"]),)) if len(rules) > limit else None


@bp.delete("/api/v1/alerts/<int:rule_id>")
def api_delete(rule_id):
    rule_or_404(rule_id)
    get_store().delete_rule(rule_id)
    return "", 204


@bp.get("/api/v1/alerts/<int:rule_id>/deliveries")
def api_deliveries(rule_id):
    """A rule's delivery log newest first.

    `limit` a page with a keyset cursor, and its newest messages."""
    rule = rule_or_404(rule_id)
    limit, before = page_args(request.args, DELIVERIES_PAGE)
    store = get_store()
    rows = named(store.deliveries(rule_id, limit + 1, before), rule)
    return jsonify(
        deliveries=rows[:limit],
        next_cursor=next_cursor(rows, limit),
        messages=named(store.messages(rule_id, limit), rule),
    )


def named(rows: list[dict], rule: dict) -> list[dict]:
    """Name the problem each delivery or message is about.

    `problem`: id and title, or null.

    An error says nothing of the rule's secrets (one logged by an older version may have).
    """
    for row in rows:
        row["problem"] = message_problem(*row.pop(ABOUT))
        if row.get("error"):
            row["error"] = scrub(row["error"], rule)
    return rows


@bp.post("/api/v1/alerts/<int:rule_id>/test")
def api_test(rule_id):
    return jsonify(send_test(rule_id))


@bp.post("/api/v1/alerts/<int:rule_id>/resume")
def api_resume(rule_id):
    rule_or_404(rule_id)
    get_store().resume_rule(rule_id)
    return jsonify(public(get_store().get_rule(rule_id)))


@bp.post("/api/v1/alerts/messages/<message_id>/redeliver")
def api_redeliver(message_id):
    if not get_store().redeliver(message_id):
        raise ApiError(404, "not_found", f"no alert message {message_id}")
    return jsonify(redelivering=message_id)
