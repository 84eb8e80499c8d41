"""Realistic tool-call traffic with planted mapping bugs, and the report.

How quietly and how well tracediff reports it.

    python bench/traffic.py [--calls N] [--seed S] [--write]
    python bench/traffic.py --http [--calls N] [--seed S] [--write]
    (per request location: bench/traffic_locations.py)

90% of calls are correct, 10% carry one planted bug (every kind in turn). Two figures:
(a) one call at a time with no history, as `tracediff check` sees it;
(b) every call ingested through the real pipeline into a temporary store, findings read back.
"""

import argparse
import copy
import random
import sys
import tempfile
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.traffic_bugs import BUGS, plant  # noqa: E402
from bench.traffic_tools import TOOLS  # noqa: E402
from webapp.analysis import analyze_call  # noqa: E402
from webapp.common.pointers import MISSING, resolve, tokens  # noqa: E402
from webapp.contracts import contracts_from_document, validated_contract  # noqa: E402

BUG_SHARE = 0.1
FIGURES, FIGURES_END = "<!-- figures: written by bench/traffic.py --write -->", "<!-- /figures -->"
HTTP_FIGURES = "<!-- http figures: written by bench/traffic.py --http --write -->"
LOUD = ("warning", "error")


def set_at(doc: dict, path: str, value) -> None:
    """Set the value at a JSON Pointer, creating objects on the way."""
    *head, last = tokens(path)
    for key in head:
        doc = doc.setdefault(key, {})
    doc[last] = value


def mapped_request(tool, args: dict) -> dict:
    """What the tool's correct mapping layer sends for these arguments."""
    request = {}
    for arg_path, req_path in tool.fields:
        value = resolve(args, arg_path, MISSING)
        if value is MISSING:
            continue
        if arg_path in tool.upper:
            value = value.upper()
        # order lines are renamed item by item
        if arg_path == "/items":
            value = [{"productCode": item["sku"], "count": item["qty"]} for item in value]
        set_at(request, req_path, copy.deepcopy(value))
    for req_path, value in tool.defaults.items():
        set_at(request, req_path, value)
    return request


def contracts() -> dict:
    """The contracts users have.

    The OpenAI tools list, plus the request schemas the APIs publish."""
    found = contracts_from_document([tool.definition for tool in TOOLS])
    for tool in TOOLS:
        if tool.request_schema:
            found[tool.name]["request_schema"] = tool.request_schema
    return {name: {"name": name, **validated_contract(name, body)} for name, body in found.items()}


def generate(calls: int, seed: int) -> list[dict]:
    """Return the calls.

    Tool, arguments, request, response and the planted bug (None when correct)."""
    rng = random.Random(seed)
    out, kinds, planted = [], list(BUGS), 0
    for index in range(calls):
        tool = rng.choice(TOOLS)
        args = tool.make(rng)
        request = mapped_request(tool, args)
        bug = None
        if rng.random() < BUG_SHARE:
            # every kind in turn, on a call where it applies
            kind = kinds[planted % len(kinds)]
            planted += 1
            while not (bug := plant(kind, tool, args, request, rng)):
                tool = rng.choice(TOOLS)
                args = tool.make(rng)
                request = mapped_request(tool, args)
        response = {"id": f"r_{index}", "received": True}
        out.append(
            {
                "index": index,
                "tool": tool.name,
                "arguments": args,
                "request": request,
                "response": response,
                "bug": bug,
            }
        )
    return out


def _snapshots(call: dict) -> dict:
    snap = lambda payload, status=None: {
        "payload": payload,
        "logged_as_string": False,  # noqa: E731
        "http": {"status_code": status},
    }
    return {
        "arguments": snap(call["arguments"]),
        "request": snap(call["request"]),
        "response": snap(call["response"], 200),
    }


def flagged(result: dict, bug: dict) -> bool:
    """Tell whether a warning or error sits at the bug's path (or inside it).

    The bug's argument or request path."""

    def at(end, wanted):
        return (
            end is not None
            and wanted is not None
            and (end["path"] == wanted or end["path"].startswith(wanted + "/"))
        )

    ends = [(bug["arguments"], bug["request"]), *bug["also"]]
    for f in result["findings"]:
        if f["severity"] in LOUD and any(at(f["left"], a) or at(f["right"], r) for a, r in ends):
            return True
    errors = result["validation"].get("request", {}).get("errors", [])
    return any(at({"path": e["path"]}, r) for e in errors for _, r in ends)


def score(pairs) -> dict:
    """Figures from (call, result) pairs.

    Noisy share of correct calls, flagged share of bug calls, misses."""
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
        "noisy": len(noisy),
        "bugs": len(buggy),
        "flagged": len(buggy) - len(missed),
        "noisy_share": len(noisy) / max(len(correct), 1),
        "flagged_share": 1 - len(missed) / max(len(buggy), 1),
        "by_kind": by_kind,
        "noisy_examples": noisy[:5],
        "missed_examples": missed[:5],
    }


