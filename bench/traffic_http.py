"""Tools whose arguments travel outside a JSON body.

In the URL path, the query string, headers, form bodies and GraphQL variables.

Their mapping layers follow public code: GitHub's REST API as go-github writes it (the GitHub MCP
server: `/repos/{owner}/{repo}/issues`, `labels` comma-joined, `since` as RFC 3339, `per_page`), its
GraphQL `createIssue` mutation (`variables.input`, camelCase), the Google Maps reference MCP
server's distance matrix (`origins=a|b`, `key=`), Stripe's agent toolkit over the Stripe API (form
bodies, `amount` in cents, `metadata[k]=v`, `Idempotency-Key`), and two made-up APIs shaped as real
ones are: an invoice `pay` with its id in the path and `amount_cents`, an orders search with
`page_size`, a document update with `If-Match`.

Each tool writes (http, body) for arguments; `bug` names a planted bug, and the tool returns where
it sits (argument path, request path as findings name it) or None when the bug does not apply to
these arguments.
"""

from urllib.parse import quote, urlencode

SENT_AT = ["2026-09-01", "2026-09-14", "2026-10-02", "2026-11-20"]
# a Maps key as the docs write one (redacted at ingest)
KEY = "AIzaSyD3m0FAKEkEy0000000000000000000000"


def _fn(name, properties, required):
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": name.replace("_", " "),
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        },
    }


# An optional argument left out of the request: one call alone cannot tell it from one the layer
# consumes (issue 32, item 2), so it is no bug a single call can decide; with history it is loud.
OPTIONAL_GONE = False


def _s(**more):
    return {"type": "string", **more}


def _i(low=0, high=100):
    return {"type": "integer", "minimum": low, "maximum": high}


LIST = {"type": "array", "items": {"type": "string"}}


class Http:
    """One tool: its definition (the contract users have).

    How its arguments are made and sent."""

    def __init__(self, name, properties, required, make, send, places, bugs, mapping=()):
        self.definition, self.make, self.send = _fn(name, properties, required), make, send
        self.name, self.places, self.bugs, self.mapping = name, places, bugs, list(mapping)


def _query(params: dict) -> str:
    return urlencode(
        {k: v for k, v in params.items() if v is not None}, quote_via=quote, safe=",|:"
    )


# --- GitHub REST: list issues (GET, path + query) -------------------------------------------------

REPOS = [
    ("acme", "web"),
    ("acme", "api"),
    ("octo-org", "octo-repo"),
    ("kubernetes", "kubernetes"),
    ("psf", "black"),
]
LABELS = ["bug", "ui", "p1", "docs", "good first issue", "regression"]


def list_issues_args(rng):
    owner, repo = rng.choice(REPOS)
    args = {"owner": owner, "repo": repo}
    for key, make, share in (
        ("state", lambda: rng.choice(["open", "closed", "all"]), 0.8),
        ("labels", lambda: rng.sample(LABELS, rng.randint(1, 3)), 0.5),
        ("sort", lambda: rng.choice(["created", "updated", "comments"]), 0.4),
        ("direction", lambda: rng.choice(["asc", "desc"]), 0.3),
        ("since", lambda: rng.choice(SENT_AT), 0.3),
        ("per_page", lambda: rng.choice([10, 30, 50, 100]), 0.7),
        ("page", lambda: rng.randint(1, 5), 0.4),
    ):
        if rng.random() < share:
            args[key] = make()
    return args


