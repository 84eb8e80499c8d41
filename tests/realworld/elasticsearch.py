"""Elasticsearch, as Elastic's own MCP server calls it through the Rust client.

Unseen: written after the analysis was tuned, never tuned on.

Read: elastic/mcp-server-elasticsearch src/servers/elasticsearch/base_tools.rs and
src/servers/elasticsearch/mod.rs at a2b050d. `search` sends the model's query DSL object as the
body of `POST /{index}/_search`, with `fields` appended to (or set as) `_source`; `list_indices`
calls `GET /_cat/indices/{pattern}?format=json&h=index,status,docs.count`, whose counts come back
as text and are handed to the model as numbers (serde's `deserialize_number_from_string`, the key
kept as `docs.count`). A success is an rmcp `CallToolResult` (`isError: false`) of a text line and
the JSON as text; any failure status becomes an internal error, a JSON-RPC error whose message is
the client's ("status code 404 Not Found"), the body unread. Elasticsearch's errors are
`{"error": {"root_cause": [...], "type", "reason", ...}, "status"}`.
"""

import json

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
    path_segment,
    rename,
    s,
    schema,
)

SOURCE = Source(
    "elastic/mcp-server-elasticsearch",
    "src/servers/elasticsearch/base_tools.rs",
    "a2b050d07c1e0af19974f63efa20f4553cb43b2b",
)
HOST = "https://es.acme.internal:9200"
HEADERS = {
    "authorization": "ApiKey [REDACTED]",
    "content-type": "application/json",
    "accept": "application/json",
    "user-agent": "elasticsearch-rs/8.15.0-alpha.1 (linux; x86_64)",
}
INDICES = ["logs-checkout-2026.11", "orders", "products", "kibana_sample_data_flights"]
STATUS_TEXT = {400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 429: "Too Many Requests"}


def es_error(status: int, kind: str, reason: str):
    def answer(args, rng):
        index = args.get("index") or args.get("index_pattern") or "orders"
        cause = {"type": kind, "reason": reason.format(index=index)}
        if kind == "index_not_found_exception":
            cause.update({"resource.type": "index_or_alias", "resource.id": index, "index": index})
        return Answer(
            status,
            {"error": {"root_cause": [dict(cause)], **cause}, "status": status},
            {"content-type": "application/json", "x-elastic-product": "Elasticsearch"},
        )

    return answer


NOT_FOUND = es_error(404, "index_not_found_exception", "no such index [{index}]")
REJECTED = es_error(
    429,
    "es_rejected_execution_exception",
    "rejected execution of coordinating operation [shard_detail=[{index}][0][C]]",
)


def internal_error(answer) -> dict:
    return jsonrpc_error(f"status code {answer.status} {STATUS_TEXT.get(answer.status, '')}")


def success(*parts) -> dict:
    """rmcp's CallToolResult::success: text contents, `Content::json` written compactly."""
    content = [
        {"type": "text", "text": p if isinstance(p, str) else json.dumps(p, separators=(",", ":"))}
        for p in parts
    ]
    return {"content": content, "isError": False}


# --- search ---------------------------------------------------------------------------------------

QUERIES = [
    lambda rng: {"query": {"match": {"message": rng.choice(["timeout", "payment declined"])}}},
    lambda rng: {
        "query": {
            "bool": {
                "filter": [
                    {"term": {"service.name": rng.choice(["checkout", "cart", "search"])}},
                    {"range": {"@timestamp": {"gte": rng.choice(["now-1h", "now-15m", "now-1d"])}}},
                ]
            }
        },
        "sort": [{"@timestamp": "desc"}],
    },
    lambda rng: {"query": {"match_all": {}}},
    lambda rng: {
        "size": 0,
        "aggs": {"by_status": {"terms": {"field": "http.response.status_code", "size": 5}}},
    },
]


def search_args(rng):
    body = rng.choice(QUERIES)(rng)
    if "size" not in body and rng.random() < 0.6:
        body["size"] = rng.choice([5, 10, 10, 20, 50])
    args = {"index": rng.choice(INDICES), "query_body": body}
    if rng.random() < 0.35:
        args["fields"] = rng.sample(["@timestamp", "message", "service.name", "log.level"], 2)
    return args


def search_request(args):
    body = json.loads(json.dumps(args["query_body"]))
    if args.get("fields"):
        if isinstance(body.get("_source"), list):
            body["_source"] += args["fields"]
        else:
            body["_source"] = list(args["fields"])
    return Wire("POST", f"{HOST}/{args['index']}/_search", headers=dict(HEADERS), json=body)


def document(rng, fields) -> dict:
    doc = {
        "@timestamp": f"2026-11-0{rng.randint(1, 9)}T1{rng.randint(0, 9)}:0{rng.randint(0, 9)}:00Z",
        "message": rng.choice(["upstream timeout after 30s", "payment declined: 05", "GET /cart"]),
        "service.name": rng.choice(["checkout", "cart"]),
        "log.level": rng.choice(["error", "warn", "info"]),
    }
    return {k: v for k, v in doc.items() if not fields or k in fields}


