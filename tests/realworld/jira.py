"""Jira Cloud, as sooperset/mcp-atlassian calls its REST API.

Unseen: written for the fourth unseen part, measured before any change made for it.

Read: sooperset/mcp-atlassian src/mcp_atlassian/servers/jira.py (`add_comment`, `add_worklog`,
`_parse_visibility`), jira/comments.py, jira/worklog.py, jira/client.py (`_markdown_to_jira`,
`_post_api3`), models/jira/adf.py (`markdown_to_adf`, `adf_to_text`), utils/date.py,
utils/decorators.py (`handle_tool_errors`), servers/main.py (tools mounted under the `jira`
namespace) and pyproject.toml (FastMCP 3, atlassian-python-api 4) at 436b37e. On Cloud the markdown
the model writes is turned into an ADF document (a paragraph per line, a bullet list for `- `
lines, `**bold**` and `` `code` `` as marks), so both tools post to `/rest/api/3/`:
`jira_add_comment` sends `{"body": <ADF>, "visibility": <the JSON text parsed>}`; `public: false`
outside an internal-only project is treated as left out (some clients fill an omitted boolean).
`jira_add_worklog` converts `time_spent` (`1h 30m`, `1d`: a day of 24 hours) into
`timeSpentSeconds`, sends `started` as it is and the comment as ADF (`/rest/api/2/` and no comment
key without one), a remaining estimate as the query `adjustEstimate=new&newEstimate=...`;
`original_estimate` goes to a separate edit of the issue, never to this request. Jira reports the
time back in its working units (a day of 8 hours, a week of 5 days). Results are the JSON text of a
summary (the ADF body flattened to text, dates as Python writes a datetime) that FastMCP hands back
as text and as `structuredContent.result`. Jira's errors (`{"errorMessages": [...], "errors":
{...}}`, a 401 in plain text) are joined by atlassian-python-api 4 (atlassian/rest_client.py
`raise_for_status` at 4a025e8) into the HTTPError's text (`Unknown error` when none), wrapped
twice (`Error adding comment: ...`, `Error calling tool 'add_comment': ...`) and handed back as an
`isError` text.
"""

import json
import re
from datetime import datetime

from .model import (
    Answer,
    Bug,
    Source,
    Tool,
    Wire,
    day_first,
    drop,
    edit,
    leak,
    lose,
    path_segment,
    put,
    rename,
)

COMMIT = "436b37e4854aacad0aee3ce47baafb6fdb4162a7"
REPO = "sooperset/mcp-atlassian"
SITE = "https://acme-eng.atlassian.net"
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json",
    "Authorization": "Basic [REDACTED]",
    "User-Agent": "python-requests/2.32.4",
}
KEY_PATTERN = r"^[A-Z][A-Z0-9_]+-\d+(?:-\d+)*$"
PROJECTS = ["OPS", "WEB", "PAY", "DATA2"]
PEOPLE = [
    ("712020:4f1c2a9e-8d3b-4a61-9c0e-2b7d5f3e1a88", "Priya Raman"),
    ("5b10ac8d82e05b22cc7d4ef5", "Tom Okafor"),
    ("712020:a0c93e51-6b2f-4d7a-8e14-93f0c2d6b7a1", "Lena Hoffmann"),
]
COMMENTS = [
    "Reproduced on staging, logs attached.",
    "Deployed **v2.14.1** to production.\nMonitoring for the next hour.",
    "Root cause: `retry_limit` was 0 in the worker config.",
    "- checked DNS\n- restarted the worker\n- cache cleared",
    "Waiting on the vendor, ETA Friday.",
]
VISIBILITY = [
    '{"type":"group","value":"jira-developers"}',
    '{"type": "role", "value": "Administrators"}',
]
INLINE = re.compile(r"`(?P<code>[^`]+)`|\*\*(?P<bold>.+?)\*\*")


def issue_key(rng) -> str:
    return f"{rng.choice(PROJECTS)}-{rng.randint(12, 2400)}"


