"""Square, as its own MCP server calls the Connect API v2: one tool, every route.

Unseen: written after the first unseen part was fixed for, never tuned on.

Read: square/square-mcp-server server.ts, config.ts, services/customers.ts and services/payments.ts
at 7d498d1. `make_api_request` takes `service` (lower case; the code capitalises its first letter to
find the service), `method` (the service's method name) and a `request` object: the two pick the
route, and the request is spread over it. Each handler moves the route's path parameters
(`customer_id`) into the path, its declared query parameters into the query in the order the
method declares them (each as `String(value)`: `true` -> `"true"`), and sends what is left as the
JSON body of a POST or PUT (nothing for a GET). Headers: `Square-Version: 2025-04-16`,
`User-Agent: Square-MCP-Server/0.1.1`, the bearer token. The result is Square's answer as the raw
text it came in. An error answer (`{"errors": [{category, code, detail, field?}]}`) is thrown with
that text as its message and handed back as an `isError` text `{"error": <the body's text>,
"details": <the stack>}` indented by 2.
"""

import json

from .model import (
    NOBODY,
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
    path_segment,
    rename,
    s,
    text_of,
)

COMMIT = "7d498d17c9fda67ad9459dd0dc77e9809e96d5ee"
API = "https://connect.squareup.com"
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json",
    "Authorization": "Bearer [REDACTED]",
    "Square-Version": "2025-04-16",
    "User-Agent": "Square-MCP-Server/0.1.1",
}
# each route: method, path, path parameters, query parameters in the order the method declares
ROUTES = {
    ("customers", "list"): (
        "GET",
        "/v2/customers",
        [],
        ["cursor", "limit", "sort_field", "sort_order", "count"],
    ),
    ("customers", "create"): ("POST", "/v2/customers", [], []),
    ("customers", "search"): ("POST", "/v2/customers/search", [], []),
    ("customers", "get"): ("GET", "/v2/customers/{customer_id}", ["customer_id"], []),
    ("payments", "list"): (
        "GET",
        "/v2/payments",
        [],
        [
            "begin_time",
            "end_time",
            "sort_order",
            "cursor",
            "location_id",
            "total",
            "last_4",
            "card_brand",
            "limit",
            "is_offline_payment",
            "offline_begin_time",
            "offline_end_time",
            "updated_at_begin_time",
            "updated_at_end_time",
            "sort_field",
        ],
    ),
}
LOCATIONS = ["L88917AVBK2S5", "LQJ4GNBKSEF3N", "LH2G9Y3P0M7XR"]
GIVEN = ["Amelia", "Kwame", "Sofia", "Ravi", "Ines"]
FAMILY = ["Earhart", "Mensah", "Rossi", "Patel", "Duarte"]
STACK = (
    "Error: {text}\n    at handleResponse (file:///app/dist/config.js:31:15)\n"
    "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)\n"
    "    at async Object.{method} (file:///app/dist/services/{service}.js:{line}:16)\n"
    "    at async file:///app/dist/server.js:191:22"
)
B32 = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def customer_id(rng) -> str:
    return "".join(rng.choice(B32) for _ in range(26))


def payment_id(rng) -> str:
    return "".join(rng.choice(B62) for _ in range(29))


def when(rng) -> str:
    return f"2026-11-{rng.randint(10, 28)}T{rng.randint(10, 23)}:{rng.randint(10, 59)}:{rng.randint(10, 59)}.{rng.randint(100, 999)}Z"


def customer(rng, fields: dict | None = None) -> dict:
    made = when(rng)
    given, family = rng.choice(GIVEN), rng.choice(FAMILY)
    out = {
        "id": customer_id(rng),
        "created_at": made,
        "updated_at": made,
        "given_name": given,
        "family_name": family,
        "email_address": f"{given.lower()}.{family.lower()}@example.com",
        "preferences": {"email_unsubscribed": False},
        "creation_source": rng.choice(["THIRD_PARTY", "DIRECTORY"]),
        "version": rng.randint(0, 4),
    }
    fields = {k: v for k, v in (fields or {}).items() if k != "idempotency_key"}
    out.update(fields)
    return out


