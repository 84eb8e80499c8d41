"""Telegram's Bot API, as a community MCP server calls it through Telegraf.

Unseen: written after the analysis was tuned, never tuned on.

Read: siavashdelkhosh81/telegram-bot-mcp-server src/tools.ts and src/utils.ts at 12a8f83
(Telegraf 4). Telegraf posts each method as JSON to `/bot<token>/<method>`, the bot's token in
the path: `sendMessage` as `{chat_id, text}`, `getChatMember` as `{chat_id, user_id}`. The Bot API
answers `{"ok": true, "result": ...}`, or an HTTP error status with `{"ok": false, "error_code",
"description"}` (a 429 adds `parameters.retry_after`). `send-message` hands back a fixed text
whatever the answer held; its failures pass through two wrappers, the second of which reads the
first's error as a network error ("Error 400: Network or system error"), the code kept and
Telegram's description lost, in the layer as it is. `get-chat-member` hands back the `result` as
JSON text and a failure as "Error 400: Bad Request: user not found" with a context line. No
result sets `isError`.
"""

from .model import (
    Answer,
    Bug,
    Source,
    Tool,
    Wire,
    as_string,
    drop,
    edit,
    leak,
    lose,
    mcp_text,
    n,
    plus_one,
    rename,
    s,
    schema,
)

COMMIT = "12a8f834645c2de49d837c2ed0d067b771aaf8ae"
SOURCE = Source("siavashdelkhosh81/telegram-bot-mcp-server", "src/tools.ts", COMMIT)
# a bot token in the path, as Telegraf builds the URL (a made-up one)
API = "https://api.telegram.org/bot7361928450:AAHq3vX0pLm4Tz9kR2wYc8NfJd5sGb1eUoQ"
HEADERS = {"content-type": "application/json", "connection": "keep-alive"}
CHATS = ["-1001987654321", "-1002233445566", "@acme_status", "418833201"]
TEXTS = [
    "Deploy finished: web 2.41.0",
    "Nightly backup completed in 14 min",
    "Heads-up: maintenance window tonight 22:00-23:00 UTC",
    "New signup: ana@acme.io",
]


def tg_error(status: int, *descriptions):
    def answer(args, rng):
        return Answer(
            status, {"ok": False, "error_code": status, "description": rng.choice(descriptions)}
        )

    return answer


def rate_limited(args, rng):
    wait = rng.choice([3, 5, 17])
    return Answer(
        429,
        {
            "ok": False,
            "error_code": 429,
            "description": f"Too Many Requests: retry after {wait}",
            "parameters": {"retry_after": wait},
        },
        {"Retry-After": str(wait)},
    )


def user(rng, ident: int | None = None) -> dict:
    first = rng.choice(["Ana", "Bram", "Chen", "Dana"])
    out = {"id": ident or rng.randint(10**8, 7 * 10**9), "is_bot": False, "first_name": first}
    if rng.random() < 0.6:
        out["username"] = f"{first.lower()}{rng.randint(1, 99)}"
    if rng.random() < 0.5:
        out["language_code"] = rng.choice(["en", "de", "pt-br"])
    return out


def chat(chat_id: str) -> dict:
    if chat_id.startswith("@"):
        return {
            "id": -1001555000111,
            "title": "Acme status",
            "username": chat_id[1:],
            "type": "channel",
        }
    if chat_id.startswith("-"):
        return {"id": int(chat_id), "title": "Acme ops", "type": "supergroup"}
    return {"id": int(chat_id), "first_name": "Ana", "type": "private"}


# --- send-message ---------------------------------------------------------------------------------


def send_args(rng):
    return {"chatId": rng.choice(CHATS), "text": rng.choice(TEXTS)}


def send_request(args):
    return Wire(
        "POST",
        f"{API}/sendMessage",
        headers=dict(HEADERS),
        json={"chat_id": args["chatId"], "text": args["text"]},
    )


def send_response(args, rng):
    message = {
        "message_id": rng.randint(100, 90_000),
        "from": {
            "id": 7361928450,
            "is_bot": True,
            "first_name": "Acme Bot",
            "username": "acme_ops_bot",
        },
        "chat": chat(args["chatId"]),
        "date": 1_793_000_000 + rng.randint(0, 10**6),
        "text": args["text"],
    }
    return Answer(200, {"ok": True, "result": message})


