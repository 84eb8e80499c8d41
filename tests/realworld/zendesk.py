"""Zendesk, as a community MCP server calls the Support API v2 with axios.

Unseen: written after the first unseen part was fixed for, never tuned on.

Read: team-telnyx/zendesk-mcp-server src/tools/tickets.js and src/zendesk-client.js at ec20f28.
Every request goes through one `request(method, endpoint, data, params)`: basic auth of
`{email}/token:{token}`, `Content-Type: application/json`, the body as axios serialises it (keys
left `undefined` are not written). `create_ticket` sends `{"ticket": {subject, comment: {body},
priority, status, requester_id, assignee_id, group_id, type, tags}}` to `POST /tickets.json`: the
model's `comment` text wrapped as the comment's `body`. `update_ticket` puts the id in the path
(`/tickets/{id}.json`) and sends only the fields given; a comment becomes `{body, public}`, with
`public` true unless `comment_public` says otherwise. Zendesk answers `{"ticket": {...}, "audit":
{...}}`; the tool hands back "Ticket created successfully!" and the whole answer as JSON indented
by 2. An error answer (`{"error": "RecordInvalid", "description", "details"}`, `{"error":
"Couldn't authenticate you"}`, a 429 `{"error": "APIRateLimitExceeded", "description"}`) is thrown
as "Zendesk API Error: {status} - {body as JSON}" and handed back as an `isError` text.
"""

import json

from .model import (
    Answer,
    Bug,
    Source,
    Tool,
    Wire,
    as_string,
    b,
    drop,
    edit,
    leak,
    lose,
    mcp_text,
    n,
    path_segment,
    put,
    rename,
    s,
    schema,
    strings,
    upper,
)

SOURCE = Source(
    "team-telnyx/zendesk-mcp-server",
    "src/tools/tickets.js",
    "ec20f2857963a53430324372030a59e8f05eb884",
)
API = "https://acmesupport.zendesk.com/api/v2"
HEADERS = {
    "Accept": "application/json, text/plain, */*",
    "Content-Type": "application/json",
    "Authorization": "Basic [REDACTED]",
    "User-Agent": "axios/1.7.9",
}
SUBJECTS = [
    "Cannot log in after password reset",
    "Refund for order #48213",
    "Invoice shows the wrong VAT number",
    "App crashes when uploading a photo",
    "Please close my account",
]
COMMENTS = [
    "The customer reports the reset link expires immediately.",
    "Customer was charged twice on 3 November; please refund one charge.",
    "Escalated from chat: the export button does nothing on Safari 17.",
    "Following up on the call of this morning.",
]
PRIORITIES = ["urgent", "high", "normal", "low"]
STATUSES = ["new", "open", "pending", "hold", "solved", "closed"]
TYPES = ["problem", "incident", "question", "task"]
TAGS = ["billing", "vip", "refund_request", "mobile", "login", "escalated"]
AGENTS = [8447388090494, 8447388091102, 380745391933]
GROUPS = [360001234567, 360009876543, 25418802]


def user_id(rng) -> int:
    return rng.choice([rng.randint(10_000, 99_999), rng.randint(10**12, 10**13 - 1)])


def when(rng) -> str:
    return f"2026-11-{rng.randint(10, 28)}T{rng.randint(10, 23)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}Z"


