"""Slack, as the reference MCP server's Slack tools call the Web API.

Fetch, JSON bodies, query strings.

Read: modelcontextprotocol/servers src/slack/index.ts at 1f70567 (the commit before the server was
archived). Every answer is HTTP 200 with `ok`; an error is `{"ok": false, "error":
"channel_not_found"}` with 200, a rate limit a 429 with `Retry-After` and `{"ok": false, "error":
"ratelimited"}`. The tool hands the model the body as JSON text (`JSON.stringify(response)`), errors
included, with no `isError`.
"""

from .model import (
    Answer,
    Bug,
    Source,
    Tool,
    Wire,
    drop,
    edit,
    leak,
    lose,
    mcp_text,
    n,
    plus_one,
    put,
    rename,
    s,
    schema,
)

SOURCE = Source(
    "modelcontextprotocol/servers", "src/slack/index.ts", "1f705677a930ec618b7a16d87d00cee7db747ff2"
)
API = "https://slack.com/api"
# SLACK_TEAM_ID, from the environment
TEAM = "T04QMB2LH7A"
HEADERS = {"Authorization": "Bearer [REDACTED]", "Content-Type": "application/json"}
CHANNELS = ["C07A1B2C3D4", "C01FZ9KQ2LM", "C05HX8P1RTW", "C0123ABCDEF", "C08N7M6L5K4"]
USERS = ["U01ABCD2EFG", "U07XYZ12345", "U02QWERTY99"]
TEXTS = [
    "Deploy of web 2.41.0 is done :rocket:",
    "Standup moved to 10:30 today",
    "Can someone review PR #4412?",
    "Incident INC-2231 resolved, postmortem tomorrow",
    "Lunch order closes at noon",
    "The staging DB is back up",
]
REACTIONS = ["thumbsup", "eyes", "white_check_mark", "tada", "heart", "+1"]


def ts(rng) -> str:
    return f"17{rng.randint(10**7, 10**8 - 1)}.{rng.randint(0, 999999):06d}"


def message(rng, channel: str, text: str | None = None) -> dict:
    return {
        "user": rng.choice(USERS),
        "type": "message",
        "ts": ts(rng),
        "bot_id": "B07BOT1234",
        "app_id": "A07APP5678",
        "text": text or rng.choice(TEXTS),
        "team": TEAM,
        "blocks": [{"type": "rich_text", "block_id": f"{rng.getrandbits(20):05x}", "elements": []}],
    }


def slack_error(*codes):
    def answer(args, rng):
        return Answer(200, {"ok": False, "error": rng.choice(codes)})

    return answer


def rate_limited(args, rng):
    return Answer(
        429, {"ok": False, "error": "ratelimited"}, {"Retry-After": str(rng.choice([1, 3, 30]))}
    )


def as_text(args, answer):
    return mcp_text(answer.body)


ERROR_LOSES_CODE = Bug("error_fields_lost", lose("/error"), response="/error", error=True)

# --- slack_post_message ---------------------------------------------------------------------------


def post_args(rng):
    return {"channel_id": rng.choice(CHANNELS), "text": rng.choice(TEXTS)}


def post_request(args):
    return Wire(
        "POST",
        f"{API}/chat.postMessage",
        headers=dict(HEADERS),
        json={"channel": args["channel_id"], "text": args["text"]},
    )


def post_response(args, rng):
    msg = message(rng, args["channel_id"], args["text"])
    return Answer(200, {"ok": True, "channel": args["channel_id"], "ts": msg["ts"], "message": msg})


POST_MESSAGE = Tool(
    "slack",
    "slack_post_message",
    SOURCE,
    "Post a new message to a Slack channel",
    schema(
        {
            "channel_id": s("The ID of the channel to post to"),
            "text": s("The message text to post"),
        },
        ["channel_id", "text"],
    ),
    post_args,
    post_request,
    post_response,
    [
        slack_error("channel_not_found", "not_in_channel", "is_archived", "msg_too_long"),
        rate_limited,
    ],
    as_text,
    [
        Bug("renamed_key", rename("body", "/text", "message"), "/text", "/text"),
        Bug("leaked_field", leak("body", "/channel_id", "C07A1B2C3D4"), None, "/channel_id"),
        Bug("dropped", drop("body", "/text"), "/text", "/text", single=True),
        ERROR_LOSES_CODE,
    ],
)

# --- slack_add_reaction ---------------------------------------------------------------------------


def reaction_args(rng):
    return {
        "channel_id": rng.choice(CHANNELS),
        "timestamp": ts(rng),
        "reaction": rng.choice(REACTIONS),
    }


def reaction_request(args):
    body = {"channel": args["channel_id"], "timestamp": args["timestamp"], "name": args["reaction"]}
    return Wire("POST", f"{API}/reactions.add", headers=dict(HEADERS), json=body)