def list_issues_send(args, bug=None, rng=None):
    owner, repo = args["owner"], args["repo"]
    query = {
        "state": args.get("state"),
        "labels": ",".join(args["labels"]) if "labels" in args else None,
        "sort": args.get("sort"),
        "direction": args.get("direction"),
        "since": f"{args['since']}T00:00:00Z" if "since" in args else None,
        "per_page": args.get("per_page"),
        "page": args.get("page"),
    }
    place = None
    if bug == "query_dropped":
        key = next(
            (k for k in ("state", "sort", "direction", "page") if query.get(k) is not None), None
        )
        if key is None:
            return None
        query[key], place = None, (f"/{key}", f"query:/{key}")
    elif bug == "query_renamed":
        if query.get("per_page") is None:
            return None
        query["perPage"], query["per_page"], place = (
            query["per_page"],
            None,
            ("/per_page", "query:/per_page"),
        )
    elif bug == "list_joined_wrongly":
        if len(args.get("labels", [])) < 2:
            return None
        query["labels"], place = ";".join(args["labels"]), ("/labels", "query:/labels")
    elif bug == "wrong_path_id":
        repo, place = repo + "-legacy", ("/repo", "path:/repo")
    url = f"https://api.github.com/repos/{quote(owner)}/{quote(repo)}/issues?{_query(query)}"
    http = {
        "method": "GET",
        "url": url.rstrip("?"),
        "headers": {
            "Accept": "application/vnd.github+json",
            "Authorization": "Bearer [REDACTED]",
            "X-GitHub-Api-Version": "2022-11-28",
        },
    }
    return http, None, place


LIST_ISSUES = Http(
    "github_list_issues",
    {
        "owner": _s(),
        "repo": _s(),
        "state": _s(enum=["open", "closed", "all"]),
        "labels": LIST,
        "sort": _s(enum=["created", "updated", "comments"]),
        "direction": _s(enum=["asc", "desc"]),
        "since": _s(format="date"),
        "per_page": _i(1, 100),
        "page": _i(1),
    },
    ["owner", "repo"],
    list_issues_args,
    list_issues_send,
    {
        "/owner": "path",
        "/repo": "path",
        "/state": "query",
        "/labels": "query",
        "/sort": "query",
        "/direction": "query",
        "/since": "query",
        "/per_page": "query",
        "/page": "query",
    },
    [
        ("query_dropped", OPTIONAL_GONE),
        ("query_renamed", False),
        ("list_joined_wrongly", False),
        ("wrong_path_id", True),
    ],
)


# --- GitHub REST: create an issue (POST, path + JSON body) ----------------------------------------

TITLES = [
    "Crash on start",
    "Login loops forever",
    "Typo in README",
    "Dark mode contrast",
    "Flaky CI on arm64",
]
BODIES = [
    "Steps: open the app.",
    "Seen since 2.4.1.",
    "See the log below.",
    "Only on Safari.",
    "Happens 1 in 5.",
]


def create_issue_args(rng):
    owner, repo = rng.choice(REPOS)
    args = {
        "owner": owner,
        "repo": repo,
        "title": f"{rng.choice(TITLES)} ({rng.randint(1, 999)})",
        "body": rng.choice(BODIES),
    }
    if rng.random() < 0.5:
        args["labels"] = rng.sample(LABELS, rng.randint(1, 2))
    if rng.random() < 0.3:
        args["assignees"] = rng.sample(["octocat", "hubot", "monalisa"], 1)
    return args


def create_issue_send(args, bug=None, rng=None):
    owner, repo = args["owner"], args["repo"]
    body = {k: args[k] for k in ("title", "body", "labels", "assignees") if k in args}
    place = None
    if bug == "wrong_path_id":
        owner, place = "acme-archive", ("/owner", "path:/owner")
    elif bug == "swapped_values":
        body["title"], body["body"], place = args["body"], args["title"], ("/title", "/title")
    elif bug == "body_dropped":
        key = "labels" if "labels" in body else "body"
        del body[key]
        place = (f"/{key}", f"/{key}")
    http = {
        "method": "POST",
        "url": f"https://api.github.com/repos/{quote(owner)}/{quote(repo)}/issues",
        "headers": {"Content-Type": "application/json", "Accept": "application/vnd.github+json"},
    }
    return http, body, place


CREATE_ISSUE = Http(
    "github_create_issue",
    {"owner": _s(), "repo": _s(), "title": _s(), "body": _s(), "labels": LIST, "assignees": LIST},
    ["owner", "repo", "title"],
    create_issue_args,
    create_issue_send,
    {
        "/owner": "path",
        "/repo": "path",
        "/title": "body",
        "/body": "body",
        "/labels": "body",
        "/assignees": "body",
    },
    [("wrong_path_id", True), ("swapped_values", True), ("body_dropped", OPTIONAL_GONE)],
)


# --- Google Maps distance matrix (GET, query, pipe-joined lists, key=) ----------------------------

