"""Stripe, as Stripe's agent toolkit calls the API through stripe-node.

Form bodies, `a[0][b]` nesting.

Read: stripe/agent-toolkit
tools/typescript/src/shared/{prices/createPrice,paymentLinks/createPaymentLink,
refunds/createRefund,customers/listCustomers}.ts, shared/api.ts and modelcontextprotocol/toolkit.ts
at 57599dd. stripe-node form-encodes POST bodies (nested keys as `line_items[0][price]`), puts a
GET's parameters in the query, and adds its own `Idempotency-Key` to POSTs it may retry. Stripe's
errors are `{"error": {"type", "code", "message", "param", "doc_url", "request_log_url"}}`. The
toolkit hands back `JSON.stringify` of a trimmed object, and on any failure the text "Failed to ..."
(no `isError`).
"""

import collections
import hashlib

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
    n,
    plus_one,
    put,
    rename,
    s,
    schema,
    text_of,
    upper,
)

COMMIT = "57599ddf4e666528da7cc1abbfc1a96ea02610f7"
API = "https://api.stripe.com/v1"
SHARED = "tools/typescript/src/shared"


def headers(rng=None, post: bool = True) -> dict:
    out = {
        "Authorization": "Bearer [REDACTED]",
        "Stripe-Version": "2025-02-24.acacia",
        "User-Agent": "Stripe/v1 NodeBindings/17.7.0",
    }
    if post:
        out["Content-Type"] = "application/x-www-form-urlencoded"
    return out


def retry_key(args) -> str:
    """stripe-node's own idempotency key for a POST (a UUID it draws; fixed per arguments here)."""
    digest = hashlib.sha256(repr(sorted(args.items())).encode()).hexdigest()
    return f"stripe-node-retry-{digest[:8]}-{digest[8:12]}-4{digest[13:16]}-a{digest[17:20]}-{digest[20:32]}"


def stripe_error(status: int, kind: str, code: str, message: str, param: str | None = None):
    def answer(args, rng):
        error = {
            "code": code,
            "doc_url": f"https://stripe.com/docs/error-codes/{code.replace('_', '-')}",
            "message": message.format_map(collections.defaultdict(str, args)),
            "request_log_url": f"https://dashboard.stripe.com/test/logs/req_{rng.getrandbits(56):014x}?t=1727000000",
            "type": kind,
        }
        if param:
            error["param"] = param
        return Answer(status, {"error": error}, {"Request-Id": f"req_{rng.getrandbits(56):014x}"})

    return answer


RATE_LIMIT = stripe_error(
    429,
    "invalid_request_error",
    "rate_limit",
    "Request rate limit exceeded. Learn more about rate limits here.",
)


def returns(trim, failure: str):
    def result(args, answer):
        if answer.status >= 400:
            # String(JSON.stringify("Failed to ...")): the quoted text
            return mcp_text(failure)
        return mcp_text(trim(answer.body))

    return result


def ident(rng, prefix: str) -> str:
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    return prefix + "1Q" + "".join(rng.choice(alphabet) for _ in range(22))


# --- create_price (POST /v1/prices) ---------------------------------------------------------------


def price_args(rng):
    return {
        "product": ident(rng, "prod_"),
        "unit_amount": rng.choice([500, 999, 1500, 2000, 4900, 12000, 0]),
        "currency": rng.choice(["usd", "eur", "gbp", "usd"]),
    }


def price_request(args):
    form = [(k, text_of(args[k])) for k in ("product", "unit_amount", "currency")]
    return Wire(
        "POST",
        f"{API}/prices",
        headers={**headers(), "Idempotency-Key": retry_key(args)},
        form=form,
    )


def price_response(args, rng):
    return Answer(
        200,
        {
            "id": ident(rng, "price_"),
            "object": "price",
            "active": True,
            "billing_scheme": "per_unit",
            "created": rng.randint(1_727_000_000, 1_760_000_000),
            "currency": args["currency"],
            "custom_unit_amount": None,
            "livemode": False,
            "lookup_key": None,
            "metadata": {},
            "nickname": None,
            "product": args["product"],
            "recurring": None,
            "tax_behavior": "unspecified",
            "tiers_mode": None,
            "transform_quantity": None,
            "type": "one_time",
            "unit_amount": args["unit_amount"],
            "unit_amount_decimal": str(args["unit_amount"]),
        },
    )