def ticket(rng, ident: int, fields: dict, comment: str | None) -> dict:
    """A ticket as Zendesk answers it, with the fields the request set."""
    made = when(rng)
    requester = fields.get("requester_id") or rng.choice(AGENTS)
    assignee = fields.get("assignee_id")
    status = fields.get("status") or ("open" if assignee else "new")
    subject = fields.get("subject") or rng.choice(SUBJECTS)
    return {
        "url": f"{API}/tickets/{ident}.json",
        "id": ident,
        "external_id": None,
        "via": {"channel": "api", "source": {"from": {}, "to": {}, "rel": None}},
        "created_at": made,
        "updated_at": made,
        "generated_timestamp": rng.randint(1_790_000_000, 1_799_999_999),
        "type": fields.get("type"),
        "subject": subject,
        "raw_subject": subject,
        "description": comment or rng.choice(COMMENTS),
        "priority": fields.get("priority"),
        "status": status,
        "recipient": None,
        "requester_id": requester,
        "submitter_id": rng.choice(AGENTS),
        "assignee_id": assignee,
        "organization_id": rng.choice([None, 360012345678]),
        "group_id": fields.get("group_id"),
        "collaborator_ids": [],
        "follower_ids": [],
        "email_cc_ids": [],
        "forum_topic_id": None,
        "problem_id": None,
        "has_incidents": False,
        "is_public": True,
        "due_at": None,
        "tags": sorted(fields.get("tags") or []),
        "custom_fields": list(fields.get("custom_fields") or []),
        "satisfaction_rating": None,
        "sharing_agreement_ids": [],
        "custom_status_id": 360000123456,
        "fields": list(fields.get("custom_fields") or []),
        "followup_ids": [],
        "ticket_form_id": 360000456789,
        "brand_id": 360000654321,
        "allow_channelback": False,
        "allow_attachments": True,
        "from_messaging_channel": False,
    }


def audit(rng, ident: int, fields: dict, kind: str) -> dict:
    """The audit of the change: one event per field set (values as Zendesk writes them: text)."""
    events = []
    comment = fields.get("comment")
    if comment:
        events.append(
            {
                "id": rng.randint(10**13, 10**14),
                "type": "Comment",
                "author_id": rng.choice(AGENTS),
                "body": comment["body"],
                "html_body": f'<div class="zd-comment" dir="auto">{comment["body"]}</div>',
                "plain_body": comment["body"],
                "public": comment.get("public", True),
                "attachments": [],
            }
        )
    for key in ("subject", "priority", "status", "type", "assignee_id", "group_id", "tags"):
        if fields.get(key) is not None:
            value = fields[key]
            events.append(
                {
                    "id": rng.randint(10**13, 10**14),
                    "type": kind,
                    "value": value if isinstance(value, list) else str(value),
                    "field_name": key,
                }
            )
    return {
        "id": rng.randint(10**13, 10**14),
        "ticket_id": ident,
        "created_at": when(rng),
        "author_id": rng.choice(AGENTS),
        "metadata": {"system": {"client": "axios/1.7.9", "ip_address": "34.82.11.7"}, "custom": {}},
        "events": events,
        "via": {"channel": "api", "source": {"from": {}, "to": {}, "rel": None}},
    }


def zd_error(status: int, bodies: list):
    def answer(args, rng):
        headers = {"Content-Type": "application/json; charset=utf-8"}
        if status == 429:
            headers["Retry-After"] = str(rng.randint(5, 60))
        return Answer(status, json.loads(json.dumps(rng.choice(bodies))), headers)

    return answer


INVALID = zd_error(
    422,
    [
        {
            "error": "RecordInvalid",
            "description": "Record validation errors",
            "details": {
                "requester": [{"description": "Requester: is suspended.", "error": "InvalidValue"}]
            },
        },
        {
            "error": "RecordInvalid",
            "description": "Record validation errors",
            "details": {
                "assignee": [
                    {
                        "description": "Assignee: is not an agent in the group",
                        "error": "InvalidValue",
                    }
                ]
            },
        },
    ],
)
AUTH = zd_error(401, [{"error": "Couldn't authenticate you"}])
RATE_LIMIT = zd_error(
    429,
    [
        {
            "error": "APIRateLimitExceeded",
            "description": "Number of allowed API requests per minute exceeded",
        }
    ],
)
NOT_FOUND = zd_error(404, [{"error": "RecordNotFound", "description": "Not found"}])


def thrown(what: str, success: str):
    def result(args, answer):
        if answer.status >= 400:
            body = json.dumps(answer.body, separators=(",", ":"))
            text = f"Error {what}: Zendesk API Error: {answer.status} - {body}"
            return mcp_text(text, is_error=True)
        return mcp_text(f"{success}\n\n{json.dumps(answer.body, indent=2)}")

    return result


