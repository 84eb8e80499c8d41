"""Trello, as delorenj/mcp-server-trello calls its REST API with axios.

Unseen: written for the fourth unseen part, measured before any change made for it.

Read: delorenj/mcp-server-trello src/index.ts (`add_card_to_list`, `update_card_details`,
`add_comment`, `get_recent_activity`, `handleError`), src/trello-client.ts (the axios instance,
`handleRequest`, `addCard`, `updateCard`, `addCommentToCard`, `getRecentActivity`), src/types.ts and
package.json (MCP SDK 1.24, axios 1.13) at f098ffb. Every request goes to `https://api.trello.com/1`
with the API key and the token as the query's first two parameters (axios' default `params`, so
they are in every URL the layer logs), then the call's own parameters. `add_card_to_list` posts
JSON renamed for the API (`listId` as `idList`, `description` as `desc`, `dueDate` as `due`,
`labels` as `idLabels`; keys the model left out vanish, a `dueReminder` of null stays null) and
never sends `boardId`; `update_card_details` puts the same renames to `/cards/{cardId}`;
`add_comment` writes `text` into the URL itself (`?text=<encodeURIComponent>`, the key and token
appended after it) with no body; `get_recent_activity` GETs `/boards/{boardId}/actions` with
`limit` (zod's default of 10 applied whether or not the model gave one), `since` and `before`, the
configured board when the model gave none. A success is the answer's JSON indented by 2. An error
is retried on 429 (three times, then `Trello API rate limit exceeded after 3 retries`), otherwise
thrown as an McpError `Trello API Error: <status> Request failed with status code <status>`: the
result is an `isError` text `Error: MCP error -32603: ...` that keeps none of Trello's body (a plain
text such as `invalid id`, or `{"error", "message"}` JSON on a 429).
"""

from .model import (
    NOBODY,
    Answer,
    Bug,
    Source,
    Tool,
    Wire,
    as_string,
    day_first,
    drop,
    edit,
    leak,
    lose,
    mcp_text,
    path_segment,
    plus_one,
    put,
    rename,
    swap,
)

COMMIT = "f098ffb300687d5cec4b8fb3bb39b5f0914651f1"
REPO = "delorenj/mcp-server-trello"
API = "https://api.trello.com/1"
# the key and token the server was started with (axios sends them as query parameters)
KEY = "6c1f0a9b3e2d47c58a1b9f0e7d3c2a41"
TOKEN = "ATTA9d2e61c07b4f3a85e0c1d2b7a9f46e3805c2d1b4a7e9f0c3d6b8a2e5f1c7d4094B7E31"
AUTH = [("key", KEY), ("token", TOKEN)]
DRAFT7 = "http://json-schema.org/draft-07/schema#"
BOARDS = ["64b7f2c91d3a8e05f2c4a6b1", "65a0c3e8f7b21d94c0e5a3f2"]
DEFAULT_BOARD = BOARDS[0]
LISTS = ["64b7f2c91d3a8e05f2c4a6c3", "64b7f2c91d3a8e05f2c4a6c4", "64b7f2c91d3a8e05f2c4a6c5"]
LABELS = {
    "64b7f2c91d3a8e05f2c4a6d1": ("green", "Ready"),
    "64b7f2c91d3a8e05f2c4a6d2": ("red", "Blocked"),
    "64b7f2c91d3a8e05f2c4a6d3": ("purple", "Design"),
}
NAMES = ["Update onboarding copy", "Fix flaky checkout test", "Plan Q1 offsite", "Renew SSL cert"]
DESCRIPTIONS = [
    "See the thread in #growth for context.",
    "Steps:\n1. open cart\n2. apply coupon\n3. observe 500",
    "Budget approved, venue TBD",
]
TEXTS = [
    "Done, moved to review",
    "Can someone pair on this tomorrow?",
    "Blocked until the API keys arrive",
    "Ship it 🚀",
]
MEMBERS = [
    ("5e8d1c2b4a3f6e7d8c9b0a12", "Ana Souza", "anasouza"),
    ("5f3a2b1c0d9e8f7a6b5c4d31", "Marek Nowak", "mareknowak4"),
]


def headers(json_body: bool) -> dict:
    out = {"Accept": "application/json, text/plain, */*"}
    if json_body:
        out["Content-Type"] = "application/json"
    out["User-Agent"] = "axios/1.13.2"
    out["Accept-Encoding"] = "gzip, compress, deflate, br"
    return out


