"""Notion, as Notion's own MCP server calls the API.

Tools generated from its OpenAPI description.

Read: makenotion/notion-mcp-server src/openapi-mcp-server/mcp/proxy.ts, client/http-client.ts and
scripts/notion-openapi.json at 1d38420. A tool is `API-<operationId>`; its arguments are the
operation's body and parameters, JSON-looking strings decoded first (the schemas say object, so the
corpus sends objects); `Notion-Version` comes from the server. Notion's errors are `{"object":
"error", "status", "code", "message", "request_id"}`; the tool hands back
`JSON.stringify(response.data)`, and on an HTTP error `{"status": "error", ...body}` as text, with
no `isError`.
"""

import json

from .model import (
    Answer,
    Bug,
    Source,
    Tool,
    Wire,
    drop,
    edit,
    lose,
    mcp_text,
    put,
    rename,
    s,
    schema,
    unwrap,
    upper,
)

SOURCE = Source(
    "makenotion/notion-mcp-server",
    "src/openapi-mcp-server/mcp/proxy.ts",
    "1d38420769c8a1fe2d583ff1e7d2d108d4eb0b30",
)
API = "https://api.notion.com/v1"
HEADERS = {
    "Authorization": "Bearer [REDACTED]",
    "Notion-Version": "2025-09-03",
    "Content-Type": "application/json",
}


def uuid(rng) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def notion_error(status: int, code: str, message: str):
    def answer(args, rng):
        body = {
            "object": "error",
            "status": status,
            "code": code,
            "message": message,
            "request_id": uuid(rng),
        }
        return Answer(status, body)

    return answer


RATE_LIMIT = notion_error(
    429, "rate_limited", "You have been rate limited. Please try again in a few minutes."
)
UNAUTHORIZED = notion_error(401, "unauthorized", "API token is invalid.")


def passed_on(args, answer):
    if answer.status >= 400:
        return mcp_text({"status": "error", **answer.body})
    return mcp_text(answer.body)


def decoded(value):
    """The server's deserializeParams: a JSON-looking string becomes the value it encodes."""
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return decoded(json.loads(value))
        except ValueError:
            return value
    if isinstance(value, dict):
        return {k: decoded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decoded(v) for v in value]
    return value


# --- API-post-search ------------------------------------------------------------------------------


def search_args(rng):
    args = {}
    put(
        args,
        rng,
        "query",
        0.8,
        lambda: rng.choice(["Roadmap", "Meeting notes", "Onboarding", "Q4 OKRs"]),
    )
    filter_ = {"value": rng.choice(["page", "data_source"]), "property": "object"}
    put(args, rng, "filter", 0.4, lambda: filter_)
    put(
        args,
        rng,
        "sort",
        0.3,
        lambda: {
            "direction": rng.choice(["ascending", "descending"]),
            "timestamp": "last_edited_time",
        },
    )
    put(args, rng, "page_size", 0.3, lambda: rng.choice([10, 25, 100]))
    return args


def search_request(args):
    return Wire("POST", f"{API}/search", headers=dict(HEADERS), json=decoded(args))


def page(rng) -> dict:
    return {
        "object": "page",
        "id": uuid(rng),
        "created_time": "2026-09-14T08:31:00.000Z",
        "last_edited_time": "2026-10-02T10:12:00.000Z",
        "archived": False,
        "in_trash": False,
        "parent": {"type": "workspace", "workspace": True},
        "properties": {
            "title": {
                "id": "title",
                "type": "title",
                "title": [{"plain_text": rng.choice(["Roadmap", "Notes"])}],
            }
        },
        "url": f"https://www.notion.so/Roadmap-{rng.getrandbits(128):032x}",
    }