# --- create_ticket --------------------------------------------------------------------------------


def create_args(rng):
    args = {"subject": rng.choice(SUBJECTS), "comment": rng.choice(COMMENTS)}
    put(args, rng, "priority", 0.5, lambda: rng.choice(PRIORITIES))
    put(args, rng, "status", 0.2, lambda: rng.choice(STATUSES[:4]))
    put(args, rng, "requester_id", 0.3, lambda: user_id(rng))
    put(args, rng, "assignee_id", 0.3, lambda: rng.choice(AGENTS))
    put(args, rng, "group_id", 0.25, lambda: rng.choice(GROUPS))
    put(args, rng, "type", 0.4, lambda: rng.choice(TYPES))
    put(args, rng, "tags", 0.4, lambda: rng.sample(TAGS, rng.randint(1, 3)))
    return args


def create_request(args):
    # the handler's object literal, in its order; JSON leaves the undefined keys out
    order = ("priority", "status", "requester_id", "assignee_id", "group_id", "type", "tags")
    data = {"subject": args["subject"], "comment": {"body": args["comment"]}}
    data.update({k: args[k] for k in order if k in args})
    return Wire("POST", f"{API}/tickets.json", headers=dict(HEADERS), json={"ticket": data})


def create_response(args, rng):
    fields = create_request(args).json["ticket"]
    ident = rng.randint(1_000, 99_999)
    body = {
        "ticket": ticket(rng, ident, fields, args["comment"]),
        "audit": audit(rng, ident, fields, "Create"),
    }
    return Answer(201, body, {"Content-Type": "application/json; charset=utf-8"})


def _unwrapped_comment(call) -> bool:
    comment = call["wire"].json["ticket"].get("comment")
    if not isinstance(comment, dict):
        return False
    call["wire"].json["ticket"]["comment"] = comment["body"]
    return True


CREATE_TICKET = Tool(
    "zendesk",
    "create_ticket",
    SOURCE,
    "Create a new ticket in Zendesk. MODERATE RISK: This will create new data. Requires subject "
    "and comment. Returns the created ticket with its ID.",
    schema(
        {
            "subject": s("Ticket subject"),
            "comment": s("Ticket comment/description"),
            "priority": s("Ticket priority", enum=PRIORITIES),
            "status": s("Ticket status", enum=STATUSES),
            "requester_id": n("User ID of the requester", "integer"),
            "assignee_id": n("User ID of the assignee", "integer"),
            "group_id": n("Group ID for the ticket", "integer"),
            "type": s("Ticket type", enum=TYPES),
            "tags": strings("Tags for the ticket"),
        },
        ["subject", "comment"],
    ),
    create_args,
    create_request,
    create_response,
    [INVALID, AUTH, RATE_LIMIT],
    thrown("creating ticket", "Ticket created successfully!"),
    [
        Bug("dropped", drop("body", "/ticket/subject"), "/subject", "/ticket/subject", single=True),
        Bug("type_changed", _unwrapped_comment, "/comment", "/ticket/comment"),
        Bug(
            "type_changed",
            edit("body", "/ticket/requester_id", as_string),
            "/requester_id",
            "/ticket/requester_id",
            single=True,
        ),
        Bug("enum_case", edit("body", "/ticket/priority", upper), "/priority", "/ticket/priority"),
        Bug(
            "renamed_key",
            rename("body", "/ticket/group_id", "group"),
            "/group_id",
            "/ticket/group_id",
        ),
        Bug("error_fields_lost", lose("/description"), response="/description", error=True),
    ],
)

# --- update_ticket --------------------------------------------------------------------------------


