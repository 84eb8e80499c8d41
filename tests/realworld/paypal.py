"""PayPal, as its agent toolkit's MCP server calls the REST API.

Unseen: written for the third unseen part, measured before any change made for it.

Read: paypal/agent-toolkit typescript/src/shared/functions.ts, parameters.ts, payloadUtils.ts,
client.ts, api.ts, llmError.ts and typescript/src/modelcontextprotocol/toolkit.ts at 1df21a6. The
MCP SDK parses the arguments with the tool's zod schema first (defaults filled, keys in the
schema's order, absent optional ones left out). `create_order` builds the order itself
(`parseOrderDetails`): each item's `itemCost` as `unit_amount.value` text, its `quantity` as text,
its tax `round(itemCost * taxPercent / 100, 2)`, and the totals computed (`item_total`,
`tax_total`, `shipping`, `discount`, `amount.value`), `itemTotal` and `notes` never sent, the
default return and cancel URLs always sent. `create_product` posts the parsed arguments as they
are. `list_disputes` writes the parsed arguments into the URL's query (`toQueryString`, nulls left
out) and hands them to axios as `params` too, so each is sent twice. Headers: axios' `Accept`, the
bearer token, `User-Agent` `PayPal Agent Toolkit Typescript: MCP, Version: 1.8.0, on OS: ...`.
The result is the answer's JSON text (no indent). An error answer (`{name, message, debug_id,
details: [{issue, description}], links}`, OAuth's `{error, error_description}`) becomes
`{"ok": false, "status", "code": "PAYPAL_API_HTTP_ERROR", "message"}`, its message the body's
`message` (or `error_description`, or `name`) and the details' descriptions, cut at 200
characters: a plain text result, not flagged `isError`.
"""

import json
from decimal import ROUND_HALF_UP, Decimal

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
    plus_one,
    rename,
    some,
    text_of,
)

COMMIT = "1df21a620667595bd2cd326c2daee0c97c355f78"
REPO = "paypal/agent-toolkit"
API = "https://api.paypal.com"
HEADERS = {
    "Accept": "application/json, text/plain, */*",
    "Content-Type": "application/json",
    "Authorization": "Bearer [REDACTED]",
    "User-Agent": "PayPal Agent Toolkit Typescript: MCP, Version: 1.8.0, on OS: linux "
    "6.8.0-1017-aws",
}
DRAFT7 = "http://json-schema.org/draft-07/schema#"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
GOODS = [
    ("Ceramic mug", 12.5),
    ("Espresso beans 1kg", 24.99),
    ("Pour-over kit", 39.0),
    ("Gift card", 25),
    ("Barista course", 149.95),
]


def token(rng, size: int) -> str:
    return "".join(rng.choice(UPPER) for _ in range(size))


def debug_id(rng) -> str:
    return f"{rng.getrandbits(52):013x}"


def when(rng) -> str:
    return f"2026-11-{rng.randint(10, 28)}T{rng.randint(10, 23)}:{rng.randint(10, 59)}:14Z"


def link(href: str, rel: str, method: str = "GET") -> dict:
    return {"href": href, "rel": rel, "method": method}


def paypal_error(status: int, name: str, message: str, *details):
    def answer(args, rng):
        body = {"name": name, "message": message, "debug_id": debug_id(rng)}
        if details:
            issue, description = rng.choice(details)
            body["details"] = [{"issue": issue, "description": description}]
        body["links"] = [
            link(
                f"https://developer.paypal.com/api/rest/reference/errors/#{name}",
                "information_link",
            )
        ]
        return Answer(status, body, {"Content-Type": "application/json"})

    return answer


def oauth_error(args, rng):
    body = {"error": "invalid_token", "error_description": "Token signature verification failed"}
    return Answer(401, body, {"Content-Type": "application/json"})


RATE = paypal_error(429, "RATE_LIMIT_REACHED", "Too many requests. Blocked due to rate limiting.")
SERVER = paypal_error(500, "INTERNAL_SERVER_ERROR", "An internal server error has occurred.")


