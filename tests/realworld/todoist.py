"""Todoist, as abhiz123/todoist-mcp-server calls the REST API v2.

Through @doist/todoist-api-typescript (v3).

Read: abhiz123/todoist-mcp-server src/index.ts at 7080204. `due_string` and `priority` go as they
are into a snake_case JSON body (the SDK turns its camelCase options back into the API's keys;
undefined ones vanish), with the SDK's own `X-Request-Id`. `todoist_get_tasks` sends only
`project_id` and `filter`: `priority` and `limit` filter the answer in the server.
`todoist_complete_task` looks the task up by name and closes it by id. Todoist answers errors as
plain text (`Task not found`); the SDK's axios error reaches the model as `Error: Request failed
with status code 404`, `isError: true`. Successes are handed back as prose.
"""

import hashlib

from .model import (
    Answer,
    Bug,
    Source,
    Tool,
    Wire,
    as_string,
    drop,
    edit,
    leak,
    mcp_text,
    n,
    put,
    rename,
    s,
    schema,
)

SOURCE = Source(
    "abhiz123/todoist-mcp-server", "src/index.ts", "70802047442604b197c59e3ea0706f173f4e6e48"
)
API = "https://api.todoist.com/rest/v2"
CONTENTS = [
    "Buy milk",
    "Call the dentist",
    "Send the Q3 report",
    "Renew passport",
    "Book flights to Lisbon",
]
DUE = ["tomorrow", "next Monday", "Jan 23", "every friday", "today at 5pm", "in 3 days"]


def headers(args, post=True) -> dict:
    out = {"Authorization": "Bearer [REDACTED]"}
    if post:
        digest = hashlib.sha256(repr(sorted(args.items())).encode()).hexdigest()
        out["Content-Type"] = "application/json"
        out["X-Request-Id"] = (
            f"{digest[:8]}-{digest[8:12]}-4{digest[13:16]}-8{digest[17:20]}-{digest[20:32]}"
        )
    return out


def text_error(status: int, text: str):
    return lambda args, rng: Answer(status, text)


ERRORS = [
    text_error(400, "Invalid argument value"),
    text_error(403, "Forbidden"),
    text_error(429, "Too Many Requests"),
]


def failed_or(prose):
    def result(args, answer):
        if answer.status >= 400:
            return mcp_text(
                f"Error: Request failed with status code {answer.status}", is_error=True
            )
        return mcp_text(prose(args, answer.body), is_error=False)

    return result


def task(rng, args) -> dict:
    due = None
    if args.get("due_string"):
        due = {
            "date": "2026-09-15",
            "string": args["due_string"],
            "lang": "en",
            "is_recurring": "every" in args["due_string"],
        }
    return {
        "id": str(rng.randint(7_000_000_000, 8_999_999_999)),
        "project_id": str(rng.randint(2_200_000_000, 2_299_999_999)),
        "section_id": None,
        "content": args.get("content", rng.choice(CONTENTS)),
        "description": args.get("description", ""),
        "is_completed": False,
        "labels": [],
        "parent_id": None,
        "order": rng.randint(1, 40),
        "priority": args.get("priority", 1),
        "due": due,
        "url": "https://app.todoist.com/app/task/7025",
        "comment_count": 0,
        "created_at": "2026-09-14T08:31:12.084557Z",
        "creator_id": "2671355",
        "assignee_id": None,
        "assigner_id": None,
        "duration": None,
    }


# --- todoist_create_task --------------------------------------------------------------------------


def create_args(rng):
    args = {"content": rng.choice(CONTENTS)}
    put(
        args,
        rng,
        "description",
        0.4,
        lambda: rng.choice(["Before the meeting", "Ask Ann first", "Use the new form"]),
    )
    put(args, rng, "due_string", 0.6, lambda: rng.choice(DUE))
    put(args, rng, "priority", 0.5, lambda: rng.choice([1, 2, 3, 4]))
    return args


