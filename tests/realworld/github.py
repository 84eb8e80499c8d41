"""GitHub, as GitHub's own MCP server (Go, go-github) calls the REST API.

Read: github/github-mcp-server pkg/github/repositories.go (ListCommits), pkg/github/issues.go
(AddIssueComment, IssueWrite, CreateIssue), pkg/github/minimal_types.go and pkg/errors/error.go at
64a49f3. go-github writes the query with go-querystring (keys sorted, empty ones left out, a time as
RFC 3339), a date argument is read as midnight UTC, `perPage` defaults to 30, `fields` only trims
the result, `method` picks the route. A success hands back a minimal object (the numeric id as
text); an error is an MCP `isError` text naming the request (`failed to create issue: POST
https://...: 404 Not Found []`). GitHub's errors are `{"message", "documentation_url", "status"}`
(422 with `errors[]`; a 403 for the rate limit).
"""

from .model import (
    Answer,
    Bug,
    Source,
    Tool,
    Wire,
    as_string,
    day_first,
    drop,
    edit,
    leak,
    lose,
    mcp_text,
    n,
    put,
    rename,
    s,
    schema,
    strings,
    upper,
)

COMMIT = "64a49f34d076b6f5917dae1424521d43c7bcae84"
API = "https://api.github.com"
HEADERS = {
    "Accept": "application/vnd.github.v3+json",
    "Authorization": "Bearer [REDACTED]",
    "User-Agent": "github-mcp-server/0.20.1",
    "X-GitHub-Api-Version": "2022-11-28",
}
REPOS = [
    ("octo-org", "octo-repo"),
    ("acme", "web"),
    ("kubernetes", "kubernetes"),
    ("psf", "black"),
    ("astral-sh", "uv"),
]
PEOPLE = ["octocat", "hubot", "monalisa", "defunkt"]
DOCS = "https://docs.github.com/rest"
STATUS = {
    403: "Forbidden",
    404: "Not Found",
    409: "Conflict",
    410: "Gone",
    422: "Unprocessable Entity",
}


def github_error(status: int, message: str, doc: str, errors=None):
    def answer(args, rng):
        body = {"message": message, "documentation_url": f"{DOCS}/{doc}", "status": str(status)}
        if errors:
            body["errors"] = errors
        headers = {"X-RateLimit-Remaining": "0"} if "rate limit" in message else {}
        return Answer(status, body, headers)

    return answer


RATE_LIMIT = github_error(
    403, "API rate limit exceeded for user ID 583231.", "overview/rate-limits-for-the-rest-api"
)


def failure(what: str, method: str, url: str, answer: Answer) -> dict:
    if "rate limit" in str(answer.body):
        return mcp_text(
            f"{what}: GitHub API rate limit exceeded. Wait before retrying.", is_error=True
        )
    if answer.status == 422:
        return mcp_text(f"{what}: {answer.body['message']}", is_error=True)
    detail = f"{method} {url}: {answer.status} {STATUS.get(answer.status, '')} []"
    return mcp_text(f"{what}: {detail}", is_error=True)


def user(rng, login=None) -> dict:
    login = login or rng.choice(PEOPLE)
    return {"login": login, "id": rng.randint(1000, 9_999_999), "type": "User", "site_admin": False}


# --- list_commits (GET, go-querystring) -----------------------------------------------------------

DATES = ["2026-09-01", "2026-09-14", "2026-10-02T08:30:00Z", "2026-11-20"]


def commits_args(rng):
    owner, repo = rng.choice(REPOS)
    args = {"owner": owner, "repo": repo}
    put(
        args,
        rng,
        "sha",
        0.4,
        lambda: rng.choice(["main", "release-1.31", "v2.4.0", f"{rng.getrandbits(160):040x}"]),
    )
    put(args, rng, "author", 0.3, lambda: rng.choice(PEOPLE + ["ann@example.com"]))
    put(args, rng, "path", 0.2, lambda: rng.choice(["README.md", "src/main.go", "docs/"]))
    put(args, rng, "since", 0.3, lambda: rng.choice(DATES))
    put(args, rng, "until", 0.1, lambda: "2026-11-30")
    put(args, rng, "page", 0.3, lambda: rng.randint(1, 5))
    put(args, rng, "perPage", 0.5, lambda: rng.choice([5, 10, 30, 100]))
    put(args, rng, "fields", 0.2, lambda: rng.sample(["sha", "html_url", "commit", "author"], 2))
    return args


def rfc3339(value: str) -> str:
    return value if "T" in value else f"{value}T00:00:00Z"


