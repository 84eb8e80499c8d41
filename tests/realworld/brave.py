"""Brave Search, as its own MCP server calls the Search API.

Unseen: written for the fourth unseen part, measured before any change made for it.

Read: brave/brave-search-mcp-server src/BraveAPI/index.ts, src/tools/web/index.ts and params.ts,
src/tools/news/index.ts and params.ts, src/server.ts, src/utils.ts and package.json (the MCP SDK
1.13.3, zod 3.25) at 2748b47. Both tools are a GET to `https://api.search.brave.com/res/v1/<kind>/
search` with the key in `X-Subscription-Token`. The query string is written from the arguments as
zod parsed them, so in the order of the tool's schema, not the model's: `query` is sent as `q`,
numbers and booleans as their text, a list (`result_filter`, `goggles`) joined by commas, and
`result_filter` replaced by `summarizer` when `summary` is true (a `.default()` wrapped in
`.optional()` is never applied: what the model left out is not sent). The web tool hands back one
text per result, each the JSON of a few of the result's fields (`url`, `title`, `description`,
`extra_snippets`), then the news results the API mixed in, and a first text `Summarizer key: ...`
when a summary was asked; no web result at all is an `isError` text `No web results found`. The
news tool hands back one JSON text per result with `breaking` defaulted to false and the
thumbnail's `src` as `thumbnail`. An error answer (Brave's `{"type": "ErrorResponse", "error": {id,
status, code, detail, meta}, "time"}`) is thrown as `<status> <statusText>` and the body's JSON
indented by 2, which the SDK's McpServer hands back as an `isError` text.
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
    plus_one,
    put,
    rename,
    some,
    text_of,
)

COMMIT = "2748b47a378dc1a7e21551a8bd7726af38f65b6c"
REPO = "brave/brave-search-mcp-server"
API = "https://api.search.brave.com/res/v1"
HEADERS = {
    "Accept": "application/json",
    "Accept-Encoding": "gzip",
    "X-Subscription-Token": "[REDACTED]",
}
DRAFT7 = "http://json-schema.org/draft-07/schema#"
QUERIES = [
    "best hiking trails near Denver",
    "python asyncio timeout example",
    "how to descale an espresso machine",
    "EU AI Act obligations for deployers",
    "tomato plant yellow leaves",
    "Rust borrow checker lifetimes explained",
]
NEWS_QUERIES = ["central bank rate decision", "Mars sample return", "chip export rules", "heatwave"]
SITES = [
    ("en.wikipedia.org", "Wikipedia"),
    ("www.reddit.com", "Reddit"),
    ("stackoverflow.com", "Stack Overflow"),
    ("www.nytimes.com", "The New York Times"),
    ("docs.python.org", "Python documentation"),
    ("www.theverge.com", "The Verge"),
]
COUNTRIES = ["US", "GB", "DE", "FR", "CA", "AU"]
LANGS = ["en", "de", "fr", "es"]
FRESHNESS = ["pd", "pw", "pm", "py", "2026-10-01to2026-11-30"]
# the status texts fetch's Response carries
REASONS = {422: "Unprocessable Entity", 429: "Too Many Requests"}
FILTERS = ["web", "query", "news", "videos", "discussions", "faq"]


def uuid(rng) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def query_of(args: dict, order: list) -> list:
    """The query string as issueRequest writes it, keys in the schema's order."""
    out = []
    for key in order:
        if key not in args:
            continue
        value = args[key]
        if key == "result_filter":
            if args.get("summary") is True:
                out.append((key, "summarizer"))
            elif value:
                out.append((key, ",".join(value)))
        elif key == "goggles":
            if value:
                out.append((key, ",".join(value) if isinstance(value, list) else value))
        else:
            out.append(("q" if key == "query" else key, text_of(value)))
    return out


def brave_error(status: int, code: str, detail: str, meta: dict):
    def answer(args, rng):
        error = {"id": uuid(rng), "status": status, "code": code, "detail": detail, "meta": meta}
        body = {"type": "ErrorResponse", "error": error, "time": 1795000000 + rng.randint(0, 9999)}
        headers = {"Content-Type": "application/json"}
        if status == 429:
            headers["X-RateLimit-Limit"] = "1, 2000"
            headers["X-RateLimit-Remaining"] = "0, 1882"
        return Answer(status, body, headers)

    return answer


RATE = brave_error(
    429,
    "RATE_LIMITED",
    "Request rate limit exceeded for plan.",
    {
        "plan": "Free",
        "rate_limit": 1,
        "rate_current": 2,
        "quota_limit": 2000,
        "quota_current": 118,
        "component": "rate_limiter",
    },
)
TOKEN = brave_error(
    422,
    "SUBSCRIPTION_TOKEN_INVALID",
    "The provided subscription token is invalid.",
    {"component": "authentication"},
)