def create_request(args):
    body = {k: args[k] for k in ("content", "description", "due_string", "priority") if k in args}
    return Wire("POST", f"{API}/tasks", headers=headers(args), json=body)


def created(args, body) -> str:
    text = f"Task created:\nTitle: {body['content']}"
    if body["description"]:
        text += f"\nDescription: {body['description']}"
    if body["due"]:
        text += f"\nDue: {body['due']['string']}"
    return text + f"\nPriority: {body['priority']}"


CREATE_TASK = Tool(
    "todoist",
    "todoist_create_task",
    SOURCE,
    "Create a new task in Todoist with optional description, due date, and priority",
    schema(
        {
            "content": s("The content/title of the task"),
            "description": s("Detailed description of the task (optional)"),
            "due_string": s(
                "Natural language due date like 'tomorrow', 'next Monday', 'Jan 23' (optional)"
            ),
            "priority": n(
                "Task priority from 1 (normal) to 4 (urgent) (optional)", enum=[1, 2, 3, 4]
            ),
        },
        ["content"],
    ),
    create_args,
    create_request,
    lambda args, rng: Answer(200, task(rng, args)),
    ERRORS,
    failed_or(created),
    [
        Bug(
            "renamed_key", rename("body", "/due_string", "dueString"), "/due_string", "/due_string"
        ),
        Bug(
            "type_changed",
            edit("body", "/priority", as_string),
            "/priority",
            "/priority",
            single=True,
        ),
        Bug("dropped", drop("body", "/content"), "/content", "/content", single=True),
        Bug("leaked_field", leak("body", "/task_name", "Buy milk"), None, "/task_name"),
    ],
)

# --- todoist_get_tasks (GET; priority and limit filter the answer in the server) ------------------


def list_args(rng):
    args = {}
    put(args, rng, "project_id", 0.4, lambda: str(rng.randint(2_200_000_000, 2_299_999_999)))
    put(
        args,
        rng,
        "filter",
        0.5,
        lambda: rng.choice(["today", "overdue", "p1", "next week", "#Work & @urgent"]),
    )
    put(args, rng, "priority", 0.3, lambda: rng.choice([1, 2, 3, 4]))
    put(args, rng, "limit", 0.4, lambda: rng.choice([5, 10, 20]))
    return args


def list_request(args):
    query = [(k, args[k]) for k in ("project_id", "filter") if args.get(k)]
    return Wire("GET", f"{API}/tasks", query, headers(args, post=False))


def listed(args, body) -> str:
    tasks = [t for t in body if not args.get("priority") or t["priority"] == args["priority"]]
    tasks = tasks[: args["limit"]] if args.get("limit") else tasks
    if not tasks:
        return "No tasks found matching the criteria"
    return "\n\n".join(f"- {t['content']}\n  Priority: {t['priority']}" for t in tasks)


GET_TASKS = Tool(
    "todoist",
    "todoist_get_tasks",
    SOURCE,
    "Get a list of tasks from Todoist with various filters",
    schema(
        {
            "project_id": s("Filter tasks by project ID (optional)"),
            "filter": s(
                "Natural language filter like 'today', 'tomorrow', 'next week', 'priority 1', "
                "'overdue' (optional)"
            ),
            "priority": n("Filter by priority level (1-4) (optional)", enum=[1, 2, 3, 4]),
            "limit": n("Maximum number of tasks to return (optional)", default=10),
        }
    ),
    list_args,
    list_request,
    lambda args, rng: Answer(
        200, [task(rng, {"priority": rng.choice([1, 2, 3, 4])}) for _ in range(rng.randint(0, 6))]
    ),
    ERRORS,
    failed_or(listed),
    [
        Bug(
            "renamed_key",
            rename("query", "project_id", "projectId"),
            "/project_id",
            "query:/project_id",
        ),
        Bug("dropped", drop("query", "filter"), "/filter", "query:/filter"),
        Bug("leaked_field", leak("query", "limit", "10"), None, "query:/limit"),
    ],
)

TOOLS = [CREATE_TASK, GET_TASKS]