def commits_request(args):
    query = {
        "author": args.get("author"),
        "page": args.get("page"),
        "path": args.get("path"),
        "per_page": args.get("perPage", 30),
        "sha": args.get("sha"),
        "since": rfc3339(args["since"]) if "since" in args else None,
        "until": rfc3339(args["until"]) if "until" in args else None,
    }
    pairs = [(k, str(v)) for k, v in sorted(query.items()) if v not in (None, "", 0)]
    return Wire("GET", f"{API}/repos/{args['owner']}/{args['repo']}/commits", pairs, dict(HEADERS))


def commit(rng, owner, repo) -> dict:
    sha = f"{rng.getrandbits(160):040x}"
    who = rng.choice(PEOPLE)
    person = {
        "name": who.title(),
        "email": f"{who}@users.noreply.github.com",
        "date": "2026-10-02T08:31:12Z",
    }
    return {
        "sha": sha,
        "node_id": f"C_kwDO{rng.getrandbits(48):012x}",
        "commit": {
            "author": person,
            "committer": person,
            "message": rng.choice(["Fix flaky test", "Bump deps", "Add retries", "docs: typo"]),
            "tree": {
                "sha": f"{rng.getrandbits(160):040x}",
                "url": f"{API}/repos/{owner}/{repo}/git/trees/x",
            },
            "url": f"{API}/repos/{owner}/{repo}/git/commits/{sha}",
            "comment_count": 0,
            "verification": {
                "verified": False,
                "reason": "unsigned",
                "signature": None,
                "payload": None,
            },
        },
        "url": f"{API}/repos/{owner}/{repo}/commits/{sha}",
        "html_url": f"https://github.com/{owner}/{repo}/commit/{sha}",
        "author": user(rng, who),
        "committer": user(rng, who),
        "parents": [{"sha": f"{rng.getrandbits(160):040x}"}],
    }


def commits_response(args, rng):
    count = min(args.get("perPage", 30), rng.randint(0, 4))
    return Answer(200, [commit(rng, args["owner"], args["repo"]) for _ in range(count)])


def commits_result(args, answer):
    if answer.status >= 400:
        wire = commits_request(args)
        return failure(
            f"failed to list commits: {args.get('sha', '')}", "GET", wire.http()["url"], answer
        )
    minimal = [
        {
            "sha": c["sha"],
            "html_url": c["html_url"],
            "commit": {k: c["commit"][k] for k in ("message", "author", "committer")},
            "author": {"login": c["author"]["login"], "id": c["author"]["id"]},
            "committer": {"login": c["committer"]["login"], "id": c["committer"]["id"]},
        }
        for c in answer.body
    ]
    if args.get("fields"):
        minimal = [{k: c[k] for k in args["fields"] if k in c} for c in minimal]
    return mcp_text(minimal)


LIST_COMMITS = Tool(
    "github",
    "list_commits",
    Source("github/github-mcp-server", "pkg/github/repositories.go", COMMIT),
    "Get list of commits of a branch in a GitHub repository.",
    schema(
        {
            "owner": s("Repository owner"),
            "repo": s("Repository name"),
            "sha": s("Commit SHA, branch or tag name to list commits of."),
            "author": s("Author username or email address to filter commits by"),
            "path": s("Only commits containing this file path will be returned"),
            "since": s("Only commits after this date will be returned (ISO 8601 format)"),
            "until": s("Only commits before this date will be returned (ISO 8601 format)"),
            "page": n("Page number for pagination (min 1)", minimum=1),
            "perPage": n(
                "Results per page for pagination (min 1, max 100)", minimum=1, maximum=100
            ),
            "fields": {
                "type": "array",
                "items": {
                    "type": "string",
                    "enum": ["sha", "html_url", "commit", "author", "committer"],
                },
                "description": "Subset of fields to return for each commit.",
            },
        },
        ["owner", "repo"],
    ),
    commits_args,
    commits_request,
    commits_response,
    [
        github_error(404, "Not Found", "commits/commits#list-commits"),
        github_error(409, "Git Repository is empty.", "commits/commits#list-commits"),
        RATE_LIMIT,
    ],
    commits_result,
    [
        Bug("renamed_key", rename("query", "per_page", "perPage"), "/perPage", "query:/per_page"),
        Bug("date_format", edit("query", "since", day_first), "/since", "query:/since"),
        Bug("dropped", drop("query", "author"), "/author", "query:/author"),
        Bug(
            "value_changed",
            edit("query", "sha", lambda v: "main" if v != "main" else None),
            "/sha",
            "query:/sha",
            single=True,
        ),
        Bug("error_fields_lost", lose("/message"), response="/message", error=True),
    ],
)