CREATE_PRICE = Tool(
    "stripe",
    "create_price",
    Source("stripe/agent-toolkit", f"{SHARED}/prices/createPrice.ts", COMMIT),
    "This tool will create a price in Stripe.",
    schema(
        {
            "product": s("The ID of the product to create the price for."),
            "unit_amount": n("The unit amount of the price in cents.", "integer"),
            "currency": s("The currency of the price."),
        },
        ["product", "unit_amount", "currency"],
    ),
    price_args,
    price_request,
    price_response,
    [
        stripe_error(
            400,
            "invalid_request_error",
            "resource_missing",
            "No such product: '{product}'",
            "product",
        ),
        stripe_error(
            400,
            "invalid_request_error",
            "parameter_invalid_integer",
            "Invalid integer: abc",
            "unit_amount",
        ),
        RATE_LIMIT,
    ],
    returns(lambda body: body, "Failed to create price"),
    [
        Bug(
            "scaled",
            edit("form", "unit_amount", lambda v: text_of(int(v) / 100) if int(v) else None),
            "/unit_amount",
            "form:/unit_amount",
            single=True,
        ),
        Bug("enum_case", edit("form", "currency", upper), "/currency", "form:/currency"),
        Bug(
            "renamed_key",
            rename("form", "unit_amount", "amount"),
            "/unit_amount",
            "form:/unit_amount",
        ),
        Bug("error_fields_lost", lose("/error/message"), response="/error/message", error=True),
    ],
)

# --- create_payment_link (POST /v1/payment_links; line_items[0][...], after_completion[...]) ------


def link_args(rng):
    args = {"price": ident(rng, "price_"), "quantity": rng.choice([1, 1, 2, 3, 10])}
    put(
        args,
        rng,
        "redirect_url",
        0.4,
        lambda: rng.choice(["https://example.com/thanks", "https://shop.acme.io/done"]),
    )
    return args


def link_request(args):
    form = [
        ("line_items[0][price]", args["price"]),
        ("line_items[0][quantity]", text_of(args["quantity"])),
    ]
    if args.get("redirect_url"):
        form += [
            ("after_completion[type]", "redirect"),
            ("after_completion[redirect][url]", args["redirect_url"]),
        ]
    return Wire(
        "POST",
        f"{API}/payment_links",
        headers={**headers(), "Idempotency-Key": retry_key(args)},
        form=form,
    )


def link_response(args, rng):
    after = {"type": "hosted_confirmation", "hosted_confirmation": {"custom_message": None}}
    if args.get("redirect_url"):
        after = {"type": "redirect", "redirect": {"url": args["redirect_url"]}}
    return Answer(
        200,
        {
            "id": ident(rng, "plink_"),
            "object": "payment_link",
            "active": True,
            "after_completion": after,
            "allow_promotion_codes": False,
            "currency": "usd",
            "livemode": False,
            "metadata": {},
            "url": f"https://buy.stripe.com/test_{rng.getrandbits(60):015x}",
        },
    )


CREATE_LINK = Tool(
    "stripe",
    "create_payment_link",
    Source("stripe/agent-toolkit", f"{SHARED}/paymentLinks/createPaymentLink.ts", COMMIT),
    "This tool will create a payment link in Stripe.",
    schema(
        {
            "price": s("The ID of the price to create the payment link for."),
            "quantity": n("The quantity of the product to include.", "integer"),
            "redirect_url": s("The URL to redirect to after the payment is completed."),
        },
        ["price", "quantity"],
    ),
    link_args,
    link_request,
    link_response,
    [
        stripe_error(
            400,
            "invalid_request_error",
            "resource_missing",
            "No such price: '{price}'",
            "line_items[0][price]",
        ),
        RATE_LIMIT,
    ],
    returns(lambda body: {"id": body["id"], "url": body["url"]}, "Failed to create payment link"),
    [
        Bug(
            "value_changed",
            edit("form", "line_items[0][quantity]", plus_one),
            "/quantity",
            "form:/line_items/0/quantity",
            single=True,
        ),
        Bug(
            "moved",
            rename("form", "line_items[0][price]", "price"),
            "/price",
            "form:/line_items/0/price",
        ),
        Bug(
            "dropped",
            drop("form", "after_completion[redirect][url]"),
            "/redirect_url",
            "form:/after_completion/redirect/url",
        ),
    ],
)

# --- create_refund (POST /v1/refunds) -------------------------------------------------------------


def refund_args(rng):
    args = {"payment_intent": ident(rng, "pi_")}
    put(args, rng, "amount", 0.5, lambda: rng.choice([500, 1250, 1999, 10000]))
    return args


def refund_request(args):
    form = [(k, text_of(args[k])) for k in ("payment_intent", "amount") if k in args]
    return Wire(
        "POST",
        f"{API}/refunds",
        headers={**headers(), "Idempotency-Key": retry_key(args)},
        form=form,
    )


