"""monday.com, as its own MCP server (mondaycom/mcp) calls the GraphQL API.

Unseen: written for the third unseen part, measured before any change made for it.

Read: mondaycom/mcp packages/agent-toolkit/src/core/tools/platform-api-tools/
change-item-column-values-tool.ts, create-update-tool/create-update-tool.ts and
create-update.graphql.ts, src/monday-graphql/queries.graphql.ts, src/utils/error.utils.ts,
graphql-error.types.ts, version.utils.ts and src/mcp/toolkit.ts at cd3690e. Both tools post one
GraphQL operation to `https://api.monday.com/v2` (`API-Version: 2026-10`, the token as the bare
`Authorization`, `user-agent: monday-api-mcp`). `change_item_column_values` sends the numeric ids as
text, `columnValues` as the JSON text the model wrote (a `JSON` scalar), and `columnIds`: the keys
of that text, parsed, to read back only the changed columns. `create_update` sends the item id as
text, parses `mentionsList` (a JSON text) into a list of `{id, type}`, and `parentId` as text. A
success is handed back as `structuredContent` plus its JSON text: a message, the ids (the update's
item id as the model's number), names and the URL, the changed columns' stored values. monday
answers errors as GraphQL `errors[]` whose `extensions` carry `code`, `status_code` and
`error_data` (a field error with HTTP 200 and `data` nulled; 401 and 429 with their status); the
toolkit rethrows `Failed to <operation>: <message> (details: {code, error_data})` and hands back an
`isError` result with that text and a structured copy of the errors.
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
    rename,
    some,
    swap,
)

COMMIT = "cd3690e5a6d860da53fb13089b6048490b468716"
REPO = "mondaycom/mcp"
TOOLS_DIR = "packages/agent-toolkit/src/core/tools/platform-api-tools"
API = "https://api.monday.com/v2"
HEADERS = {
    "Content-Type": "application/json",
    "Authorization": "[REDACTED]",
    "API-Version": "2026-10",
    "user-agent": "monday-api-mcp",
}
DRAFT7 = "http://json-schema.org/draft-07/schema#"
CHANGE = """
  mutation changeItemColumnValues(
    $boardId: ID!
    $itemId: ID!
    $columnValues: JSON!
    $createLabelsIfMissing: Boolean
    $columnIds: [String!]
  ) {
    change_multiple_column_values(
      board_id: $boardId
      item_id: $itemId
      column_values: $columnValues
      create_labels_if_missing: $createLabelsIfMissing
    ) {
      id
      name
      url
      column_values(ids: $columnIds) {
        id
        value
      }
    }
  }
"""
CREATE_UPDATE = """
  mutation createUpdate($itemId: ID!, $body: String!, $mentionsList: [UpdateMention], $parentId: ID) {
    create_update(body: $body, item_id: $itemId, mentions_list: $mentionsList, parent_id: $parentId) {
      id
      item_id
      item {
        name
        url
      }
    }
  }
"""
BOARDS = [1820374456, 2011459983, 1734502218]
ITEMS = ["Launch landing page", "Q4 budget review", "Fix login timeout", "Hire designer"]
LABELS = {"Working on it": 0, "Done": 1, "Stuck": 2}


def item_id(rng) -> int:
    return rng.randint(1_900_000_000, 2_099_999_999)


def request_id(rng) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def changed_at(rng) -> str:
    return f"2026-11-{rng.randint(10, 28)}T{rng.randint(10, 23)}:{rng.randint(10, 59)}:07.412Z"


def mcp_structured(content: dict) -> dict:
    """What the toolkit's formatToolResult hands back: the object and its JSON text."""
    text = json.dumps(content, separators=(",", ":"), ensure_ascii=False)
    return {"structuredContent": content, "content": [{"type": "text", "text": text}]}


def monday_error(status: int, code: str, message: str, error_data=None, field: str = ""):
    def answer(args, rng):
        error = {"message": message.format(**args)}
        if field:
            error["locations"] = [{"line": 9, "column": 5}]
            error["path"] = [field]
        error["extensions"] = {"code": code, "status_code": status}
        if error_data:
            error["extensions"]["error_data"] = error_data(args)
        body = {"errors": [error]}
        if field:
            body["data"] = {field: None}
        body["extensions"] = {"request_id": request_id(rng)}
        return Answer(status, body, {"Content-Type": "application/json"})

    return answer