def search_response(args, rng):
    body = args["query_body"]
    aggregating = "aggs" in body
    count = 0 if aggregating else min(body.get("size", 10), rng.randint(0, 4))
    total = count + rng.randint(0, 500)
    hits = [
        {
            "_index": args["index"],
            "_id": f"{rng.getrandbits(64):x}",
            "_score": None if "sort" in body else round(rng.uniform(0.2, 4), 4),
            "_source": document(rng, args.get("fields")),
            **({"sort": [1_793_000_000_000 + rng.randint(0, 10**6)]} if "sort" in body else {}),
        }
        for _ in range(count)
    ]
    out = {
        "took": rng.randint(1, 80),
        "timed_out": False,
        "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
        "hits": {
            "total": {"value": total, "relation": "eq"},
            "max_score": None if not hits or "sort" in body else hits[0]["_score"],
            "hits": hits,
        },
    }
    if aggregating:
        buckets = [{"key": code, "doc_count": rng.randint(1, 900)} for code in (200, 404, 500)]
        out["aggregations"] = {
            "by_status": {
                "doc_count_error_upper_bound": 0,
                "sum_other_doc_count": 0,
                "buckets": buckets,
            }
        }
    return Answer(
        200, out, {"content-type": "application/json", "x-elastic-product": "Elasticsearch"}
    )


def search_result(args, answer):
    if answer.status >= 400:
        return internal_error(answer)
    hits = answer.body["hits"]["hits"]
    aggregations = answer.body.get("aggregations") or {}
    parts = []
    if not aggregations or hits:
        total = answer.body["hits"]["total"]["value"]
        parts.append(f"Total results: {total}, showing {len(hits)}.")
    if hits:
        parts.append([hit["_source"] for hit in hits])
    if aggregations:
        parts += ["Aggregations results:", aggregations]
    return success(*parts)


SEARCH = Tool(
    "elasticsearch",
    "search",
    SOURCE,
    "Perform an Elasticsearch search with the provided query DSL.",
    schema(
        {
            "index": s("Name of the Elasticsearch index to search"),
            "fields": {
                "type": ["array", "null"],
                "items": {"type": "string"},
                "description": "Name of the fields that need to be returned (optional)",
            },
            "query_body": {
                "type": "object",
                "additionalProperties": True,
                "description": "Complete Elasticsearch query DSL object that can include query, "
                "size, from, sort, etc.",
            },
        },
        ["index", "query_body"],
    ),
    search_args,
    search_request,
    search_response,
    [
        NOT_FOUND,
        es_error(400, "parsing_exception", "unknown query [matchall]"),
        REJECTED,
    ],
    search_result,
    [
        Bug(
            "type_changed",
            edit("body", "/size", as_string),
            "/query_body/size",
            "/size",
            single=True,
        ),
        Bug("dropped", drop("body", "/_source"), "/fields", "/_source"),
        Bug(
            "wrong_path_id",
            path_segment(0, lambda v: v.split("-")[0] + "-*"),
            "/index",
            "path:/0",
        ),
        Bug("leaked_field", leak("body", "/index", "orders"), None, "/index"),
        Bug(
            "error_fields_lost",
            lose("/error/root_cause"),
            response="/error/root_cause",
            error=True,
        ),
    ],
)

# --- list_indices ---------------------------------------------------------------------------------


def indices_args(rng):
    return {"index_pattern": rng.choice(["logs-*", "*", "orders*", "products", "logs-checkout-*"])}


def indices_request(args):
    return Wire(
        "GET",
        f"{HOST}/_cat/indices/{args['index_pattern']}",
        query=[("format", "json"), ("h", "index,status,docs.count")],
        headers=dict(HEADERS),
    )


def indices_response(args, rng):
    stem = args["index_pattern"].rstrip("*") or "logs-"
    names = (
        [stem]
        if "*" not in args["index_pattern"]
        else [
            f"{stem}{suffix}" for suffix in rng.sample(["2026.10", "2026.11", "v2", "archive"], 2)
        ]
    )
    rows = [
        {"index": name, "status": rng.choice(["open", "open", "close"]), "docs.count": str(count)}
        for name in names
        for count in [rng.randint(0, 2_000_000)]
    ]
    return Answer(200, rows, {"content-type": "application/json"})


def indices_result(args, answer):
    if answer.status >= 400:
        return internal_error(answer)
    rows = [
        {"index": r["index"], "status": r["status"], "docs.count": int(r["docs.count"])}
        for r in answer.body
    ]
    return success(f"Found {len(rows)} indices:", rows)


LIST_INDICES = Tool(
    "elasticsearch",
    "list_indices",
    SOURCE,
    "List all available Elasticsearch indices",
    schema(
        {"index_pattern": s("Index pattern of Elasticsearch indices to list")}, ["index_pattern"]
    ),
    indices_args,
    indices_request,
    indices_response,
    [
        es_error(
            401,
            "security_exception",
            "unable to authenticate with provided credentials and anonymous access is not allowed",
        ),
        NOT_FOUND,
    ],
    indices_result,
    [
        Bug(
            "wrong_path_id",
            path_segment(2, lambda v: v.rstrip("*") or None),
            "/index_pattern",
            "path:/2",
        ),
        Bug("renamed_key", rename("query", "h", "columns"), None, "query:/h"),
        Bug("dropped", drop("query", "format"), None, "query:/format"),
        Bug("error_fields_lost", lose("/error/reason"), response="/error/reason", error=True),
    ],
)

TOOLS = [SEARCH, LIST_INDICES]
