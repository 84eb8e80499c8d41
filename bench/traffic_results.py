"""The way back: tool results with correct and broken return paths.

And how quietly and how well tracediff reports them.

    python bench/traffic_results.py [--calls N] [--seed S] [--write] [--verbose]

Four tools answer over HTTP; what each hands back to the model (the `result` snapshot) takes the
forms real servers use: MCP `CallToolResult` with text and `structuredContent`, Anthropic
`tool_result` blocks, OpenAI `role: tool` text, the response body passed on as JSON. About 12% of
responses are errors (429/503 retryable, 400/404 not). 85% of calls return correctly: an error
passed on as MCP `isError: true` with the code and whether to retry in its text (in a dozen
wordings), or as a structured envelope; a success restated in text, or structured with renamed
fields and units, or passed through; large results within the budget (5-8 KB). 15% break, every kind
in turn: an error swallowed into a success text; `isError: false` for a 5xx; `retryable` lost (said
in no text, missing from a structured envelope); a structured value differing from the response, or
handed over as another type (a count as text); an oversized result (the whole 40-400 KB body); a
success told as a failure. Figures with no history (as `tracediff check` sees one call) and through
the real pipeline and store (with history).
"""

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from webapp.analysis import analyze_call  # noqa: E402

BUG_SHARE = 0.15
# --unseen: the wordings in UNSEEN instead
UNSEEN_ON = False
ERROR_SHARE = 0.12
LOUD = ("warning", "error")
FIGURES = "<!-- result figures: written by bench/traffic_results.py --write -->"
FIGURES_END = "<!-- /figures -->"
ERRORS = [
    (429, "rate_limited", "Too many requests", True),
    (503, "unavailable", "The order service is down for maintenance", True),
    (500, "internal", "Unexpected failure", True),
    (404, "not_found", "No such order", False),
    (400, "invalid_argument", "email is not a valid address", False),
]
SAYS_RETRY = [
    "Error {code}: {message}. This is temporary; retry in a few seconds.",
    "{code}: {message} (retryable). Try again shortly.",
    "The API answered {status} {code} - {message}. You may retry later.",
    "Failed with {code}. {message}. Please retry the call.",
    "{message} [{code}], a transient error: try again.",
    "Request failed ({code}): {message}. Retrying should work.",
]
SAYS_NO_RETRY = [
    "Error {code}: {message}. Do not retry.",
    "{code}: {message}. Retrying will not help; ask the user.",
    "The API answered {status} {code} - {message}. This error is permanent.",
    "Failed with {code}: {message} (not retryable).",
    "{message} [{code}]. Don't retry with the same input.",
    "Request refused ({code}): {message}. It cannot be retried as is.",
]
SWALLOWED = ["No orders found.", "Done.", "The order list is empty.", "Nothing matched.", "OK"]
# Wordings written after the checks were tuned, never looked at while tuning them (--unseen).
UNSEEN = {
    "retry": [
        "{code}: {message}. Please wait and call again.",
        "Temporary problem ({code}); the request can be repeated.",
        "{message} ({code}). Safe to retry.",
        "Server busy - {code}. Back off and resend.",
        "{status}: {code}. Give it a minute, then ask again.",
    ],
    "no_retry": [
        "{code}: {message}. Fix the input before calling again.",
        "{message} ({code}); repeating the call will fail the same way.",
        "Invalid request [{code}]: {message}. Not a temporary error.",
        "{code}. {message}. Don't repeat this request.",
        "{status} {code}: {message}. Retries are pointless.",
    ],
    "swallowed": [
        "Here are your results: none.",
        "I could not find anything for that.",
        "[]",
        "All set!",
        "0 results",
    ],
}
OUTPUT_SCHEMA = {
    "type": "object",
    "required": ["items", "count"],
    "properties": {
        "count": {"type": "integer"},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["orderId", "state"],
                "properties": {"state": {"type": "string"}},
            },
        },
    },
}
TOOLS = {
    "findOrders": {"result_schema": OUTPUT_SCHEMA},
    "getInvoice": {},
    "searchDocs": {},
    "getCustomer": {},
}
STATUSES = ["paid", "unpaid", "refunded", "pending"]


