"""Asana, as roychri/mcp-server-asana calls the Asana API.

Through the `asana` Node client (v3).

Read: roychri/mcp-server-asana src/asana-client-wrapper.ts, src/tool-handler.ts and
src/tools/task-tools.ts at d02f436. Bodies are wrapped in `{"data": ...}`; `asana_create_task` moves
`project_id` into the `projects` list and fills `resource_subtype` and `custom_fields` itself;
`asana_search_tasks` renames `assignee_any` to `assignee.any` and the like (a subset of its ~60
filters is rebuilt here). Asana's errors are `{"errors": [{"message", "help"}]}`. The tool hands
back the JSON of `response.data`, and on a failure `{"error": "<message>"}` as text (no `isError`).
"""

from .model import (
    Answer,
    Bug,
    Source,
    Tool,
    Wire,
    b,
    day_first,
    drop,
    edit,
    leak,
    lose,
    mcp_text,
    put,
    rename,
    s,
    schema,
    strings,
    text_of,
    unwrap,
)

SOURCE = Source(
    "roychri/mcp-server-asana",
    "src/asana-client-wrapper.ts",
    "d02f4368a3c16560390311566583c58c9e226a5a",
)
API = "https://app.asana.com/api/1.0"
HEADERS = {
    "Authorization": "Bearer [REDACTED]",
    "Accept": "application/json",
    "Content-Type": "application/json",
}
HELP = (
    "For more information on API status codes and how to handle them, read the docs on errors: "
    "https://developers.asana.com/docs/errors"
)
STATUS_TEXT = {
    400: "Bad Request",
    402: "Payment Required",
    403: "Forbidden",
    404: "Not Found",
    429: "Too Many Requests",
}


def gid(rng) -> str:
    return str(rng.randint(1_200_000_000_000_000, 1_209_999_999_999_999))


def asana_error(status: int, *messages):
    def answer(args, rng):
        headers = {"Retry-After": "30"} if status == 429 else {}
        return Answer(
            status, {"errors": [{"message": rng.choice(messages), "help": HELP}]}, headers
        )

    return answer


def data_or_error(args, answer):
    if answer.status >= 400:
        return mcp_text({"error": STATUS_TEXT.get(answer.status, "Internal Server Error")})
    return mcp_text(answer.body["data"])


RATE_LIMIT = asana_error(429, "You have made too many requests recently. Please, be chill.")

# --- asana_create_task ----------------------------------------------------------------------------

NAMES = [
    "Draft Q4 roadmap",
    "Review vendor contract",
    "Fix login redirect",
    "Plan offsite",
    "Update pricing page",
]


def task_args(rng):
    args = {"project_id": gid(rng), "name": rng.choice(NAMES)}
    put(
        args,
        rng,
        "notes",
        0.6,
        lambda: rng.choice(["See the doc.", "Blocked on legal.", "Due before the launch."]),
    )
    put(args, rng, "due_on", 0.5, lambda: f"2026-{rng.randint(9, 12):02d}-{rng.randint(1, 28):02d}")
    put(args, rng, "assignee", 0.5, lambda: rng.choice(["me", gid(rng)]))
    put(args, rng, "followers", 0.2, lambda: [gid(rng)])
    put(args, rng, "resource_subtype", 0.15, lambda: "milestone")
    return args


def task_request(args):
    data = {k: v for k, v in args.items() if k != "project_id"}
    data["projects"] = [args["project_id"]]
    data["resource_subtype"] = args.get("resource_subtype") or "default_task"
    data["custom_fields"] = args.get("custom_fields") or {}
    return Wire("POST", f"{API}/tasks", headers=dict(HEADERS), json={"data": data})


