"""PagerDuty, as PagerDuty's own MCP server calls the REST API v2.

Python, FastMCP, pydantic.

Read: PagerDuty/pagerduty-mcp-server pagerduty_mcp/tools/incidents.py (create_incident,
add_note_to_incident) and pagerduty_mcp/models/incidents.py at 22adbf1. `create_incident` dumps the
pydantic model without its None fields, adds the computed `type: "incident"` and the default
`urgency: "high"`, and wraps it as `{"incident": ...}`; the client adds the `From` header.
PagerDuty's errors are `{"error": {"message", "code", "errors": [...]}}`. FastMCP hands back the
model as JSON text and `structuredContent`, and a raised error as an `isError` text.
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
    mcp_json,
    mcp_text,
    rename,
    schema,
    unwrap,
    upper,
)

COMMIT = "22adbf1967215083e4afde5a09d4de5959d402f8"
API = "https://api.pagerduty.com"
HEADERS = {
    "Authorization": "Token token=[REDACTED]",
    "Accept": "application/vnd.pagerduty+json;version=2",
    "Content-Type": "application/json",
    "From": "oncall-bot@acme.io",
}
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def pd_id(rng) -> str:
    return "P" + "".join(rng.choice(ALNUM) for _ in range(6))


def pd_error(status: int, code: int, message: str, errors=()):
    return lambda args, rng: Answer(
        status, {"error": {"message": message, "code": code, "errors": list(errors)}}
    )


RATE_LIMIT = pd_error(429, 2020, "Rate Limit Exceeded")


def raised(name: str, answer) -> dict:
    error = answer.body["error"]
    return mcp_text(
        f"Error executing tool {name}: {answer.status} {error.get('message', '')}: "
        f"{error.get('errors', [])}",
        is_error=True,
    )


# --- create_incident ------------------------------------------------------------------------------


def incident_args(rng):
    incident = {
        "title": rng.choice(
            ["Checkout 5xx above 2%", "Disk full on db-3", "Payments webhook backlog"]
        ),
        "service": {"id": pd_id(rng), "type": "service_reference"},
    }
    if rng.random() < 0.5:
        incident["urgency"] = rng.choice(["high", "low"])
    if rng.random() < 0.4:
        incident["body"] = {
            "type": "incident_body",
            "details": rng.choice(["Started 10:02 UTC.", "See runbook RB-12."]),
        }
    if rng.random() < 0.2:
        incident["assignments"] = [{"assignee": {"id": pd_id(rng), "type": "user_reference"}}]
    return {"incident": incident}


def incident_request(args):
    incident = dict(args["incident"])
    incident.setdefault("urgency", "high")
    incident["type"] = "incident"
    return Wire("POST", f"{API}/incidents", headers=dict(HEADERS), json={"incident": incident})


def incident_response(args, rng):
    number = rng.randint(1000, 99999)
    incident = {
        "id": "Q" + "".join(rng.choice(ALNUM) for _ in range(13)),
        "type": "incident",
        "summary": f"[#{number}] {args['incident']['title']}",
        "self": f"{API}/incidents/Q2W3E4R5T6Y7U8",
        "html_url": "https://acme.pagerduty.com/incidents/Q2W3E4R5T6Y7U8",
        "incident_number": number,
        "title": args["incident"]["title"],
        "created_at": "2026-10-02T10:12:00Z",
        "updated_at": "2026-10-02T10:12:00Z",
        "status": "triggered",
        "incident_key": f"{rng.getrandbits(128):032x}",
        "service": {**args["incident"]["service"], "summary": "Checkout API"},
        "assignments": [],
        "urgency": args["incident"].get("urgency", "high"),
        "priority": None,
    }
    return Answer(201, {"incident": incident})


def incident_result(args, answer):
    if answer.status >= 400:
        return raised("create_incident", answer)
    keys = (
        "id",
        "summary",
        "incident_number",
        "title",
        "status",
        "urgency",
        "created_at",
        "updated_at",
        "service",
        "assignments",
        "html_url",
    )
    return mcp_json({k: answer.body["incident"][k] for k in keys}, indent=None)


CREATE_INCIDENT = Tool(
    "pagerduty",
    "create_incident",
    Source("PagerDuty/pagerduty-mcp-server", "pagerduty_mcp/tools/incidents.py", COMMIT),
    "Create an incident.",
    schema(
        {
            "incident": {
                "type": "object",
                "properties": {
                    "title": {"type": "string", "description": "The title of the incident"},
                    "service": {
                        "type": "object",
                        "properties": {
                            "id": {"type": "string"},
                            "type": {"type": "string", "const": "service_reference"},
                        },
                        "required": ["id"],
                    },
                    "urgency": {
                        "anyOf": [{"type": "string", "enum": ["high", "low"]}, {"type": "null"}],
                        "default": "high",
                    },
                    "body": {"anyOf": [{"type": "object"}, {"type": "null"}], "default": None},
                    "assignments": {
                        "anyOf": [{"type": "array", "items": {"type": "object"}}, {"type": "null"}],
                        "default": None,
                    },
                },
                "required": ["title", "service"],
            }
        },
        ["incident"],
    ),
    incident_args,
    incident_request,
    incident_response,
    [
        pd_error(400, 2001, "Invalid Input Provided", ["Service not found."]),
        pd_error(403, 2010, "Access Denied"),
        RATE_LIMIT,
    ],
    incident_result,
    [
        Bug(
            "enum_case",
            edit("body", "/incident/urgency", upper),
            "/incident/urgency",
            "/incident/urgency",
        ),
        Bug("unwrapped", unwrap("/incident", "title"), "/incident/title", "/incident/title"),
        Bug("dropped", drop("body", "/incident/body"), "/incident/body", "/incident/body"),
        Bug("error_fields_lost", lose("/error/message"), response="/error/message", error=True),
    ],
)

# --- add_note_to_incident -------------------------------------------------------------------------


def note_args(rng):
    incident = "Q" + "".join(rng.choice(ALNUM) for _ in range(13))
    return {
        "incident_id": incident,
        "note": rng.choice(
            ["Rolled back 2.41.0.", "Paged the DB team.", "Customer impact ended 10:40."]
        ),
    }


def note_request(args):
    return Wire(
        "POST",
        f"{API}/incidents/{args['incident_id']}/notes",
        headers=dict(HEADERS),
        json={"note": {"content": args["note"]}},
    )


def note_response(args, rng):
    note = {
        "id": pd_id(rng),
        "user": {"id": pd_id(rng), "type": "user_reference", "summary": "Ann Lee"},
        "channel": {"summary": "The PagerDuty website or APIs"},
        "content": args["note"],
        "created_at": "2026-10-02T10:41:07Z",
    }
    return Answer(201, {"note": note})


ADD_NOTE = Tool(
    "pagerduty",
    "add_note_to_incident",
    Source("PagerDuty/pagerduty-mcp-server", "pagerduty_mcp/tools/incidents.py", COMMIT),
    "Add a note to an incident.",
    schema(
        {"incident_id": {"type": "string"}, "note": {"type": "string"}}, ["incident_id", "note"]
    ),
    note_args,
    note_request,
    note_response,
    [pd_error(404, 2100, "Not Found"), RATE_LIMIT],
    lambda args, answer: (
        raised("add_note_to_incident", answer)
        if answer.status >= 400
        else mcp_json(
            {k: answer.body["note"][k] for k in ("id", "content", "created_at", "user")},
            indent=None,
        )
    ),
    [
        Bug("renamed_key", rename("body", "/note/content", "text"), "/note", "/note/content"),
        Bug("unwrapped", unwrap("/note", "content"), "/note", "/note/content"),
        Bug("leaked_field", leak("body", "/incident_id", "Q0000000000000"), None, "/incident_id"),
    ],
)

TOOLS = [CREATE_INCIDENT, ADD_NOTE]