def failed(operation: str, tool: str):
    """The toolkit's rethrowWithContext and formatToolError of a GraphQL error answer."""

    def result(args, answer):
        response = answer.body
        parts = []
        for error in response.get("errors") or []:
            ext = error.get("extensions") or {}
            details = {k: ext[k] for k in ("code", "error_data") if k in ext}
            text = error.get("message")
            parts.append(f"{text} (details: {json.dumps(details, separators=(',', ':'))})")
        message = f"Failed to {operation}: {', '.join(parts)}"
        structured = {"message": message, "tool": tool, **(response.get("extensions") or {})}
        structured["status"] = answer.status
        if response.get("data") is not None:
            structured["partial_success"] = True
        structured["errors"] = [
            {
                "message": e.get("message"),
                **({"path": e["path"]} if "path" in e else {}),
                **(e.get("extensions") or {}),
                "code": (e.get("extensions") or {}).get("code", "GRAPHQL_ERROR"),
            }
            for e in response.get("errors") or []
        ]
        return {
            "structuredContent": structured,
            "content": [{"type": "text", "text": f"Error: {message}"}],
            "isError": True,
        }

    return result


RATE = monday_error(429, "RATE_LIMIT_EXCEEDED", "Rate limit exceeded for the minute")
UNAUTHORIZED = monday_error(401, "UNAUTHORIZED", "Not Authenticated")


def zod_schema(properties: dict, required: list) -> dict:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
        "$schema": DRAFT7,
    }


# --- change_item_column_values --------------------------------------------------------------------


def column_values(rng) -> dict:
    out = {}
    if some(rng, 0.7):
        out["status"] = {"label": rng.choice(list(LABELS))}
    if some(rng, 0.4):
        out["date4"] = {"date": f"2026-12-{rng.randint(1, 28):02d}"}
    if some(rng, 0.3) or not out:
        out["text0"] = rng.choice(["Waiting on legal", "Shipped", "Needs review"])
    if some(rng, 0.2):
        out["numbers"] = str(rng.choice([3, 8, 13]))
    return out


def change_args(rng):
    values = column_values(rng)
    compact = some(rng, 0.5)
    text = json.dumps(values, separators=(",", ":") if compact else (", ", ": "))
    args = {"boardId": rng.choice(BOARDS), "itemId": item_id(rng), "columnValues": text}
    if some(rng, 0.2):
        args["createLabelsIfMissing"] = rng.choice([True, False])
    return args


def change_request(args):
    variables = {
        "boardId": str(args["boardId"]),
        "itemId": str(args["itemId"]),
        "columnValues": args["columnValues"],
    }
    if "createLabelsIfMissing" in args:
        variables["createLabelsIfMissing"] = args["createLabelsIfMissing"]
    variables["columnIds"] = list(json.loads(args["columnValues"]))
    return Wire("POST", API, headers=dict(HEADERS), json={"query": CHANGE, "variables": variables})


def stored(column: str, value, rng) -> str:
    """How monday stores a column's value (the JSON text `column_values.value` reads)."""
    if column == "status":
        index = LABELS[value["label"]]
        return json.dumps(
            {"index": index, "post_id": None, "changed_at": changed_at(rng)}, separators=(",", ":")
        )
    if column == "date4":
        out = {"date": value["date"], "icon": None, "changed_at": changed_at(rng)}
        return json.dumps(out, separators=(",", ":"))
    return json.dumps(value)


def change_response(args, rng):
    ident = str(args["itemId"])
    values = json.loads(args["columnValues"])
    item = {
        "id": ident,
        "name": rng.choice(ITEMS),
        "url": f"https://acme-team.monday.com/boards/{args['boardId']}/pulses/{ident}",
        "column_values": [{"id": k, "value": stored(k, v, rng)} for k, v in values.items()],
    }
    body = {
        "data": {"change_multiple_column_values": item},
        "extensions": {"request_id": request_id(rng)},
    }
    return Answer(200, body, {"Content-Type": "application/json"})


