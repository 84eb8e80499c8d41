"""Sentry's own MCP server, calling Sentry's REST API.

Unseen: written after the analysis was tuned, never tuned on.

Read: getsentry/sentry-mcp packages/mcp-core/src/tools/catalog/create-team.ts,
add-issue-note.ts, src/api-client/client.ts (`request`, `createTeam`, `createIssueComment`),
src/api-client/errors.ts, src/internal/error-handling.ts, src/internal/issue-helpers.ts,
src/internal/tool-helpers/validate-region-url.ts, src/schema.ts and src/server.ts at 4a10932.
Every request goes to `https://{host}/api/0`, the host being `sentry.io` or the host of the
`regionUrl` argument (`https://us.sentry.io` -> `us.sentry.io`), with a JSON content type, the
server's User-Agent and the client's name. `create_team` posts `{"name"}` to
`/organizations/{org}/teams/` and hands back `{"team": {id, slug, name}}` as structuredContent
and as its JSON text (indent 2), the id as a string. `add_issue_note` takes `issueId` (upper-cased
by the schema: `web-3kq` -> `WEB-3KQ`) or an `issueUrl` it reads the organization (subdomain) and
the issue from, posts `{"text"}` to `/organizations/{org}/issues/{issue}/notes/` and answers a
Markdown text (the comment's id, author, its time re-written by `toISOString()`, the text).
Sentry's errors are `{"detail": "..."}` (a 409 on a team slug also carries
`non_field_errors`), a validation 400 a `{field: [messages]}` map; the tool answers `isError`
with "**Input Error**" and "API error (409): ..." (a body without `detail` is quoted whole).
"""

import json
from datetime import datetime

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
    path_segment,
    rename,
    schema,
)

COMMIT = "4a109327ef3cc3b20b36ac18edbce68d37010565"
HEADERS = {
    "Content-Type": "application/json",
    "User-Agent": "sentry-mcp/0.37.0 (https://mcp.sentry.dev)",
    "Authorization": "Bearer sntryu_made-up-user-auth-token",
    "X-Sentry-MCP-Client-Name": "claude-code",
}
ORGS = ["acme", "globex-inc", "initech"]
REGIONS = ["https://us.sentry.io", "https://de.sentry.io"]
TEAMS = ["Payments", "the-goats", "Mobile Platform", "sre", "Growth Web"]
ISSUES = ["WEB-3KQ", "BACKEND-1Z43", "IOS-7", "PAYMENTS-2B1"]
NOTES = [
    "Investigating with the payments team.",
    "Resolved by deploy 2.41.0.",
    "Seen only on Safari 17; repro steps in JIRA OPS-118.",
    "Muting until the vendor fixes their SDK.",
]
REASONS = {400: "Bad Request", 403: "Forbidden", 404: "Not Found", 409: "Conflict", 429: ""}


def region_param(rng) -> dict:
    """How a model passes `regionUrl`: left out, null, or the region it found."""
    roll = rng.random()
    if roll < 0.5:
        return {}
    if roll < 0.6:
        return {"regionUrl": None}
    return {"regionUrl": rng.choice(REGIONS)}


def host(args) -> str:
    region = (args.get("regionUrl") or "").strip()
    return region.split("://", 1)[1].lower() if region else "sentry.io"


def sentry_error(status: int, *details, **more):
    def answer(args, rng):
        return Answer(status, {"detail": rng.choice(details), **more})

    return answer


def validation_error(field: str, message: str):
    def answer(args, rng):
        return Answer(400, {field: [message]})

    return answer


RATE_LIMIT = sentry_error(
    429,
    "You are attempting to use this endpoint too frequently. Limit is 40 requests in 1 seconds",
)
FORBIDDEN = sentry_error(403, "You do not have permission to perform this action.")


def input_error(answer: Answer) -> dict:
    """`formatErrorForUser` on the ApiClientError the client threw."""
    if "detail" in answer.body:
        message = answer.body["detail"]
    else:
        text = json.dumps(answer.body, separators=(",", ":"))
        message = f"API request failed: {REASONS[answer.status]}\n{text}"
    said = f"API error ({answer.status}): {message}"
    if answer.status == 404:
        said += (
            ". Please verify that the organization, project, or resource ID is correct and "
            "that you have access to it."
        )
    text = "\n\n".join(
        [
            "**Input Error**",
            f"There was an HTTP {answer.status} error with your request to the Sentry API.",
            said,
            "You may be able to resolve the issue by addressing the concern and trying again.",
        ]
    )
    return mcp_text(text, is_error=True)