def payment(rng, location: str | None) -> dict:
    ident = payment_id(rng)
    amount = rng.choice([450, 1500, 2399, 12000])
    made = when(rng)
    brand = rng.choice(["VISA", "MASTERCARD", "AMERICAN_EXPRESS"])
    return {
        "id": ident,
        "created_at": made,
        "updated_at": made,
        "amount_money": {"amount": amount, "currency": "USD"},
        "total_money": {"amount": amount, "currency": "USD"},
        "approved_money": {"amount": amount, "currency": "USD"},
        "status": "COMPLETED",
        "delay_duration": "PT168H",
        "source_type": "CARD",
        "card_details": {
            "status": "CAPTURED",
            "card": {
                "card_brand": brand,
                "last_4": f"{rng.randint(0, 9999):04d}",
                "exp_month": rng.randint(1, 12),
                "exp_year": rng.randint(2027, 2031),
                "fingerprint": f"sq-1-{''.join(rng.choice(B62) for _ in range(22))}",
                "card_type": "CREDIT",
                "bin": "411111",
            },
            "entry_method": "KEYED",
            "cvv_status": "CVV_ACCEPTED",
            "avs_status": "AVS_ACCEPTED",
            "statement_description": "SQ *ACME COFFEE",
        },
        "location_id": location or LOCATIONS[0],
        "order_id": payment_id(rng),
        "receipt_number": ident[:4],
        "receipt_url": f"https://squareup.com/receipt/preview/{ident}",
        "delay_action": "CANCEL",
        "version_token": "".join(rng.choice(B62) for _ in range(43)),
        "application_details": {
            "square_product": "ECOMMERCE_API",
            "application_id": "sq0idp-wGVapF8sNt9PLrdj5znuKA",
        },
    }


# --- the model's arguments ------------------------------------------------------------------------


def _list_customers(rng) -> dict:
    out = {}
    if rng.random() < 0.6:
        out["limit"] = rng.choice([10, 20, 50, 100])
    if rng.random() < 0.3:
        out["sort_field"] = rng.choice(["DEFAULT", "CREATED_AT"])
    if rng.random() < 0.3:
        out["sort_order"] = rng.choice(["ASC", "DESC"])
    if rng.random() < 0.2:
        out["count"] = True
    return out


def _create_customer(rng) -> dict:
    given, family = rng.choice(GIVEN), rng.choice(FAMILY)
    out = {"given_name": given, "family_name": family}
    if rng.random() < 0.7:
        out["email_address"] = f"{given.lower()}@{rng.choice(['acme.io', 'example.org'])}"
    if rng.random() < 0.3:
        out["phone_number"] = f"+1-206-555-0{rng.randint(100, 199)}"
    if rng.random() < 0.5:
        out["idempotency_key"] = f"{rng.getrandbits(128):032x}"
    if rng.random() < 0.2:
        out["note"] = "Met at the November market"
    return out


def _search_customers(rng) -> dict:
    if rng.random() < 0.6:
        wanted = {"email_address": {"exact": f"{rng.choice(GIVEN).lower()}@acme.io"}}
    else:
        wanted = {"created_at": {"start_at": "2026-11-01T00:00:00Z"}}
    out = {"query": {"filter": wanted}}
    if rng.random() < 0.5:
        out["limit"] = rng.choice([5, 10, 25])
    return out


def _list_payments(rng) -> dict:
    out = {}
    if rng.random() < 0.5:
        out["begin_time"] = f"2026-11-{rng.randint(1, 20):02d}T00:00:00Z"
    if rng.random() < 0.3:
        out["sort_order"] = rng.choice(["ASC", "DESC"])
    if rng.random() < 0.5:
        out["location_id"] = rng.choice(LOCATIONS)
    if rng.random() < 0.4:
        out["limit"] = rng.choice([10, 25, 100])
    if rng.random() < 0.15:
        out["card_brand"] = "VISA"
    return out


MAKERS = [
    (("customers", "list"), _list_customers, 0.25),
    (("customers", "get"), lambda rng: {"customer_id": customer_id(rng)}, 0.2),
    (("customers", "create"), _create_customer, 0.2),
    (("customers", "search"), _search_customers, 0.15),
    (("payments", "list"), _list_payments, 0.2),
]


def api_args(rng):
    route, make, _ = rng.choices(MAKERS, weights=[share for _, _, share in MAKERS])[0]
    args = {"service": route[0], "method": route[1]}
    request = make(rng)
    if request:
        args["request"] = request
    return args


# --- the request, the answer, the result ----------------------------------------------------------


def api_request(args):
    verb, path, path_params, query_params = ROUTES[(args["service"], args["method"])]
    rest = dict(args.get("request") or {})
    for name in path_params:
        if name in rest:
            path = path.replace("{" + name + "}", str(rest.pop(name)))
    query = [(name, text_of(rest.pop(name))) for name in query_params if name in rest]
    body = rest if rest and verb in ("POST", "PUT") else NOBODY
    return Wire(verb, f"{API}{path}", query=query, headers=dict(HEADERS), json=body)


