"""GitLab, as the reference MCP server's GitLab tools call the REST API v4.

Fetch, JSON bodies.

Read: modelcontextprotocol/servers src/gitlab/index.ts and src/gitlab/schemas.ts at 1f70567 (before
the server was archived). The project id goes into the path through encodeURIComponent
(`acme%2Fweb`), labels are comma-joined, absent options vanish from the JSON. GitLab's errors are
`{"message": ...}` (a text, or a map of field errors); a failure throws `GitLab API error:
<statusText>`, which the MCP client reads as a JSON-RPC error. A success is handed back as the
parsed object, JSON text indented by 2.
"""

from urllib.parse import quote

from .model import (
    Answer,
    Bug,
    Source,
    Tool,
    Wire,
    as_string,
    drop,
    edit,
    jsonrpc_error,
    leak,
    lose,
    mcp_text,
    n,
    path_segment,
    put,
    rename,
    s,
    schema,
    strings,
    swap,
)

SOURCE = Source(
    "modelcontextprotocol/servers",
    "src/gitlab/index.ts",
    "1f705677a930ec618b7a16d87d00cee7db747ff2",
)
API = "https://gitlab.com/api/v4"
HEADERS = {"Authorization": "Bearer [REDACTED]", "Content-Type": "application/json"}
PROJECTS = [
    "acme/web",
    "acme/platform/api",
    "gitlab-org/gitlab-runner",
    "inkscape/inkscape",
    "fdroid/fdroidclient",
]
TITLES = [
    "Pipeline fails on arm64",
    "Crash when saving as PDF",
    "Update the README badges",
    "Flaky test in auth",
]
TEXTS = ["Steps to reproduce: run `make test`.", "Seen since 16.2.", "See the attached log.", ""]
LABELS = ["bug", "backend", "priority::1", "documentation", "good first issue", "regression"]
STATUS_TEXT = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    409: "Conflict",
}


def failed(args, answer):
    """A success comes back as JSON text; a failure throws with the status text."""
    if answer.status >= 400:
        return jsonrpc_error(
            f"GitLab API error: {STATUS_TEXT.get(answer.status, 'Too Many Requests')}"
        )
    return mcp_text(answer.body, indent=2)


def gitlab_error(status: int, *messages):
    def answer(args, rng):
        return Answer(status, {"message": rng.choice(messages)})

    return answer


def rate_limited(args, rng):
    return Answer(429, "Retry later", {"Retry-After": "60", "RateLimit-Limit": "2000"})


def user(rng) -> dict:
    name = rng.choice(["ann", "bo", "cy", "dee"])
    return {
        "id": rng.randint(1000, 99999),
        "username": name,
        "name": name.title(),
        "state": "active",
    }


def when(rng) -> str:
    return f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:14:07.512Z"


# --- create_issue ---------------------------------------------------------------------------------


def issue_args(rng):
    args = {"project_id": rng.choice(PROJECTS), "title": rng.choice(TITLES)}
    put(args, rng, "description", 0.7, lambda: rng.choice(TEXTS))
    put(args, rng, "labels", 0.5, lambda: rng.sample(LABELS, rng.randint(1, 3)))
    put(args, rng, "assignee_ids", 0.3, lambda: rng.sample([1204, 5531, 77120], rng.randint(1, 2)))
    put(args, rng, "milestone_id", 0.2, lambda: rng.randint(1, 60))
    return args


def issue_request(args):
    body = {
        "title": args["title"],
        "description": args.get("description"),
        "assignee_ids": args.get("assignee_ids"),
        "milestone_id": args.get("milestone_id"),
        "labels": ",".join(args["labels"]) if "labels" in args else None,
    }
    # JSON.stringify drops undefined
    body = {k: v for k, v in body.items() if v is not None}
    url = f"{API}/projects/{quote(args['project_id'], safe='')}/issues"
    return Wire("POST", url, headers=dict(HEADERS), json=body)