def send_result(args, answer):
    if answer.status >= 400:
        # the second wrapper reads the first one's error object, which has a code and no message
        return mcp_text(
            f"Error {answer.body.get('error_code', '')}: Network or system error\n"
            f"Context: Sending message to chat {args['chatId']}"
        )
    return mcp_text("Message sent successfully to telegram chat")


SEND_MESSAGE = Tool(
    "telegram",
    "send-message",
    SOURCE,
    "Send message using a chat id. Automatically splits long messages that exceed Telegram's "
    "4096 character limit while preserving word boundaries and formatting.",
    {
        **schema(
            {
                "chatId": s(
                    "Unique identifier for the target chat or username of the target channel"
                ),
                "text": s("Message the user want to send to chat id."),
            },
            ["chatId", "text"],
        ),
        "additionalProperties": False,
    },
    send_args,
    send_request,
    send_response,
    [
        tg_error(400, "Bad Request: chat not found", "Bad Request: message text is empty"),
        tg_error(403, "Forbidden: bot was blocked by the user"),
        rate_limited,
    ],
    send_result,
    [
        Bug("renamed_key", rename("body", "/chat_id", "chatId"), "/chatId", "/chat_id"),
        Bug("dropped", drop("body", "/text"), "/text", "/text", single=True),
        Bug("leaked_field", leak("body", "/parse_mode", "HTML"), None, "/parse_mode"),
        Bug("error_fields_lost", lose("/description"), response="/description", error=True),
    ],
)

# --- get-chat-member ------------------------------------------------------------------------------


def member_args(rng):
    return {"chatId": rng.choice(CHATS[:3]), "userId": rng.randint(10**8, 7 * 10**9)}


def member_request(args):
    return Wire(
        "POST",
        f"{API}/getChatMember",
        headers=dict(HEADERS),
        json={"chat_id": args["chatId"], "user_id": args["userId"]},
    )


def member_response(args, rng):
    status = rng.choice(["member", "member", "administrator", "creator", "left"])
    member = {"user": user(rng, args["userId"]), "status": status}
    if status == "administrator":
        member.update(
            {
                "can_be_edited": False,
                "is_anonymous": False,
                "can_manage_chat": True,
                "can_delete_messages": True,
                "can_restrict_members": rng.choice([True, False]),
                "custom_title": "ops",
            }
        )
    elif status == "creator":
        member["is_anonymous"] = False
    return Answer(200, {"ok": True, "result": member})


def member_result(args, answer):
    if answer.status >= 400:
        body = answer.body
        code = body.get("error_code")
        said = body.get("description") or "Unknown error occurred"
        head = f"Error {code}: {said}" if code else f"Error: {said}"
        return mcp_text(
            f"{head}\nContext: Getting member {args['userId']} info from chat {args['chatId']}"
        )
    return mcp_text(answer.body["result"])


CHAT_MEMBER = Tool(
    "telegram",
    "get-chat-member",
    SOURCE,
    "get information about a member of a chat",
    {
        **schema(
            {
                "chatId": s(
                    "Unique identifier for the target chat or username of the target channel"
                ),
                "userId": n("Unique identifier of the target user"),
            },
            ["chatId", "userId"],
        ),
        "additionalProperties": False,
    },
    member_args,
    member_request,
    member_response,
    [
        tg_error(400, "Bad Request: user not found", "Bad Request: chat not found"),
        tg_error(403, "Forbidden: bot is not a member of the channel chat"),
        rate_limited,
    ],
    member_result,
    [
        Bug(
            "type_changed", edit("body", "/user_id", as_string), "/userId", "/user_id", single=True
        ),
        Bug(
            "value_changed", edit("body", "/user_id", plus_one), "/userId", "/user_id", single=True
        ),
        Bug("renamed_key", rename("body", "/user_id", "userId"), "/userId", "/user_id"),
        Bug("error_fields_lost", lose("/error_code"), response="/error_code", error=True),
    ],
)

TOOLS = [SEND_MESSAGE, CHAT_MEMBER]
