"""Discord, as a community MCP server calls the REST API v10 with axios.

Unseen: written after the analysis was tuned, never tuned on.

Read: yone-k/discord-mcp src/discord/client.ts, src/tools/messages/send-message.ts,
src/tools/channels/get-channel-messages.ts, src/core/tool-handler.ts and src/index.ts at 1891576.
`send_message` posts `{content, tts: tts || false, embeds}` to `/channels/{channelId}/messages`
(`embeds` left out when undefined); `get_channel_messages` always sends `limit` (50 when the model
gives none, at most 100) and one of `before`/`after`/`around` in the query. Results are the
message(s) remapped to camelCase (`channel_id` -> `channelId`, `author.avatar` -> an `avatarUrl`,
`embeds` -> `embedCount`) as JSON text indented by 2. A failure is rethrown as an McpError, a
JSON-RPC error whose Japanese message carries the status and Discord's `message`. Discord's
errors are `{"message", "code"}`, a 429 `{"message", "retry_after", "global"}`.
"""

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
    jsonrpc_error,
    lose,
    mcp_text,
    n,
    path_segment,
    plus_one,
    rename,
    s,
    schema,
)

COMMIT = "18915760bfdfb72d442c39c0323e2b5b9ae1c668"
API = "https://discord.com/api/v10"
HEADERS = {
    "Accept": "application/json, text/plain, */*",
    "Authorization": "Bot [REDACTED]",
    "Content-Type": "application/json",
    "User-Agent": "discord-mcp/1.0.0",
}
CHANNELS = ["1187342910453186610", "1092837465019283746", "987654321098765432"]
TEXTS = [
    "Build 2.41.0 is live on staging",
    "Reminder: community call at 18:00 UTC",
    "Thanks for the report, looking into it",
    "Patch notes are up in #announcements",
]


def snowflake(rng) -> str:
    return str(rng.randint(10**18, 2 * 10**18))


def raw_message(rng, channel: str, content: str | None = None, tts: bool = False) -> dict:
    bot = rng.random() < 0.3
    author = {
        "id": snowflake(rng),
        "username": rng.choice(["mira", "dev-bot", "kenji", "ops"]),
        "avatar": rng.choice([None, f"{rng.getrandbits(128):032x}"]),
        "discriminator": "0",
        "public_flags": 0,
        "global_name": rng.choice([None, "Mira K."]),
        **({"bot": True} if bot else {}),
    }
    return {
        "type": 0,
        "channel_id": channel,
        "content": content or rng.choice(TEXTS),
        "attachments": [],
        "embeds": [],
        "timestamp": f"2026-11-0{rng.randint(1, 9)}T1{rng.randint(0, 9)}:2{rng.randint(0, 9)}:11.402000+00:00",
        "edited_timestamp": None,
        "flags": 0,
        "components": [],
        "id": snowflake(rng),
        "author": author,
        "mentions": [],
        "mention_roles": [],
        "pinned": False,
        "mention_everyone": False,
        "tts": tts,
    }


def processed(message: dict) -> dict:
    """The tool's camelCase view of one message (undefined fields left out, as JSON drops them)."""
    a = message["author"]
    return {
        "id": message["id"],
        "channelId": message["channel_id"],
        "author": {
            "id": a["id"],
            "username": a["username"],
            "discriminator": a["discriminator"],
            "globalName": a.get("global_name") or None,
            "avatarUrl": f"https://cdn.discordapp.com/avatars/{a['id']}/{a['avatar']}.png"
            if a.get("avatar")
            else None,
            "isBot": a.get("bot") or False,
        },
        "content": message["content"],
        "timestamp": message["timestamp"],
        "editedTimestamp": message["edited_timestamp"],
        "tts": message["tts"],
        "mentionEveryone": message["mention_everyone"],
        "mentions": [],
        "mentionRoles": message["mention_roles"],
        "attachments": [],
        "embedCount": len(message["embeds"]),
        "reactions": [],
        "type": message["type"],
        "pinned": message["pinned"],
        "isWebhook": bool(message.get("webhook_id")),
    }


def discord_error(status: int, message: str, code: int):
    return lambda args, rng: Answer(status, {"message": message, "code": code})


def rate_limited(args, rng):
    wait = round(rng.uniform(0.2, 3), 3)
    return Answer(
        429,
        {"message": "You are being rate limited.", "retry_after": wait, "global": False},
        {"Retry-After": str(int(wait) + 1), "X-RateLimit-Scope": "user"},
    )


def thrown(doing: str, answer) -> dict:
    """The client's Error for a status, wrapped by the tool and then by the server."""
    status, said = answer.status, answer.body.get("message")
    if status == 403:
        text = f"Discord API権限エラー: {said or '権限が不足しています'}"
    elif status == 429:
        text = f"Discord APIレート制限: {said or 'リクエストが多すぎます'}"
    else:
        text = f"Discord APIエラー ({status}): {said or '不明なエラー'}"
    return jsonrpc_error(f"MCP error -32603: ツールの実行に失敗しました: {doing}: {text}")


# --- send_message ---------------------------------------------------------------------------------


def send_args(rng):
    args = {"channelId": rng.choice(CHANNELS), "content": rng.choice(TEXTS)}
    if rng.random() < 0.25:
        args["tts"] = rng.choice([False, False, True])
    if rng.random() < 0.2:
        embed = {"title": rng.choice(["Release 2.41.0", "Incident update"])}
        if rng.random() < 0.6:
            embed["description"] = "All services are operational."
        if rng.random() < 0.5:
            embed["color"] = rng.choice([5763719, 15548997, 3447003])
        args["embeds"] = [embed]
    return args