def issue_response(args, rng):
    iid = rng.randint(1, 4000)
    return Answer(
        201,
        {
            "id": rng.randint(10**8, 2 * 10**8),
            "iid": iid,
            "project_id": rng.randint(10**6, 5 * 10**7),
            "title": args["title"],
            "description": args.get("description"),
            "state": "opened",
            "created_at": when(rng),
            "updated_at": when(rng),
            "labels": args.get("labels", []),
            "milestone": None,
            "assignees": [user(rng) for _ in args.get("assignee_ids", [])],
            "author": user(rng),
            "web_url": f"https://gitlab.com/{args['project_id']}/-/issues/{iid}",
        },
    )


CREATE_ISSUE = Tool(
    "gitlab",
    "create_issue",
    SOURCE,
    "Create a new issue in a GitLab project",
    schema(
        {
            "project_id": s("Project ID or URL-encoded path"),
            "title": s("Issue title"),
            "description": s("Issue description"),
            "assignee_ids": {
                "type": "array",
                "items": {"type": "number"},
                "description": "Array of user IDs to assign",
            },
            "labels": strings("Array of label names"),
            "milestone_id": n("Milestone ID to assign"),
        },
        ["project_id", "title"],
    ),
    issue_args,
    issue_request,
    issue_response,
    [
        gitlab_error(404, "404 Project Not Found"),
        gitlab_error(403, "403 Forbidden"),
        lambda a, rng: Answer(400, {"message": {"title": ["can't be blank"]}}),
        rate_limited,
    ],
    failed,
    [
        Bug("renamed_key", rename("body", "/description", "body"), "/description", "/description"),
        Bug(
            "type_changed",
            edit("body", "/milestone_id", as_string),
            "/milestone_id",
            "/milestone_id",
            single=True,
        ),
        Bug(
            "list_not_joined", edit("body", "/labels", lambda v: v.split(",")), "/labels", "/labels"
        ),
        Bug(
            "wrong_path_id",
            path_segment(3, lambda v: v.replace("%2F", "/")),
            "/project_id",
            "path:/3",
        ),
        Bug("leaked_field", leak("body", "/project_id", "acme/web"), None, "/project_id"),
    ],
)

# --- create_merge_request -------------------------------------------------------------------------


def mr_args(rng):
    args = {
        "project_id": rng.choice(PROJECTS),
        "title": rng.choice(
            ["Fix the arm64 build", "Draft: new settings page", "Bump deps", "Add retry to uploads"]
        ),
        "source_branch": rng.choice(
            ["fix/arm64", "feature/settings", "deps/2026-11", "retry-uploads"]
        ),
        "target_branch": rng.choice(["main", "master", "develop"]),
    }
    put(args, rng, "description", 0.6, lambda: rng.choice(TEXTS))
    put(args, rng, "draft", 0.4, lambda: rng.random() < 0.5)
    put(args, rng, "allow_collaboration", 0.3, lambda: rng.random() < 0.5)
    return args


def mr_request(args):
    keys = (
        "title",
        "description",
        "source_branch",
        "target_branch",
        "allow_collaboration",
        "draft",
    )
    body = {k: args[k] for k in keys if k in args}
    url = f"{API}/projects/{quote(args['project_id'], safe='')}/merge_requests"
    return Wire("POST", url, headers=dict(HEADERS), json=body)


def mr_response(args, rng):
    iid = rng.randint(1, 9000)
    return Answer(
        201,
        {
            "id": rng.randint(10**8, 4 * 10**8),
            "iid": iid,
            "project_id": rng.randint(10**6, 5 * 10**7),
            "title": args["title"],
            "description": args.get("description"),
            "state": "opened",
            "merged": False,
            "draft": args.get("draft", False),
            "author": user(rng),
            "assignees": [],
            "source_branch": args["source_branch"],
            "target_branch": args["target_branch"],
            "diff_refs": None,
            "web_url": f"https://gitlab.com/{args['project_id']}/-/merge_requests/{iid}",
            "created_at": when(rng),
            "updated_at": when(rng),
        },
    )