def order(rng, index: int) -> dict:
    return {
        "id": f"ord_{index}_{rng.randrange(10**6)}",
        "status": rng.choice(STATUSES),
        "total_cents": rng.randrange(100, 100_000),
        "created_at": f"2026-0{rng.randrange(1, 10)}-1{rng.randrange(10)}T10:00:00Z",
    }


def success(tool: str, rng) -> dict:
    """A successful response body of the tool."""
    if tool == "findOrders":
        orders = [order(rng, i) for i in range(rng.randrange(0, 5))]
        return {"orders": orders, "total": len(orders), "next_cursor": None}
    if tool == "getInvoice":
        return {
            "id": f"inv_{rng.randrange(10**6)}",
            "status": rng.choice(STATUSES),
            "amount_cents": rng.randrange(100, 100_000),
            "currency": "usd",
            "due_date": "2026-12-31",
        }
    if tool == "searchDocs":
        hits = [
            {"id": f"doc_{i}", "title": f"Guide {i}", "snippet": "word " * rng.randrange(20, 60)}
            for i in range(rng.randrange(5, 30))
        ]
        return {"hits": hits, "took_ms": rng.randrange(3, 90)}
    return {
        "customer": {
            "id": f"cus_{rng.randrange(10**6)}",
            "email": "ann@example.com",
            "name": "Ann",
            "vip": False,
        },
        "orders_count": rng.randrange(0, 40),
    }


def big_body(rng) -> dict:
    """A 40-400 KB body.

    The whole order history a tool should not hand the model."""
    return {"orders": [order(rng, i) for i in range(rng.randrange(400, 4000))], "total": 0}


def mcp(text=None, structured=None, is_error=None) -> dict:
    out = {"content": [] if text is None else [{"type": "text", "text": text}]}
    if structured is not None:
        out["structuredContent"] = structured
    if is_error is not None:
        out["isError"] = is_error
    return out


def summary(tool: str, body: dict) -> str:
    """A text that restates a successful response, as a tool writes it for the model."""
    if tool == "findOrders":
        listed = ", ".join(
            f"{o['id']} ({o['status']}, ${o['total_cents'] / 100:.2f})" for o in body["orders"]
        )
        return f"Found {body['total']} orders" + (f": {listed}." if listed else ".")
    if tool == "getInvoice":
        return (
            f"Invoice {body['id']} is {body['status']}: ${body['amount_cents'] / 100:.2f}, due "
            f"{body['due_date']}."
        )
    if tool == "searchDocs":
        return "\n".join(f"- {h['title']} ({h['id']}): {h['snippet']}" for h in body["hits"])
    return (
        f"{body['customer']['name']} <{body['customer']['email']}>, {body['orders_count']} orders."
    )


def structured(tool: str, body: dict):
    """A structured result that renames fields and converts cents.

    It renames the response's fields, as MCP servers do."""
    if tool == "findOrders":
        items = [
            {"orderId": o["id"], "state": o["status"], "totalCents": o["total_cents"]}
            for o in body["orders"]
        ]
        return {"items": items, "count": body["total"]}
    if tool == "getInvoice":
        return {
            "invoiceId": body["id"],
            "status": body["status"],
            "amount": body["amount_cents"] / 100,
            "currency": "USD",
        }
    if tool == "getCustomer":
        return {
            "id": body["customer"]["id"],
            "email": body["customer"]["email"],
            "orderCount": body["orders_count"],
        }
    return None


def correct_success(tool: str, body: dict, rng):
    form = rng.randrange(5)
    if form == 0 or structured(tool, body) is None:
        text = summary(tool, body)
        if len(text.encode()) > 8192:
            # the tool keeps to its budget: 5-8 KB of hits
            text = text[:8000]
        return rng.choice([mcp(text), {"type": "tool_result", "content": text}, text])
    if form == 1:
        return mcp(summary(tool, body)[:2000], structured(tool, body), False)
    # passed on as it came (a tool with an output schema restates it)
    if form == 2 and not TOOLS[tool]:
        return body if len(orjson.dumps(body)) < 8192 else summary(tool, body)[:8000]
    if form == 2:
        return mcp(None, structured(tool, body))
    if form == 3:
        return {"type": "tool_result", "content": json.dumps(structured(tool, body))}
    return mcp(None, structured(tool, body))