def inline(text: str) -> list:
    """markdown_to_adf's inline nodes for plain text, `code` and **bold**."""
    nodes, pos = [], 0
    for m in INLINE.finditer(text):
        if m.start() > pos:
            nodes.append({"type": "text", "text": text[pos : m.start()]})
        mark = "code" if m.group("code") is not None else "strong"
        nodes.append({"type": "text", "text": m.group(mark if mark == "code" else "bold")})
        nodes[-1]["marks"] = [{"type": mark}]
        pos = m.end()
    if pos < len(text):
        nodes.append({"type": "text", "text": text[pos:]})
    return nodes


def adf(markdown: str) -> dict:
    """The ADF document markdown_to_adf builds (the constructs the corpus' texts use)."""
    content, lines, i = [], markdown.split("\n"), 0
    while i < len(lines):
        if re.match(r"^[-*]\s+", lines[i]):
            items = []
            while i < len(lines) and re.match(r"^[-*]\s+", lines[i]):
                text = re.sub(r"^[-*]\s+", "", lines[i])
                items.append(
                    {
                        "type": "listItem",
                        "content": [{"type": "paragraph", "content": inline(text)}],
                    }
                )
                i += 1
            content.append({"type": "bulletList", "content": items})
            continue
        if lines[i].strip():
            content.append({"type": "paragraph", "content": inline(lines[i])})
        i += 1
    return {"version": 1, "type": "doc", "content": content}


def adf_to_text(node) -> str | None:
    """adf_to_text: text nodes' text, every list of nodes joined by newlines."""
    if node is None or isinstance(node, str):
        return node
    if isinstance(node, list):
        texts = [t for t in (adf_to_text(n) for n in node) if t]
        return "\n".join(texts) if texts else None
    if node.get("type") == "text":
        return node.get("text", "")
    return adf_to_text(node.get("content")) if node.get("content") else None


