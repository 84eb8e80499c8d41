"""Noise and recall per request location on HTTP tool traffic.

Path, query, header, form, GraphQL, JSON body.

    python bench/traffic.py --http [--calls N] [--seed S] [--write]

The first half of the calls come from release 2026.11.1, all correct; the second half from
2026.11.2, which plants a bug in 20% of its calls, every (tool, bug) pair in turn
(bench/traffic_http.py). Two figures per location, as bench/traffic.py: (a) one call at a time with
the contracts users have (the tools list, plus the one transform the Stripe tool's owner declared
with `tracediff tools map`), no history; (b) every call through the real pipeline into a temporary
store, inference active, findings read back.
"""

import random
import tempfile
from pathlib import Path

import orjson

from bench.traffic_http import HTTP_TOOLS, LOCATIONS
from webapp.analysis import analyze_call
from webapp.contracts import contracts_from_document, validated_contract

RELEASES = ("2026.11.1", "2026.11.2")
# of the second release's calls
BUG_SHARE = 0.2
LOUD = ("warning", "error")
TOOLS = {tool.name: tool for tool in HTTP_TOOLS}


def contracts() -> dict:
    found = contracts_from_document([tool.definition for tool in HTTP_TOOLS])
    for tool in HTTP_TOOLS:
        if tool.mapping:
            found[tool.name]["mapping"] = tool.mapping
    return {name: validated_contract(name, body) for name, body in found.items()}


