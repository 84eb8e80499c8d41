"""Linear, as jerhadf/linear-mcp-server calls Linear's GraphQL API.

Through @linear/sdk.

Read: jerhadf/linear-mcp-server index.ts at d897970 (createIssue, searchIssues, buildSearchFilter,
the tool handlers and their catch). `linear_create_issue` sends `issueCreate(input:)` with `status`
as `stateId`; `linear_search_issues` turns its arguments into an `IssueFilter` (`teamId` ->
`filter.team.id.eq`, `query` -> `filter.or[title|description contains]`, `labels` ->
`labels.some.name.in`) and `limit` into `first`. Linear answers GraphQL errors as `{"errors":
[{"message", "extensions": {"code", "userPresentableMessage"}}]}` (400 for bad input or auth, 429
for the rate limit). A success is handed back as prose; a failure as an `isError` text with the
server's request metrics.
"""

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
    n,
    put,
    rename,
    s,
    schema,
    strings,
    unwrap,
)

SOURCE = Source("jerhadf/linear-mcp-server", "index.ts", "d8979707e71051e3c7583bc66ef78fb425107fdc")
API = "https://api.linear.app/graphql"
HEADERS = {
    "Authorization": "lin_api_[REDACTED]",
    "Content-Type": "application/json",
    "User-Agent": "@linear/sdk@2.6.0",
}
CREATE = (
    "mutation issueCreate($input: IssueCreateInput!) { issueCreate(input: $input) { issue { id } "
    "lastSyncId success } }"
)
SEARCH = (
    "query issues($after: String, $before: String, $filter: IssueFilter, $first: Int, "
    "$includeArchived: Boolean, "
    "$last: Int, $orderBy: PaginationOrderBy) { issues(after: $after, before: $before, filter: "
    "$filter, first: $first, "
    "includeArchived: $includeArchived, last: $last, orderBy: $orderBy) { ...IssueConnection } }"
)
TITLES = [
    "Checkout button misaligned on iPad",
    "Add SSO for Okta",
    "Sync fails after 10k rows",
    "Typo on pricing page",
]


def uuid(rng) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def graphql_error(status: int, code: str, message: str):
    def answer(args, rng):
        error = {
            "message": message,
            "extensions": {
                "code": code,
                "type": "invalid input" if status == 400 else "ratelimited",
                "userError": True,
                "userPresentableMessage": message,
            },
        }
        return Answer(status, {"errors": [error], "data": None})

    return answer


ERRORS = [
    graphql_error(400, "INPUT_ERROR", "Entity not found: Team - Could not find referenced Team."),
    graphql_error(400, "AUTHENTICATION_ERROR", "Authentication required, not authenticated"),
    graphql_error(429, "RATELIMITED", "Rate limit exceeded for the requested resource"),
]
METRICS = {
    "apiMetrics": {
        "requestsInLastHour": 3,
        "remainingRequests": 997,
        "averageRequestTime": "212ms",
        "queueLength": 0,
    }
}


def failed_or(prose):
    def result(args, answer):
        if answer.status >= 400 or answer.body.get("errors"):
            return {
                "content": [
                    {"type": "text", "text": f"Error: {answer.body['errors'][0]['message']}"}
                ],
                "metadata": METRICS,
                "isError": True,
            }
        return {
            "content": [{"type": "text", "text": prose(args, answer.body), "metadata": METRICS}]
        }

    return result


# --- linear_create_issue --------------------------------------------------------------------------


def create_args(rng):
    args = {"title": rng.choice(TITLES), "teamId": uuid(rng)}
    put(
        args,
        rng,
        "description",
        0.6,
        lambda: rng.choice(["Repro: open /checkout on iPad Air.", "Customer: Acme", "See Sentry"]),
    )
    put(args, rng, "priority", 0.5, lambda: rng.choice([0, 1, 2, 3, 4]))
    put(args, rng, "status", 0.3, lambda: uuid(rng))
    return args


def create_request(args):
    names = {
        "title": "title",
        "teamId": "teamId",
        "description": "description",
        "priority": "priority",
        "status": "stateId",
    }
    payload = {names[k]: args[k] for k in names if k in args}
    return Wire(
        "POST", API, headers=dict(HEADERS), json={"query": CREATE, "variables": {"input": payload}}
    )


def create_response(args, rng):
    return Answer(
        200,
        {
            "data": {
                "issueCreate": {
                    "issue": {"id": uuid(rng)},
                    "lastSyncId": rng.randint(10**6, 10**9),
                    "success": True,
                }
            }
        },
    )