def oid(rng) -> str:
    """A Trello id: a Mongo ObjectId, 24 hex digits."""
    return f"{rng.randint(0x64000000, 0x66FFFFFF):08x}{rng.getrandbits(64):016x}"


def when(rng) -> str:
    return f"2026-11-{rng.randint(10, 28)}T{rng.randint(8, 19):02d}:{rng.randint(10, 59)}:07.{rng.randint(100, 999)}Z"


def short(rng) -> str:
    return "".join(
        rng.choice("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(8)
    )


def member(who: tuple) -> dict:
    ident, name, username = who
    return {
        "id": ident,
        "activityBlocked": False,
        "avatarHash": f"{int(ident[:8], 16):032x}",
        "avatarUrl": f"https://trello-members.s3.amazonaws.com/{ident}/{int(ident[:8], 16):032x}",
        "fullName": name,
        "idMemberReferrer": None,
        "initials": "".join(p[0] for p in name.split()),
        "nonPublic": {},
        "nonPublicAvailable": True,
        "username": username,
    }


def card(rng, given: dict) -> dict:
    """A card as Trello answers it, the fields the request set taken from it."""
    ident, link, idshort = oid(rng), short(rng), rng.randint(3, 240)
    name = given.get("name", rng.choice(NAMES))
    labels = given.get("idLabels", [])
    return {
        "id": ident,
        "badges": {
            "attachments": 0,
            "checkItems": 0,
            "checkItemsChecked": 0,
            "comments": rng.randint(0, 4),
            "description": bool(given.get("desc")),
            "due": given.get("due"),
            "dueComplete": given.get("dueComplete", False),
            "start": given.get("start"),
            "votes": 0,
        },
        "checkItemStates": [],
        "closed": False,
        "dueComplete": given.get("dueComplete", False),
        "dateLastActivity": when(rng),
        "desc": given.get("desc", ""),
        "descData": {"emoji": {}},
        "due": given.get("due"),
        "dueReminder": given.get("dueReminder"),
        "email": None,
        "idBoard": given.get("idBoard", DEFAULT_BOARD),
        "idChecklists": [],
        "idList": given.get("idList", rng.choice(LISTS)),
        "idMembers": [],
        "idMembersVoted": [],
        "idShort": idshort,
        "idAttachmentCover": None,
        "labels": [
            {"id": i, "idBoard": DEFAULT_BOARD, "name": LABELS[i][1], "color": LABELS[i][0]}
            for i in labels
        ],
        "idLabels": labels,
        "manualCoverAttachment": False,
        "name": name,
        "pos": given.get("pos") if isinstance(given.get("pos"), int) else 16384 * rng.randint(1, 9),
        "shortLink": link,
        "shortUrl": f"https://trello.com/c/{link}",
        "start": given.get("start"),
        "subscribed": False,
        "url": f"https://trello.com/c/{link}/{idshort}-{name.lower().replace(' ', '-')}",
        "cover": {"idAttachment": None, "color": None, "size": "normal", "brightness": "dark"},
        "isTemplate": False,
        "cardRole": None,
    }


def trello_text_error(status: int, text: str):
    def answer(args, rng):
        return Answer(status, text, {"Content-Type": "text/plain; charset=utf-8"})

    return answer


def rate_limited(args, rng):
    body = {"error": "API_TOKEN_LIMIT_EXCEEDED", "message": "Rate limit exceeded"}
    return Answer(429, body, {"Content-Type": "application/json; charset=utf-8"})


NOT_FOUND = trello_text_error(404, "The requested resource was not found.")
INVALID_TOKEN = trello_text_error(401, "invalid token")
INVALID_ID = trello_text_error(400, "invalid id")


def result(args, answer):
    """The answer's JSON indented, or handleError's text of the McpError handleRequest threw."""
    if answer.status < 400:
        return mcp_text(answer.body, indent=2)
    if answer.status == 429:
        message = "Trello API rate limit exceeded after 3 retries"
    else:
        message = (
            f"Trello API Error: {answer.status} Request failed with status code {answer.status}"
        )
    text = f"Error: MCP error -32603: {message}"
    return {"content": [{"type": "text", "text": text}], "isError": True}


def zod_schema(properties: dict, required: list) -> dict:
    out = {"$schema": DRAFT7, "type": "object", "properties": properties}
    if required:
        out["required"] = required
    out["additionalProperties"] = False
    return out


def text(description: str) -> dict:
    return {"type": "string", "description": description}


BOARD_PROP = text("ID of the Trello board (uses default if not provided)")
REMINDER = {
    "anyOf": [{"type": "integer"}, {"type": "null"}],
    "description": "Due date reminder in minutes before due date (e.g., null to remove reminder, "
    "0 at due time, 1440 one day before)",
}
POS = {
    "anyOf": [{"type": "string"}, {"type": "number"}],
    "description": 'Position of the card in the list. Accepts "top", "bottom", or a positive number',
}


def other_id(segment: str):
    return segment[:-6] + segment[-6:][::-1] if len(segment) == 24 else None


def card_body(args: dict, keys) -> dict:
    """The JSON axios sends: the renamed fields, the ones the model left out gone."""
    return {wire: args[arg] for wire, arg in keys if arg in args}


def due(rng) -> str:
    return f"2026-12-{rng.randint(1, 28):02d}T{rng.choice(['09', '12', '17'])}:00:00.000Z"


# --- add_card_to_list -----------------------------------------------------------------------------

ADD_KEYS = (
    ("idList", "listId"),
    ("name", "name"),
    ("desc", "description"),
    ("due", "dueDate"),
    ("dueReminder", "dueReminder"),
    ("start", "start"),
    ("idLabels", "labels"),
)


def add_args(rng):
    args = {}
    put(args, rng, "boardId", 0.3, lambda: rng.choice(BOARDS))
    args["listId"] = rng.choice(LISTS)
    args["name"] = rng.choice(NAMES)
    put(args, rng, "description", 0.4, lambda: rng.choice(DESCRIPTIONS))
    put(args, rng, "dueDate", 0.35, lambda: due(rng))
    if "dueDate" in args:
        put(args, rng, "dueReminder", 0.4, lambda: rng.choice([None, 0, 60, 1440]))
    put(args, rng, "start", 0.15, lambda: f"2026-11-{rng.randint(20, 30)}")
    put(args, rng, "labels", 0.35, lambda: rng.sample(list(LABELS), rng.randint(1, 2)))
    return args


def add_request(args):
    body = card_body(args, ADD_KEYS)
    return Wire("POST", f"{API}/cards", query=list(AUTH), headers=headers(True), json=body)


def add_response(args, rng):
    return Answer(200, card(rng, card_body(args, ADD_KEYS)), {"Content-Type": "application/json"})


ADD_CARD_TO_LIST = Tool(
    "trello",
    "add_card_to_list",
    Source(REPO, "src/trello-client.ts", COMMIT),
    "Add a new card to a specified list on a specific board",
    zod_schema(
        {
            "boardId": BOARD_PROP,
            "listId": text("ID of the list to add the card to"),
            "name": text("Name of the card"),
            "description": text("Description of the card"),
            "dueDate": text("Due date for the card (ISO 8601 format)"),
            "dueReminder": REMINDER,
            "start": text("Start date for the card (YYYY-MM-DD format, date only)"),
            "labels": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Array of label IDs to apply to the card",
            },
        },
        ["listId", "name"],
    ),
    add_args,
    add_request,
    add_response,
    [INVALID_ID, INVALID_TOKEN, rate_limited],
    result,
    [
        Bug("renamed_key", rename("body", "/desc", "description"), "/description", "/desc"),
        Bug("dropped", drop("body", "/idLabels"), "/labels", "/idLabels"),
        Bug(
            "list_joined",
            edit("body", "/idLabels", lambda v: ",".join(v) if isinstance(v, list) else None),
            "/labels",
            "/idLabels",
        ),
        Bug("date_format", edit("body", "/due", day_first), "/dueDate", "/due"),
        Bug("swapped_values", swap("/idList", "/name"), "/listId", "/idList"),
        Bug("leaked_field", leak("body", "/idBoard", DEFAULT_BOARD), None, "/idBoard"),
        Bug("error_fields_lost", lose("/message"), response="/message", error=True),
    ],
)