def generate(calls: int, seed: int) -> list[dict]:
    """Return the calls.

    Tool, arguments, http, body, release and the planted bug (None when correct)."""
    rng = random.Random(seed)
    kinds = [(tool, kind, single) for tool in HTTP_TOOLS for kind, single in tool.bugs]
    out, planted = [], 0
    for index in range(calls):
        release = RELEASES[index * 2 // calls]
        tool = rng.choice(HTTP_TOOLS)
        args, bug = tool.make(rng), None
        http, body, _ = tool.send(args)
        if release == RELEASES[1] and rng.random() < BUG_SHARE:
            tool, kind, single = kinds[planted % len(kinds)]
            planted += 1
            for _ in range(50):
                args = tool.make(rng)
                sent = tool.send(args, kind, rng)
                if sent is not None:
                    break
            http, body, (arg_path, req_path) = sent
            bug = {
                "kind": kind,
                "arguments": arg_path,
                "request": req_path,
                "single": single,
                "location": tool.places[arg_path],
            }
        out.append(
            {
                "index": index,
                "tool": tool.name,
                "arguments": args,
                "http": http,
                "body": body,
                "release": release,
                "bug": bug,
            }
        )
    return out


def snapshots(call: dict) -> dict:
    return {
        "arguments": {"payload": call["arguments"], "http": None},
        "request": {"payload": call["body"], "http": call["http"]},
        "response": {"payload": {"id": f"r_{call['index']}"}, "http": {"status_code": 200}},
    }


def location_of(tool, end, side: str) -> str | None:
    """Name the location a finding's end lies in."""
    if end is None:
        return None
    path = end["path"]
    if side == "left":
        top = "/" + path[1:].split("/")[0] if path else ""
        return tool.places.get(top)
    head = path.split(":", 1)[0]
    if head in ("path", "query", "header", "form"):
        return head
    return "graphql" if tool.name.startswith("github_graphql") else "body"


def loud_locations(call, result) -> set:
    tool, out = TOOLS[call["tool"]], set()
    for f in result["findings"]:
        if f["severity"] in LOUD:
            out |= {location_of(tool, f["right"], "right") or location_of(tool, f["left"], "left")}
    if any(v.get("errors") for v in result["validation"].values()):
        out.add("body")
    return out - {None}


def flagged(result, bug) -> bool:
    def at(end, wanted):
        return end is not None and (end["path"] == wanted or end["path"].startswith(wanted + "/"))

    return any(
        f["severity"] in LOUD
        and (at(f["left"], bug["arguments"]) or at(f["right"], bug["request"]))
        for f in result["findings"]
    )


def score(pairs) -> dict:
    """Per location: correct calls touching it and bugs there, loud or flagged.

    Correct calls touching it, those loud there; bugs there, those flagged at their place."""
    rows = {
        loc: {"correct": 0, "noisy": 0, "bugs": 0, "flagged": 0, "decidable": 0, "decided": 0}
        for loc in LOCATIONS
    }
    overall = {"correct": 0, "noisy": 0, "missed": [], "noise": []}
    for call, result in pairs:
        bug = call["bug"]
        if bug is None:
            touched = {TOOLS[call["tool"]].places[f"/{k}"] for k in call["arguments"]}
            loud = loud_locations(call, result)
            overall["correct"] += 1
            overall["noisy"] += bool(loud)
            if loud:
                overall["noise"].append((call, result))
            for loc in touched:
                rows[loc]["correct"] += 1
                rows[loc]["noisy"] += loc in loud
        else:
            row, hit = rows[bug["location"]], flagged(result, bug)
            row["bugs"] += 1
            row["flagged"] += hit
            row["decidable"] += bug["single"]
            row["decided"] += hit and bug["single"]
            if not hit:
                overall["missed"].append((call, result))
    return {"rows": rows, **overall}


def one_at_a_time(calls) -> dict:
    known = contracts()
    return score([(c, analyze_call(snapshots(c), known[c["tool"]])) for c in calls])


def minute_of(index: int) -> str:
    """The time of the index-th call.

    A minute apart, the day turning every 1,440 calls."""
    return f"2026-11-{1 + index // 1440:02d}T{index // 60 % 24:02d}:{index % 60:02d}:00Z"


def through_the_store(calls) -> dict:
    from webapp.ingest import parse_body
    from webapp.pipeline import catch_up, store_batch
    from webapp.store import Store

    with tempfile.TemporaryDirectory() as folder:
        store = Store(str(Path(folder) / "http.db"), synchronous="OFF")
        for name, contract in contracts().items():
            store.put_tool(name, contract)
        events = []
        for c in calls:
            base = {
                "trace_id": f"{c['index'] + 1:032x}",
                "call_id": "call_1",
                "tool": c["tool"],
                "release": c["release"],
                # a minute apart, in call order (the day turns every 1,440 calls: the newest
                # release's calls never read as older than the first release's, which decides which
                # release is the newest)
                "ts": minute_of(c["index"]),
            }
            for stage, snap in snapshots(c).items():
                event = {**base, "snapshot": stage, "payload": snap["payload"]}
                if snap["http"]:
                    event["http"] = snap["http"]
                events.append(event)
        # the traffic arriving in batches, as a shipper sends it
        for start in range(0, len(events), 3000):
            store_batch(
                store,
                parse_body(b"\n".join(orjson.dumps(e) for e in events[start : start + 3000])),
                None,
            )
            catch_up(store)
        results = [(c, store.get_trace(f"{c['index'] + 1:032x}")["calls"][0]) for c in calls]
        store.close()
    return score(results)


def table(name: str, figures: dict, noise_target: str, recall_target: str, single: bool) -> str:
    lines = [
        f"{name}: {figures['noisy']} of {figures['correct']} correct calls with any warning or "
        "error "
        f"({figures['noisy'] / max(figures['correct'], 1):.1%})",
        f"  {'location':<9} {'noisy correct calls':>24} {'bugs flagged at their place':>30}"
        + (f" {'decidable bugs flagged':>26}" if single else ""),
    ]
    for loc, r in figures["rows"].items():
        line = (
            f"  {loc:<9} {_ratio(r['noisy'], r['correct']):>24} "
            f"{_ratio(r['flagged'], r['bugs']):>30}"
        )
        if single:
            line += f" {_ratio(r['decided'], r['decidable']):>26}"
        lines.append(line)
    lines.append(f"  targets: noise {noise_target} per location, recall {recall_target}")
    return "\n".join(lines)


def _ratio(n, d) -> str:
    return f"{n}/{d} ({n / d:.1%})" if d else "-"


def run(calls: int, seed: int, verbose: bool = False) -> str:
    traffic = generate(calls, seed)
    a, b = one_at_a_time(traffic), through_the_store(traffic)
    text = (
        table("(a) one call at a time, no history", a, "<= 5%", ">= 90% of decidable bugs", True)
        + "\n"
        + table("(b) with history, through the store", b, "<= 1%", ">= 95%", False)
    )
    if verbose:
        for label, figures in (("a", a), ("b", b)):
            for c, r in figures["noise"][:6] + figures["missed"][:12]:
                print(
                    label,
                    orjson.dumps(
                        {
                            "tool": c["tool"],
                            "bug": c["bug"],
                            "args": c["arguments"],
                            "url": c["http"]["url"],
                            "body": c["body"],
                            "found": [
                                (f["severity"], f["kind"], f["message"])
                                for f in r["findings"]
                                if f["severity"] != "info"
                            ],
                        }
                    ).decode(),
                )
    return text