def task_response(args, rng):
    task = gid(rng)
    return Answer(
        201,
        {
            "data": {
                "gid": task,
                "resource_type": "task",
                "resource_subtype": args.get("resource_subtype", "default_task"),
                "name": args["name"],
                "notes": args.get("notes", ""),
                "completed": False,
                "due_on": args.get("due_on"),
                "due_at": None,
                "assignee": {"gid": gid(rng), "name": "Ann Lee", "resource_type": "user"}
                if "assignee" in args
                else None,
                "projects": [
                    {"gid": args["project_id"], "name": "Roadmap", "resource_type": "project"}
                ],
                "followers": [
                    {"gid": f, "resource_type": "user"} for f in args.get("followers", [])
                ],
                "created_at": "2026-10-02T08:31:12.845Z",
                "permalink_url": f"https://app.asana.com/0/{args['project_id']}/{task}",
            }
        },
    )


CREATE_TASK = Tool(
    "asana",
    "asana_create_task",
    SOURCE,
    "Create a new task in a project",
    schema(
        {
            "project_id": s("The project to create the task in"),
            "name": s("Name of the task"),
            "notes": s("Description of the task"),
            "html_notes": s("HTML-like formatted description of the task."),
            "due_on": s("Due date in YYYY-MM-DD format"),
            "assignee": s("Assignee (can be 'me' or a user ID)"),
            "followers": strings("Array of user IDs to add as followers"),
            "parent": s("The parent task ID to set this task under"),
            "projects": strings("Array of project IDs to add this task to"),
            "resource_subtype": s(
                "The type of the task. Can be one of 'default_task' or 'milestone'"
            ),
            "custom_fields": {
                "type": "object",
                "description": "Object mapping custom field GID strings to their values.",
            },
        },
        ["project_id", "name"],
    ),
    task_args,
    task_request,
    task_response,
    [
        asana_error(
            400, "projects: [0]: Not a recognized ID: 12", "assignee: Not a valid user: 'me'"
        ),
        asana_error(403, "You do not have access to this project."),
        RATE_LIMIT,
    ],
    data_or_error,
    [
        Bug("unwrapped", unwrap("/data", "name"), "/name", "/data/name"),
        Bug("date_format", edit("body", "/data/due_on", day_first), "/due_on", "/data/due_on"),
        Bug(
            "leaked_field",
            leak("body", "/data/project_id", "1204000000000001"),
            None,
            "/data/project_id",
        ),
        Bug("renamed_key", rename("body", "/data/notes", "description"), "/notes", "/data/notes"),
        Bug(
            "error_fields_lost", lose("/errors/0/message"), response="/errors/0/message", error=True
        ),
    ],
)

# --- asana_search_tasks (GET /workspaces/{workspace}/tasks/search; `assignee_any` -> `assignee.any`) ---------

DOTTED = {
    "assignee_any": "assignee.any",
    "projects_any": "projects.any",
    "due_on_before": "due_on.before",
}


def search_args(rng):
    args = {"workspace": gid(rng)}
    put(args, rng, "text", 0.6, lambda: rng.choice(["invoice", "roadmap", "bug", "launch"]))
    put(args, rng, "assignee_any", 0.3, lambda: rng.choice(["me", gid(rng)]))
    put(
        args, rng, "projects_any", 0.3, lambda: ",".join(gid(rng) for _ in range(rng.randint(1, 2)))
    )
    put(args, rng, "due_on_before", 0.2, lambda: f"2026-{rng.randint(9, 12):02d}-15")
    put(args, rng, "completed", 0.4, lambda: rng.random() < 0.3)
    put(
        args,
        rng,
        "sort_by",
        0.3,
        lambda: rng.choice(["due_date", "created_at", "modified_at", "likes"]),
    )
    put(args, rng, "sort_ascending", 0.2, lambda: rng.random() < 0.5)
    put(
        args,
        rng,
        "opt_fields",
        0.3,
        lambda: rng.choice(["name,due_on,completed", "name,assignee.name"]),
    )
    return args