def thrown(answer: Answer) -> dict:
    """issueRequest's Error (status, status text, the body indented) as McpServer hands it."""
    text = f"{answer.status} {REASONS[answer.status]}\n{json.dumps(answer.body, indent=2)}"
    return {"content": [{"type": "text", "text": text}], "isError": True}


def texts(items: list) -> list:
    return [{"type": "text", "text": json.dumps(i, separators=(",", ":"))} for i in items]


def page(rng, query: str, k: int) -> dict:
    host, name = rng.choice(SITES)
    slug = query.lower().replace(" ", "-")[:40]
    return {
        "title": f"{query.title()} - {name}",
        "url": f"https://{host}/{slug}-{k}",
        "is_source_local": False,
        "is_source_both": False,
        "description": f"Everything about <strong>{query}</strong>, part {k}.",
        "page_age": f"2026-{rng.randint(1, 11):02d}-{rng.randint(10, 28)}T08:14:00",
        "profile": {
            "name": name,
            "url": f"https://{host}/",
            "long_name": host,
            "img": f"https://imgs.search.brave.com/{rng.getrandbits(64):016x}/{host}",
        },
        "language": "en",
        "family_friendly": True,
        "type": "search_result",
        "subtype": "generic",
        "is_live": False,
        "meta_url": {
            "scheme": "https",
            "netloc": host,
            "hostname": host,
            "favicon": f"https://imgs.search.brave.com/{rng.getrandbits(64):016x}/favicon",
            "path": f"› {slug}-{k}",
        },
        "age": f"November {rng.randint(1, 28)}, 2026",
    }


def search_query(args, rng) -> dict:
    return {
        "original": args["query"],
        "show_strict_warning": False,
        "is_navigational": False,
        "is_news_breaking": False,
        "spellcheck_off": not args.get("spellcheck", True),
        "country": args.get("country", "US").lower(),
        "bad_results": False,
        "should_fallback": False,
        "postal_code": "",
        "city": "",
        "header_country": "",
        "more_results_available": True,
        "state": "",
    }


# --- brave_web_search -----------------------------------------------------------------------------

WEB_ORDER = [
    "query",
    "country",
    "search_lang",
    "ui_lang",
    "count",
    "offset",
    "safesearch",
    "freshness",
    "text_decorations",
    "spellcheck",
    "result_filter",
    "goggles",
    "units",
    "extra_snippets",
    "summary",
]


def web_args(rng):
    args = {"query": rng.choice(QUERIES)}
    put(args, rng, "count", 0.5, lambda: rng.choice([5, 10, 15, 20]))
    put(args, rng, "country", 0.3, lambda: rng.choice(COUNTRIES))
    put(args, rng, "search_lang", 0.15, lambda: rng.choice(LANGS))
    put(args, rng, "offset", 0.15, lambda: rng.randint(1, 3))
    # the schema's enum takes no date range for the web (zod would refuse one)
    put(args, rng, "freshness", 0.2, lambda: rng.choice(FRESHNESS[:4]))
    put(args, rng, "safesearch", 0.1, lambda: rng.choice(["off", "moderate", "strict"]))
    put(args, rng, "result_filter", 0.25, lambda: rng.sample(FILTERS[:4], rng.randint(1, 2)))
    put(args, rng, "extra_snippets", 0.15, lambda: True)
    put(args, rng, "summary", 0.1, lambda: True)
    put(args, rng, "text_decorations", 0.1, lambda: False)
    return args


def web_request(args):
    query = query_of(args, WEB_ORDER)
    return Wire("GET", f"{API}/web/search", query=query, headers=dict(HEADERS))


def web_response(args, rng):
    n = 0 if some(rng, 0.05) else rng.randint(2, min(args.get("count", 10), 6))
    results = [page(rng, args["query"], k) for k in range(n)]
    if args.get("extra_snippets"):
        for r in results:
            r["extra_snippets"] = [f"{args['query']} in short.", "More detail further down."]
    if args.get("text_decorations") is False:
        for r in results:
            r["description"] = r["description"].replace("<strong>", "").replace("</strong>", "")
    body = {"query": search_query(args, rng), "mixed": {"type": "mixed", "main": [], "side": []}}
    body["mixed"]["main"] = [{"type": "web", "index": i, "all": False} for i in range(n)]
    body["type"] = "search"
    body["web"] = {"type": "search", "results": results, "family_friendly": True}
    filters = args.get("result_filter")
    if (filters is None or "news" in filters) and some(rng, 0.4):
        body["news"] = {"type": "news", "results": news_items(rng, args["query"], 2)}
        body["news"]["mutated_by_goggles"] = False
    if args.get("summary"):
        key = {"query": args["query"], "country": "us", "language": "en", "safesearch": "moderate"}
        body["summarizer"] = {"type": "summarizer", "key": json.dumps(key)}
    return Answer(200, body, {"Content-Type": "application/json"})