SEARCH = Tool(
    "notion",
    "API-post-search",
    SOURCE,
    "Notion | Search by title",
    schema(
        {
            "query": s("The text that the API compares page and database titles against."),
            "sort": {
                "type": "object",
                "properties": {"direction": {"type": "string"}, "timestamp": {"type": "string"}},
                "description": "A set of criteria, `direction` and `timestamp` keys, that orders "
                "the results.",
            },
            "filter": {
                "type": "object",
                "properties": {
                    "value": {"type": "string", "enum": ["page", "data_source"]},
                    "property": {"type": "string"},
                },
                "description": "A set of criteria, `value` and `property` keys, that limits the "
                "results.",
            },
            "start_cursor": s("A `cursor` value returned in a previous response"),
            "page_size": {
                "type": "integer",
                "description": "The number of items from the full list to include in the response.",
            },
        }
    ),
    search_args,
    search_request,
    lambda args, rng: Answer(
        200,
        {
            "object": "list",
            "results": [page(rng) for _ in range(rng.randint(0, 3))],
            "next_cursor": None,
            "has_more": False,
            "type": "page_or_data_source",
            "page_or_data_source": {},
            "request_id": uuid(rng),
        },
    ),
    [
        notion_error(
            400,
            "validation_error",
            'body failed validation: body.filter.value should be `"page"` or `"data_source"`.',
        ),
        UNAUTHORIZED,
        RATE_LIMIT,
    ],
    passed_on,
    [
        Bug("renamed_key", rename("body", "/page_size", "limit"), "/page_size", "/page_size"),
        Bug(
            "enum_case",
            edit("body", "/sort/direction", upper),
            "/sort/direction",
            "/sort/direction",
        ),
        Bug("dropped", drop("body", "/query"), "/query", "/query"),
        Bug("error_fields_lost", lose("/message"), response="/message", error=True),
    ],
)

# --- API-create-a-comment -------------------------------------------------------------------------


def comment_args(rng):
    parent = {"page_id": uuid(rng)}
    text = rng.choice(
        ["Looks good to me.", "Can we move this to Friday?", "Done, see the table below."]
    )
    return {"parent": parent, "rich_text": [{"text": {"content": text}}]}


def comment_request(args):
    return Wire("POST", f"{API}/comments", headers=dict(HEADERS), json=decoded(args))


def comment_response(args, rng):
    parent = decoded(args["parent"])
    return Answer(
        200,
        {
            "object": "comment",
            "id": uuid(rng),
            "parent": {"type": "page_id", "page_id": parent["page_id"]},
            "discussion_id": uuid(rng),
            "created_time": "2026-10-02T10:12:00.000Z",
            "last_edited_time": "2026-10-02T10:12:00.000Z",
            "created_by": {"object": "user", "id": uuid(rng)},
            "rich_text": [
                {
                    "type": "text",
                    "text": {"content": args["rich_text"][0]["text"]["content"], "link": None},
                    "plain_text": args["rich_text"][0]["text"]["content"],
                    "href": None,
                }
            ],
        },
    )


COMMENT = Tool(
    "notion",
    "API-create-a-comment",
    SOURCE,
    "Notion | Create comment",
    schema(
        {
            "parent": {
                "type": "object",
                "properties": {"page_id": {"type": "string", "description": "the page ID"}},
                "required": ["page_id"],
                "description": "The page that contains the comment",
            },
            "rich_text": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "text": {
                            "type": "object",
                            "properties": {"content": {"type": "string"}},
                            "required": ["content"],
                        }
                    },
                    "required": ["text"],
                },
            },
        },
        ["parent", "rich_text"],
    ),
    comment_args,
    comment_request,
    comment_response,
    [
        notion_error(
            404,
            "object_not_found",
            "Could not find page with ID: 59833787-2cf9-4fdf-8782-e53db20768a5.",
        ),
        RATE_LIMIT,
    ],
    passed_on,
    [
        Bug("unwrapped", unwrap("/parent", "page_id"), "/parent/page_id", "/parent/page_id"),
        # inside each item of a list of objects: the answer's key for the request's
        Bug(
            "renamed_key",
            rename("body", "/rich_text/0/text", "plain_text"),
            "/rich_text/0/text",
            "/rich_text/0/text",
        ),
        Bug(
            "value_changed",
            edit("body", "/parent/page_id", lambda v: v.replace("-", "")),
            "/parent/page_id",
            "/parent/page_id",
        ),
        Bug("error_fields_lost", lose("/code"), response="/code", error=True),
    ],
)

TOOLS = [SEARCH, COMMENT]