def slugify(name: str) -> str:
    return "-".join(name.lower().split())


def actor(rng) -> dict:
    name = rng.choice(["Ana Okafor", "Bram de Vries", "Chen Li"])
    return {
        "id": str(rng.randint(100_000, 9_999_999)),
        "name": name,
        "username": name.split()[0].lower(),
        "email": f"{name.split()[0].lower()}@acme.io",
        "avatarUrl": f"https://gravatar.com/avatar/{rng.getrandbits(128):032x}?s=32&d=mm",
        "isActive": True,
        "hasPasswordAuth": False,
    }


def created(rng) -> str:
    return (
        f"2026-11-0{rng.randint(1, 9)}T{rng.randint(10, 23)}:{rng.randint(10, 59)}:"
        f"{rng.randint(10, 59)}.{rng.randint(100000, 999999)}Z"
    )


# --- create_team ----------------------------------------------------------------------------------


def team_args(rng):
    name = rng.choice(TEAMS)
    return {"organizationSlug": rng.choice(ORGS), **region_param(rng), "name": name}


def team_request(args):
    url = f"https://{host(args)}/api/0/organizations/{args['organizationSlug']}/teams/"
    return Wire("POST", url, headers=dict(HEADERS), json={"name": args["name"].strip()})


def team_response(args, rng):
    name = args["name"].strip()
    body = {
        "id": str(rng.randint(4_000_000, 4_999_999)),
        "slug": slugify(name),
        "name": name,
        "dateCreated": created(rng),
        "isMember": True,
        "teamRole": "admin",
        "flags": {"idp:provisioned": False},
        "access": ["event:read", "project:read", "team:write", "member:read"],
        "hasAccess": True,
        "isPending": False,
        "memberCount": 1,
        "avatar": {"avatarType": "letter_avatar", "avatarUuid": None},
        "externalTeams": [],
        "projects": [],
    }
    return Answer(201, body, {"Content-Type": "application/json"})


def team_result(args, answer):
    if answer.status >= 400:
        return input_error(answer)
    team = answer.body
    return mcp_json({"team": {"id": str(team["id"]), "slug": team["slug"], "name": team["name"]}})


def text_param(description: str) -> dict:
    return {"type": "string", "description": description}


REGION_URL = {
    "type": ["string", "null"],
    "default": None,
    "description": "The region URL for the organization you're querying, if known. For "
    "Sentry's Cloud Service (sentry.io), this is typically the region-specific URL like "
    "'https://us.sentry.io'.",
}
ORG_SLUG = text_param(
    "The organization's slug. You can find a existing list of organizations you have access "
    "to using the `find_organizations()` tool."
)

CREATE_TEAM = Tool(
    "sentry",
    "create_team",
    Source("getsentry/sentry-mcp", "packages/mcp-core/src/tools/catalog/create-team.ts", COMMIT),
    "Create a new team in Sentry.",
    {
        **schema(
            {
                "organizationSlug": ORG_SLUG,
                "regionUrl": REGION_URL,
                "name": text_param("The name of the team to create."),
            },
            ["organizationSlug", "name"],
        ),
        "additionalProperties": False,
    },
    team_args,
    team_request,
    team_response,
    [
        sentry_error(
            409,
            "A team with this slug already exists.",
            non_field_errors=["A team with this slug already exists."],
        ),
        validation_error(
            "slug",
            "Enter a valid slug consisting of lowercase letters, numbers, underscores or "
            "hyphens. It cannot be entirely numeric.",
        ),
        FORBIDDEN,
        RATE_LIMIT,
    ],
    team_result,
    [
        Bug("renamed_key", rename("body", "/name", "slug"), "/name", "/name"),
        Bug("dropped", drop("body", "/name"), "/name", "/name", single=True),
        Bug(
            "wrong_path_id",
            path_segment(3, lambda v: next(o for o in ORGS if o != v)),
            "/organizationSlug",
            "path:/3",
        ),
        Bug("leaked_field", leak("body", "/organizationSlug", "acme"), None, "/organizationSlug"),
        Bug("error_fields_lost", lose("/detail"), response="/detail", error=True),
    ],
)