def refund_response(args, rng):
    return Answer(
        200,
        {
            "id": ident(rng, "re_"),
            "object": "refund",
            "amount": args.get("amount", rng.choice([2000, 4900])),
            "balance_transaction": ident(rng, "txn_"),
            "charge": ident(rng, "ch_"),
            "created": rng.randint(1_727_000_000, 1_760_000_000),
            "currency": "usd",
            "metadata": {},
            "payment_intent": args["payment_intent"],
            "reason": None,
            "receipt_number": None,
            "source_transfer_reversal": None,
            "status": rng.choice(["succeeded", "pending"]),
            "transfer_reversal": None,
        },
    )


CREATE_REFUND = Tool(
    "stripe",
    "create_refund",
    Source("stripe/agent-toolkit", f"{SHARED}/refunds/createRefund.ts", COMMIT),
    "This tool will refund a payment intent in Stripe.",
    schema(
        {
            "payment_intent": s("The ID of the PaymentIntent to refund."),
            "amount": n("The amount to refund in cents.", "integer"),
        },
        ["payment_intent"],
    ),
    refund_args,
    refund_request,
    refund_response,
    [
        stripe_error(
            400,
            "invalid_request_error",
            "charge_already_refunded",
            "Charge ch_1Q has already been refunded.",
        ),
        stripe_error(
            404,
            "invalid_request_error",
            "resource_missing",
            "No such payment_intent: '{payment_intent}'",
            "payment_intent",
        ),
        RATE_LIMIT,
    ],
    returns(
        lambda body: {"id": body["id"], "status": body["status"], "amount": body["amount"]},
        "Failed to create refund",
    ),
    [
        Bug(
            "scaled",
            edit("form", "amount", lambda v: text_of(int(v) * 100)),
            "/amount",
            "form:/amount",
            single=True,
        ),
        Bug("dropped", drop("form", "amount"), "/amount", "form:/amount"),
        Bug(
            "leaked_field",
            leak("form", "metadata[mcp_session]", "sess_7f3a"),
            None,
            "form:/metadata/mcp_session",
        ),
    ],
)

# --- list_customers (GET /v1/customers?limit=&email=) ---------------------------------------------


def customers_args(rng):
    args = {}
    put(args, rng, "limit", 0.6, lambda: rng.choice([3, 10, 25, 100]))
    put(
        args,
        rng,
        "email",
        0.5,
        lambda: rng.choice(["ann@example.com", "bo@example.org", "jenny.rosen@example.com"]),
    )
    return args


def customers_request(args):
    query = [(k, text_of(args[k])) for k in ("limit", "email") if k in args]
    return Wire("GET", f"{API}/customers", query, headers(post=False))


def customers_response(args, rng):
    data = [
        {
            "id": ident(rng, "cus_"),
            "object": "customer",
            "created": rng.randint(1_600_000_000, 1_760_000_000),
            "email": args.get("email", "someone@example.com"),
            "name": rng.choice(["Ann Lee", "Bo Chen", None]),
            "livemode": False,
            "metadata": {},
        }
        for _ in range(rng.randint(0, min(args.get("limit", 10), 3)))
    ]
    return Answer(200, {"object": "list", "data": data, "has_more": False, "url": "/v1/customers"})


LIST_CUSTOMERS = Tool(
    "stripe",
    "list_customers",
    Source("stripe/agent-toolkit", f"{SHARED}/customers/listCustomers.ts", COMMIT),
    "This tool will fetch a list of Customers from Stripe.",
    schema(
        {
            "limit": n(
                "A limit on the number of objects to be returned.",
                "integer",
                minimum=1,
                maximum=100,
            ),
            "email": s("A case-sensitive filter on the list based on the customer's email field."),
        }
    ),
    customers_args,
    customers_request,
    customers_response,
    [
        stripe_error(
            400,
            "invalid_request_error",
            "parameter_invalid_integer",
            "Invalid integer: {limit}",
            "limit",
        ),
        RATE_LIMIT,
    ],
    returns(lambda body: [{"id": c["id"]} for c in body["data"]], "Failed to list customers"),
    [
        Bug(
            "value_changed",
            edit("query", "email", lambda v: v.lower().replace("ann", "anne")),
            "/email",
            "query:/email",
            single=True,
        ),
        Bug("renamed_key", rename("query", "limit", "page_size"), "/limit", "query:/limit"),
        Bug("error_fields_lost", lose("/error/code"), response="/error/code", error=True),
    ],
)

TOOLS = [CREATE_PRICE, CREATE_LINK, CREATE_REFUND, LIST_CUSTOMERS]