def error_text(status, code, message, retryable, rng) -> str:
    templates = SAYS_RETRY if retryable else SAYS_NO_RETRY
    if UNSEEN_ON:
        templates = UNSEEN["retry" if retryable else "no_retry"]
    return rng.choice(templates).format(status=status, code=code, message=message)


def correct_error(status, code, message, retryable, rng):
    envelope = {"code": code, "message": message, "retryable": retryable}
    form = rng.randrange(4)
    if form == 0:
        return mcp(error_text(status, code, message, retryable, rng), is_error=True)
    if form == 1:
        return {
            "type": "tool_result",
            "content": error_text(status, code, message, retryable, rng),
            "is_error": True,
        }
    if form == 2:
        return mcp(f"{code}: {message}", {"error": envelope}, True)
    # OpenAI role:tool text: the words say it
    return error_text(status, code, message, retryable, rng)


BROKEN = (
    "swallowed",
    "is_error_false",
    "retryable_lost",
    "value_differs",
    "retyped",
    "oversized",
    "invented",
)


def broken(kind: str, tool: str, rng):
    """Return (response, status, result, where) of one broken return path.

    None when the tool cannot have it."""
    status, code, message, retryable = rng.choice(ERRORS)
    envelope = {"error": {"code": code, "message": message, "retryable": retryable}}
    if kind == "swallowed":
        said = rng.choice(UNSEEN["swallowed"] if UNSEEN_ON else SWALLOWED)
        return envelope, status, rng.choice([said, mcp(said)]), ("error_hidden",)
    if kind == "is_error_false":
        status, code, message, retryable = rng.choice([e for e in ERRORS if e[0] >= 500])
        envelope = {"error": {"code": code, "message": message, "retryable": retryable}}
        return envelope, status, mcp(f"{code}: {message}", is_error=False), ("error_hidden",)
    if kind == "retryable_lost":
        if rng.random() < 0.5:
            result = mcp(f"Error {code}: {message}.", is_error=True)
        else:
            result = mcp(f"{code}: {message}", {"error": {"code": code, "message": message}}, True)
        return envelope, status, result, ("at", "/error/retryable")
    if kind == "value_differs":
        if tool not in ("findOrders", "getInvoice"):
            return None
        body = success(tool, rng)
        if tool == "findOrders" and not body["orders"]:
            body["orders"], body["total"] = [order(rng, 0)], 1
        result = structured(tool, body)
        if tool == "findOrders":
            wrong = rng.randrange(len(body["orders"]))
            result["items"][wrong]["state"] = next(
                s for s in STATUSES if s != body["orders"][wrong]["status"]
            )
            return body, 200, mcp("orders", result), ("at", f"/orders/{wrong}/status")
        result["status"] = next(s for s in STATUSES if s != body["status"])
        return body, 200, mcp("invoice", result), ("at", "/status")
    # a count handed over as text: "3" for 3
    if kind == "retyped":
        if tool not in ("findOrders", "getCustomer"):
            return None
        body = success(tool, rng)
        result = structured(tool, body)
        field, at = ("count", "/total") if tool == "findOrders" else ("orderCount", "/orders_count")
        result[field] = str(result[field])
        return body, 200, mcp(None, result), ("at", at)
    if kind == "oversized":
        body = big_body(rng)
        return body, 200, rng.choice([json.dumps(body), mcp(json.dumps(body))]), ("result_large",)
    body = success(tool, rng)
    return (
        body,
        200,
        mcp("Something went wrong, please try again", is_error=True),
        ("error_invented",),
    )


