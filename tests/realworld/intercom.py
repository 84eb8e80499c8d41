"""Intercom, as a community MCP server searches conversations through the REST API.

Unseen: written after the first unseen part was fixed for, never tuned on.

Read: raoulbia-ai/mcp-server-for-intercom src/services/intercomService.ts,
src/handlers/toolHandlers.ts, src/types/schemas.ts and src/utils/validators.ts at d00ed74. Dates
come as DD/MM/YYYY; the schema turns them into the start (00:00:00.000) or end (23:59:59.999) of
that day and the service into Unix seconds, so `"15/11/2026"` travels as `1794700800` in a
`POST /conversations/search` body `{"query": {"operator": "AND", "value": [{field, operator,
value}, ...]}}`: `created_at >=` the start, `created_at <=` the end, `contact_ids =` the customer's
id, `source.body ~` the keyword (several keywords joined with `|`), `source.body !~` the
exclusion. The recorded request is that search; each conversation found is then read with its
own `GET /conversations/{id}` (not recorded), whose messages make the result's `conversation`.
The result is `{"result": [{ticket_id, subject, status, created_at, conversation}]}` as JSON
indented by 2: the subject is the source's `title` or its HTML `body` (Intercom's source has a
`subject`, so it is the body), the status mapped (closed -> resolved, snoozed -> pending), times
as ISO text. Intercom's errors are `{"type": "error.list", "request_id", "errors": [{code,
message}]}`; the service reads a top `message` it never finds, so the text handed back, after
three retries, is the status and its reason: `{"error": "Failed to ...: API request failed with
status 401: Unauthorized"}`, with no `isError`.
"""

import json
import random
from datetime import UTC, datetime, timedelta

from .model import (
    Answer,
    Bug,
    Source,
    Tool,
    Wire,
    as_string,
    edit,
    leak,
    lose,
    mcp_text,
    put,
    rename,
    s,
    schema,
    strings,
)

SERVICE = "src/services/intercomService.ts"
COMMIT = "d00ed74363f398bdc1c8f78df89b28bc8a91bee5"
API = "https://api.intercom.io"
HEADERS = {
    "Authorization": "Bearer [REDACTED]",
    "Accept": "application/json",
    "Content-Type": "application/json",
}
BODIES = [
    "I was charged twice for my subscription this month",
    "The export to CSV fails with a timeout",
    "How do I add a second admin to our workspace?",
    "Refund request for the annual plan",
    "Login link in the email does not work",
    "Can you extend our trial by a week?",
]
KEYWORDS = ["refund", "export", "login", "trial", "admin"]
REPLIES = [
    "Thanks for reaching out! Let me look into this for you.",
    "I have refunded the duplicate charge; it takes 5-10 days to show.",
    "Could you send us a screenshot of the error?",
    "Closing this one as resolved. Reply any time if it comes back.",
]
STATES = {"open": "open", "closed": "resolved", "snoozed": "pending"}
DAY = 86400


def day_text(day: datetime) -> str:
    return day.strftime("%d/%m/%Y")


def seconds(text: str, end: bool) -> int:
    """DD/MM/YYYY -> Unix seconds of the day's start, or of its last millisecond (floored)."""
    day = datetime.strptime(text, "%d/%m/%Y").replace(tzinfo=UTC)
    return int(day.timestamp()) + (DAY - 1 if end else 0)


