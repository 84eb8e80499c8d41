"""The alerts paths of the document: rules, their deliveries, tests, resumes and redeliveries."""

from .operations import JSON, error, json_body, operation, param
from .schemas import STRING, obj, ref


def paths() -> dict:
    """Describe the paths under /api/v1/alerts."""
    rule_id = param("rule_id", "path", {"type": "integer"}, "The rule id.")
    missing = error("No such rule or message.")
    bad_rule = error("A rule that cannot be made (`bad_rule`): the message names the field, or why the URL is refused.")
    written = {"200": json_body(ref("AlertRule"), "The rule."), "404": missing}
    return {
        "/api/v1/alerts": {
            "get": operation(
                "List alert rules (never their secrets).",
                {
                    "200": json_body(
                        obj(["rules"], {"rules": {"type": "array", "items": ref("AlertRule")}}), "The rules."
                    )
                },
                tag="alerts",
            ),
            "post": operation(
                "Create an alert rule; the answer carries its signing secret, shown this once only.",
                {
                    "201": json_body({**ref("AlertRule"), "description": "With `secret`."}, "Created."),
                    "400": bad_rule,
                    "422": error("The body is not JSON."),
                },
                tag="alerts",
                write=True,
                body={"required": True, "content": {JSON: {"schema": ref("AlertRuleInput")}}},
            ),
        },
        "/api/v1/alerts/{rule_id}": {
            "put": operation(
                "Change an alert rule: the body is a whole rule, as to create one. A part of its"
                " URL sent back as [REDACTED], as lists show it, keeps what is saved there (on the"
                " same scheme, host and port only); its id, signing secret, state and log stay.",
                {**written, "400": bad_rule, "422": error("The body is not JSON.")},
                tag="alerts",
                params=[rule_id],
                write=True,
                body={"required": True, "content": {JSON: {"schema": ref("AlertRuleInput")}}},
            ),
            "delete": operation(
                "Delete an alert rule with its messages and delivery log (its id is never reused).",
                {"204": {"description": "Deleted."}, "404": missing},
                tag="alerts",
                params=[rule_id],
                write=True,
            ),
        },
        "/api/v1/alerts/{rule_id}/deliveries": {
            "get": operation(
                "The rule's delivery log and messages, newest first.",
                {
                    "200": json_body(
                        obj(
                            ["deliveries", "next_cursor", "messages"],
                            {
                                "deliveries": {"type": "array", "items": ref("AlertDelivery")},
                                "next_cursor": {"type": ["string", "null"]},
                                "messages": {"type": "array"},
                            },
                        ),
                        "A page of the log, and the rule's newest `limit` messages.",
                    ),
                    "400": error(
                        "A limit outside 1-500 (`bad_parameter`) or a cursor not from next_cursor (`bad_cursor`)."
                    ),
                    "404": missing,
                },
                tag="alerts",
                params=[
                    rule_id,
                    param(
                        "limit", "query", {"type": "integer", "minimum": 1, "maximum": 500}, "Attempts per page (100)."
                    ),
                    param("cursor", "query", {"type": "string"}, "next_cursor of the page before."),
                ],
            )
        },
        "/api/v1/alerts/{rule_id}/test": {
            "post": operation(
                "Send a signed test message to the rule's URL now.",
                {
                    "200": json_body(
                        obj(["ok"], {"ok": {"type": "boolean"}}),
                        "What came back. The message's type is `tracediff.test`.",
                    ),
                    "404": missing,
                },
                tag="alerts",
                params=[rule_id],
                write=True,
                body={"required": False, "content": {}},
            )
        },
        "/api/v1/alerts/{rule_id}/resume": {
            "post": operation(
                "Resume a paused rule.",
                written,
                tag="alerts",
                params=[rule_id],
                write=True,
                body={"required": False, "content": {}},
            )
        },
        "/api/v1/alerts/messages/{message_id}/redeliver": {
            "post": operation(
                "Send a message again, with the same webhook-id.",
                {"200": json_body(obj(["redelivering"], {"redelivering": STRING}), "Queued."), "404": missing},
                tag="alerts",
                params=[param("message_id", "path", {"type": "string"}, "The message id.")],
                write=True,
                body={"required": False, "content": {}},
            )
        },
    }