def web_result(args, answer):
    if answer.status >= 400:
        return thrown(answer)
    body = answer.body
    content = []
    if body.get("summarizer"):
        content.append({"type": "text", "text": f"Summarizer key: {body['summarizer']['key']}"})
    web = body.get("web") or {}
    if not web.get("results"):
        content.append({"type": "text", "text": "No web results found"})
        return {"content": content, "isError": True}
    keys = ("url", "title", "description", "extra_snippets")
    content += texts([{k: r[k] for k in keys if k in r} for r in web["results"]])
    news = body.get("news") or {}
    keys = ("source", "breaking", "is_live", "age", "url", "title", "description")
    content += texts(
        [
            {
                "mutated_by_goggles": news.get("mutated_by_goggles"),
                **{k: r[k] for k in keys if k in r},
            }
            for r in news.get("results") or []
        ]
    )
    return {"content": content, "isError": False}


def zod_schema(properties: dict) -> dict:
    return {
        "type": "object",
        "properties": properties,
        "required": ["query"],
        "additionalProperties": False,
        "$schema": DRAFT7,
    }


QUERY_PROP = {
    "type": "string",
    "maxLength": 400,
    "description": "Search query (max 400 chars, 50 words)",
}
SAFESEARCH = {
    "type": "string",
    "enum": ["off", "moderate", "strict"],
    "default": "moderate",
    "description": "Filters search results for adult content. The following values are supported: "
    "'off' - No filtering. 'moderate' - Filters explicit content (e.g., images and videos), but "
    "allows adult domains in search results. 'strict' - Drops all adult content from search "
    "results. The default value is 'moderate'.",
}
GOGGLES = {
    "type": "array",
    "items": {"type": "string"},
    "description": "Goggles act as a custom re-ranking on top of Brave's search index. The "
    "parameter supports both a url where the Goggle is hosted or the definition of the Goggle.",
}


def _lower(value):
    return value.lower() if value.lower() != value else None


def _semicolons(value):
    return value.replace(",", ";") if "," in value else None


