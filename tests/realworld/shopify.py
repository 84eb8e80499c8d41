"""Shopify, as GeLi2001/shopify-mcp calls the Admin GraphQL API.

Through graphql-request.

Read: GeLi2001/shopify-mcp src/tools/getProducts.ts, src/tools/updateCustomer.ts and src/index.ts at
d9ce6d9. `get-products` sends `{first: limit, query: "title:*<searchTitle>*"}`; `update-customer`
turns the numeric `id` into `gid://shopify/Customer/<id>`, drops `acceptsMarketing` and spreads the
rest into `input`. Shopify answers GraphQL errors with HTTP 200 and `errors[]` (`THROTTLED` with its
cost), and mutation failures as `userErrors` inside `data`; the tools throw, and the MCP SDK hands
back an `isError` text. A success is the trimmed object as JSON text.
"""

import json

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
    leak,
    mcp_text,
    n,
    put,
    rename,
    s,
    schema,
    strings,
    unwrap,
)

COMMIT = "d9ce6d9a4b651923ae5c2aab10d7c2e37609c20c"
API = "https://acme-outfitters.myshopify.com/admin/api/2026-01/graphql.json"
HEADERS = {"X-Shopify-Access-Token": "[REDACTED]", "Content-Type": "application/json"}
PRODUCTS_QUERY = (
    "query GetProducts($first: Int!, $query: String) "
    "{ products(first: $first, query: $query) { edges { node { id title } } } }"
)
CUSTOMER_MUTATION = (
    "mutation customerUpdate($input: CustomerInput!) "
    "{ customerUpdate(input: $input) { customer { id } userErrors { field message } } }"
)


def throttled(args, rng):
    cost = {
        "requestedQueryCost": 202,
        "actualQueryCost": None,
        "throttleStatus": {
            "maximumAvailable": 2000.0,
            "currentlyAvailable": 41,
            "restoreRate": 100.0,
        },
    }
    body = {
        "errors": [
            {
                "message": "Throttled",
                "extensions": {
                    "code": "THROTTLED",
                    "documentation": "https://shopify.dev/api/usage/rate-limits",
                },
            }
        ],
        "extensions": {"cost": cost},
    }
    return Answer(200, body)


def unauthorized(args, rng):
    return Answer(
        401,
        {"errors": "[API] Invalid API key or access token (unrecognized login or wrong password)"},
    )


def failure(what: str, answer) -> dict:
    body = answer.body
    if isinstance(body.get("errors"), list):
        message = f"{body['errors'][0]['message']}: {json.dumps({'response': body})}"
    elif "errors" in body:
        message = f"GraphQL Error (Code: {answer.status}): {json.dumps({'response': body})}"
    else:
        errors = body["data"]["customerUpdate"]["userErrors"]
        message = "Failed to update customer: " + ", ".join(
            f"{'.'.join(e['field'])}: {e['message']}" for e in errors
        )
    return mcp_text(f"{what}: {message}", is_error=True)


def gid(kind: str, rng) -> str:
    return f"gid://shopify/{kind}/{rng.randint(10**12, 10**13 - 1)}"


# --- get-products ---------------------------------------------------------------------------------


def products_args(rng):
    args = {}
    put(
        args,
        rng,
        "searchTitle",
        0.6,
        lambda: rng.choice(["hoodie", "Trail Runner", "mug", "gift card"]),
    )
    put(args, rng, "limit", 0.5, lambda: rng.choice([5, 10, 20, 50]))
    return args


def products_request(args):
    variables = {"first": args.get("limit", 10)}
    if args.get("searchTitle"):
        variables["query"] = f"title:*{args['searchTitle']}*"
    return Wire(
        "POST", API, headers=dict(HEADERS), json={"query": PRODUCTS_QUERY, "variables": variables}
    )


def product(rng) -> dict:
    price = f"{rng.choice([19, 24, 49, 120])}.{rng.choice(['00', '95', '99'])}"
    return {
        "id": gid("Product", rng),
        "title": rng.choice(["Classic Hoodie", "Trail Runner 2", "Enamel Mug"]),
        "description": "Soft and warm.",
        "handle": "classic-hoodie",
        "status": "ACTIVE",
        "createdAt": "2026-09-14T08:31:12Z",
        "updatedAt": "2026-10-02T10:12:00Z",
        "totalInventory": rng.randint(0, 400),
        "priceRangeV2": {
            "minVariantPrice": {"amount": price, "currencyCode": "USD"},
            "maxVariantPrice": {"amount": price, "currencyCode": "USD"},
        },
        "images": {"edges": []},
        "variants": {
            "edges": [
                {
                    "node": {
                        "id": gid("ProductVariant", rng),
                        "title": "M",
                        "price": price,
                        "inventoryQuantity": 12,
                        "sku": "HD-M",
                    }
                }
            ]
        },
    }


def products_response(args, rng):
    edges = [{"node": product(rng)} for _ in range(rng.randint(0, 3))]
    return Answer(
        200,
        {
            "data": {"products": {"edges": edges}},
            "extensions": {"cost": {"requestedQueryCost": 42, "actualQueryCost": 12}},
        },
    )