def send_request(args):
    body = {"content": args["content"], "tts": args.get("tts") or False}
    if args.get("embeds") is not None:
        body["embeds"] = args["embeds"]
    return Wire(
        "POST", f"{API}/channels/{args['channelId']}/messages", headers=dict(HEADERS), json=body
    )


def send_response(args, rng):
    message = raw_message(rng, args["channelId"], args["content"], args.get("tts") or False)
    message["author"]["bot"] = True
    message["embeds"] = [{"type": "rich", **e} for e in args.get("embeds") or []]
    return Answer(200, message)


def send_result(args, answer):
    if answer.status >= 400:
        return thrown("メッセージの送信に失敗しました", answer)
    return mcp_text({"message": processed(answer.body), "success": True}, indent=2)


SEND_MESSAGE = Tool(
    "discord",
    "send_message",
    Source("yone-k/discord-mcp", "src/tools/messages/send-message.ts", COMMIT),
    "Discordチャンネルにメッセージを送信します",
    {
        **schema(
            {
                "channelId": s("メッセージを送信するチャンネルのID"),
                "content": s("送信するメッセージの内容（最大2000文字）"),
                "tts": {**b("TTS（読み上げ）でメッセージを送信するかどうか"), "default": False},
                "embeds": {
                    "type": "array",
                    "description": "埋め込みコンテンツ（最大10個）",
                    "items": {
                        "type": "object",
                        "properties": {
                            "title": s("タイトル（最大256文字）"),
                            "description": s("説明（最大4096文字）"),
                            "url": s("URL"),
                            "color": n("色（16進数、0-16777215）"),
                        },
                    },
                },
            },
            ["channelId", "content"],
        ),
        "additionalProperties": False,
    },
    send_args,
    send_request,
    send_response,
    [
        discord_error(404, "Unknown Channel", 10003),
        discord_error(403, "Missing Permissions", 50013),
        rate_limited,
    ],
    send_result,
    [
        Bug("renamed_key", rename("body", "/content", "text"), "/content", "/content"),
        Bug("type_changed", edit("body", "/tts", as_string), "/tts", "/tts", single=True),
        Bug(
            "wrong_path_id",
            path_segment(3, lambda v: next(c for c in CHANNELS if c != v)),
            "/channelId",
            "path:/3",
        ),
        Bug("dropped", drop("body", "/embeds"), "/embeds", "/embeds"),
        Bug("error_fields_lost", lose("/message"), response="/message", error=True),
    ],
)

# --- get_channel_messages -------------------------------------------------------------------------


def history_args(rng):
    args = {"channelId": rng.choice(CHANNELS)}
    if rng.random() < 0.5:
        args["limit"] = rng.choice([10, 20, 25, 50, 100])
    if rng.random() < 0.3:
        args[rng.choice(["before", "after", "around"])] = snowflake(rng)
    return args


def history_request(args):
    query = [("limit", str(min(args.get("limit") or 50, 100)))]
    query += [(k, args[k]) for k in ("before", "after", "around") if args.get(k)]
    return Wire(
        "GET", f"{API}/channels/{args['channelId']}/messages", query=query, headers=dict(HEADERS)
    )


def history_response(args, rng):
    count = min(args.get("limit") or 50, rng.randint(0, 4))
    return Answer(200, [raw_message(rng, args["channelId"]) for _ in range(count)])


def history_result(args, answer):
    if answer.status >= 400:
        return thrown("チャンネルメッセージの取得に失敗しました", answer)
    messages = [processed(m) for m in answer.body]
    return mcp_text(
        {
            "messages": messages,
            "totalCount": len(messages),
            "oldestMessageId": messages[-1]["id"] if messages else None,
            "newestMessageId": messages[0]["id"] if messages else None,
        },
        indent=2,
    )


CHANNEL_MESSAGES = Tool(
    "discord",
    "get_channel_messages",
    Source("yone-k/discord-mcp", "src/tools/channels/get-channel-messages.ts", COMMIT),
    "特定のDiscordチャンネルのメッセージ履歴を取得します",
    {
        **schema(
            {
                "channelId": s("メッセージを取得するチャンネルのID"),
                "limit": {
                    **n("取得するメッセージの最大数（デフォルト: 50、最大: 100）"),
                    "minimum": 1,
                    "maximum": 100,
                    "default": 50,
                },
                "before": s("指定したメッセージIDより前のメッセージを取得"),
                "after": s("指定したメッセージIDより後のメッセージを取得"),
                "around": s("指定したメッセージIDの周辺のメッセージを取得"),
            },
            ["channelId"],
        ),
        "additionalProperties": False,
    },
    history_args,
    history_request,
    history_response,
    [
        discord_error(404, "Unknown Channel", 10003),
        discord_error(403, "Missing Access", 50001),
        rate_limited,
    ],
    history_result,
    [
        Bug("renamed_key", rename("query", "before", "before_id"), "/before", "query:/before"),
        Bug(
            "value_changed", edit("query", "limit", plus_one), "/limit", "query:/limit", single=True
        ),
        Bug(
            "wrong_path_id",
            path_segment(3, lambda v: next(c for c in CHANNELS if c != v)),
            "/channelId",
            "path:/3",
        ),
        Bug("error_fields_lost", lose("/message"), response="/message", error=True),
    ],
)

TOOLS = [SEND_MESSAGE, CHANNEL_MESSAGES]