def search_request(args):
    params = {
        DOTTED.get(k, k): v
        for k, v in args.items()
        if k not in ("workspace", "text", "completed", "sort_by", "sort_ascending", "opt_fields")
    }
    for key in ("text", "completed", "sort_by", "sort_ascending", "opt_fields"):
        if key in args and args[key] not in ("", None):
            params[key] = args[key]
    query = [(k, text_of(v)) for k, v in params.items()]
    return Wire("GET", f"{API}/workspaces/{args['workspace']}/tasks/search", query, dict(HEADERS))


def search_response(args, rng):
    tasks = [
        {
            "gid": gid(rng),
            "name": rng.choice(NAMES),
            "resource_type": "task",
            "resource_subtype": "default_task",
        }
        for _ in range(rng.randint(0, 5))
    ]
    return Answer(200, {"data": tasks})


SEARCH_TASKS = Tool(
    "asana",
    "asana_search_tasks",
    SOURCE,
    "Search tasks in a workspace with advanced filtering options",
    schema(
        {
            "workspace": s("The workspace to search in"),
            "text": s("Text to search for in task names and descriptions"),
            "assignee_any": s("Comma-separated list of user IDs"),
            "projects_any": s("Comma-separated list of project IDs"),
            "due_on_before": s("ISO 8601 date string"),
            "completed": b("Filter for completed tasks"),
            "sort_by": s(
                "Sort by: due_date, created_at, completed_at, likes, modified_at",
                default="modified_at",
            ),
            "sort_ascending": b("Sort in ascending order"),
            "opt_fields": s("Comma-separated list of optional fields to include"),
        },
        ["workspace"],
    ),
    search_args,
    search_request,
    search_response,
    [
        asana_error(400, "assignee.any: Not a valid user: 'ann'", "sort_by: Unknown value: 'due'"),
        asana_error(402, "Search is only available to premium users."),
        RATE_LIMIT,
    ],
    data_or_error,
    [
        Bug(
            "renamed_key",
            rename("query", "assignee.any", "assignee_any"),
            "/assignee_any",
            "query:/assignee.any",
        ),
        Bug(
            "value_changed",
            edit("query", "completed", lambda v: "false" if v == "true" else "true"),
            "/completed",
            "query:/completed",
            single=True,
        ),
        Bug("dropped", drop("query", "text"), "/text", "query:/text"),
        Bug(
            "date_format",
            edit("query", "due_on.before", day_first),
            "/due_on_before",
            "query:/due_on.before",
        ),
    ],
)

# --- asana_create_task_story (POST /tasks/{task_id}/stories) --------------------------------------


def story_args(rng):
    return {
        "task_id": gid(rng),
        "text": rng.choice(["Done, see the PR.", "Moved to next sprint.", "Waiting on design."]),
    }


def story_request(args):
    url = f"{API}/tasks/{args['task_id']}/stories"
    return Wire("POST", url, headers=dict(HEADERS), json={"data": {"text": args["text"]}})


def story_response(args, rng):
    return Answer(
        201,
        {
            "data": {
                "gid": gid(rng),
                "resource_type": "story",
                "created_at": "2026-10-02T08:31:12.845Z",
                "resource_subtype": "comment_added",
                "text": args["text"],
                "type": "comment",
                "is_pinned": False,
                "created_by": {"gid": gid(rng), "name": "Ann Lee", "resource_type": "user"},
            }
        },
    )


CREATE_STORY = Tool(
    "asana",
    "asana_create_task_story",
    SOURCE,
    "Create a comment or story on a task.",
    schema(
        {
            "task_id": s("The task ID to add the story to"),
            "text": s("The plain text content of the story/comment."),
            "html_text": s("HTML-like formatted text for the comment."),
        },
        ["task_id"],
    ),
    story_args,
    story_request,
    story_response,
    [asana_error(404, "task: Not a recognized ID: 1"), RATE_LIMIT],
    data_or_error,
    [
        Bug("unwrapped", unwrap("/data", "text"), "/text", "/data/text"),
        Bug("dropped", drop("body", "/data/text"), "/text", "/data/text", single=True),
    ],
)

TOOLS = [CREATE_TASK, SEARCH_TASKS, CREATE_STORY]
