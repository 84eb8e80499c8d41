"""Airtable, as domdomegg/airtable-mcp-server calls the Airtable Web API.

Fetch, JSON, `fields[]` queries.

Read: domdomegg/airtable-mcp-server src/airtableService.ts, src/tools/{list-records,create-record,
update-records}.ts and src/utils/response.ts at 8a759ba. Lists go as repeated `fields[]=` and
`sort[0][field]=` keys, writes carry `typecast: true`. Airtable's errors are `{"error": {"type",
"message"}}` (a 429 says `{"errors": [{"error": "RATE_LIMIT_REACHED", "message"}]}`); a failure
throws `Airtable API Error: <statusText>. Response: <body>`, which the MCP SDK hands back as an
`isError` text. A success is handed back as JSON text and `structuredContent`, trimmed to `id` and
`fields`.
"""

import json

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
    mcp_json,
    mcp_text,
    n,
    put,
    rename,
    s,
    schema,
    text_of,
    unwrap,
)

COMMIT = "8a759ba9c0cb71d79af1d7595fc9775055380569"
API = "https://api.airtable.com/v0"
HEADERS = {
    "Authorization": "Bearer [REDACTED]",
    "Accept": "application/json",
    "Content-Type": "application/json",
}
STATUS_TEXT = {
    403: "Forbidden",
    404: "Not Found",
    422: "Unprocessable Entity",
    429: "Too Many Requests",
}
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
BASES = ["appX7kLm2Qp9RtVw1", "app0Gh3Jk5Lm7Np9Q", "appTa8sB4dF6gH2jK"]
TABLES = ["tblOrders1234567", "tblContacts98765", "Tasks", "tblInventory0001"]


def rec(rng) -> str:
    return "rec" + "".join(rng.choice(ALNUM) for _ in range(14))


def airtable_error(status: int, kind: str, message: str):
    def answer(args, rng):
        return Answer(status, {"error": {"type": kind, "message": message.format(**args)}})

    return answer


def rate_limited(args, rng):
    return Answer(
        429,
        {
            "errors": [
                {
                    "error": "RATE_LIMIT_REACHED",
                    "message": "Rate limit exceeded. Please try again later",
                }
            ]
        },
    )


NOT_FOUND = airtable_error(
    404, "TABLE_NOT_FOUND", "Could not find table {tableId} in application {baseId}"
)
FORBIDDEN = airtable_error(
    403,
    "INVALID_PERMISSIONS_OR_MODEL_NOT_FOUND",
    "Invalid permissions, or the requested model was not found. Check that both your user and your "
    "token have "
    "the required permissions, and that the model names and/or ids are correct.",
)


def thrown(answer) -> dict:
    text = (
        f"Airtable API Error: {STATUS_TEXT.get(answer.status, 'Error')}. Response: "
        f"{json.dumps(answer.body)}"
    )
    return mcp_text(text, is_error=True)


def fields(rng) -> dict:
    out = {"Name": rng.choice(["Ann Lee", "Bo Chen", "Cy Diaz", "Dee Eng"])}
    if rng.random() < 0.6:
        out["Status"] = rng.choice(["Todo", "In progress", "Done"])
    if rng.random() < 0.5:
        out["Quantity"] = rng.randint(0, 40)
    if rng.random() < 0.3:
        out["Due"] = f"2026-{rng.randint(9, 12):02d}-{rng.randint(1, 28):02d}"
    if rng.random() < 0.2:
        out["Paid"] = rng.random() < 0.5
    return out


def record(rng, values=None, ident=None) -> dict:
    return {
        "id": ident or rec(rng),
        "createdTime": "2026-09-14T08:31:12.000Z",
        "fields": values or fields(rng),
    }


# --- list_records (GET) ---------------------------------------------------------------------------