# --- update_card_details --------------------------------------------------------------------------

UPDATE_KEYS = (
    ("name", "name"),
    ("desc", "description"),
    ("due", "dueDate"),
    ("dueReminder", "dueReminder"),
    ("start", "start"),
    ("dueComplete", "dueComplete"),
    ("idLabels", "labels"),
    ("pos", "pos"),
)


def update_args(rng):
    args = {"cardId": oid(rng)}
    put(args, rng, "boardId", 0.2, lambda: rng.choice(BOARDS))
    put(args, rng, "name", 0.3, lambda: rng.choice(NAMES))
    put(args, rng, "description", 0.25, lambda: rng.choice(DESCRIPTIONS))
    put(args, rng, "dueDate", 0.3, lambda: due(rng))
    put(args, rng, "dueComplete", 0.35, lambda: rng.choice([True, False]))
    put(args, rng, "labels", 0.2, lambda: rng.sample(list(LABELS), 1))
    put(args, rng, "pos", 0.2, lambda: rng.choice(["top", "bottom", 65536]))
    if len(args) == 1 or (len(args) == 2 and "boardId" in args):
        args["dueComplete"] = True
    return args


def update_request(args):
    body = card_body(args, UPDATE_KEYS)
    url = f"{API}/cards/{args['cardId']}"
    return Wire("PUT", url, query=list(AUTH), headers=headers(True), json=body)