CREATE_ISSUE = Tool(
    "linear",
    "linear_create_issue",
    SOURCE,
    "Creates a new Linear issue with specified details.",
    schema(
        {
            "title": s("Issue title"),
            "teamId": s("Team ID"),
            "description": s("Issue description"),
            "priority": n("Priority (0-4)"),
            "status": s("Issue status"),
        },
        ["title", "teamId"],
    ),
    create_args,
    create_request,
    create_response,
    ERRORS,
    failed_or(
        lambda args, body: (
            f"Created issue ENG-{len(args['title']) * 37}: {args['title']}\n"
            f"URL: https://linear.app/acme/issue/ENG-{len(args['title']) * 37}"
        )
    ),
    [
        Bug(
            "type_changed",
            edit("body", "/variables/input/priority", as_string),
            "/priority",
            "/variables/input/priority",
            single=True,
        ),
        Bug(
            "renamed_key",
            rename("body", "/variables/input/teamId", "team"),
            "/teamId",
            "/variables/input/teamId",
        ),
        Bug("unwrapped", unwrap("/variables/input", "title"), "/title", "/variables/input/title"),
        Bug(
            "leaked_field",
            leak("body", "/variables/input/status", "Todo"),
            None,
            "/variables/input/status",
        ),
    ],
)

# --- linear_search_issues -------------------------------------------------------------------------


def search_args(rng):
    args = {}
    put(args, rng, "query", 0.6, lambda: rng.choice(["checkout", "SSO", "sync", "pricing"]))
    put(args, rng, "teamId", 0.4, lambda: uuid(rng))
    put(args, rng, "status", 0.3, lambda: rng.choice(["In Progress", "Done", "Todo", "Backlog"]))
    put(
        args,
        rng,
        "labels",
        0.2,
        lambda: rng.sample(["Bug", "Feature", "Customer"], rng.randint(1, 2)),
    )
    put(args, rng, "priority", 0.2, lambda: rng.choice([1, 2, 3, 4]))
    put(args, rng, "limit", 0.4, lambda: rng.choice([5, 10, 25, 50]))
    put(args, rng, "includeArchived", 0.2, lambda: rng.random() < 0.5)
    return args


def search_request(args):
    filter_ = {}
    if args.get("query"):
        filter_["or"] = [
            {"title": {"contains": args["query"]}},
            {"description": {"contains": args["query"]}},
        ]
    if args.get("teamId"):
        filter_["team"] = {"id": {"eq": args["teamId"]}}
    if args.get("status"):
        filter_["state"] = {"name": {"eq": args["status"]}}
    if args.get("labels"):
        filter_["labels"] = {"some": {"name": {"in": args["labels"]}}}
    if args.get("priority"):
        filter_["priority"] = {"eq": args["priority"]}
    variables = {"filter": filter_, "first": args.get("limit") or 10}
    if "includeArchived" in args:
        variables["includeArchived"] = args["includeArchived"]
    return Wire("POST", API, headers=dict(HEADERS), json={"query": SEARCH, "variables": variables})


def search_response(args, rng):
    nodes = [
        {
            "id": uuid(rng),
            "identifier": f"ENG-{rng.randint(1, 3000)}",
            "title": rng.choice(TITLES),
            "priority": rng.randint(0, 4),
            "url": "https://linear.app/acme/issue/ENG-1",
        }
        for _ in range(rng.randint(0, 4))
    ]
    return Answer(
        200,
        {
            "data": {
                "issues": {"nodes": nodes, "pageInfo": {"hasNextPage": False, "endCursor": None}}
            }
        },
    )


SEARCH_ISSUES = Tool(
    "linear",
    "linear_search_issues",
    SOURCE,
    "Searches Linear issues using flexible criteria.",
    schema(
        {
            "query": s("Optional text to search in title and description"),
            "teamId": s("Filter by team ID"),
            "status": s("Filter by status name (e.g., 'In Progress', 'Done')"),
            "assigneeId": s("Filter by assignee's user ID"),
            "labels": strings("Filter by label names"),
            "priority": n("Filter by priority (1=urgent, 2=high, 3=normal, 4=low)"),
            "estimate": n("Filter by estimate points"),
            "includeArchived": b("Include archived issues in results"),
            "limit": n("Max results to return (default: 10)"),
        }
    ),
    search_args,
    search_request,
    search_response,
    ERRORS,
    failed_or(
        lambda args, body: (
            f"Found {len(body['data']['issues']['nodes'])} issues:\n"
            + "\n".join(
                f"- {i['identifier']}: {i['title']}" for i in body["data"]["issues"]["nodes"]
            )
        )
    ),
    [
        Bug(
            "renamed_key", rename("body", "/variables/first", "limit"), "/limit", "/variables/first"
        ),
        Bug(
            "value_changed",
            edit("body", "/variables/filter/state/name/eq", lambda v: v.lower().replace(" ", "_")),
            "/status",
            "/variables/filter/state/name/eq",
        ),
        Bug("dropped", drop("body", "/variables/filter/team"), "/teamId", "/variables/filter/team"),
        Bug(
            "type_changed",
            edit("body", "/variables/first", as_string),
            "/limit",
            "/variables/first",
            single=True,
        ),
    ],
)

TOOLS = [CREATE_ISSUE, SEARCH_ISSUES]