def products_result(args, answer):
    if answer.status >= 400 or "errors" in answer.body:
        return failure("Failed to fetch products", answer)
    out = []
    for edge in answer.body["data"]["products"]["edges"]:
        p = edge["node"]
        out.append(
            {
                "id": p["id"],
                "title": p["title"],
                "description": p["description"],
                "handle": p["handle"],
                "status": p["status"],
                "createdAt": p["createdAt"],
                "updatedAt": p["updatedAt"],
                "totalInventory": p["totalInventory"],
                "priceRange": {
                    "minPrice": {
                        "amount": p["priceRangeV2"]["minVariantPrice"]["amount"],
                        "currencyCode": "USD",
                    },
                    "maxPrice": {
                        "amount": p["priceRangeV2"]["maxVariantPrice"]["amount"],
                        "currencyCode": "USD",
                    },
                },
                "imageUrl": None,
                "variants": [e["node"] for e in p["variants"]["edges"]],
            }
        )
    return mcp_text({"products": out})


GET_PRODUCTS = Tool(
    "shopify",
    "get-products",
    Source("GeLi2001/shopify-mcp", "src/tools/getProducts.ts", COMMIT),
    "Get all products or search by title",
    schema({"searchTitle": s(), "limit": n(default=10)}),
    products_args,
    products_request,
    products_response,
    [throttled, unauthorized],
    products_result,
    [
        Bug(
            "renamed_key", rename("body", "/variables/first", "limit"), "/limit", "/variables/first"
        ),
        Bug(
            "value_changed",
            edit("body", "/variables/query", lambda v: v.replace("*", "")),
            "/searchTitle",
            "/variables/query",
        ),
        Bug(
            "type_changed",
            edit("body", "/variables/first", as_string),
            "/limit",
            "/variables/first",
            single=True,
        ),
    ],
)

# --- update-customer ------------------------------------------------------------------------------


def customer_args(rng):
    args = {"id": str(rng.randint(10**12, 10**13 - 1))}
    put(args, rng, "firstName", 0.4, lambda: rng.choice(["Ann", "Bo", "Cy"]))
    put(args, rng, "lastName", 0.3, lambda: rng.choice(["Lee", "Chen", "Diaz"]))
    put(args, rng, "email", 0.4, lambda: rng.choice(["ann@example.com", "bo.chen@example.org"]))
    put(args, rng, "phone", 0.2, lambda: rng.choice(["+16135550142", "+442071838750"]))
    put(
        args,
        rng,
        "tags",
        0.4,
        lambda: rng.sample(["vip", "wholesale", "newsletter"], rng.randint(1, 2)),
    )
    put(args, rng, "note", 0.3, lambda: rng.choice(["Prefers email", "Called about order #1042"]))
    put(args, rng, "taxExempt", 0.2, lambda: rng.random() < 0.5)
    put(args, rng, "acceptsMarketing", 0.15, lambda: rng.random() < 0.5)
    if len(args) == 1:
        args["note"] = "Updated by the assistant"
    return args


def customer_request(args):
    fields = {k: v for k, v in args.items() if k not in ("id", "acceptsMarketing")}
    variables = {"input": {"id": f"gid://shopify/Customer/{args['id']}", **fields}}
    return Wire(
        "POST",
        API,
        headers=dict(HEADERS),
        json={"query": CUSTOMER_MUTATION, "variables": variables},
    )


def customer_response(args, rng):
    customer = {
        "id": f"gid://shopify/Customer/{args['id']}",
        "firstName": args.get("firstName", "Ann"),
        "lastName": args.get("lastName", "Lee"),
        "email": args.get("email", "ann@example.com"),
        "phone": args.get("phone"),
        "tags": args.get("tags", []),
        "note": args.get("note"),
        "taxExempt": args.get("taxExempt", False),
        "metafields": {"edges": []},
    }
    return Answer(200, {"data": {"customerUpdate": {"customer": customer, "userErrors": []}}})


def email_taken(args, rng):
    errors = [{"field": ["email"], "message": "Email has already been taken"}]
    return Answer(200, {"data": {"customerUpdate": {"customer": None, "userErrors": errors}}})


def customer_result(args, answer):
    body = answer.body
    if answer.status >= 400 or "errors" in body or body["data"]["customerUpdate"]["userErrors"]:
        return failure("Failed to update customer", answer)
    customer = dict(body["data"]["customerUpdate"]["customer"])
    customer["metafields"] = []
    return mcp_text({"customer": customer})


UPDATE_CUSTOMER = Tool(
    "shopify",
    "update-customer",
    Source("GeLi2001/shopify-mcp", "src/tools/updateCustomer.ts", COMMIT),
    "Update a customer's information",
    schema(
        {
            "id": s(pattern="^\\d+$"),
            "firstName": s(),
            "lastName": s(),
            "email": s(format="email"),
            "phone": s(),
            "tags": strings(),
            "note": s(),
            "acceptsMarketing": b(),
            "taxExempt": b(),
        },
        ["id"],
    ),
    customer_args,
    customer_request,
    customer_response,
    [email_taken, throttled],
    customer_result,
    [
        Bug(
            "leaked_field",
            leak("body", "/variables/input/acceptsMarketing", True),
            None,
            "/variables/input/acceptsMarketing",
        ),
        Bug(
            "wrong_id",
            edit("body", "/variables/input/id", lambda v: v.rsplit("/", 1)[1]),
            "/id",
            "/variables/input/id",
        ),
        Bug("unwrapped", unwrap("/variables/input", "email"), "/email", "/variables/input/email"),
        Bug("dropped", drop("body", "/variables/input/tags"), "/tags", "/variables/input/tags"),
    ],
)

TOOLS = [GET_PRODUCTS, UPDATE_CUSTOMER]