def update_args(rng):
    args = {"id": rng.randint(1_000, 99_999)}
    put(args, rng, "subject", 0.2, lambda: rng.choice(SUBJECTS))
    if rng.random() < 0.6:
        args["comment"] = rng.choice(COMMENTS)
        put(args, rng, "comment_public", 0.4, lambda: rng.random() < 0.3)
    put(args, rng, "priority", 0.3, lambda: rng.choice(PRIORITIES))
    put(args, rng, "status", 0.4, lambda: rng.choice(STATUSES))
    put(args, rng, "assignee_id", 0.25, lambda: rng.choice(AGENTS))
    put(args, rng, "group_id", 0.15, lambda: rng.choice(GROUPS))
    put(args, rng, "type", 0.1, lambda: rng.choice(TYPES))
    put(args, rng, "tags", 0.2, lambda: rng.sample(TAGS, rng.randint(1, 2)))
    if rng.random() < 0.2:
        args["custom_fields"] = [{"id": 360005551234, "value": rng.choice(["gold", "silver"])}]
    if len(args) == 1:
        args["status"] = rng.choice(STATUSES)
    return args


def update_request(args):
    data = {}
    if "subject" in args:
        data["subject"] = args["subject"]
    if "comment" in args:
        data["comment"] = {"body": args["comment"], "public": args.get("comment_public", True)}
    for key in ("priority", "status", "assignee_id", "group_id", "type", "tags"):
        if key in args:
            data[key] = args[key]
    if args.get("custom_fields"):
        data["custom_fields"] = args["custom_fields"]
    url = f"{API}/tickets/{args['id']}.json"
    return Wire("PUT", url, headers=dict(HEADERS), json={"ticket": data})


def update_response(args, rng):
    fields = update_request(args).json["ticket"]
    body = {
        "ticket": ticket(rng, args["id"], fields, None),
        "audit": audit(rng, args["id"], fields, "Change"),
    }
    return Answer(200, body, {"Content-Type": "application/json; charset=utf-8"})


def _other_ticket(segment: str):
    number = segment.removesuffix(".json")
    return f"{int(number) + 1}.json" if number.isdigit() else None


UPDATE_TICKET = Tool(
    "zendesk",
    "update_ticket",
    SOURCE,
    "Update an existing ticket by ID. MODERATE RISK: This will modify existing data. Supports "
    "updating standard fields (subject, status, priority, assignee, group, type, tags) and custom "
    "fields. Can add public or private comments. Returns the updated ticket.",
    schema(
        {
            "id": n("Ticket ID to update", "integer"),
            "subject": s("Updated ticket subject"),
            "comment": s("New comment to add"),
            "comment_public": b(
                "Whether the comment is public (true) or private/internal (false). Defaults to "
                "true if comment is provided."
            ),
            "priority": s("Updated ticket priority", enum=PRIORITIES),
            "status": s("Updated ticket status", enum=STATUSES),
            "assignee_id": n("User ID of the new assignee", "integer"),
            "group_id": n("New group ID for the ticket", "integer"),
            "type": s("Updated ticket type", enum=TYPES),
            "tags": strings("Updated tags for the ticket"),
            "custom_fields": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
                        "value": {},
                    },
                    "required": ["id", "value"],
                },
                "description": "Array of custom fields to update",
            },
        },
        ["id"],
    ),
    update_args,
    update_request,
    update_response,
    [NOT_FOUND, INVALID, RATE_LIMIT],
    thrown("updating ticket", "Ticket updated successfully!"),
    [
        Bug("wrong_path_id", path_segment(3, _other_ticket), "/id", "path:/3"),
        Bug(
            "value_changed",
            edit(
                "body", "/ticket/comment/public", lambda v: not v if isinstance(v, bool) else None
            ),
            "/comment_public",
            "/ticket/comment/public",
        ),
        # optional: one call cannot tell it consumed from lost (issue 32, item 2)
        Bug("dropped", drop("body", "/ticket/status"), "/status", "/ticket/status"),
        Bug(
            "type_changed",
            edit("body", "/ticket/assignee_id", as_string),
            "/assignee_id",
            "/ticket/assignee_id",
            single=True,
        ),
        Bug("leaked_field", leak("body", "/ticket/via_id", 4), None, "/ticket/via_id"),
        Bug("error_fields_lost", lose("/description"), response="/description", error=True),
    ],
)

TOOLS = [CREATE_TICKET, UPDATE_TICKET]
