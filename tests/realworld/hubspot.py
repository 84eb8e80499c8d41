"""HubSpot, as a community MCP server calls the CRM v3 API.

Through HubSpot's Python SDK. Unseen: written after the analysis was tuned, never tuned on.

Read: peakmojo/mcp-hubspot src/mcp_server_hubspot/handlers/contact_handler.py,
clients/contact_client.py and core/error_handler.py at 00aff63. `hubspot_create_contact` first
searches for a contact of the same name (the call recorded here is the create that follows when
none is found): `{"properties": {firstname, lastname, email?, ...properties}}`, every value as the
model sent it. Its result is Python's `str()` of the SDK model's `to_dict()` (single quotes,
`datetime.datetime(...)`, `None`), and a failure is a plain text "HubSpot API error: (409)
Reason: ..." with the whole HTTP answer, no `isError`. `hubspot_get_active_contacts` searches with
a fixed sort and property list and `limit` (default 10); its result is `json.dumps` of the
results (snake_case keys, times as ISO text), a failure `{"error": "..."}` as text. HubSpot's
errors are `{"status": "error", "message", "correlationId", "category"}`, a 429
`{"status", "message", "errorType": "RATE_LIMIT", "correlationId", "policyName"}`.
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
    mcp_text,
    plus_one,
    rename,
    s,
    schema,
    unwrap,
)

COMMIT = "00aff63d916ee8cd69b2805976f06234b60d199d"
API = "https://api.hubapi.com/crm/v3/objects/contacts"
HEADERS = {
    "Authorization": "Bearer [REDACTED]",
    "Content-Type": "application/json",
    "Accept": "application/json",
    "User-Agent": "hubspot-api-client-python; 11.1.0",
}
FIRST = ["Ana", "Bram", "Chen", "Dana", "Emeka", "Freya"]
LAST = ["Okafor", "Lindqvist", "Moreau", "Tanaka", "Silva"]
COMPANIES = ["Acme Corp", "Globex", "Initech", "Umbrella Health"]
SEARCH_PROPERTIES = [
    "firstname",
    "lastname",
    "email",
    "phone",
    "company",
    "hs_lastmodifieddate",
    "lastmodifieddate",
]
REASONS = {400: "Bad Request", 401: "Unauthorized", 409: "Conflict", 429: "Too Many Requests"}


class _When:
    """A time as Python prints the SDK's datetime inside a dict."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self):
        d, t = self.text[:10], self.text[11:23]
        y, mo, da = (int(x) for x in d.split("-"))
        h, mi, rest = t.split(":")
        sec, ms = rest.split(".")
        return (
            f"datetime.datetime({y}, {mo}, {da}, {int(h)}, {int(mi)}, {int(sec)}, "
            f"{int(ms) * 1000}, tzinfo=tzutc())"
        )


def when(rng) -> str:
    return f"2026-11-0{rng.randint(1, 9)}T{rng.randint(10, 23)}:{rng.randint(10, 59)}:0{rng.randint(0, 9)}.{rng.randint(100, 999)}Z"


def contact_id(rng) -> str:
    return str(rng.randint(10_000, 99_999_999))


def hs_error(status: int, category: str, *messages, **more):
    def answer(args, rng):
        body = {
            "status": "error",
            "message": rng.choice(messages),
            "correlationId": f"{rng.getrandbits(32):08x}-1c2d-4e5f-8a9b-{rng.getrandbits(48):012x}",
            **({"category": category} if category else {}),
            **more,
        }
        return Answer(status, body, {"Content-Type": "application/json;charset=utf-8"})

    return answer


RATE_LIMIT = hs_error(
    429,
    "",
    "You have reached your secondly limit.",
    errorType="RATE_LIMIT",
    policyName="SECONDLY",
    groupName="publicapi:private-app:burst:4811234",
)
AUTH = hs_error(
    401,
    "INVALID_AUTHENTICATION",
    "Authentication credentials not found. This API supports OAuth 2.0 authentication.",
)


def api_exception(answer) -> str:
    """str() of the SDK's ApiException: status, reason, headers and the body."""
    headers = {"Content-Type": "application/json;charset=utf-8", **answer.headers}
    return (
        f"({answer.status})\nReason: {REASONS.get(answer.status, '')}\n"
        f"HTTP response headers: HTTPHeaderDict({headers!r})\n"
        f"HTTP response body: {json.dumps(answer.body, separators=(',', ':'))}\n"
    )


def record(rng, properties: dict) -> dict:
    """A contact as the API answers it (camelCase, every property a string)."""
    made = when(rng)
    ident = contact_id(rng)
    props = {
        "createdate": made,
        "hs_is_unworked": "true",
        "hs_object_id": ident,
        "lastmodifieddate": made,
        **{k: v for k, v in properties.items()},
    }
    return {
        "id": ident,
        "properties": props,
        "createdAt": made,
        "updatedAt": made,
        "archived": False,
    }


def to_dict(contact: dict, times) -> dict:
    """The SDK model's to_dict(): snake_case, times converted by `times`."""
    return {
        "archived": contact["archived"],
        "archived_at": None,
        "associations": None,
        "created_at": times(contact["createdAt"]),
        "id": contact["id"],
        "object_write_trace_id": None,
        "properties": contact["properties"],
        "properties_with_history": None,
        "updated_at": times(contact["updatedAt"]),
    }