def list_args(rng):
    args = {"baseId": rng.choice(BASES), "tableId": rng.choice(TABLES)}
    put(args, rng, "view", 0.3, lambda: rng.choice(["Grid view", "viwOpen12345678"]))
    put(args, rng, "maxRecords", 0.5, lambda: rng.choice([5, 10, 20, 100]))
    put(
        args,
        rng,
        "filterByFormula",
        0.4,
        lambda: rng.choice(
            ["{Status} = 'Done'", "AND({Paid}, {Quantity} > 3)", "NOT({Name} = '')"]
        ),
    )
    put(
        args,
        rng,
        "sort",
        0.3,
        lambda: [{"field": rng.choice(["Name", "Due"]), "direction": rng.choice(["asc", "desc"])}],
    )
    put(args, rng, "fields", 0.2, lambda: rng.sample(["Name", "Status", "Quantity", "Due"], 2))
    return args


def list_request(args):
    query = []
    if args.get("maxRecords"):
        query.append(("maxRecords", text_of(args["maxRecords"])))
    if args.get("filterByFormula"):
        query.append(("filterByFormula", args["filterByFormula"]))
    if args.get("view"):
        query.append(("view", args["view"]))
    for index, sort in enumerate(args.get("sort", [])):
        query.append((f"sort[{index}][field]", sort["field"]))
        if sort.get("direction"):
            query.append((f"sort[{index}][direction]", sort["direction"]))
    for name in args.get("fields", []):
        query.append(("fields[]", name))
    return Wire("GET", f"{API}/{args['baseId']}/{args['tableId']}", query, dict(HEADERS))


def list_response(args, rng):
    count = min(args.get("maxRecords", 100), rng.randint(0, 4))
    return Answer(200, {"records": [record(rng) for _ in range(count)]})


def list_result(args, answer):
    if answer.status >= 400:
        return thrown(answer)
    return mcp_json(
        {"records": [{"id": r["id"], "fields": r["fields"]} for r in answer.body["records"]]}
    )


LIST_RECORDS = Tool(
    "airtable",
    "list_records",
    Source("domdomegg/airtable-mcp-server", "src/tools/list-records.ts", COMMIT),
    "List records from a table",
    schema(
        {
            "baseId": s("The ID of the Airtable base"),
            "tableId": s("The ID or name of the table"),
            "view": s("The name or ID of a view in the table"),
            "maxRecords": n("The maximum total number of records that will be returned"),
            "filterByFormula": s("A formula used to filter records"),
            "sort": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "field": {"type": "string"},
                        "direction": {"type": "string", "enum": ["asc", "desc"]},
                    },
                    "required": ["field"],
                },
                "description": "A list of sort objects that specifies how the records will be "
                "ordered",
            },
            "fields": {
                "type": "array",
                "items": {"type": "string"},
                "description": "An array of field names or IDs to include in the response.",
            },
        },
        ["baseId", "tableId"],
    ),
    list_args,
    list_request,
    list_response,
    [NOT_FOUND, FORBIDDEN, rate_limited],
    list_result,
    [
        Bug(
            "renamed_key",
            rename("query", "maxRecords", "pageSize"),
            "/maxRecords",
            "query:/maxRecords",
        ),
        Bug(
            "dropped",
            drop("query", "filterByFormula"),
            "/filterByFormula",
            "query:/filterByFormula",
        ),
        Bug(
            "enum_case",
            edit("query", "sort[0][direction]", str.upper),
            "/sort/0/direction",
            "query:/sort/0/direction",
        ),
        Bug("error_fields_lost", lose("/error/message"), response="/error/message", error=True),
    ],
)

# --- create_record (POST {fields, typecast: true}) ------------------------------------------------


def create_args(rng):
    return {"baseId": rng.choice(BASES), "tableId": rng.choice(TABLES), "fields": fields(rng)}


def create_request(args):
    body = {"fields": args["fields"], "typecast": True}
    return Wire(
        "POST", f"{API}/{args['baseId']}/{args['tableId']}", headers=dict(HEADERS), json=body
    )


