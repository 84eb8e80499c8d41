"""Cloudflare, as its own MCP servers call the v4 API.

Through its TypeScript SDK. Unseen: written after the analysis was tuned, never tuned on.

Read: cloudflare/mcp-server-cloudflare apps/workers-bindings/src/tools/kv_namespace.tools.ts and
apps/workers-bindings/src/types/kv_namespace.types.ts at 70ff690. The account id is not an
argument: the server picks it from the session (`accountTool`) and the SDK puts it in the path
(`/accounts/{account_id}/storage/kv/namespaces`), a 32-hex-digit id. `kv_namespace_create` sends
`{title}`; `kv_namespaces_list` spreads the optional `params` into the query. Every answer is the
v4 envelope `{result, success, errors: [{code, message}], messages}`; the SDK hands back `result`
(the list's page), and on an error throws with the status and the whole body as JSON, which the
tool puts in an `isError` text ("Error creating KV namespace: 400 {...}").
"""

import json

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
    rename,
    s,
    schema,
    upper,
)

SOURCE = Source(
    "cloudflare/mcp-server-cloudflare",
    "apps/workers-bindings/src/tools/kv_namespace.tools.ts",
    "70ff690553722f731849ede6ba9ce98958395a23",
)
# the account the session picked: an id of 32 hex digits
ACCOUNT = "9a7806061c88ada191ed06f989cc3dac"
API = f"https://api.cloudflare.com/client/v4/accounts/{ACCOUNT}/storage/kv/namespaces"
HEADERS = {
    "Authorization": "Bearer [REDACTED]",
    "Content-Type": "application/json",
    "Accept": "application/json",
    "User-Agent": "Cloudflare/JS 4.4.1",
    "X-Stainless-Lang": "js",
    "X-Stainless-Retry-Count": "0",
}
TITLES = ["sessions", "feature-flags", "rate-limits-prod", "cache_v2", "staging-config", "users"]


def namespace_id(rng) -> str:
    return f"{rng.getrandbits(128):032x}"


def namespace(rng, title: str | None = None) -> dict:
    return {
        "id": namespace_id(rng),
        "title": title or rng.choice(TITLES),
        "supports_url_encoding": True,
    }


def envelope(result, **more) -> dict:
    return {"result": result, "success": True, "errors": [], "messages": [], **more}


def cf_error(status: int, *errors):
    """The v4 envelope of a failure: `success: false` and `errors: [{code, message}]`."""

    def answer(args, rng):
        code, message = rng.choice(errors)
        body = {
            "result": None,
            "success": False,
            "errors": [{"code": code, "message": message}],
            "messages": [],
        }
        return Answer(status, body)

    return answer


AUTH = cf_error(403, (10000, "Authentication error"))
RATE_LIMIT = cf_error(429, (971, "Please wait and consider throttling your request speed"))


def thrown(what: str):
    """The SDK's APIError message (status, then the body as JSON) in an `isError` text."""

    def result(args, answer):
        if answer.status >= 400:
            body = json.dumps(answer.body, separators=(",", ":"))
            return mcp_text(f"Error {what}: {answer.status} {body}", is_error=True)
        return None

    return result


# --- kv_namespace_create --------------------------------------------------------------------------


def create_args(rng):
    return {"title": rng.choice(TITLES)}


def create_request(args):
    return Wire("POST", API, headers=dict(HEADERS), json={"title": args["title"]})


def create_result(args, answer):
    return thrown("creating KV namespace")(args, answer) or mcp_text(answer.body["result"])


KV_CREATE = Tool(
    "cloudflare",
    "kv_namespace_create",
    SOURCE,
    "Create a new kv namespace in your Cloudflare account",
    schema({"title": s("The human-readable name/title of the KV namespace")}, ["title"]),
    create_args,
    create_request,
    lambda args, rng: Answer(200, envelope(namespace(rng, args["title"]))),
    [
        cf_error(400, (10014, "a namespace with this account ID and title already exists")),
        AUTH,
        RATE_LIMIT,
    ],
    create_result,
    [
        Bug("renamed_key", rename("body", "/title", "name"), "/title", "/title"),
        Bug("leaked_field", leak("body", "/account_id", ACCOUNT), None, "/account_id"),
        Bug("dropped", drop("body", "/title"), "/title", "/title", single=True),
        Bug(
            "error_fields_lost",
            lose("/errors/0/message"),
            response="/errors/0/message",
            error=True,
        ),
    ],
)

# --- kv_namespaces_list ---------------------------------------------------------------------------


def list_args(rng):
    roll = rng.random()
    if roll < 0.4:
        return {}
    params = {}
    if rng.random() < 0.5:
        params["direction"] = rng.choice(["asc", "desc"])
    if rng.random() < 0.4:
        params["order"] = rng.choice(["id", "title"])
    if rng.random() < 0.5:
        params["page"] = rng.choice([1, 1, 2, 3])
    if rng.random() < 0.6:
        params["per_page"] = rng.choice([10, 20, 50, 100])
    return {"params": params}


def list_request(args):
    # `{account_id, ...params}`: the account goes to the path, the rest to the query as given
    query = [(k, str(v)) for k, v in (args.get("params") or {}).items()]
    return Wire("GET", API, query=query, headers=dict(HEADERS))


def list_response(args, rng):
    params = args.get("params") or {}
    per_page = params.get("per_page", 20)
    found = [namespace(rng) for _ in range(rng.randint(0, 4))]
    info = {
        "page": params.get("page", 1),
        "per_page": per_page,
        "count": len(found),
        "total_count": len(found),
        "total_pages": 1,
    }
    return Answer(200, envelope(found, result_info=info))


def list_result(args, answer):
    failed = thrown("listing KV namespaces")(args, answer)
    if failed:
        return failed
    namespaces = [{"id": ns["id"], "title": ns["title"]} for ns in answer.body["result"]]
    return mcp_text({"namespaces": namespaces, "count": len(namespaces)})


KV_LIST = Tool(
    "cloudflare",
    "kv_namespaces_list",
    SOURCE,
    "List all of the kv namespaces in your Cloudflare account.",
    schema(
        {
            "params": {
                "type": "object",
                "properties": {
                    "direction": s(
                        "Direction to order namespaces (asc/desc)", enum=["asc", "desc"]
                    ),
                    "order": s("Field to order namespaces by (id/title)", enum=["id", "title"]),
                    "page": n(
                        "Page number of results (starts at 1)", "integer", exclusiveMinimum=0
                    ),
                    "per_page": n(
                        "Number of namespaces per page (1-100)", "integer", minimum=1, maximum=100
                    ),
                },
                "additionalProperties": False,
                "description": "Optional parameters for listing KV namespaces",
            }
        }
    ),
    list_args,
    list_request,
    list_response,
    [AUTH, RATE_LIMIT],
    list_result,
    [
        Bug(
            "renamed_key",
            rename("query", "per_page", "perPage"),
            "/params/per_page",
            "query:/per_page",
        ),
        Bug(
            "enum_case", edit("query", "direction", upper), "/params/direction", "query:/direction"
        ),
        Bug("dropped", drop("query", "page"), "/params/page", "query:/page"),
        Bug(
            "error_fields_lost",
            lose("/errors/0/code"),
            response="/errors/0/code",
            error=True,
        ),
    ],
)

TOOLS = [KV_CREATE, KV_LIST]