# --- hubspot_create_contact -----------------------------------------------------------------------


def create_args(rng):
    args = {"firstname": rng.choice(FIRST), "lastname": rng.choice(LAST)}
    if rng.random() < 0.6:
        args["email"] = f"{args['firstname'].lower()}@{rng.choice(['acme.io', 'globex.com'])}"
    if rng.random() < 0.4:
        extra = {"company": rng.choice(COMPANIES)}
        if rng.random() < 0.5:
            extra["phone"] = f"+44 20 7946 0{rng.randint(100, 999)}"
        if rng.random() < 0.3:
            extra["lifecyclestage"] = rng.choice(["lead", "customer"])
        args["properties"] = extra
    return args


def create_request(args):
    properties = {"firstname": args["firstname"], "lastname": args["lastname"]}
    if "email" in args:
        properties["email"] = args["email"]
    properties.update(args.get("properties") or {})
    return Wire("POST", API, headers=dict(HEADERS), json={"properties": properties})


def create_response(args, rng):
    return Answer(201, record(rng, create_request(args).json["properties"]))


def create_result(args, answer):
    if answer.status >= 400:
        return mcp_text(f"HubSpot API error: {api_exception(answer)}")
    return mcp_text(str(to_dict(answer.body, _When)))


CREATE_CONTACT = Tool(
    "hubspot",
    "hubspot_create_contact",
    Source("peakmojo/mcp-hubspot", "src/mcp_server_hubspot/handlers/contact_handler.py", COMMIT),
    "Create a new contact in HubSpot",
    schema(
        {
            "firstname": s("Contact's first name"),
            "lastname": s("Contact's last name"),
            "email": s("Contact's email address"),
            "properties": {"type": "object", "description": "Additional contact properties"},
        },
        ["firstname", "lastname"],
    ),
    create_args,
    create_request,
    create_response,
    [
        hs_error(409, "CONFLICT", "Contact already exists. Existing ID: 30001"),
        hs_error(
            400,
            "VALIDATION_ERROR",
            'Property values were not valid: [{"isValid":false,"message":"Email address is '
            'invalid","error":"INVALID_EMAIL","name":"email"}]',
        ),
        RATE_LIMIT,
    ],
    create_result,
    [
        Bug("unwrapped", unwrap("/properties", "firstname"), "/firstname", "/properties/firstname"),
        Bug(
            "renamed_key",
            rename("body", "/properties/email", "emailAddress"),
            "/email",
            "/properties/email",
        ),
        Bug(
            "dropped",
            drop("body", "/properties/lastname"),
            "/lastname",
            "/properties/lastname",
            single=True,
        ),
        Bug("leaked_field", leak("body", "/objectType", "contacts"), None, "/objectType"),
        Bug("error_fields_lost", lose("/message"), response="/message", error=True),
    ],
)

# --- hubspot_get_active_contacts ------------------------------------------------------------------


def active_args(rng):
    return {"limit": rng.choice([5, 10, 20, 25])} if rng.random() < 0.6 else {}


def active_request(args):
    body = {
        "sorts": [{"propertyName": "lastmodifieddate", "direction": "DESCENDING"}],
        "limit": int(args.get("limit", 10)),
        "properties": list(SEARCH_PROPERTIES),
    }
    return Wire("POST", f"{API}/search", headers=dict(HEADERS), json=body)


def active_response(args, rng):
    count = min(int(args.get("limit", 10)), rng.randint(0, 4))
    results = []
    for _ in range(count):
        first = rng.choice(FIRST)
        contact = record(
            rng,
            {
                "firstname": first,
                "lastname": rng.choice(LAST),
                "email": f"{first.lower()}@acme.io",
                "company": rng.choice(COMPANIES + [None]),
                "phone": None,
                "hs_lastmodifieddate": when(rng),
            },
        )
        contact["properties"].pop("hs_is_unworked")
        results.append(contact)
    out = {"total": count + rng.randint(0, 300), "results": results}
    if results:
        out["paging"] = {"next": {"after": str(count), "link": f"{API}/search?after={count}"}}
    return Answer(200, out)


def active_result(args, answer):
    if answer.status >= 400:
        return mcp_text(json.dumps({"error": api_exception(answer)}))
    iso = lambda text: text.replace("Z", "+00:00")  # noqa: E731
    return mcp_text(json.dumps([to_dict(c, iso) for c in answer.body["results"]]))


ACTIVE_CONTACTS = Tool(
    "hubspot",
    "hubspot_get_active_contacts",
    Source("peakmojo/mcp-hubspot", "src/mcp_server_hubspot/clients/contact_client.py", COMMIT),
    "Get most recently active contacts from HubSpot",
    schema(
        {
            "limit": {
                "type": "integer",
                "description": "Maximum number of contacts to return (default: 10)",
            }
        }
    ),
    active_args,
    active_request,
    active_response,
    [AUTH, RATE_LIMIT],
    active_result,
    [
        Bug("type_changed", edit("body", "/limit", as_string), "/limit", "/limit", single=True),
        Bug("value_changed", edit("body", "/limit", plus_one), "/limit", "/limit", single=True),
        Bug("renamed_key", rename("body", "/limit", "count"), "/limit", "/limit"),
        Bug("error_fields_lost", lose("/message"), response="/message", error=True),
    ],
)

TOOLS = [CREATE_CONTACT, ACTIVE_CONTACTS]