def api_response(args, rng):
    route, request = (args["service"], args["method"]), args.get("request") or {}
    if route == ("customers", "list"):
        found = [customer(rng) for _ in range(rng.randint(0, 3))]
        body = {"customers": found} if found else {}
        if request.get("count"):
            body["count"] = len(found) + rng.randint(0, 40)
        if found and rng.random() < 0.5:
            body["cursor"] = "".join(rng.choice(B62) for _ in range(40))
    elif route == ("customers", "get"):
        body = {"customer": customer(rng) | {"id": request["customer_id"]}}
    elif route == ("customers", "create"):
        body = {"customer": customer(rng, request) | {"version": 0}}
    elif route == ("customers", "search"):
        found = [customer(rng) for _ in range(rng.randint(0, 2))]
        body = {"customers": found} if found else {}
    else:
        found = [payment(rng, request.get("location_id")) for _ in range(rng.randint(0, 2))]
        body = {"payments": found} if found else {}
    return Answer(200, body, {"Content-Type": "application/json"})


def sq_error(status: int, category: str, *errors):
    def answer(args, rng):
        code, detail, field = rng.choice(errors)
        error = {"category": category, "code": code, "detail": detail}
        if field:
            error["field"] = field
        return Answer(status, {"errors": [error]}, {"Content-Type": "application/json"})

    return answer


AUTH = sq_error(
    401, "AUTHENTICATION_ERROR", ("UNAUTHORIZED", "This request could not be authorized.", None)
)
RATE_LIMIT = sq_error(
    429, "RATE_LIMIT_ERROR", ("RATE_LIMITED", "Rate limit exceeded, retry later.", None)
)
INVALID = sq_error(
    400,
    "INVALID_REQUEST_ERROR",
    ("VALUE_TOO_HIGH", "`limit` must be less than or equal to 100", "limit"),
    ("INVALID_EMAIL_ADDRESS", "Expected email_address to be a valid email address", None),
    ("BAD_REQUEST", "Invalid request body.", None),
)
NOT_FOUND = sq_error(
    404, "INVALID_REQUEST_ERROR", ("NOT_FOUND", "Customer with ID `X` not found.", None)
)
LINES = {"list": 38, "get": 213, "create": 112, "search": 189}


def api_result(args, answer):
    text = json.dumps(answer.body)
    if answer.status < 400:
        return mcp_text(text)
    stack = STACK.format(
        text=text,
        method=args["method"],
        service=args["service"],
        line=LINES.get(args["method"], 77),
    )
    return mcp_text(json.dumps({"error": text, "details": stack}, indent=2), is_error=True)


def _route(service: str, method: str, plant):
    def planted(call):
        args = call["arguments"]
        return (args["service"], args["method"]) == (service, method) and plant(call)

    return planted


def _reversed(segment: str):
    return segment[::-1] if len(segment) > 3 else None


MAKE_API_REQUEST = Tool(
    "square",
    "make_api_request",
    Source("square/square-mcp-server", "server.ts", COMMIT),
    "Unified tool for all Square API operations. Be sure to get types before calling. Available "
    "services:\n  applepay, bankaccounts, bookingcustomattributes, bookings, cards, cashdrawers, "
    "catalog, checkout, customercustomattributes, customergroups, customersegments, customers, "
    "devices, disputes, events, giftcardactivities, giftcards, inventory, invoices, labor, "
    "locationcustomattributes, locations, loyalty, merchantcustomattributes, merchants, oauth, "
    "ordercustomattributes, orders, payments, payouts, refunds, sites, snippets, subscriptions, "
    "team, terminal, vendors, webhooksubscriptions.",
    {
        "type": "object",
        "properties": {
            "service": s("The Square API service category (e.g., 'catalog', 'payments')"),
            "method": s("The API method to call (e.g., 'list', 'create')"),
            "request": {
                "type": "object",
                "properties": {},
                "additionalProperties": True,
                "description": "The request object for the API call.",
            },
        },
        "required": ["service", "method"],
        "additionalProperties": False,
        "$schema": "http://json-schema.org/draft-07/schema#",
    },
    api_args,
    api_request,
    api_response,
    [AUTH, RATE_LIMIT, INVALID, NOT_FOUND],
    api_result,
    [
        Bug(
            "wrong_path_id",
            _route("customers", "get", path_segment(2, _reversed)),
            "/request/customer_id",
            "path:/2",
        ),
        Bug(
            "renamed_key",
            _route("customers", "create", rename("body", "/given_name", "first_name")),
            "/request/given_name",
            "/given_name",
        ),
        Bug(
            "dropped",
            _route("payments", "list", drop("query", "location_id")),
            "/request/location_id",
            "query:/location_id",
        ),
        Bug(
            "type_changed",
            _route("customers", "search", edit("body", "/limit", as_string)),
            "/request/limit",
            "/limit",
            single=True,
        ),
        Bug(
            "leaked_field",
            _route("customers", "list", leak("query", "include_deleted", "true")),
            None,
            "query:/include_deleted",
        ),
        Bug("dropped", drop("header", "Square-Version"), None, "header:/square-version"),
        Bug("error_fields_lost", lose("/errors/0/detail"), response="/errors/0/detail", error=True),
    ],
)

TOOLS = [MAKE_API_REQUEST]