def jira_time(value: str) -> str:
    """A Jira timestamp as str(parse_date(...)) writes it back."""
    return str(datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%f%z"))


def stamp(rng) -> str:
    made = f"2026-11-{rng.randint(10, 28)}T{rng.randint(8, 19):02d}:{rng.randint(10, 59)}"
    return f"{made}:{rng.randint(10, 59)}.{rng.randint(100, 999)}+0000"


def user(who: tuple) -> dict:
    account, name = who
    return {
        "self": f"{SITE}/rest/api/3/user?accountId={account}",
        "accountId": account,
        "displayName": name,
        "active": True,
        "timeZone": "Europe/Berlin",
        "accountType": "atlassian",
    }


def fastmcp_text(text: str) -> dict:
    """What FastMCP hands back for a tool returning str."""
    return {"content": [{"type": "text", "text": text}], "structuredContent": {"result": text}}


def http_error_text(answer: Answer) -> str:
    """atlassian-python-api's raise_for_status: the HTTPError's text."""
    if answer.status == 401 and not isinstance(answer.body, dict):
        return "Unauthorized (401)"
    body = answer.body
    messages = list(body.get("errorMessages") or [])
    errors = body.get("errors") or {}
    messages += list(errors.values())
    return "\n".join(messages) if messages else "Unknown error"


def failed(tool: str, what: str):
    def result(args, answer):
        text = f"Error calling tool '{tool}': Error {what}: {http_error_text(answer)}"
        return {"content": [{"type": "text", "text": text}], "isError": True}

    return result


def jira_error(status: int, messages: list, errors: dict | None = None):
    def answer(args, rng):
        body = {"errorMessages": messages, "errors": errors or {}}
        return Answer(status, body, {"Content-Type": "application/json;charset=UTF-8"})

    return answer


def unauthorized(args, rng):
    text = "Client must be authenticated to access this resource."
    return Answer(401, text, {"Content-Type": "text/plain;charset=UTF-8"})


NO_ISSUE = jira_error(404, ["Issue does not exist or you do not have permission to see it."])


def key_prop() -> dict:
    return {
        "description": "Jira issue key (e.g., 'PROJ-123', 'ACV2-642')",
        "pattern": KEY_PATTERN,
        "type": "string",
    }


def optional(kind: str, description: str) -> dict:
    return {
        "anyOf": [{"type": kind}, {"type": "null"}],
        "default": None,
        "description": description,
    }


def lose_messages(call) -> bool:
    """The error losing its messages (where it has any: an empty list lost changes nothing)."""
    body = call["answer"].body
    return (
        isinstance(body, dict) and bool(body.get("errorMessages")) and lose("/errorMessages")(call)
    )


def other_issue(segment: str):
    head, _, number = segment.rpartition("-")
    return f"{head}-{int(number) + 1}" if number.isdigit() else None


# --- jira_add_comment -----------------------------------------------------------------------------


def comment_args(rng):
    args = {"issue_key": issue_key(rng), "body": rng.choice(COMMENTS)}
    put(args, rng, "visibility", 0.2, lambda: rng.choice(VISIBILITY))
    if "visibility" not in args:
        put(args, rng, "public", 0.12, lambda: False)
    return args


def comment_request(args):
    data = {"body": adf(args["body"])}
    if args.get("visibility"):
        data["visibility"] = json.loads(args["visibility"])
    url = f"{SITE}/rest/api/3/issue/{args['issue_key']}/comment"
    return Wire("POST", url, headers=dict(HEADERS), json=data)


def comment_response(args, rng):
    ident, issue, made = str(rng.randint(10000, 99999)), rng.randint(10000, 40000), stamp(rng)
    author = user(rng.choice(PEOPLE))
    body = {
        "self": f"{SITE}/rest/api/3/issue/{issue}/comment/{ident}",
        "id": ident,
        "author": author,
        "body": adf(args["body"]),
        "updateAuthor": author,
        "created": made,
        "updated": made,
        "jsdPublic": True,
    }
    if args.get("visibility"):
        shown = json.loads(args["visibility"])
        body["visibility"] = {**shown, "identifier": shown["value"]}
    return Answer(201, body, {"Content-Type": "application/json;charset=UTF-8"})


def comment_result(args, answer):
    if answer.status >= 400:
        return failed("add_comment", "adding comment")(args, answer)
    body = answer.body
    out = {
        "id": body.get("id"),
        "body": adf_to_text(body.get("body")) or "",
        "created": jira_time(body["created"]),
        "author": body.get("author", {}).get("displayName", "Unknown"),
    }
    return fastmcp_text(json.dumps(out, indent=2, ensure_ascii=False))


NOT_IN_ROLE = jira_error(
    400, [], {"commentLevel": "You are currently not a member of the project role: Administrators."}
)

JIRA_ADD_COMMENT = Tool(
    "jira",
    "jira_add_comment",
    Source(REPO, "src/mcp_atlassian/jira/comments.py", COMMIT),
    "Add a comment to a Jira issue.\n\nArgs:\n    ctx: The FastMCP context.\n    issue_key: Jira "
    "issue key.\n    body: Comment text in Markdown.\n    visibility: (Optional) Comment "
    "visibility as JSON string.\n    public: (Optional) For JSM issues. True = customer-visible, "
    "False = internal/agent-only. Uses ServiceDesk API.\n\nReturns:\n    JSON string "
    "representing the added comment object.",
    {
        "additionalProperties": False,
        "properties": {
            "issue_key": key_prop(),
            "body": {"description": "Comment text in Markdown format", "type": "string"},
            "visibility": optional(
                "string",
                "(Optional) Comment visibility as JSON string "
                '(e.g. \'{"type":"group","value":"jira-users"}\')',
            ),
            "public": optional(
                "boolean",
                "(Optional) For JSM/Service Desk issues only. Set to true for customer-visible "
                "comment, false for internal agent-only comment. Cannot be combined with "
                "visibility.",
            ),
        },
        "required": ["issue_key", "body"],
        "type": "object",
    },
    comment_args,
    comment_request,
    comment_response,
    [NO_ISSUE, NOT_IN_ROLE, unauthorized],
    comment_result,
    [
        Bug("renamed_key", rename("body", "/body", "comment"), "/body", "/body"),
        Bug("dropped", drop("body", "/visibility"), "/visibility", "/visibility"),
        Bug(
            "type_changed",
            edit("body", "/visibility", lambda v: json.dumps(v, separators=(",", ":"))),
            "/visibility",
            "/visibility",
        ),
        Bug("wrong_path_id", path_segment(4, other_issue), "/issue_key", "path:/4"),
        Bug(
            "type_changed",
            edit("body", "/body", lambda v: adf_to_text(v) if isinstance(v, dict) else None),
            "/body",
            "/body",
        ),
        Bug(
            "error_fields_lost",
            lose_messages,
            response="/errorMessages",
            error=True,
        ),
    ],
)

# --- jira_add_worklog -----------------------------------------------------------------------------

UNITS = {"w": 7 * 24 * 3600, "d": 24 * 3600, "h": 3600, "m": 60}
# Jira's own time tracking: a week of 5 days, a day of 8 hours
WORKING = (("w", 5 * 8 * 3600), ("d", 8 * 3600), ("h", 3600), ("m", 60))
SPENT = ["1h 30m", "2h", "45m", "1d", "3h 15m", "30m", "4h", "1h"]


def seconds(text: str) -> int:
    """_parse_time_spent: `1h 30m` -> 5400 (a day of 24 hours)."""
    if text.endswith("s") and text[:-1].isdigit():
        return int(text[:-1])
    total = sum(int(v) * UNITS[u] for v, u in re.findall(r"(\d+)([wdhm])", text))
    return total or 60


def working(total: int) -> str:
    """How Jira writes seconds back in its working units."""
    parts = []
    for unit, size in WORKING:
        if total >= size:
            parts.append(f"{total // size}{unit}")
            total %= size
    return " ".join(parts)


def worklog_args(rng):
    args = {"issue_key": issue_key(rng), "time_spent": rng.choice(SPENT)}
    put(args, rng, "comment", 0.4, lambda: rng.choice(COMMENTS))
    put(args, rng, "started", 0.35, lambda: f"2026-11-{rng.randint(10, 28)}T09:00:00.000+0000")
    put(args, rng, "remaining_estimate", 0.2, lambda: rng.choice(["4h", "1d", "2h 30m"]))
    put(args, rng, "original_estimate", 0.1, lambda: rng.choice(["2d", "3d"]))
    return args


def worklog_request(args):
    data = {"timeSpentSeconds": seconds(args["time_spent"])}
    if args.get("comment"):
        data["comment"] = adf(args["comment"])
    if args.get("started"):
        data["started"] = args["started"]
    query = []
    if args.get("remaining_estimate"):
        query = [("adjustEstimate", "new"), ("newEstimate", args["remaining_estimate"])]
    version = 3 if "comment" in data else 2
    url = f"{SITE}/rest/api/{version}/issue/{args['issue_key']}/worklog"
    return Wire("POST", url, query=query, headers=dict(HEADERS), json=data)


def worklog_response(args, rng):
    spent = seconds(args["time_spent"])
    ident, issue, made = str(rng.randint(10000, 99999)), str(rng.randint(10000, 40000)), stamp(rng)
    author = user(rng.choice(PEOPLE))
    version = 3 if args.get("comment") else 2
    body = {
        "self": f"{SITE}/rest/api/{version}/issue/{issue}/worklog/{ident}",
        "author": author,
        "updateAuthor": author,
    }
    if args.get("comment"):
        body["comment"] = adf(args["comment"])
    body.update(
        {
            "created": made,
            "updated": made,
            "started": args.get("started") or made,
            "timeSpent": working(spent),
            "timeSpentSeconds": spent,
            "id": ident,
            "issueId": issue,
        }
    )
    return Answer(201, body, {"Content-Type": "application/json;charset=UTF-8"})


def worklog_result(args, answer):
    if answer.status >= 400:
        return failed("add_worklog", "adding worklog")(args, answer)
    body = answer.body
    worklog = {
        "id": body.get("id"),
        "comment": adf_to_text(body.get("comment")) or "",
        "created": jira_time(body["created"]),
        "updated": jira_time(body["updated"]),
        "started": jira_time(body["started"]),
        "time_spent": body.get("timeSpent", ""),
        "time_spent_seconds": body.get("timeSpentSeconds", 0),
        "author": body.get("author", {}).get("displayName", "Unknown"),
        "original_estimate_updated": bool(args.get("original_estimate")),
        "remaining_estimate_updated": bool(args.get("remaining_estimate")),
    }
    out = {"message": "Worklog added successfully", "worklog": worklog}
    return fastmcp_text(json.dumps(out, indent=2, ensure_ascii=False))


NO_WORKLOG_RIGHT = jira_error(
    400, ["You do not have the permission to associate a worklog to this issue."]
)


def _in_minutes(value):
    return value // 60 if isinstance(value, int) and value >= 60 else None


JIRA_ADD_WORKLOG = Tool(
    "jira",
    "jira_add_worklog",
    Source(REPO, "src/mcp_atlassian/jira/worklog.py", COMMIT),
    "Add a worklog entry to a Jira issue.\n\nArgs:\n    ctx: The FastMCP context.\n    issue_key: "
    "Jira issue key.\n    time_spent: Time spent in Jira format.\n    comment: Optional comment in "
    "Markdown.\n    started: Optional start time in ISO format.\n    original_estimate: Optional "
    "new original estimate.\n    remaining_estimate: Optional new remaining estimate.\n\n"
    "Returns:\n    JSON string representing the added worklog object.",
    {
        "additionalProperties": False,
        "properties": {
            "issue_key": key_prop(),
            "time_spent": {
                "description": "Time spent in Jira format. Examples: '1h 30m' (1 hour and 30 "
                "minutes), '1d' (1 day), '30m' (30 minutes), '4h' (4 hours)",
                "type": "string",
            },
            "comment": optional("string", "(Optional) Comment for the worklog in Markdown format"),
            "started": optional(
                "string",
                "(Optional) Start time in ISO format. If not provided, the current time will be "
                "used. Example: '2023-08-01T12:00:00.000+0000'",
            ),
            "original_estimate": optional(
                "string", "(Optional) New value for the original estimate"
            ),
            "remaining_estimate": optional(
                "string", "(Optional) New value for the remaining estimate"
            ),
        },
        "required": ["issue_key", "time_spent"],
        "type": "object",
    },
    worklog_args,
    worklog_request,
    worklog_response,
    [NO_ISSUE, NO_WORKLOG_RIGHT, unauthorized],
    worklog_result,
    [
        Bug(
            "scaled",
            edit("body", "/timeSpentSeconds", _in_minutes),
            "/time_spent",
            "/timeSpentSeconds",
        ),
        Bug("dropped", drop("body", "/started"), "/started", "/started"),
        Bug("renamed_key", rename("body", "/started", "startedAt"), "/started", "/started"),
        Bug("date_format", edit("body", "/started", day_first), "/started", "/started"),
        Bug(
            "dropped",
            drop("query", "newEstimate"),
            "/remaining_estimate",
            "query:/newEstimate",
        ),
        Bug("leaked_field", leak("query", "notifyUsers", "false"), None, "query:/notifyUsers"),
        Bug(
            "error_fields_lost",
            lose_messages,
            response="/errorMessages",
            error=True,
        ),
    ],
)

TOOLS = [JIRA_ADD_COMMENT, JIRA_ADD_WORKLOG]