BRAVE_WEB_SEARCH = Tool(
    "brave",
    "brave_web_search",
    Source(REPO, "src/tools/web/index.ts", COMMIT),
    "Performs web searches using the Brave Search API and returns comprehensive search results "
    "with rich metadata. When to use: General web searches for information, facts, or current "
    "topics. Returns a JSON list of web results with title, description, and URL. When the "
    '"results_filter" parameter is empty, JSON results may also contain FAQ, Discussions, News, '
    "and Video results.",
    zod_schema(
        {
            "query": QUERY_PROP,
            "country": {
                "type": "string",
                "enum": ["ALL", "AR", "AU", "AT", "BE", "BR", "CA", "DE", "ES", "FR", "GB", "US"],
                "default": "US",
                "description": "Search query country, where the results come from. The country "
                "string is limited to 2 character country codes of supported countries.",
            },
            "search_lang": {
                "type": "string",
                "enum": ["ar", "de", "en", "en-gb", "es", "fr", "it", "jp", "nl", "pt-br"],
                "default": "en",
                "description": "Search language preference. The 2 or more character language "
                "code for which the search results are provided.",
            },
            "ui_lang": {
                "type": "string",
                "enum": ["en-US", "en-GB", "de-DE", "fr-FR", "es-ES"],
                "default": "en-US",
                "description": "The language of the UI.",
            },
            "count": {
                "type": "integer",
                "minimum": 1,
                "maximum": 20,
                "default": 10,
                "description": "Number of results (1-20, default 10). Applies only to web search "
                "results (i.e., has no effect on locations, news, videos, etc.)",
            },
            "offset": {
                "type": "integer",
                "minimum": 0,
                "maximum": 9,
                "default": 0,
                "description": "Pagination offset (max 9, default 0)",
            },
            "safesearch": SAFESEARCH,
            "freshness": {
                "type": "string",
                "enum": ["pd", "pw", "pm", "py", "YYYY-MM-DDtoYYYY-MM-DD"],
                "description": "Filters search results by when they were discovered. 'pd' - "
                "Discovered within the last 24 hours. 'pw' - last 7 days. 'pm' - last 31 days. "
                "'py' - last 365 days. 'YYYY-MM-DDtoYYYY-MM-DD' - Timeframe is also supported by "
                "specifying the date range e.g. 2022-04-01to2022-07-30.",
            },
            "text_decorations": {
                "type": "boolean",
                "default": True,
                "description": "Whether display strings (e.g. result snippets) should include "
                "decoration markers (e.g. highlighting characters).",
            },
            "spellcheck": {
                "type": "boolean",
                "default": True,
                "description": "Whether to spellcheck the provided query.",
            },
            "result_filter": {
                "type": "array",
                "items": {
                    "type": "string",
                    "enum": [
                        "discussions",
                        "faq",
                        "infobox",
                        "news",
                        "query",
                        "summarizer",
                        "videos",
                        "web",
                        "locations",
                        "rich",
                    ],
                },
                "default": ["web", "query"],
                "description": "Result filter (default ['web', 'query'])",
            },
            "goggles": GOGGLES,
            "units": {
                "type": "string",
                "enum": ["metric", "imperial"],
                "description": "The measurement units. If not provided, units are derived from "
                "search country.",
            },
            "extra_snippets": {
                "type": "boolean",
                "description": "A snippet is an excerpt from a page you get as a result of the "
                "query, and extra_snippets allow you to get up to 5 additional, alternative "
                "excerpts.",
            },
            "summary": {
                "type": "boolean",
                "description": "This parameter enables summary key generation in web search "
                "results. This is required for summarizer to be enabled.",
            },
        }
    ),
    web_args,
    web_request,
    web_response,
    [RATE, TOKEN],
    web_result,
    [
        Bug("renamed_key", rename("query", "q", "query"), "/query", "query:/q"),
        Bug("dropped", drop("query", "count"), "/count", "query:/count"),
        Bug(
            "value_changed",
            edit("query", "offset", plus_one),
            "/offset",
            "query:/offset",
            single=True,
        ),
        Bug("enum_case", edit("query", "country", _lower), "/country", "query:/country"),
        Bug(
            "list_joined",
            edit("query", "result_filter", _semicolons),
            "/result_filter",
            "query:/result_filter",
        ),
        Bug("leaked_field", leak("query", "source", "mcp"), None, "query:/source"),
        Bug("error_fields_lost", lose("/error/detail"), response="/error/detail", error=True),
    ],
)

# --- brave_news_search ----------------------------------------------------------------------------

NEWS_ORDER = [
    "query",
    "country",
    "search_lang",
    "ui_lang",
    "count",
    "offset",
    "spellcheck",
    "safesearch",
    "freshness",
    "extra_snippets",
    "goggles",
]


def news_items(rng, query: str, n: int, snippets: bool = False) -> list:
    out = []
    for k in range(n):
        host, name = rng.choice(SITES)
        slug = query.lower().replace(" ", "-")
        item = {
            "type": "news_result",
            "title": f"{query.capitalize()}: what we know ({name})",
            "url": f"https://{host}/news/2026/11/{slug}-{k}",
            "description": f"Latest on <strong>{query}</strong> as of this morning.",
            "age": f"{rng.randint(1, 23)} hours ago",
            "page_age": f"2026-11-{rng.randint(20, 28)}T0{rng.randint(0, 9)}:30:00",
            "meta_url": {"scheme": "https", "netloc": host, "hostname": host, "path": "› news"},
        }
        if some(rng, 0.3):
            item["breaking"] = True
        if some(rng, 0.8):
            h = f"{rng.getrandbits(96):024x}"
            item["thumbnail"] = {
                "src": f"https://imgs.search.brave.com/{h}/rs:fit:200:200:1/g:ce/{host}",
                "original": f"https://{host}/img/{h}.jpg",
            }
        if snippets:
            item["extra_snippets"] = ["Officials said more details would follow."]
        out.append(item)
    return out


def news_args(rng):
    args = {"query": rng.choice(NEWS_QUERIES)}
    put(args, rng, "count", 0.4, lambda: rng.choice([5, 10, 20]))
    put(args, rng, "freshness", 0.45, lambda: rng.choice(FRESHNESS))
    put(args, rng, "country", 0.25, lambda: rng.choice(COUNTRIES))
    put(args, rng, "search_lang", 0.15, lambda: rng.choice(LANGS))
    put(args, rng, "safesearch", 0.1, lambda: rng.choice(["off", "strict"]))
    put(args, rng, "extra_snippets", 0.15, lambda: rng.choice([True, False]))
    put(args, rng, "spellcheck", 0.1, lambda: False)
    return args