def change_result(args, answer):
    if answer.status >= 400 or answer.body.get("errors"):
        return failed("change column values", "change_item_column_values")(args, answer)
    item = answer.body["data"]["change_multiple_column_values"]
    return mcp_structured(
        {
            "message": f"Item {item['id']} successfully updated",
            "item_id": item["id"],
            "item_name": item["name"],
            "item_url": item["url"],
            "column_values": {cv["id"]: cv["value"] for cv in item["column_values"]},
        }
    )


BAD_LABEL = monday_error(
    200,
    "ColumnValueException",
    "This status label doesn't exist, possible statuses are: {{0: Working on it, 1: Done, "
    "2: Stuck}}",
    lambda args: {"column_value": args["columnValues"], "column_type": "StatusColumn"},
    "change_multiple_column_values",
)
NO_ITEM = monday_error(
    200,
    "InvalidItemIdException",
    "Item not found in board",
    lambda args: {"item_id": args["itemId"]},
    "change_multiple_column_values",
)

CHANGE_ITEM_COLUMN_VALUES = Tool(
    "monday",
    "change_item_column_values",
    Source(REPO, f"{TOOLS_DIR}/change-item-column-values-tool.ts", COMMIT),
    "[IMPORTANT] If you need to update multiple items in one call, use update_items instead of "
    "calling this tool in a loop. Otherwise: change the column values of a single item in a "
    "monday.com board. [REQUIRED PRECONDITION]: Before using this tool, if new columns were added "
    "to the board or if you are not familiar with the board's structure (column IDs, column "
    "types, status labels, etc.), first use get_board_info to understand the board metadata. "
    "This is essential for constructing valid column values. For board-relation linking tasks, "
    "call link_board_items_workflow before using this tool.",
    zod_schema(
        {
            "boardId": {
                "type": "number",
                "description": "The ID of the board that contains the item to be updated",
            },
            "itemId": {"type": "number", "description": "The ID of the item to be updated"},
            "columnValues": {
                "type": "string",
                "description": "A string containing the new column values for the item "
                'following this structure: {\\"column_id\\": \\"value\\",... you can change '
                "multiple columns at once, note that for status column you must use nested "
                "value with 'label' as a key and for date column use 'date' as key}",
            },
            "createLabelsIfMissing": {
                "type": "boolean",
                "description": "If true, create missing Status/Dropdown labels when setting "
                "those columns. Requires permission to change board structure. Omit or false to "
                "only use existing labels.",
            },
        },
        ["boardId", "itemId", "columnValues"],
    ),
    change_args,
    change_request,
    change_response,
    [BAD_LABEL, NO_ITEM, RATE, UNAUTHORIZED],
    change_result,
    [
        Bug(
            "type_changed",
            edit("body", "/variables/itemId", int),
            "/itemId",
            "/variables/itemId",
        ),
        Bug(
            "type_changed",
            edit("body", "/variables/columnValues", json.loads),
            "/columnValues",
            "/variables/columnValues",
        ),
        Bug(
            "dropped",
            drop("body", "/variables/createLabelsIfMissing"),
            "/createLabelsIfMissing",
            "/variables/createLabelsIfMissing",
        ),
        Bug(
            "swapped_values",
            swap("/variables/boardId", "/variables/itemId"),
            "/itemId",
            "/variables/itemId",
        ),
        Bug("dropped", drop("body", "/variables/columnIds"), None, "/variables/columnIds"),
        Bug(
            "error_fields_lost", lose("/errors/0/message"), response="/errors/0/message", error=True
        ),
    ],
)

# --- create_update --------------------------------------------------------------------------------

BODIES = [
    "<p>Deployed to staging, please verify</p>",
    "<p>Blocked on the <b>API keys</b> from IT</p>",
    "Moved to next sprint",
    "<ul><li>copy done</li><li>images pending</li></ul>",
]
PEOPLE = ["58211934", "60117402", "44907781"]


def update_args(rng):
    args = {"itemId": item_id(rng), "body": rng.choice(BODIES)}
    if some(rng, 0.3):
        mentions = [{"id": rng.choice(PEOPLE), "type": "User"}]
        if some(rng, 0.3):
            mentions.append({"id": "9123447", "type": "Team"})
        args["mentionsList"] = json.dumps(mentions)
    if some(rng, 0.25):
        args["parentId"] = rng.randint(3_900_000_000, 4_100_000_000)
    return args