def generate(calls: int, seed: int) -> list[dict]:
    """Return the calls.

    Tool, response, status, result and the broken return path (None when correct)."""
    rng = random.Random(seed)
    out, planted = [], 0
    for index in range(calls):
        tool = rng.choice(list(TOOLS))
        bug = None
        if rng.random() < BUG_SHARE:
            kind = BROKEN[planted % len(BROKEN)]
            planted += 1
            while (made := broken(kind, tool, rng)) is None:
                tool = rng.choice(list(TOOLS))
            response, status, result, where = made
            bug = {"kind": kind, "where": where}
        elif rng.random() < ERROR_SHARE:
            status, code, message, retryable = rng.choice(ERRORS)
            response = {"error": {"code": code, "message": message, "retryable": retryable}}
            result = correct_error(status, code, message, retryable, rng)
        else:
            response, status = success(tool, rng), 200
            result = correct_success(tool, response, rng)
        out.append(
            {
                "index": index,
                "tool": tool,
                "response": response,
                "status": status,
                "result": result,
                "bug": bug,
            }
        )
    return out


def snapshots(call: dict) -> dict:
    args = {"email": "ann@example.com"}
    return {
        "arguments": {"payload": args},
        "request": {
            "payload": args,
            "http": {"method": "POST", "url": f"https://api.example.com/{call['tool']}"},
        },
        "response": {"payload": call["response"], "http": {"status_code": call["status"]}},
        "result": {"payload": call["result"]},
    }


def flagged(analysis: dict, bug: dict) -> bool:
    """Tell whether a warning or error sits at the broken place.

    Its kind, or its response path."""
    loud = [f for f in analysis["findings"] if f["severity"] in LOUD]
    where = bug["where"]
    if where[0] == "at":
        return any(
            (f["left"] or {}).get("snapshot") == "response"
            and (f["left"] or {}).get("path") == where[1]
            for f in loud
        )
    return any(f["kind"] == where[0] for f in loud)


def score(pairs) -> dict:
    correct = [(c, r) for c, r in pairs if not c["bug"]]
    buggy = [(c, r) for c, r in pairs if c["bug"]]
    noisy = [(c, r) for c, r in correct if r["worst"] in LOUD]
    missed = [(c, r) for c, r in buggy if not flagged(r, c["bug"])]
    by_kind = {}
    for c, _ in buggy:
        by_kind.setdefault(c["bug"]["kind"], [0, 0])[0] += 1
    for c, _ in missed:
        by_kind[c["bug"]["kind"]][1] += 1
    return {
        "correct": len(correct),
        "noisy": noisy,
        "bugs": len(buggy),
        "missed": missed,
        "by_kind": by_kind,
    }


def one_at_a_time(calls: list[dict]) -> dict:
    """No history: each call alone against its contract, as `tracediff check` runs it."""
    return score([(c, analyze_call(snapshots(c), TOOLS[c["tool"]])) for c in calls])


def through_the_store(calls: list[dict]) -> dict:
    """With history: every call through the real pipeline into a store.

    A temporary store, read back."""
    from webapp.ingest import parse_body
    from webapp.pipeline import catch_up, store_batch
    from webapp.store import Store

    with tempfile.TemporaryDirectory() as folder:
        store = Store(str(Path(folder) / "results.db"), synchronous="OFF")
        for name, contract in TOOLS.items():
            store.put_tool(name, contract)
        events = [event for c in calls for event in ingest_events(c)]
        for start in range(0, len(events), 4000):
            store_batch(
                store,
                parse_body(b"\n".join(orjson.dumps(e) for e in events[start : start + 4000])),
                None,
            )
        catch_up(store)
        results = [(c, store.get_trace(f"{c['index'] + 1:032x}")["calls"][0]) for c in calls]
        store.close()
    return score(results)