PLACES = [
    "Paris",
    "Lyon",
    "Marseille",
    "Nice",
    "Toulouse",
    "Boston",
    "New York",
    "Chicago",
    "Denver",
]


def distance_args(rng):
    args = {
        "origins": rng.sample(PLACES, rng.randint(1, 3)),
        "destinations": rng.sample(PLACES, rng.randint(1, 3)),
    }
    if rng.random() < 0.6:
        args["mode"] = rng.choice(["driving", "walking", "bicycling", "transit"])
    return args


def distance_send(args, bug=None, rng=None):
    query = {
        "origins": "|".join(args["origins"]),
        "destinations": "|".join(args["destinations"]),
        "mode": args.get("mode"),
        "key": KEY,
    }
    place = None
    if bug == "list_joined_wrongly":
        if len(args["origins"]) < 2:
            return None
        query["origins"], place = ",".join(args["origins"]), ("/origins", "query:/origins")
    elif bug == "query_dropped":
        if "mode" not in args:
            return None
        query["mode"], place = None, ("/mode", "query:/mode")
    elif bug == "query_renamed":
        query["destination"], query["destinations"] = query.pop("destinations"), None
        place = ("/destinations", "query:/destinations")
    url = f"https://maps.googleapis.com/maps/api/distancematrix/json?{_query(query)}"
    return {"method": "GET", "url": url, "headers": {}}, None, place


DISTANCE = Http(
    "maps_distance_matrix",
    {
        "origins": LIST,
        "destinations": LIST,
        "mode": _s(enum=["driving", "walking", "bicycling", "transit"]),
    },
    ["origins", "destinations"],
    distance_args,
    distance_send,
    {"/origins": "query", "/destinations": "query", "/mode": "query"},
    [("list_joined_wrongly", False), ("query_dropped", OPTIONAL_GONE), ("query_renamed", False)],
)


# --- Stripe: create a PaymentIntent (POST, form body, cents, metadata[], Idempotency-Key) ---------


def payment_args(rng):
    args = {
        "amount": rng.choice([5, 12.5, 19.99, 49, 120.75, 250, 9.95]),
        "currency": rng.choice(["usd", "eur"]),
        "customer": f"cus_{rng.randint(10**9, 10**10):x}",
        "order_id": f"ord_{rng.randint(1000, 9999)}",
        "idempotency_key": f"{rng.getrandbits(64):016x}",
    }
    if rng.random() < 0.5:
        args["description"] = rng.choice(["Order from the assistant", "Monthly plan", "Gift card"])
    if rng.random() < 0.3:
        args["receipt_email"] = rng.choice(["ann@example.com", "bo@example.org"])
    return args


def payment_send(args, bug=None, rng=None):
    form = {
        "amount": str(round(args["amount"] * 100)),
        "currency": args["currency"],
        "customer": args["customer"],
        "description": args.get("description"),
        "receipt_email": args.get("receipt_email"),
        "metadata[order_id]": args["order_id"],
        "automatic_payment_methods[enabled]": "true",
    }
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "Authorization": "Bearer [REDACTED]",
        "Idempotency-Key": args["idempotency_key"],
        "Stripe-Version": "2024-06-20",
    }
    place = None
    if bug == "forgotten_x100":
        if args["amount"] * 100 == args["amount"]:
            return None
        form["amount"], place = f"{args['amount']:g}", ("/amount", "form:/amount")
    elif bug == "form_dropped":
        form["metadata[order_id]"], place = None, ("/order_id", "form:/metadata/order_id")
    elif bug == "header_dropped":
        del headers["Idempotency-Key"]
        place = ("/idempotency_key", "header:/idempotency-key")
    elif bug == "header_wrong":
        headers["Idempotency-Key"], place = (
            args["order_id"],
            ("/idempotency_key", "header:/idempotency-key"),
        )
    body = urlencode({k: v for k, v in form.items() if v is not None})
    return (
        {"method": "POST", "url": "https://api.stripe.com/v1/payment_intents", "headers": headers},
        body,
        place,
    )