def result(args, answer):
    """The answer's JSON text, or the toolkit's LlmError as JSON (a text result either way)."""
    if answer.status < 400:
        return mcp_text(json.dumps(answer.body, separators=(",", ":")))
    data = answer.body
    text = (
        data.get("message")
        or data.get("error_description")
        or data.get("name")
        or ("Unknown error")
    )
    described = "; ".join(
        d.get("description") or d.get("issue") or "" for d in data.get("details") or []
    ).strip("; ")
    if described:
        text += f": {described}"
    error = {"ok": False, "status": answer.status, "code": "PAYPAL_API_HTTP_ERROR"}
    error["message"] = text[:200]
    return mcp_text(json.dumps(error, separators=(",", ":")))


def zod_schema(properties: dict, required: list) -> dict:
    out = {"type": "object", "properties": properties}
    if required:
        out["required"] = required
    return out | {"additionalProperties": False, "$schema": DRAFT7}


def js_round(value, places: int = 2) -> str:
    """mathjs' round(value, 2), written as JavaScript's String() writes the number."""
    rounded = float(Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP))
    return text_of(rounded)


# --- create_order ---------------------------------------------------------------------------------


def order_args(rng):
    items = []
    for name, cost in rng.sample(GOODS, rng.randint(1, 3)):
        item = {"name": name}
        quantity = rng.choice([1, 1, 2, 3]) if some(rng, 0.7) else None
        if quantity is not None:
            item["quantity"] = quantity
        if some(rng, 0.3):
            item["description"] = f"{name}, gift wrapped"
        item["itemCost"] = cost
        if some(rng, 0.5):
            item["taxPercent"] = rng.choice([5, 8, 10, 20])
        item["itemTotal"] = cost * (quantity or 1)
        items.append(item)
    args = {"currencyCode": "USD", "items": items}
    if some(rng, 0.4):
        args["shippingCost"] = rng.choice([4.99, 10, 0])
    if some(rng, 0.2):
        args["discount"] = rng.choice([5, 2.5])
    if some(rng, 0.35):
        args["shippingAddress"] = {
            "address_line_1": f"{rng.randint(10, 999)} Market Street",
            "admin_area_2": "San Francisco",
            "admin_area_1": "CA",
            "postal_code": "94105",
            "country_code": "US",
        }
    if some(rng, 0.2):
        args["notes"] = "Leave at the front desk"
    if some(rng, 0.15):
        args["returnUrl"] = "https://shop.acme.io/paypal/return"
    return args


def order_request(args):
    currency = args["currencyCode"]
    items = [{"quantity": 1, "taxPercent": 0, **item} for item in args["items"]]
    sub_total, tax = 0, 0
    for item in items:
        sub_total = sub_total + item["itemCost"] * item["quantity"]
        tax = tax + item["itemCost"] * item["taxPercent"] * item["quantity"] / 100
    shipping, discount = args.get("shippingCost") or 0, args.get("discount") or 0
    total = sub_total + tax + shipping - discount

    def money(value):
        return {"value": js_round(value), "currency_code": currency}

    lines = []
    for item in items:
        line = {"name": item["name"]}
        if "description" in item:
            line["description"] = item["description"]
        line["unit_amount"] = {"value": text_of(item["itemCost"]), "currency_code": currency}
        line["quantity"] = text_of(item["quantity"])
        line["tax"] = money(item["itemCost"] * item["taxPercent"] / 100)
        lines.append(line)
    breakdown = {
        "item_total": money(sub_total),
        "shipping": money(shipping),
        "tax_total": money(tax),
        "discount": money(discount),
    }
    unit = {"amount": {**money(total), "breakdown": breakdown}, "items": lines}
    if args.get("shippingAddress"):
        unit["shipping"] = {"address": args["shippingAddress"]}
    body = {
        "intent": "CAPTURE",
        "purchase_units": [unit],
        "payment_source": {
            "paypal": {
                "experience_context": {
                    "return_url": args.get("returnUrl", "https://example.com/returnUrl"),
                    "cancel_url": args.get("cancelUrl", "https://example.com/cancelUrl"),
                }
            }
        },
    }
    return Wire("POST", f"{API}/v2/checkout/orders", headers=dict(HEADERS), json=body)