# --- add_issue_note -------------------------------------------------------------------------------


def note_args(rng):
    org, issue = rng.choice(ORGS), rng.choice(ISSUES)
    if rng.random() < 0.3:
        args = {"issueUrl": f"https://{org}.sentry.io/issues/{issue}/"}
    else:
        # models write the short id in whatever case they read it
        args = {"organizationSlug": org, "issueId": issue if rng.random() < 0.7 else issue.lower()}
    return {**args, **region_param(rng), "text": rng.choice(NOTES)}


def issue_of(args) -> tuple[str, str]:
    """(organization, issue) as `parseIssueParams` reads them."""
    if "issueUrl" in args:
        host_part, _, path = args["issueUrl"].split("://", 1)[1].partition("/")
        return host_part.split(".")[0], path.strip("/").split("/")[-1]
    return args["organizationSlug"], args["issueId"].upper()


def note_request(args):
    org, issue = issue_of(args)
    url = f"https://{host(args)}/api/0/organizations/{org}/issues/{issue}/notes/"
    return Wire("POST", url, headers=dict(HEADERS), json={"text": args["text"].strip()})


def note_response(args, rng):
    body = {
        "id": str(rng.randint(4_400_000_000, 4_499_999_999)),
        "user": actor(rng),
        "sentry_app": None,
        "type": "note",
        "data": {"text": args["text"].strip()},
        "dateCreated": created(rng),
    }
    return Answer(201, body, {"Content-Type": "application/json"})


def iso_millis(text: str) -> str:
    """JavaScript's `new Date(text).toISOString()`: milliseconds, UTC."""
    when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


def note_result(args, answer):
    if answer.status >= 400:
        return input_error(answer)
    org, issue = issue_of(args)
    comment = answer.body
    lines = [
        f"# Added Note to Issue {issue} in **{org}**",
        "",
        f"**Comment ID**: {comment['id']}",
        f"**Type**: {comment.get('type') or 'note'}",
        f"**Author**: {comment['user']['name']}",
        f"**Created**: {iso_millis(comment['dateCreated'])}",
        f"**Text**: {comment['data']['text']}",
        "",
        "## Response Notes",
        "",
        "- The note is visible in the issue activity feed.",
    ]
    return mcp_text("\n".join(lines))


ADD_ISSUE_NOTE = Tool(
    "sentry",
    "add_issue_note",
    Source("getsentry/sentry-mcp", "packages/mcp-core/src/tools/catalog/add-issue-note.ts", COMMIT),
    "Add a human-visible comment to a Sentry issue's activity feed.",
    {
        **schema(
            {
                "organizationSlug": ORG_SLUG,
                "regionUrl": REGION_URL,
                "issueId": text_param("The Issue ID. e.g. `PROJECT-1Z43`"),
                "issueUrl": {
                    "type": "string",
                    "format": "uri",
                    "description": "The URL of the issue. e.g. "
                    "https://my-organization.sentry.io/issues/PROJECT-1Z43",
                },
                "text": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 4096,
                    "description": "The exact comment text to add to the issue.",
                },
            },
            ["text"],
        ),
        "additionalProperties": False,
    },
    note_args,
    note_request,
    note_response,
    [
        sentry_error(404, "The requested resource does not exist"),
        sentry_error(400, "You have already posted that comment."),
        FORBIDDEN,
        RATE_LIMIT,
    ],
    note_result,
    [
        Bug("renamed_key", rename("body", "/text", "note"), "/text", "/text"),
        Bug("dropped", drop("body", "/text"), "/text", "/text", single=True),
        Bug(
            "value_changed",
            edit("body", "/text", lambda v: v[: len(v) // 2]),
            "/text",
            "/text",
            single=True,
        ),
        Bug(
            "wrong_path_id",
            path_segment(5, lambda v: next(i for i in ISSUES if i != v)),
            "/issueId",
            "path:/5",
        ),
        Bug("error_fields_lost", lose("/detail"), response="/detail", error=True),
    ],
)

TOOLS = [CREATE_TEAM, ADD_ISSUE_NOTE]