PAYMENT = Http(
    "stripe_create_payment_intent",
    {
        "amount": {"type": "number", "description": "Amount in dollars"},
        "currency": _s(),
        "customer": _s(),
        "order_id": _s(),
        "idempotency_key": _s(),
        "description": _s(),
        "receipt_email": _s(format="email"),
    },
    ["amount", "currency", "order_id", "idempotency_key"],
    payment_args,
    payment_send,
    {
        "/amount": "form",
        "/currency": "form",
        "/customer": "form",
        "/description": "form",
        "/receipt_email": "form",
        "/order_id": "form",
        "/idempotency_key": "header",
    },
    [
        ("forgotten_x100", True),
        ("form_dropped", True),
        ("header_dropped", True),
        ("header_wrong", True),
    ],
    mapping=[{"arguments": "/amount", "request": "form:/amount", "transform": "x100"}],
)


# --- GitHub GraphQL: createIssue (POST, variables) ------------------------------------------------

MUTATION = (
    "mutation CreateIssue($input: CreateIssueInput!) { createIssue(input: $input) { issue { number "
    "url } } }"
)


def graphql_args(rng):
    args = {
        "repository_id": f"R_kgDO{rng.randint(10**5, 10**6)}",
        "title": f"{rng.choice(TITLES)} #{rng.randint(1, 99)}",
        "body": rng.choice(BODIES),
    }
    if rng.random() < 0.5:
        args["label_ids"] = [f"LA_kwDO{rng.randint(100, 999)}" for _ in range(rng.randint(1, 2))]
    if rng.random() < 0.3:
        args["milestone_id"] = f"MI_kwDO{rng.randint(10, 99)}"
    return args


def graphql_send(args, bug=None, rng=None):
    variables = {
        "repositoryId": args["repository_id"],
        "title": args["title"],
        "body": args["body"],
    }
    for key, name in (("label_ids", "labelIds"), ("milestone_id", "milestoneId")):
        if key in args:
            variables[name] = args[key]
    place = None
    if bug == "swapped_values":
        variables["title"], variables["body"], place = (
            args["body"],
            args["title"],
            ("/title", "/variables/input/title"),
        )
    elif bug == "graphql_dropped":
        key, name = ("label_ids", "labelIds") if "label_ids" in args else ("body", "body")
        del variables[name]
        place = (f"/{key}", f"/variables/input/{name}")
    body = {"query": MUTATION, "variables": {"input": variables}}
    return (
        {
            "method": "POST",
            "url": "https://api.github.com/graphql",
            "headers": {"Content-Type": "application/json"},
        },
        body,
        place,
    )


GRAPHQL = Http(
    "github_graphql_create_issue",
    {"repository_id": _s(), "title": _s(), "body": _s(), "label_ids": LIST, "milestone_id": _s()},
    ["repository_id", "title"],
    graphql_args,
    graphql_send,
    {
        "/repository_id": "graphql",
        "/title": "graphql",
        "/body": "graphql",
        "/label_ids": "graphql",
        "/milestone_id": "graphql",
    },
    [("swapped_values", True), ("graphql_dropped", OPTIONAL_GONE)],
)


# --- An invoice marked paid (POST, the id in the path, dollars -> amount_cents) -------------------


def invoice_args(rng):
    args = {
        "invoiceId": f"inv_{rng.getrandbits(24):06x}",
        "paidAt": f"{rng.choice(SENT_AT)}T{rng.randint(8, 18):02d}:00:00Z",
        "amount": rng.choice([12.5, 99, 240.1, 15, 1200]),
    }
    if rng.random() < 0.5:
        args["method"] = rng.choice(["card", "transfer", "cash"])
    return args


def invoice_send(args, bug=None, rng=None):
    invoice = args["invoiceId"]
    body = {"paid_at": args["paidAt"], "amount_cents": round(args["amount"] * 100)}
    if "method" in args:
        body["payment_method"] = args["method"]
    place = None
    if bug == "wrong_path_id":
        invoice, place = (
            "inv_" + f"{(int(invoice[4:], 16) + 1) % (1 << 24):06x}",
            ("/invoiceId", "path:/invoiceId"),
        )
    elif bug == "forgotten_x100":
        body["amount_cents"], place = args["amount"], ("/amount", "/amount_cents")
    return (
        {
            "method": "POST",
            "url": f"https://billing.example.com/v1/invoices/{invoice}/pay",
            "headers": {"Content-Type": "application/json"},
        },
        body,
        place,
    )