# --- add_issue_comment (POST .../issues/{n}/comments, or .../reactions) ---------------------------

COMMENTS = [
    "LGTM, thanks!",
    "Reproduced on 1.31.2.",
    "Closing as duplicate of #1203.",
    "Could you add a test?",
]


def comment_args(rng):
    owner, repo = rng.choice(REPOS)
    args = {"owner": owner, "repo": repo, "issue_number": rng.randint(1, 130000)}
    if rng.random() < 0.85:
        args["body"] = rng.choice(COMMENTS)
    else:
        args["reaction"] = rng.choice(
            ["+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"]
        )
    return args


def comment_request(args):
    base = f"{API}/repos/{args['owner']}/{args['repo']}/issues/{args['issue_number']}"
    if "body" in args:
        return Wire("POST", f"{base}/comments", headers=dict(HEADERS), json={"body": args["body"]})
    headers = {**HEADERS, "Accept": "application/vnd.github.squirrel-girl-preview+json"}
    return Wire("POST", f"{base}/reactions", headers=headers, json={"content": args["reaction"]})


def comment_response(args, rng):
    owner, repo, number = args["owner"], args["repo"], args["issue_number"]
    ident = rng.randint(10**9, 3 * 10**9)
    if "reaction" in args:
        body = {
            "id": ident,
            "node_id": f"REA_lADO{rng.getrandbits(40):010x}",
            "user": user(rng),
            "content": args["reaction"],
            "created_at": "2026-10-02T08:31:12Z",
        }
        return Answer(201, body)
    return Answer(
        201,
        {
            "id": ident,
            "node_id": f"IC_kwDO{rng.getrandbits(48):012x}",
            "url": f"{API}/repos/{owner}/{repo}/issues/comments/{ident}",
            "html_url": f"https://github.com/{owner}/{repo}/issues/{number}#issuecomment-{ident}",
            "body": args["body"],
            "user": user(rng),
            "created_at": "2026-10-02T08:31:12Z",
            "updated_at": "2026-10-02T08:31:12Z",
            "author_association": "MEMBER",
        },
    )


def comment_result(args, answer):
    wire = comment_request(args)
    if answer.status >= 400:
        what = "failed to create comment" if "body" in args else "failed to add reaction to issue"
        return failure(what, "POST", wire.url, answer)
    if "body" in args:
        return mcp_text({"id": str(answer.body["id"]), "url": answer.body["html_url"]})
    owner, repo, number = args["owner"], args["repo"], args["issue_number"]
    url = f"{API}/repos/{owner}/{repo}/issues/{number}/reactions/{answer.body['id']}"
    return mcp_text({"id": str(answer.body["id"]), "url": url})


ADD_COMMENT = Tool(
    "github",
    "add_issue_comment",
    Source("github/github-mcp-server", "pkg/github/issues.go", COMMIT),
    "Add a comment and/or reaction to a specific issue or issue comment in a GitHub repository.",
    schema(
        {
            "owner": s("Repository owner"),
            "repo": s("Repository name"),
            "issue_number": n("Issue or pull request number to comment on or react to."),
            "comment_id": n(
                "The numeric ID of the issue or pull request comment to react to.",
                "integer",
                minimum=1,
            ),
            "body": s("Comment content. Required unless reaction is provided.", minLength=1),
            "reaction": s(
                "Emoji reaction to add. Required unless body is provided.",
                enum=["+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"],
            ),
        },
        ["owner", "repo", "issue_number"],
    ),
    comment_args,
    comment_request,
    comment_response,
    [
        github_error(404, "Not Found", "issues/comments#create-an-issue-comment"),
        github_error(
            410, "Issues are disabled for this repo", "issues/comments#create-an-issue-comment"
        ),
        RATE_LIMIT,
    ],
    comment_result,
    [
        Bug("renamed_key", rename("body", "/body", "comment"), "/body", "/body"),
        Bug("enum_case", edit("body", "/content", upper), "/reaction", "/content"),
        Bug("wrong_path_id", lambda c: _issue_number(c), "/issue_number", "path:/4"),
        Bug(
            "error_fields_lost",
            lose("/documentation_url"),
            response="/documentation_url",
            error=True,
        ),
    ],
)


def _issue_number(call) -> bool:
    wire = call["wire"]
    head, number, tail = wire.url.rsplit("/", 2)
    wire.url = f"{head}/{int(number) + 1}/{tail}"
    return True


# --- issue_write, method create (POST /repos/{o}/{r}/issues; `body` always sent, "" when absent) -------------