def update_request(args):
    variables = {"itemId": str(args["itemId"]), "body": args["body"]}
    if "mentionsList" in args:
        variables["mentionsList"] = [
            {"id": m["id"], "type": m["type"]} for m in json.loads(args["mentionsList"])
        ]
    if "parentId" in args:
        variables["parentId"] = str(args["parentId"])
    body = {"query": CREATE_UPDATE, "variables": variables}
    return Wire("POST", API, headers=dict(HEADERS), json=body)


def update_response(args, rng):
    ident = str(rng.randint(4_100_000_000, 4_300_000_000))
    item = {
        "name": rng.choice(ITEMS),
        "url": f"https://acme-team.monday.com/boards/{rng.choice(BOARDS)}/pulses/{args['itemId']}",
    }
    update = {"id": ident, "item_id": str(args["itemId"]), "item": item}
    body = {"data": {"create_update": update}, "extensions": {"request_id": request_id(rng)}}
    return Answer(200, body, {"Content-Type": "application/json"})


def update_result(args, answer):
    if answer.status >= 400 or answer.body.get("errors"):
        return failed("create update", "create_update")(args, answer)
    update = answer.body["data"]["create_update"]
    return mcp_structured(
        {
            "message": f"Update {update['id']} created on item {args['itemId']}",
            "update_id": update["id"],
            "item_id": args["itemId"],
            "item_name": update["item"]["name"],
            "item_url": update["item"]["url"],
        }
    )


UPDATE_NO_ITEM = monday_error(
    200,
    "InvalidItemIdException",
    "Item not found",
    lambda args: {"item_id": args["itemId"]},
    "create_update",
)


def _escaped(body: str):
    return body.replace("<", "&lt;").replace(">", "&gt;") if "<" in body else None


CREATE_UPDATE_TOOL = Tool(
    "monday",
    "create_update",
    Source(REPO, f"{TOOLS_DIR}/create-update-tool/create-update-tool.ts", COMMIT),
    "Create a new update (comment/post) on a monday.com item. Updates can be used to add "
    "comments, notes, or discussions to items. You can optionally mention users, teams, or boards "
    "in the update. You can also reply to an existing update by using the parentId parameter.",
    zod_schema(
        {
            "itemId": {
                "type": "number",
                "description": "The id of the item to which the update will be added",
            },
            "body": {
                "type": "string",
                "description": "The update text to be created. Do not use @ to mention users, use "
                "the mentionsList field instead. use html tags to format the text, dont use "
                "markdown.",
            },
            "mentionsList": {
                "type": "string",
                "description": 'Optional JSON array of mentions in the format: [{"id": "123", '
                '"type": "User"}, {"id": "456", "type": "Team"}]. Valid types are: User, Team, '
                "Board, Project",
            },
            "parentId": {
                "type": "number",
                "description": "The ID of the update to reply to. Use this parameter when you "
                "want to reply on an existing update leave it empty if you want to create a new "
                "update",
            },
        },
        ["itemId", "body"],
    ),
    update_args,
    update_request,
    update_response,
    [UPDATE_NO_ITEM, RATE, UNAUTHORIZED],
    update_result,
    [
        Bug("renamed_key", rename("body", "/variables/body", "text"), "/body", "/variables/body"),
        Bug(
            "value_changed",
            edit("body", "/variables/body", _escaped),
            "/body",
            "/variables/body",
            single=True,
        ),
        Bug("dropped", drop("body", "/variables/parentId"), "/parentId", "/variables/parentId"),
        Bug(
            "type_changed",
            edit("body", "/variables/mentionsList", json.dumps),
            "/mentionsList",
            "/variables/mentionsList",
        ),
        Bug("type_changed", edit("body", "/variables/itemId", int), "/itemId", "/variables/itemId"),
        Bug(
            "error_fields_lost", lose("/errors/0/message"), response="/errors/0/message", error=True
        ),
    ],
)

TOOLS = [CHANGE_ITEM_COLUMN_VALUES, CREATE_UPDATE_TOOL]