def order_response(args, rng):
    ident = token(rng, 17)
    body = {
        "id": ident,
        "status": "PAYER_ACTION_REQUIRED",
        "payment_source": {"paypal": {}},
        "links": [
            link(f"{API}/v2/checkout/orders/{ident}", "self"),
            link(f"https://www.paypal.com/checkoutnow?token={ident}", "payer-action"),
        ],
    }
    return Answer(201, body, {"Content-Type": "application/json"})


ORDER_INVALID = paypal_error(
    422,
    "UNPROCESSABLE_ENTITY",
    "The requested action could not be performed, semantically incorrect, or failed business "
    "validation.",
    (
        "CURRENCY_NOT_SUPPORTED_FOR_RECEIVER",
        "This currency cannot be accepted for this recipient's account.",
    ),
    ("PAYEE_ACCOUNT_RESTRICTED", "The merchant account is restricted."),
)
MONEY = {"type": "number"}
ADDRESS = {
    "type": "object",
    "properties": {
        key: {"type": "string", "description": text}
        for key, text in (
            ("address_line_1", "The first line of the address, such as number and street."),
            ("address_line_2", "The second line of the address, for example, a suite."),
            ("admin_area_2", "A city, town, or village."),
            ("admin_area_1", "The highest-level sub-division in a country."),
            ("postal_code", "The postal code, which is the ZIP code or equivalent."),
        )
    }
    | {"country_code": {"type": "string", "minLength": 2, "maxLength": 2}},
    "additionalProperties": False,
    "description": "The shipping address for the order.",
}

CREATE_ORDER = Tool(
    "paypal",
    "create_order",
    Source(REPO, "typescript/src/shared/payloadUtils.ts", COMMIT),
    "\nCreate an order in PayPal.\n\nThis tool is used to create a new order in PayPal. This is "
    "typically the first step in initiating a payment flow. It sets up an order with specified "
    "details such as item(s) to be purchased, quantity, amount, currency, and other details.\n",
    zod_schema(
        {
            "currencyCode": {
                "type": "string",
                "enum": ["USD"],
                "description": "Currency code of the amount.",
            },
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "The name of the item."},
                        "quantity": {**MONEY, "default": 1, "description": "The item quantity."},
                        "description": {"type": "string"},
                        "itemCost": {**MONEY, "description": "The cost of each item."},
                        "taxPercent": {**MONEY, "default": 0},
                        "itemTotal": {**MONEY, "description": "The total cost of this line item."},
                    },
                    "required": ["name", "itemCost", "itemTotal"],
                    "additionalProperties": False,
                },
                "maxItems": 50,
            },
            "discount": {**MONEY, "default": 0, "description": "The discount amount."},
            "shippingCost": {**MONEY, "default": 0, "description": "The cost of shipping."},
            "shippingAddress": {"anyOf": [ADDRESS, {"type": "null"}], "default": None},
            "notes": {"type": ["string", "null"], "default": None},
            "returnUrl": {"type": "string", "default": "https://example.com/returnUrl"},
            "cancelUrl": {"type": "string", "default": "https://example.com/cancelUrl"},
        },
        ["currencyCode", "items"],
    ),
    order_args,
    order_request,
    order_response,
    [ORDER_INVALID, oauth_error, RATE, SERVER],
    result,
    [
        Bug(
            "value_changed",
            edit("body", "/purchase_units/0/amount/value", lambda v: js_round(float(v) + 1)),
            None,
            "/purchase_units/0/amount/value",
        ),
        Bug(
            "type_changed",
            edit("body", "/purchase_units/0/items/0/quantity", lambda v: int(v)),
            "/items/0/quantity",
            "/purchase_units/0/items/0/quantity",
        ),
        Bug(
            "dropped",
            drop("body", "/purchase_units/0/shipping"),
            "/shippingAddress",
            "/purchase_units/0/shipping",
        ),
        Bug(
            "renamed_key",
            rename("body", "/purchase_units/0/items/0/unit_amount", "unit_price"),
            "/items/0/itemCost",
            "/purchase_units/0/items/0/unit_amount",
        ),
        Bug("enum_case", edit("body", "/intent", str.lower), None, "/intent"),
        Bug("error_fields_lost", lose("/message"), response="/message", error=True),
    ],
)