def create_result(args, answer):
    if answer.status >= 400:
        return thrown(answer)
    return mcp_json({"id": answer.body["id"], "fields": answer.body["fields"]})


CREATE_RECORD = Tool(
    "airtable",
    "create_record",
    Source("domdomegg/airtable-mcp-server", "src/tools/create-record.ts", COMMIT),
    "Create a new record in a table",
    schema(
        {
            "baseId": s("The ID of the Airtable base"),
            "tableId": s("The ID or name of the table"),
            "fields": {
                "type": "object",
                "additionalProperties": {},
                "description": "The fields for the new record",
            },
        },
        ["baseId", "tableId", "fields"],
    ),
    create_args,
    create_request,
    lambda args, rng: Answer(200, record(rng, dict(args["fields"]))),
    [
        NOT_FOUND,
        airtable_error(
            422, "INVALID_VALUE_FOR_COLUMN", 'Field "Quantity" cannot accept the provided value'
        ),
        airtable_error(422, "UNKNOWN_FIELD_NAME", 'Unknown field name: "Stauts"'),
        rate_limited,
    ],
    create_result,
    [
        Bug("unwrapped", unwrap("/fields", "Name"), "/fields/Name", "/fields/Name"),
        Bug(
            "type_changed",
            edit("body", "/fields/Quantity", as_string),
            "/fields/Quantity",
            "/fields/Quantity",
            single=True,
        ),
        Bug("leaked_field", leak("body", "/baseId", "appX7kLm2Qp9RtVw1"), None, "/baseId"),
    ],
)

# --- update_records (PATCH {records: [{id, fields}], typecast: true}) -----------------------------


def update_args(rng):
    records = []
    for _ in range(rng.randint(1, 3)):
        values = {k: v for k, v in fields(rng).items() if k != "Name" or rng.random() < 0.3}
        records.append({"id": rec(rng), "fields": values or {"Status": "Done"}})
    return {"baseId": rng.choice(BASES), "tableId": rng.choice(TABLES), "records": records}


def update_request(args):
    body = {"records": args["records"], "typecast": True}
    return Wire(
        "PATCH", f"{API}/{args['baseId']}/{args['tableId']}", headers=dict(HEADERS), json=body
    )


def update_response(args, rng):
    return Answer(
        200, {"records": [record(rng, dict(r["fields"]), r["id"]) for r in args["records"]]}
    )


def update_result(args, answer):
    if answer.status >= 400:
        return thrown(answer)
    return mcp_json(
        {"records": [{"id": r["id"], "fields": r["fields"]} for r in answer.body["records"]]}
    )


UPDATE_RECORDS = Tool(
    "airtable",
    "update_records",
    Source("domdomegg/airtable-mcp-server", "src/tools/update-records.ts", COMMIT),
    "Update up to 10 records in a table",
    schema(
        {
            "baseId": s("The ID of the Airtable base"),
            "tableId": s("The ID or name of the table"),
            "records": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "fields": {"type": "object", "additionalProperties": {}},
                    },
                    "required": ["id", "fields"],
                },
            },
        },
        ["baseId", "tableId", "records"],
    ),
    update_args,
    update_request,
    update_response,
    [
        NOT_FOUND,
        airtable_error(422, "ROW_DOES_NOT_EXIST", "Record ID recX does not exist in this table"),
        rate_limited,
    ],
    update_result,
    [
        Bug(
            "value_changed",
            edit("body", "/records/0/id", lambda v: v[:-1] + ("A" if v[-1] != "A" else "B")),
            "/records/0/id",
            "/records/0/id",
            single=True,
        ),
        Bug(
            "renamed_key",
            rename("body", "/records/0/fields", "cells"),
            "/records/0/fields",
            "/records/0/fields",
        ),
        Bug(
            "dropped",
            drop("body", "/records/0/fields/Status"),
            "/records/0/fields/Status",
            "/records/0/fields/Status",
        ),
    ],
)

TOOLS = [LIST_RECORDS, CREATE_RECORD, UPDATE_RECORDS]