def write_args(rng):
    owner, repo = rng.choice(REPOS)
    args = {
        "method": "create",
        "owner": owner,
        "repo": repo,
        "title": rng.choice(
            ["Crash on start", "Login loops forever", "Typo in README", "Flaky CI on arm64"]
        ),
    }
    put(
        args,
        rng,
        "body",
        0.8,
        lambda: rng.choice(["Steps: open the app.", "Seen since 2.4.1.", "Only on Safari."]),
    )
    put(
        args,
        rng,
        "labels",
        0.5,
        lambda: rng.sample(["bug", "ui", "p1", "docs", "regression"], rng.randint(1, 2)),
    )
    put(args, rng, "assignees", 0.3, lambda: rng.sample(PEOPLE, 1))
    put(args, rng, "milestone", 0.2, lambda: rng.randint(1, 40))
    put(args, rng, "type", 0.15, lambda: rng.choice(["Bug", "Feature", "Task"]))
    return args


def write_request(args):
    body = {"title": args["title"], "body": args.get("body", "")}
    for key in ("labels", "assignees", "milestone", "type"):
        if args.get(key):
            body[key] = args[key]
    return Wire(
        "POST",
        f"{API}/repos/{args['owner']}/{args['repo']}/issues",
        headers=dict(HEADERS),
        json=body,
    )


def write_response(args, rng):
    number = rng.randint(1, 130000)
    owner, repo = args["owner"], args["repo"]
    return Answer(
        201,
        {
            "id": rng.randint(10**9, 3 * 10**9),
            "node_id": f"I_kwDO{rng.getrandbits(48):012x}",
            "number": number,
            "url": f"{API}/repos/{owner}/{repo}/issues/{number}",
            "html_url": f"https://github.com/{owner}/{repo}/issues/{number}",
            "title": args["title"],
            "body": args.get("body") or None,
            "state": "open",
            "labels": [
                {"id": rng.randint(10**8, 10**9), "name": name, "color": "d73a4a"}
                for name in args.get("labels", [])
            ],
            "assignees": [user(rng, who) for who in args.get("assignees", [])],
            "milestone": None,
            "user": user(rng),
            "comments": 0,
            "created_at": "2026-10-02T08:31:12Z",
            "updated_at": "2026-10-02T08:31:12Z",
            "closed_at": None,
        },
    )


def write_result(args, answer):
    if answer.status >= 400:
        return failure("failed to create issue", "POST", write_request(args).url, answer)
    return mcp_text({"id": str(answer.body["id"]), "url": answer.body["html_url"]})


ISSUE_WRITE = Tool(
    "github",
    "issue_write",
    Source("github/github-mcp-server", "pkg/github/issues.go", COMMIT),
    "Create a new or update an existing issue in a GitHub repository.",
    schema(
        {
            "method": s("Write operation to perform on a single issue.", enum=["create", "update"]),
            "owner": s("Repository owner"),
            "repo": s("Repository name"),
            "issue_number": n("Issue number to update"),
            "title": s("Issue title"),
            "body": s("Issue body content"),
            "assignees": strings("Usernames to assign to this issue"),
            "labels": strings("Labels to apply to this issue"),
            "milestone": n("Milestone number"),
            "type": {
                "anyOf": [{"type": "string", "minLength": 1}, {"type": "null"}],
                "description": "Type of this issue.",
            },
            "state": s("New state", enum=["open", "closed"]),
        },
        ["method", "owner", "repo"],
    ),
    write_args,
    write_request,
    write_response,
    [
        github_error(410, "Issues are disabled for this repo", "issues/issues#create-an-issue"),
        github_error(
            422,
            "Validation Failed",
            "issues/issues#create-an-issue",
            [{"resource": "Issue", "code": "invalid", "field": "assignees", "value": "ghost"}],
        ),
        github_error(404, "Not Found", "issues/issues#create-an-issue"),
        RATE_LIMIT,
    ],
    write_result,
    [
        Bug(
            "type_changed",
            edit("body", "/milestone", as_string),
            "/milestone",
            "/milestone",
            single=True,
        ),
        # Not one a single call decides: GitLab's layer sends its `labels` list joined just so, as
        # its API wants. Only GitHub's request schema (none is declared here, only the tool's
        # input schema) or the tool's earlier calls, which sent a list, tell this join wrong.
        Bug("list_joined", edit("body", "/labels", lambda v: ",".join(v)), "/labels", "/labels"),
        Bug("leaked_field", leak("body", "/method", "create"), None, "/method"),
        Bug("dropped", drop("body", "/assignees"), "/assignees", "/assignees"),
        Bug("renamed_key", rename("body", "/title", "name"), "/title", "/title"),
    ],
)

TOOLS = [LIST_COMMITS, ADD_COMMENT, ISSUE_WRITE]