# --- create_product -------------------------------------------------------------------------------

PRODUCTS = [
    ("Video Streaming Service", "SERVICE", "SOFTWARE"),
    ("Espresso Club", "PHYSICAL", "FOOD_RETAIL_AND_SERVICE"),
    ("Design Templates", "DIGITAL", "DIGITAL_MEDIA_BOOKS_MOVIES_MUSIC"),
]


def product_args(rng):
    name, kind, category = rng.choice(PRODUCTS)
    args = {"name": name, "type": kind}
    if some(rng, 0.6):
        args["description"] = f"{name} monthly plan"
    if some(rng, 0.5):
        args["category"] = category
    if some(rng, 0.25):
        args["image_url"] = "https://cdn.acme.io/products/cover.jpg"
    if some(rng, 0.25):
        args["home_url"] = "https://acme.io"
    return args


def product_request(args):
    return Wire("POST", f"{API}/v1/catalogs/products", headers=dict(HEADERS), json=dict(args))


def product_response(args, rng):
    ident = f"PROD-{token(rng, 17)}"
    made = when(rng)
    body = {"id": ident, **args, "create_time": made, "update_time": made}
    body["links"] = [
        link(f"{API}/v1/catalogs/products/{ident}", "self"),
        link(f"{API}/v1/catalogs/products/{ident}", "edit", "PATCH"),
    ]
    return Answer(201, body, {"Content-Type": "application/json"})


PRODUCT_INVALID = paypal_error(
    400,
    "INVALID_REQUEST",
    "Request is not well-formed, syntactically incorrect, or violates schema.",
    ("INVALID_PARAMETER_VALUE", "The value of a field is invalid."),
    ("INVALID_STRING_LENGTH", "The value of a field is either too short or too long."),
)

CREATE_PRODUCT = Tool(
    "paypal",
    "create_product",
    Source(REPO, "typescript/src/shared/functions.ts", COMMIT),
    "\nCreate a product in PayPal using product catalog - create products API.\nThis function "
    "creates a new product that will be used in subscription plans, subscriptions.\nRequired "
    "parameters are: name (product name), type (product type).\n",
    zod_schema(
        {
            "name": {"type": "string", "description": "The product name."},
            "type": {
                "type": "string",
                "enum": ["PHYSICAL", "DIGITAL", "SERVICE"],
                "description": "The product type. Value is PHYSICAL, DIGITAL, or SERVICE.",
            },
            "description": {"type": "string", "description": "The product description."},
            "category": {"type": "string", "description": "The product category."},
            "image_url": {"type": "string", "description": "The image URL for the product."},
            "home_url": {"type": "string", "description": "The home page URL for the product."},
        },
        ["name", "type"],
    ),
    product_args,
    product_request,
    product_response,
    [PRODUCT_INVALID, oauth_error, RATE],
    result,
    [
        Bug("renamed_key", rename("body", "/type", "product_type"), "/type", "/type"),
        Bug("enum_case", edit("body", "/type", str.lower), "/type", "/type"),
        Bug("dropped", drop("body", "/description"), "/description", "/description"),
        Bug("leaked_field", leak("body", "/sku", "INT-4471"), None, "/sku"),
        Bug("dropped", drop("header", "Authorization"), None, "header:/authorization"),
        Bug("error_fields_lost", lose("/message"), response="/message", error=True),
    ],
)

# --- list_disputes --------------------------------------------------------------------------------

STATES = ["REQUIRED_ACTION", "UNDER_PAYPAL_REVIEW", "RESOLVED", "OPEN_INQUIRIES"]