def update_response(args, rng):
    given = card_body(args, UPDATE_KEYS)
    body = card(rng, given)
    body["id"] = args["cardId"]
    return Answer(200, body, {"Content-Type": "application/json"})


def _other_pos(value):
    if value == "top":
        return "bottom"
    return plus_one(value) if isinstance(value, int) else None


UPDATE_CARD_DETAILS = Tool(
    "trello",
    "update_card_details",
    Source(REPO, "src/trello-client.ts", COMMIT),
    "Update an existing card's details on a specific board",
    zod_schema(
        {
            "boardId": BOARD_PROP,
            "cardId": text("ID of the card to update"),
            "name": text("New name for the card"),
            "description": text("New description for the card"),
            "dueDate": text("New due date for the card (ISO 8601 format)"),
            "dueReminder": REMINDER,
            "start": text("New start date for the card (YYYY-MM-DD format, date only)"),
            "dueComplete": {
                "type": "boolean",
                "description": "Mark the due date as complete (true) or incomplete (false)",
            },
            "labels": {
                "type": "array",
                "items": {"type": "string"},
                "description": "New array of label IDs for the card",
            },
            "pos": POS,
        },
        ["cardId"],
    ),
    update_args,
    update_request,
    update_response,
    [NOT_FOUND, INVALID_TOKEN, rate_limited],
    result,
    [
        Bug("wrong_path_id", path_segment(2, other_id), "/cardId", "path:/2"),
        Bug("dropped", drop("body", "/dueComplete"), "/dueComplete", "/dueComplete"),
        Bug(
            "type_changed",
            edit("body", "/dueComplete", as_string),
            "/dueComplete",
            "/dueComplete",
            single=True,
        ),
        Bug("renamed_key", rename("body", "/name", "title"), "/name", "/name"),
        Bug("value_changed", edit("body", "/pos", _other_pos), "/pos", "/pos", single=True),
        Bug("error_fields_lost", lose("/error"), response="/error", error=True),
    ],
)

# --- add_comment ----------------------------------------------------------------------------------


def comment_args(rng):
    return {"cardId": oid(rng), "text": rng.choice(TEXTS)}


def comment_request(args):
    url = f"{API}/cards/{args['cardId']}/actions/comments"
    query = [("text", args["text"]), *AUTH]
    return Wire("POST", url, query=query, headers=headers(False), json=NOBODY)


def comment_response(args, rng):
    who = rng.choice(MEMBERS)
    link = short(rng)
    body = {
        "id": oid(rng),
        "idMemberCreator": who[0],
        "data": {
            "text": args["text"],
            "textData": {"emoji": {}},
            "card": {
                "id": args["cardId"],
                "name": rng.choice(NAMES),
                "idShort": rng.randint(3, 240),
                "shortLink": link,
            },
            "board": {"id": DEFAULT_BOARD, "name": "Product roadmap", "shortLink": "Xk2mP9qa"},
            "list": {"id": rng.choice(LISTS), "name": rng.choice(["Doing", "Review", "To do"])},
        },
        "appCreator": None,
        "type": "commentCard",
        "date": when(rng),
        "limits": {"reactions": {"perAction": {"status": "ok", "disableAt": 900, "warnAt": 880}}},
        "display": {
            "translationKey": "action_comment_on_card",
            "entities": {
                "contextOn": {
                    "type": "translatable",
                    "translationKey": "action_on",
                    "hideIfContext": True,
                },
                "card": {
                    "type": "card",
                    "hideIfContext": True,
                    "id": args["cardId"],
                    "shortLink": link,
                },
                "comment": {"type": "comment", "text": args["text"]},
            },
        },
        "memberCreator": member(who),
    }
    return Answer(200, body, {"Content-Type": "application/json"})