INVOICE = Http(
    "markInvoicePaid",
    {
        "invoiceId": _s(),
        "paidAt": _s(format="date-time"),
        "amount": {"type": "number"},
        "method": _s(enum=["card", "transfer", "cash"]),
    },
    ["invoiceId", "paidAt", "amount"],
    invoice_args,
    invoice_send,
    {"/invoiceId": "path", "/paidAt": "body", "/amount": "body", "/method": "body"},
    [("wrong_path_id", True), ("forgotten_x100", True)],
)


# --- Orders search (GET, query, renamed keys) -----------------------------------------------------


def orders_args(rng):
    args = {"email": rng.choice(["ann@example.com", "bo@example.org", "cy@example.net"])}
    if rng.random() < 0.7:
        args["status"] = rng.choice(["paid", "refunded", "pending"])
    if rng.random() < 0.7:
        args["limit"] = rng.choice([5, 10, 20])
    return args


def orders_send(args, bug=None, rng=None):
    query = {
        "customer_email": args["email"],
        "status": args.get("status"),
        "page_size": args.get("limit"),
    }
    place = None
    if bug == "query_dropped":
        if "status" not in args:
            return None
        query["status"], place = None, ("/status", "query:/status")
    elif bug == "query_renamed":
        if "limit" not in args:
            return None
        query["pagesize"], query["page_size"], place = (
            query["page_size"],
            None,
            ("/limit", "query:/page_size"),
        )
    elif bug == "query_off_by_one":
        if "limit" not in args:
            return None
        query["page_size"], place = args["limit"] + 1, ("/limit", "query:/page_size")
    return (
        {
            "method": "GET",
            "url": f"https://shop.example.com/api/orders?{_query(query)}",
            "headers": {},
        },
        None,
        place,
    )


ORDERS = Http(
    "findOrders",
    {
        "email": _s(format="email"),
        "status": _s(enum=["paid", "refunded", "pending"]),
        "limit": _i(1, 50),
    },
    ["email"],
    orders_args,
    orders_send,
    {"/email": "query", "/status": "query", "/limit": "query"},
    [("query_dropped", OPTIONAL_GONE), ("query_renamed", False), ("query_off_by_one", False)],
)


# --- A document update (PUT, the id in the path, If-Match and X-Request-Id headers, JSON body) ----


def document_args(rng):
    return {
        "doc_id": f"doc_{rng.randint(100, 999)}",
        "etag": f'W/"{rng.getrandbits(32):08x}"',
        "title": rng.choice(["Q3 plan", "Onboarding", "Runbook"]),
        "content": rng.choice(BODIES),
        "request_id": f"req_{rng.getrandbits(40):010x}",
    }


def document_send(args, bug=None, rng=None):
    headers = {
        "Content-Type": "application/json",
        "If-Match": args["etag"],
        "X-Request-Id": args["request_id"],
    }
    body = {"title": args["title"], "content": args["content"]}
    doc, place = args["doc_id"], None
    if bug == "header_dropped":
        del headers["If-Match"]
        place = ("/etag", "header:/if-match")
    elif bug == "header_wrong":
        headers["X-Request-Id"], place = "req_0000000000", ("/request_id", "header:/x-request-id")
    elif bug == "wrong_path_id":
        doc, place = f"doc_{int(doc[4:]) + 1}", ("/doc_id", "path:/doc_id")
    return (
        {
            "method": "PUT",
            "url": f"https://docs.example.com/v2/documents/{doc}",
            "headers": headers,
        },
        body,
        place,
    )


DOCUMENT = Http(
    "update_document",
    {"doc_id": _s(), "etag": _s(), "title": _s(), "content": _s(), "request_id": _s()},
    ["doc_id", "etag", "title", "content"],
    document_args,
    document_send,
    {
        "/doc_id": "path",
        "/etag": "header",
        "/request_id": "header",
        "/title": "body",
        "/content": "body",
    },
    [("header_dropped", True), ("header_wrong", True), ("wrong_path_id", True)],
)

HTTP_TOOLS = [LIST_ISSUES, CREATE_ISSUE, DISTANCE, PAYMENT, GRAPHQL, INVOICE, ORDERS, DOCUMENT]
LOCATIONS = ("path", "query", "header", "form", "graphql", "body")