ADD_REACTION = Tool(
    "slack",
    "slack_add_reaction",
    SOURCE,
    "Add a reaction emoji to a message",
    schema(
        {
            "channel_id": s("The ID of the channel containing the message"),
            "timestamp": s("The timestamp of the message to react to"),
            "reaction": s("The name of the emoji reaction (without ::)"),
        },
        ["channel_id", "timestamp", "reaction"],
    ),
    reaction_args,
    reaction_request,
    lambda args, rng: Answer(200, {"ok": True}),
    [
        slack_error("already_reacted", "message_not_found", "invalid_name", "too_many_reactions"),
        rate_limited,
    ],
    as_text,
    [
        Bug("value_changed", edit("body", "/name", lambda v: f":{v}:"), "/reaction", "/name"),
        Bug("dropped", drop("body", "/timestamp"), "/timestamp", "/timestamp", single=True),
        Bug("renamed_key", rename("body", "/timestamp", "ts"), "/timestamp", "/timestamp"),
        ERROR_LOSES_CODE,
    ],
)

# --- slack_get_channel_history (GET, query; `limit` defaults to 10 in code) -----------------------


def history_args(rng):
    args = {"channel_id": rng.choice(CHANNELS)}
    put(args, rng, "limit", 0.6, lambda: rng.choice([5, 10, 20, 50, 100]))
    return args


def history_request(args):
    query = [("channel", args["channel_id"]), ("limit", str(args.get("limit", 10)))]
    return Wire("GET", f"{API}/conversations.history", query, {**HEADERS})


def history_response(args, rng):
    count = min(args.get("limit", 10), rng.randint(0, 6))
    return Answer(
        200,
        {
            "ok": True,
            "messages": [message(rng, args["channel_id"]) for _ in range(count)],
            "has_more": rng.random() < 0.5,
            "pin_count": rng.randint(0, 3),
            "channel_actions_ts": None,
            "channel_actions_count": 0,
            "response_metadata": {"next_cursor": f"bmV4dF90czoxNz{rng.getrandbits(40):010x}"},
        },
    )


HISTORY = Tool(
    "slack",
    "slack_get_channel_history",
    SOURCE,
    "Get recent messages from a channel",
    schema(
        {
            "channel_id": s("The ID of the channel"),
            "limit": n("Number of messages to retrieve (default 10)", default=10),
        },
        ["channel_id"],
    ),
    history_args,
    history_request,
    history_response,
    [slack_error("channel_not_found", "not_in_channel", "missing_scope"), rate_limited],
    as_text,
    [
        Bug("renamed_key", rename("query", "limit", "count"), "/limit", "query:/limit"),
        Bug(
            "value_changed", edit("query", "limit", plus_one), "/limit", "query:/limit", single=True
        ),
        Bug(
            "wrong_id",
            edit("query", "channel", lambda v: v[:-1] + "X"),
            "/channel_id",
            "query:/channel",
            single=True,
        ),
    ],
)

# --- slack_list_channels (GET; `limit` clamped to 200, team_id and filters from the code) ---------


def channels_args(rng):
    args = {}
    put(args, rng, "limit", 0.6, lambda: rng.choice([20, 50, 100, 200, 500, 1000]))
    put(args, rng, "cursor", 0.2, lambda: f"dGVhbTpDMDYx{rng.getrandbits(32):08X}")
    return args


def channels_request(args):
    query = [
        ("types", "public_channel"),
        ("exclude_archived", "true"),
        ("limit", str(min(args.get("limit", 100), 200))),
        ("team_id", TEAM),
    ]
    if args.get("cursor"):
        query.append(("cursor", args["cursor"]))
    return Wire("GET", f"{API}/conversations.list", query, {**HEADERS})


def channels_response(args, rng):
    names = ["general", "random", "eng-backend", "incidents", "design", "sales-emea", "deploys"]
    channels = [
        {
            "id": rng.choice(CHANNELS),
            "name": name,
            "is_channel": True,
            "is_private": False,
            "is_archived": False,
            "created": rng.randint(1_500_000_000, 1_700_000_000),
            "creator": rng.choice(USERS),
            "num_members": rng.randint(2, 400),
            "topic": {"value": "", "creator": "", "last_set": 0},
        }
        for name in rng.sample(names, rng.randint(1, 5))
    ]
    return Answer(200, {"ok": True, "channels": channels, "response_metadata": {"next_cursor": ""}})


LIST_CHANNELS = Tool(
    "slack",
    "slack_list_channels",
    SOURCE,
    "List public or pre-defined channels in the workspace with pagination",
    schema(
        {
            "limit": n("Maximum number of channels to return (default 100, max 200)", default=100),
            "cursor": s("Pagination cursor for next page of results"),
        }
    ),
    channels_args,
    channels_request,
    channels_response,
    [slack_error("invalid_auth", "missing_scope", "invalid_cursor"), rate_limited],
    as_text,
    [
        Bug("dropped", drop("query", "cursor"), "/cursor", "query:/cursor"),
        Bug("renamed_key", rename("query", "cursor", "next_cursor"), "/cursor", "query:/cursor"),
        Bug("leaked_field", leak("query", "retry_attempt", "1"), None, "query:/retry_attempt"),
    ],
)

TOOLS = [POST_MESSAGE, ADD_REACTION, HISTORY, LIST_CHANNELS]