def news_request(args):
    query = query_of(args, NEWS_ORDER)
    return Wire("GET", f"{API}/news/search", query=query, headers=dict(HEADERS))


def news_response(args, rng):
    n = rng.randint(0, min(args.get("count", 20), 5))
    items = news_items(rng, args["query"], n, bool(args.get("extra_snippets")))
    query = {"original": args["query"], "spellcheck_off": not args.get("spellcheck", True)}
    body = {"type": "news", "query": query, "results": items}
    return Answer(200, body, {"Content-Type": "application/json"})


def news_result(args, answer):
    if answer.status >= 400:
        return thrown(answer)
    out = []
    for r in answer.body["results"]:
        item = {"url": r["url"], "title": r["title"], "age": r.get("age")}
        item["page_age"] = r.get("page_age")
        item["breaking"] = r.get("breaking", False)
        item["description"] = r.get("description")
        if "extra_snippets" in r:
            item["extra_snippets"] = r["extra_snippets"]
        if "thumbnail" in r:
            item["thumbnail"] = r["thumbnail"]["src"]
        out.append(item)
    return {"content": texts(out)}


def _day_month(value):
    if "to" not in value or len(value) != 22:
        return None
    start, end = value.split("to")
    return f"{start[8:10]}/{start[5:7]}/{start[:4]}to{end[8:10]}/{end[5:7]}/{end[:4]}"


BRAVE_NEWS_SEARCH = Tool(
    "brave",
    "brave_news_search",
    Source(REPO, "src/tools/news/index.ts", COMMIT),
    "This tool searches for news articles using Brave's News Search API based on the user's "
    "query. Use it when you need current news information, breaking news updates, or articles "
    "about specific topics, events, or entities. Returns a JSON list of news-related results "
    "with title, url, and description.",
    zod_schema(
        {
            "query": QUERY_PROP,
            "country": {
                "type": "string",
                "default": "US",
                "description": "Search query country, where the news come from.",
            },
            "search_lang": {
                "type": "string",
                "default": "en",
                "description": "Search language preference.",
            },
            "ui_lang": {"type": "string", "default": "en-US", "description": "User interface."},
            "count": {
                "type": "integer",
                "minimum": 1,
                "maximum": 50,
                "default": 20,
                "description": "Number of results (1-50, default 20)",
            },
            "offset": {
                "type": "integer",
                "minimum": 0,
                "maximum": 9,
                "default": 0,
                "description": "Pagination offset (max 9, default 0)",
            },
            "spellcheck": {
                "type": "boolean",
                "default": True,
                "description": "Whether to spellcheck provided query.",
            },
            "safesearch": {
                **SAFESEARCH,
                "description": "Filters search results for adult content. 'off' - No "
                "filtering. 'moderate' - Filter out explicit content. 'strict' - Filter out "
                "explicit and suggestive content. The default value is 'moderate'.",
            },
            "freshness": {
                "anyOf": [
                    {"type": "string", "enum": ["pd", "pw", "pm", "py"]},
                    {"type": "string"},
                ],
                "default": "pd",
                "description": "Filters search results by when they were discovered. 'pd' - "
                "Discovered within the last 24 hours. 'pw' - last 7 Days. 'pm' - last 31 Days. "
                "'py' - last 365 Days. 'YYYY-MM-DDtoYYYY-MM-DD' - Timeframe is also supported.",
            },
            "extra_snippets": {
                "type": "boolean",
                "default": False,
                "description": "A snippet is an excerpt from a page you get as a result of the "
                "query, and extra_snippets allow you to get up to 5 additional, alternative "
                "excerpts.",
            },
            "goggles": GOGGLES,
        }
    ),
    news_args,
    news_request,
    news_response,
    [RATE, TOKEN],
    news_result,
    [
        Bug("renamed_key", rename("query", "search_lang", "lang"), "/search_lang", "query:/lang"),
        Bug("dropped", drop("query", "freshness"), "/freshness", "query:/freshness"),
        Bug(
            "date_format",
            edit("query", "freshness", _day_month),
            "/freshness",
            "query:/freshness",
        ),
        Bug(
            "value_changed",
            edit("query", "count", plus_one),
            "/count",
            "query:/count",
            single=True,
        ),
        Bug("leaked_field", leak("query", "ui_lang", "en-US"), None, "query:/ui_lang"),
        Bug("error_fields_lost", lose("/error/code"), response="/error/code", error=True),
    ],
)

TOOLS = [BRAVE_WEB_SEARCH, BRAVE_NEWS_SEARCH]