CREATE_MR = Tool(
    "gitlab",
    "create_merge_request",
    SOURCE,
    "Create a new merge request in a GitLab project",
    schema(
        {
            "project_id": s("Project ID or URL-encoded path"),
            "title": s("Merge request title"),
            "description": s("Merge request description"),
            "source_branch": s("Branch containing changes"),
            "target_branch": s("Branch to merge into"),
            "draft": {"type": "boolean", "description": "Create as draft merge request"},
            "allow_collaboration": {
                "type": "boolean",
                "description": "Allow commits from upstream members",
            },
        },
        ["project_id", "title", "source_branch", "target_branch"],
    ),
    mr_args,
    mr_request,
    mr_response,
    [
        lambda a, rng: Answer(
            409,
            {
                "message": [
                    "Another open merge request already exists for this source branch: "
                    f"!{rng.randint(1, 900)}"
                ]
            },
        ),
        gitlab_error(404, "404 Project Not Found"),
        rate_limited,
    ],
    failed,
    [
        Bug(
            "swapped_values",
            swap("/source_branch", "/target_branch"),
            "/source_branch",
            "/source_branch",
        ),
        Bug("type_changed", edit("body", "/draft", as_string), "/draft", "/draft", single=True),
        Bug(
            "dropped",
            drop("body", "/target_branch"),
            "/target_branch",
            "/target_branch",
            single=True,
        ),
        Bug("error_fields_lost", lose("/message"), response="/message", error=True),
    ],
)

# --- search_repositories (GET /projects; page and per_page defaults sent always) ------------------


def search_args(rng):
    args = {"search": rng.choice(["runner", "inkscape", "fdroid", "terraform", "kubernetes agent"])}
    put(args, rng, "page", 0.3, lambda: rng.randint(1, 4))
    put(args, rng, "per_page", 0.4, lambda: rng.choice([10, 20, 50]))
    return args


def search_request(args):
    query = [
        ("search", args["search"]),
        ("page", str(args.get("page", 1))),
        ("per_page", str(args.get("per_page", 20))),
    ]
    return Wire("GET", f"{API}/projects", query, {"Authorization": "Bearer [REDACTED]"})


def search_response(args, rng):
    projects = [
        {
            "id": rng.randint(10**6, 5 * 10**7),
            "name": f"{args['search'].split()[0]}-{i}",
            "path_with_namespace": f"{rng.choice(['acme', 'gitlab-org', 'fdroid'])}/{args['search'].split()[0]}-{i}",
            "description": rng.choice(["", "Mirror", "The main repository"]),
            "visibility": "public",
            "default_branch": "main",
            "star_count": rng.randint(0, 4000),
            "last_activity_at": when(rng),
        }
        for i in range(rng.randint(0, 4))
    ]
    return Answer(200, projects, {"X-Total": str(len(projects) + rng.randint(0, 300))})


def search_result(args, answer):
    if answer.status >= 400:
        return failed(args, answer)
    return mcp_text(
        {"count": int(answer.headers.get("X-Total", "0")), "items": answer.body}, indent=2
    )


SEARCH = Tool(
    "gitlab",
    "search_repositories",
    SOURCE,
    "Search for GitLab projects",
    schema(
        {
            "search": s("Search query"),
            "page": n("Page number for pagination (default: 1)"),
            "per_page": n("Number of results per page (default: 20)"),
        },
        ["search"],
    ),
    search_args,
    search_request,
    search_response,
    [gitlab_error(401, "401 Unauthorized"), rate_limited],
    search_result,
    [
        Bug("renamed_key", rename("query", "search", "q"), "/search", "query:/search"),
        Bug("renamed_key", rename("query", "per_page", "perPage"), "/per_page", "query:/per_page"),
        Bug("dropped", drop("query", "search"), "/search", "query:/search", single=True),
    ],
)

TOOLS = [CREATE_ISSUE, CREATE_MR, SEARCH]