def _cut(value):
    return value[:12] if len(value) > 12 else None


ADD_COMMENT = Tool(
    "trello",
    "add_comment",
    Source(REPO, "src/trello-client.ts", COMMIT),
    "Add the given text as a new comment to the given card",
    zod_schema(
        {
            "cardId": text("ID of the card to comment on"),
            "text": text("The text of the comment to add"),
        },
        ["cardId", "text"],
    ),
    comment_args,
    comment_request,
    comment_response,
    [NOT_FOUND, INVALID_TOKEN, rate_limited],
    result,
    [
        Bug("dropped", drop("query", "text"), "/text", "query:/text"),
        Bug("value_changed", edit("query", "text", _cut), "/text", "query:/text", single=True),
        Bug("wrong_path_id", path_segment(2, other_id), "/cardId", "path:/2"),
        Bug("leaked_field", leak("query", "idMember", MEMBERS[0][0]), None, "query:/idMember"),
        Bug("error_fields_lost", lose("/message"), response="/message", error=True),
    ],
)

# --- get_recent_activity --------------------------------------------------------------------------


def activity_args(rng):
    args = {}
    put(args, rng, "boardId", 0.5, lambda: rng.choice(BOARDS))
    put(args, rng, "limit", 0.4, lambda: rng.choice([5, 20, 50]))
    put(args, rng, "since", 0.3, lambda: f"2026-11-{rng.randint(1, 20):02d}T00:00:00Z")
    put(args, rng, "before", 0.1, lambda: "2026-11-30T00:00:00Z")
    return args


def activity_request(args):
    board = args.get("boardId") or DEFAULT_BOARD
    query = [*AUTH, ("limit", str(args.get("limit", 10)))]
    query += [(k, args[k]) for k in ("since", "before") if args.get(k)]
    return Wire("GET", f"{API}/boards/{board}/actions", query=query, headers=headers(False))


def action(rng, board: str) -> dict:
    who = rng.choice(MEMBERS)
    kind = rng.choice(["commentCard", "updateCard", "createCard"])
    data = {
        "card": {"id": oid(rng), "name": rng.choice(NAMES), "idShort": rng.randint(3, 240)},
        "board": {"id": board, "name": "Product roadmap", "shortLink": "Xk2mP9qa"},
        "list": {"id": rng.choice(LISTS), "name": rng.choice(["Doing", "Review", "To do"])},
    }
    if kind == "commentCard":
        data["text"] = rng.choice(TEXTS)
    if kind == "updateCard":
        data["old"] = {"dueComplete": False}
        data["card"]["dueComplete"] = True
    return {
        "id": oid(rng),
        "idMemberCreator": who[0],
        "data": data,
        "appCreator": None,
        "type": kind,
        "date": when(rng),
        "limits": None,
        "memberCreator": member(who),
    }


def activity_response(args, rng):
    board = args.get("boardId") or DEFAULT_BOARD
    n = rng.randint(0, min(args.get("limit", 10), 6))
    return Answer(200, [action(rng, board) for _ in range(n)], {"Content-Type": "application/json"})


GET_RECENT_ACTIVITY = Tool(
    "trello",
    "get_recent_activity",
    Source(REPO, "src/trello-client.ts", COMMIT),
    "Fetch recent activity on the Trello board",
    zod_schema(
        {
            "boardId": BOARD_PROP,
            "limit": {
                "default": 10,
                "description": "Number of activities to fetch (default: 10)",
                "type": "number",
            },
            "since": text("Only return actions after this date (ISO 8601) or action ID"),
            "before": text("Only return actions before this date (ISO 8601) or action ID"),
        },
        [],
    ),
    activity_args,
    activity_request,
    activity_response,
    [NOT_FOUND, INVALID_TOKEN, rate_limited],
    result,
    [
        Bug(
            "value_changed", edit("query", "limit", plus_one), "/limit", "query:/limit", single=True
        ),
        Bug("renamed_key", rename("query", "since", "after"), "/since", "query:/since"),
        Bug("dropped", drop("query", "since"), "/since", "query:/since"),
        Bug("wrong_path_id", path_segment(2, other_id), "/boardId", "path:/2"),
        Bug("error_fields_lost", lose("/error"), response="/error", error=True),
    ],
)

TOOLS = [ADD_CARD_TO_LIST, UPDATE_CARD_DETAILS, ADD_COMMENT, GET_RECENT_ACTIVITY]