def with_the_command(calls: list[dict], sample: int = 600) -> str:
    """Run the real `tracediff check` over fixture folders of a sample of calls.

    What a user's CI runs."""
    from click.testing import CliRunner

    from webapp.cli import main

    picked = calls[:sample]
    with tempfile.TemporaryDirectory() as folder:
        for c in picked:
            case = Path(folder) / f"{c['index']:06d}"
            case.mkdir()
            (case / "tool-args.json").write_text(json.dumps({"email": "ann@example.com"}))
            (case / "http-body.json").write_text(json.dumps({"email": "ann@example.com"}))
            (case / "http-response.json").write_text(json.dumps(c["response"]))
            (case / "tool-result.json").write_text(json.dumps(c["result"]))
            (case / "call.json").write_text(json.dumps({"tool": c["tool"], "status": c["status"]}))
            (case / "contract.json").write_text(json.dumps(TOOLS[c["tool"]]))
        output = CliRunner().invoke(main, ["check", folder]).output
    failed = {
        int(line.split()[-1].rsplit("/", 1)[-1])
        for line in output.splitlines()
        if line.startswith("FAIL")
    }
    correct = [c for c in picked if not c["bug"]]
    loud = sum(c["index"] in failed for c in correct)
    caught = sum(c["index"] in failed for c in picked if c["bug"])
    bugs = len(picked) - len(correct)
    return (
        f"the tracediff check command on {len(picked)} fixture folders: {loud} of {len(correct)} "
        "correct calls "
        f"fail ({loud / max(len(correct), 1):.1%}), {caught} of {bugs} broken ones fail "
        f"({caught / max(bugs, 1):.1%})"
    )


def ingest_events(call: dict) -> list[dict]:
    trace, i = f"{call['index'] + 1:032x}", call["index"]
    ts = f"2026-09-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z"
    return [
        {
            "trace_id": trace,
            "call_id": "call_1",
            "snapshot": stage,
            "tool": call["tool"],
            "ts": ts,
            **snap,
        }
        for stage, snap in snapshots(call).items()
    ]


def report(name: str, figures: dict) -> str:
    noisy, correct = len(figures["noisy"]), figures["correct"]
    found, bugs = figures["bugs"] - len(figures["missed"]), figures["bugs"]
    per_kind = ", ".join(
        f"{kind} {n - m}/{n}" for kind, (n, m) in sorted(figures["by_kind"].items())
    )
    return (
        f"{name}: {noisy} of {correct} correct calls with a warning or error "
        f"({noisy / max(correct, 1):.1%}, "
        f"target <= 1%); {found} of {bugs} broken return paths flagged at the right place "
        f"({found / max(bugs, 1):.1%}, target >= 95%)\n  flagged per kind: {per_kind}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument(
        "--write", action="store_true", help="write the figures into docs/quality.md"
    )
    parser.add_argument("--verbose", action="store_true", help="print the noisy and missed calls")
    parser.add_argument(
        "--unseen", action="store_true", help="error and swallowed texts never used while tuning"
    )
    opts = parser.parse_args()
    global UNSEEN_ON
    UNSEEN_ON = opts.unseen
    calls = generate(opts.calls, opts.seed)
    alone, stored = one_at_a_time(calls), through_the_store(calls)
    text = "\n".join(
        [
            report("no history (one call at a time, as tracediff check)", alone),
            report("with history (through the store)", stored),
            with_the_command(calls),
        ]
    )
    print(text)
    if opts.verbose:
        for c, r in alone["noisy"][:8] + alone["missed"][:8]:
            result = c["result"] if len(orjson.dumps(c["result"])) < 600 else "(large)"
            found = [
                (f["severity"], f["kind"], f["message"])
                for f in r["findings"]
                if f["severity"] in LOUD
            ]
            print(
                orjson.dumps(
                    {"tool": c["tool"], "bug": c["bug"], "result": result, "findings": found}
                ).decode()
            )
    if opts.write:
        doc = ROOT / "docs" / "quality.md"
        block = (
            f"{FIGURES}\n```\n$ python bench/traffic_results.py --calls {opts.calls} --seed "
            f"{opts.seed}\n{text}\n```\n"
        )
        old = doc.read_text()
        if FIGURES in old:
            start = old.index(FIGURES)
            end = old.index(FIGURES_END, start)
            doc.write_text(old[:start] + block + old[end:])
        else:
            doc.write_text(old.rstrip() + "\n\n" + block + FIGURES_END + "\n")


if __name__ == "__main__":
    main()