def one_at_a_time(calls: list[dict]) -> dict:
    """Mode (a): each call alone against its contract, as `tracediff check` runs it."""
    known = contracts()
    return score([(c, analyze_call(_snapshots(c), known[c["tool"]])) for c in calls])


def through_the_store(calls: list[dict]) -> dict:
    """Mode (b): ingest every call through the real pipeline, read findings back.

    Into a temporary store."""
    from webapp.ingest import parse_body
    from webapp.pipeline import catch_up, store_batch
    from webapp.store import Store

    with tempfile.TemporaryDirectory() as folder:
        store = Store(str(Path(folder) / "traffic.db"), synchronous="OFF")
        for name, contract in contracts().items():
            store.put_tool(name, {k: v for k, v in contract.items() if k != "name"})
        events = ingest_events(calls)
        for start in range(0, len(events), 5000):
            body = b"\n".join(orjson.dumps(e) for e in events[start : start + 5000])
            store_batch(store, parse_body(body), None)
        catch_up(store)
        results = [(c, store.get_trace(f"{c['index'] + 1:032x}")["calls"][0]) for c in calls]
        store.close()
    return score(results)


def ingest_events(calls: list[dict]) -> list[dict]:
    """The ingest events of the calls.

    Three snapshots each, one trace per call, a second apart."""
    events = []
    for c in calls:
        trace = f"{c['index'] + 1:032x}"
        for stage, snap in _snapshots(c).items():
            events.append(
                {
                    "trace_id": trace,
                    "call_id": "call_1",
                    "snapshot": stage,
                    "tool": c["tool"],
                    "payload": snap["payload"],
                    "http": snap["http"],
                    "ts": f"2026-09-01T{c['index'] // 3600 % 24:02d}:{c['index'] // 60 % 60:02d}:"
                    f"{c['index'] % 60:02d}Z",
                }
            )
    return events


def report(name: str, figures: dict, noisy_target: float, flagged_target: float) -> str:
    """Format one mode's figures against its targets."""
    lines = [
        f"{name}: {figures['noisy']} of {figures['correct']} correct calls with a warning or error "
        f"({figures['noisy_share']:.1%}, target <= {noisy_target:.0%}); {figures['flagged']} of "
        f"{figures['bugs']} bug calls flagged at the bug's path ({figures['flagged_share']:.1%}, "
        f"target >= {flagged_target:.0%})"
    ]
    misses = ", ".join(f"{kind} {n - m}/{n}" for kind, (n, m) in sorted(figures["by_kind"].items()))
    lines.append(f"  flagged per bug kind: {misses}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument(
        "--write", action="store_true", help="write the figures into docs/quality.md"
    )
    parser.add_argument(
        "--verbose", action="store_true", help="print examples of noisy and missed calls"
    )
    parser.add_argument(
        "--http",
        action="store_true",
        help="tools whose arguments travel in the URL, headers, form bodies and GraphQL: figures "
        "per location",
    )
    opts = parser.parse_args()
    if opts.http:
        from bench.traffic_locations import run

        text = run(opts.calls, opts.seed, opts.verbose)
        print(text)
        if opts.write:
            write_figures(ROOT / "docs" / "quality.md", opts, text, HTTP_FIGURES, "--http ")
        return
    calls = generate(opts.calls, opts.seed)
    a, b = one_at_a_time(calls), through_the_store(calls)
    text = (
        report("(a) one call at a time, no history", a, 0.05, 0.90)
        + "\n"
        + report("(b) with history, through the store", b, 0.01, 0.95)
    )
    print(text)
    if opts.verbose:
        for c, r in a["noisy_examples"] + a["missed_examples"]:
            print(
                orjson.dumps(
                    {
                        "tool": c["tool"],
                        "bug": c["bug"],
                        "arguments": c["arguments"],
                        "request": c["request"],
                        "findings": [
                            (f["severity"], f["kind"], f["message"]) for f in r["findings"]
                        ],
                    }
                ).decode()
            )
    if opts.write:
        write_figures(ROOT / "docs" / "quality.md", opts, text)


def write_figures(doc: Path, opts, text: str, marker: str = FIGURES, flag: str = "") -> None:
    """Replace a figures block of docs/quality.md with this run's.

    The command that made them first."""
    command = f"python bench/traffic.py {flag}--calls {opts.calls} --seed {opts.seed}"
    block = f"{marker}\n```\n$ {command}\n{text}\n```\n{FIGURES_END}"
    old = doc.read_text()
    start = old.index(marker)
    end = old.index(FIGURES_END, start) + len(FIGURES_END)
    doc.write_text(old[:start] + block + old[end:])


if __name__ == "__main__":
    main()