def iso(stamp: int) -> str:
    return datetime.fromtimestamp(stamp, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def contact_id(rng) -> str:
    return f"{rng.getrandbits(96):024x}"


def conversation(rng, created: int, body: str, contact: str) -> dict:
    """A conversation as /conversations/search answers it (API 2.x)."""
    state = rng.choice(["open", "open", "closed", "snoozed"])
    ident = str(rng.randint(10**11, 10**12))
    return {
        "type": "conversation",
        "id": ident,
        "title": None,
        "created_at": created,
        "updated_at": created + rng.randint(60, 7200),
        "waiting_since": None if state == "closed" else created + 60,
        "snoozed_until": created + DAY if state == "snoozed" else None,
        "open": state != "closed",
        "state": state,
        "read": rng.random() < 0.5,
        "priority": rng.choice(["not_priority", "priority"]),
        "admin_assignee_id": rng.choice([None, 5017691, 7240118]),
        "team_assignee_id": None,
        "tags": {"type": "tag.list", "tags": []},
        "conversation_rating": None,
        "source": {
            "type": "conversation",
            "id": str(rng.randint(10**9, 10**10)),
            "delivered_as": "customer_initiated",
            "subject": "",
            "body": f"<p>{body}</p>",
            "author": {"type": "user", "id": contact, "name": "", "email": ""},
            "attachments": [],
            "url": None,
            "redacted": False,
        },
        "contacts": {
            "type": "contact.list",
            "contacts": [{"type": "contact", "id": contact, "external_id": None}],
        },
        "first_contact_reply": {"created_at": created, "type": "conversation", "url": None},
        "sla_applied": None,
        "statistics": None,
        "linked_objects": {
            "type": "list",
            "data": [],
            "total_count": 0,
            "has_more": False,
        },
    }


def search_answer(rng, start: int, end: int, contact: str | None, keyword: str | None) -> Answer:
    count = rng.randint(0, 3)
    if keyword and "|" in keyword:
        # "~" looks for the text with its "|": nothing holds it
        count = 0
    found = []
    for _ in range(count):
        body = rng.choice(BODIES)
        if keyword and keyword not in body.lower():
            body = f"{body} ({keyword})"
        created = rng.randint(start, end)
        found.append(conversation(rng, created, body, contact or contact_id(rng)))
    body = {
        "type": "conversation.list",
        "pages": {"type": "pages", "page": 1, "per_page": 20, "total_pages": 1 if found else 0},
        "total_count": len(found),
        "conversations": found,
    }
    return Answer(200, body, {"Content-Type": "application/json; charset=utf-8"})


def history(conv: dict, keyword: str | None, exclude: str | None) -> list:
    """The messages of the conversation's own GET (plain text), filtered as the service does."""
    rng = random.Random(int(conv["id"]))
    body = conv["source"]["body"].removeprefix("<p>").removesuffix("</p>")
    messages = [{"from": "customer", "text": body, "timestamp": iso(conv["created_at"])}]
    for k in range(rng.randint(0, 2)):
        sender = rng.choice(["support_agent", "support_agent", "system"])
        text = rng.choice(REPLIES)
        messages.append(
            {"from": sender, "text": text, "timestamp": iso(conv["created_at"] + 600 * (k + 1))}
        )

    def kept(text):
        words = keyword.split("|") if keyword else []
        if words and not any(w.lower() in text.lower() for w in words):
            return False
        return not (exclude and exclude.lower() in text.lower())

    return [m for m in messages if kept(m["text"])]


def formatted(answer: Answer, keyword: str | None, exclude: str | None) -> dict:
    tickets = [
        {
            "ticket_id": conv["id"],
            "subject": conv["source"]["body"] or "No subject",
            "status": STATES.get(conv["state"], conv["state"]),
            "created_at": iso(conv["created_at"]),
            "conversation": history(conv, keyword, exclude),
        }
        for conv in answer.body["conversations"]
    ]
    return mcp_text(json.dumps({"result": tickets}, indent=2))


def ic_error(status: int, *errors):
    def answer(args, rng):
        code, message = rng.choice(errors)
        body = {
            "type": "error.list",
            "request_id": f"{rng.getrandbits(80):020x}",
            "errors": [{"code": code, "message": message}],
        }
        return Answer(status, body, {"Content-Type": "application/json; charset=utf-8"})

    return answer


REASONS = {400: "Bad Request", 401: "Unauthorized", 429: "Too Many Requests"}
AUTH = ic_error(401, ("unauthorized", "Access Token Invalid"))
RATE_LIMIT = ic_error(429, ("rate_limit_exceeded", "Exceeded rate limit of 1000 in 1_minute"))
BAD_QUERY = ic_error(
    400,
    ("parameter_invalid", "Query value is invalid for field source.body"),
    ("invalid_query", "created_at must be a Unix timestamp"),
)


def failed(answer: Answer, *wrappers: str) -> dict:
    text = f"API request failed with status {answer.status}: {REASONS[answer.status]}"
    for wrapper in wrappers:
        text = f"{wrapper}: {text}"
    return mcp_text(json.dumps({"error": text}, indent=2))


def condition(field: str, operator: str, value) -> dict:
    return {"field": field, "operator": operator, "value": value}


def search_wire(conditions: list) -> Wire:
    body = {"query": {"operator": "AND", "value": conditions}}
    return Wire("POST", f"{API}/conversations/search", headers=dict(HEADERS), json=body)


def dates(rng, required: bool) -> dict:
    out = {}
    start = datetime(2026, 11, 1, tzinfo=UTC) + timedelta(days=rng.randint(0, 20))
    if required or rng.random() < 0.5:
        out["startDate"] = day_text(start)
    if required or rng.random() < 0.4:
        out["endDate"] = day_text(start + timedelta(days=rng.randint(0, 6)))
    return out


def date_conditions(args) -> list:
    out = []
    if "startDate" in args:
        out.append(condition("created_at", ">=", seconds(args["startDate"], False)))
    if "endDate" in args:
        out.append(condition("created_at", "<=", seconds(args["endDate"], True)))
    return out


def span(args) -> tuple[int, int]:
    start = seconds(args["startDate"], False) if "startDate" in args else 1_793_491_200
    end = seconds(args["endDate"], True) if "endDate" in args else start + 20 * DAY
    return start, end


# --- list_conversations ---------------------------------------------------------------------------


def list_args(rng):
    args = dates(rng, True)
    put(args, rng, "keyword", 0.35, lambda: rng.choice(KEYWORDS))
    put(args, rng, "exclude", 0.2, lambda: rng.choice(["spam", "test"]))
    return args


def list_request(args):
    conditions = date_conditions(args)
    if "keyword" in args:
        conditions.append(condition("source.body", "~", args["keyword"]))
    if "exclude" in args:
        conditions.append(condition("source.body", "!~", args["exclude"]))
    return search_wire(conditions)


def list_response(args, rng):
    return search_answer(rng, *span(args), None, args.get("keyword"))


def list_result(args, answer):
    if answer.status >= 400:
        return failed(answer, "Failed to search conversations", "Failed to retrieve conversations")
    return formatted(answer, args.get("keyword"), args.get("exclude"))


def _keyword_operator(call) -> bool:
    items = call["wire"].json["query"]["value"]
    if len(items) < 3 or items[2]["operator"] != "~":
        return False
    items[2]["operator"] = "="
    return True


LIST_CONVERSATIONS = Tool(
    "intercom",
    "list_conversations",
    Source("raoulbia-ai/mcp-server-for-intercom", SERVICE, COMMIT),
    "Retrieves Intercom conversations within a specific date range.\n\nRequired: startDate, "
    "endDate (DD/MM/YYYY format, max 7-day range)\nOptional: keyword, exclude (for content "
    "filtering)\n\nAlways ask for specific dates when user makes vague time references.",
    schema(
        {
            "startDate": s("Start date in DD/MM/YYYY format (e.g., '15/01/2025'). Required."),
            "endDate": s("End date in DD/MM/YYYY format (e.g., '21/01/2025'). Required."),
            "keyword": s("Optional keyword to filter conversations by content."),
            "exclude": s("Optional exclusion filter for conversation content."),
        },
        ["startDate", "endDate"],
    ),
    list_args,
    list_request,
    list_response,
    [AUTH, RATE_LIMIT, BAD_QUERY],
    list_result,
    [
        Bug(
            "value_changed",
            edit(
                "body", "/query/value/0/value", lambda v: v + 3600 if isinstance(v, int) else None
            ),
            "/startDate",
            "/query/value/0/value",
        ),
        Bug(
            "type_changed",
            edit("body", "/query/value/1/value", as_string),
            "/endDate",
            "/query/value/1/value",
        ),
        Bug("value_changed", _keyword_operator, None, "/query/value/2/operator"),
        Bug(
            "renamed_key",
            rename("body", "/query/value/0/field", "name"),
            None,
            "/query/value/0/field",
        ),
        Bug(
            "error_fields_lost", lose("/errors/0/message"), response="/errors/0/message", error=True
        ),
    ],
)

# --- search_conversations_by_customer -------------------------------------------------------------


def customer_args(rng):
    args = {"customerIdentifier": contact_id(rng)}
    args.update(dates(rng, False))
    if rng.random() < 0.3:
        args["keywords"] = rng.sample(KEYWORDS, rng.choice([1, 1, 2]))
    return args


def customer_request(args):
    conditions = date_conditions(args)
    conditions.append(condition("contact_ids", "=", args["customerIdentifier"]))
    if args.get("keywords"):
        conditions.append(condition("source.body", "~", "|".join(args["keywords"])))
    return search_wire(conditions)


def customer_keyword(args) -> str | None:
    return "|".join(args["keywords"]) if args.get("keywords") else None


def customer_response(args, rng):
    return search_answer(rng, *span(args), args["customerIdentifier"], customer_keyword(args))


def customer_result(args, answer):
    if answer.status >= 400:
        return failed(answer, "Failed to search conversations", "Failed to search conversations")
    return formatted(answer, customer_keyword(args), None)


def _first_is(field: str, index: int = 0):
    def check(call) -> bool:
        items = call["wire"].json["query"]["value"]
        return len(items) > index and items[index]["field"] == field

    return check


def _when(check, plant):
    return lambda call: check(call) and plant(call)


def _drop_first(call) -> bool:
    call["wire"].json["query"]["value"].pop(0)
    return True


def _other_contact(value):
    return f"{(int(value, 16) + 1) % 16**24:024x}" if isinstance(value, str) else None


SEARCH_BY_CUSTOMER = Tool(
    "intercom",
    "search_conversations_by_customer",
    Source("raoulbia-ai/mcp-server-for-intercom", SERVICE, COMMIT),
    "Searches for conversations by customer email or ID with optional date filtering.\n\n"
    "Required: customerIdentifier (email/ID)\nOptional: startDate, endDate (DD/MM/YYYY format)"
    "\nOptional: keywords (array of strings to filter by content)",
    schema(
        {
            "customerIdentifier": s("Customer email or ID to search for"),
            "startDate": s("Optional start date in DD/MM/YYYY format (e.g., '15/01/2025')"),
            "endDate": s("Optional end date in DD/MM/YYYY format (e.g., '21/01/2025')"),
            "keywords": strings("Optional keywords to filter conversations by content"),
        },
        ["customerIdentifier"],
    ),
    customer_args,
    customer_request,
    customer_response,
    [AUTH, RATE_LIMIT],
    customer_result,
    [
        Bug(
            "wrong_id",
            _when(_first_is("contact_ids"), edit("body", "/query/value/0/value", _other_contact)),
            "/customerIdentifier",
            "/query/value/0/value",
        ),
        Bug(
            "dropped",
            _when(_first_is("contact_ids"), _drop_first),
            "/customerIdentifier",
            "/query/value/0",
            single=True,
        ),
        Bug(
            "list_not_joined",
            _when(
                _first_is("source.body", 1),
                lambda c: edit("body", "/query/value/1/value", lambda v: v.split("|"))(c),
            ),
            "/keywords",
            "/query/value/1/value",
        ),
        Bug("leaked_field", leak("body", "/pagination", {"per_page": 150}), None, "/pagination"),
        Bug("error_fields_lost", lose("/errors/0/code"), response="/errors/0/code", error=True),
    ],
)

TOOLS = [LIST_CONVERSATIONS, SEARCH_BY_CUSTOMER]