def disputes_args(rng):
    args = {}
    if some(rng, 0.15):
        args["disputed_transaction_id"] = token(rng, 17)
    if some(rng, 0.5):
        args["dispute_state"] = rng.choice(STATES)
    if some(rng, 0.4):
        args["page_size"] = rng.choice([5, 10, 20])
    if some(rng, 0.15):
        args["page"] = rng.choice([1, 2])
    return args


def disputes_request(args):
    # the toolkit's own query string, then axios appending the same `params`
    pairs = [(key, text_of(value)) for key, value in args.items() if value is not None]
    url = f"{API}/v1/customer/disputes"
    return Wire("GET", url, query=pairs + pairs, headers=dict(HEADERS))


def dispute(rng, state: str | None) -> dict:
    ident = f"PP-D-{rng.randint(10000, 99999)}"
    state = state or rng.choice(STATES)
    made = when(rng)
    return {
        "dispute_id": ident,
        "create_time": made,
        "update_time": made,
        "status": "RESOLVED" if state == "RESOLVED" else "UNDER_REVIEW",
        "reason": rng.choice(["MERCHANDISE_OR_SERVICE_NOT_RECEIVED", "UNAUTHORISED"]),
        "dispute_state": state,
        "dispute_amount": {"currency_code": "USD", "value": rng.choice(["35.00", "149.95"])},
        "dispute_life_cycle_stage": "INQUIRY",
        "dispute_channel": "INTERNAL",
        "links": [link(f"{API}/v1/customer/disputes/{ident}", "self")],
    }


def disputes_response(args, rng):
    found = [dispute(rng, args.get("dispute_state")) for _ in range(rng.randint(0, 3))]
    size = args.get("page_size", 10)
    body = {"items": found} if found else {}
    body["links"] = [link(f"{API}/v1/customer/disputes?page_size={size}", "self")]
    return Answer(200, body, {"Content-Type": "application/json"})


DISPUTES_INVALID = paypal_error(
    400,
    "INVALID_REQUEST",
    "Request is not well-formed, syntactically incorrect, or violates schema.",
    ("INVALID_PARAMETER_VALUE", "The value of a field is invalid."),
)

LIST_DISPUTES = Tool(
    "paypal",
    "list_disputes",
    Source(REPO, "typescript/src/shared/functions.ts", COMMIT),
    "\nList disputes from PayPal.\n\nThis function retrieves a list of disputes with optional "
    "pagination and filtering parameters.\n",
    zod_schema(
        {
            "disputed_transaction_id": {
                "type": ["string", "null"],
                "pattern": "^[A-Za-z0-9_-]{12,255}$",
                "default": None,
            },
            "dispute_state": {
                "type": "string",
                "enum": [
                    "REQUIRED_ACTION",
                    "REQUIRED_OTHER_PARTY_ACTION",
                    "UNDER_PAYPAL_REVIEW",
                    "RESOLVED",
                    "OPEN_INQUIRIES",
                    "APPEALABLE",
                ],
                "description": "OPEN_INQUIRIES",
            },
            "page_size": {"type": "number", "minimum": 1, "maximum": 50, "default": 10},
            "page": {"type": "number", "minimum": 1, "maximum": 1000, "default": 1},
        },
        [],
    ),
    disputes_args,
    disputes_request,
    disputes_response,
    [DISPUTES_INVALID, oauth_error, RATE],
    result,
    [
        Bug("dropped", drop("query", "dispute_state"), "/dispute_state", "query:/dispute_state"),
        Bug(
            "renamed_key",
            rename("query", "page_size", "pageSize"),
            "/page_size",
            "query:/page_size",
        ),
        Bug(
            "value_changed", edit("query", "page_size", plus_one), "/page_size", "query:/page_size"
        ),
        Bug(
            "enum_case",
            edit("query", "dispute_state", str.lower),
            "/dispute_state",
            "query:/dispute_state",
        ),
        Bug(
            "leaked_field", leak("query", "buyer_email", "ops@acme.io"), None, "query:/buyer_email"
        ),
        Bug("error_fields_lost", lose("/message"), response="/message", error=True),
    ],
)

TOOLS = [CREATE_ORDER, CREATE_PRODUCT, LIST_DISPUTES]
