"""Real mapping layers.

How quiet tracediff is on their correct calls and how well it finds planted bugs.

    python bench/realworld.py [--per-tool N] [--per-bug N] [--seed S] [--quick] [--verbose]
                              [--part tuned|held-out|unseen|unseen-2|unseen-3|unseen-4]
                              [--write]

The corpus (tests/realworld/) rebuilds tools of public projects exactly as their code builds
requests, reads the vendors' answers (their own error bodies) and hands results back. Two figures,
for the tuned projects, the held-out ones and the four unseen parts (rebuilt after the tuning, the
second after the first was fixed for, the third while the second was, the fourth while the third
was) apart (issue 32, item 6):
(a) one call at a time, each against its tool's published definition, as `tracediff check` runs it;
(b) with history: every call posted to a real `tracediff serve` (its own SQLite file), the tools
    list imported first, the analyser left to catch up, findings read back from the API.
A correct call is loud when it has any warning, error or schema violation; a bug is flagged when a
warning or error (or a violation) sits at its place: its argument, its request path or its response
path (or inside it). One call at a time, only the bugs a single call can decide are counted as its
target.
"""

import argparse
import collections
import sys
import tempfile
import time
from pathlib import Path

import httpx
import orjson

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.common import tracediff_server  # noqa: E402
from tests import realworld  # noqa: E402
from webapp.analysis import analyze_call  # noqa: E402
from webapp.contracts import contracts_from_document, validated_contract  # noqa: E402

LOUD = ("warning", "error")
FIGURES = "<!-- realworld figures: written by bench/realworld.py --write -->"
FIGURES_END = "<!-- /figures -->"
# the unseen part's own block (`--part unseen --write`)
UNSEEN_FIGURES = (
    "<!-- realworld unseen figures: written by bench/realworld.py --part unseen --write -->"
)
UNSEEN2_FIGURES = (
    "<!-- realworld unseen-2 figures: written by bench/realworld.py --part unseen-2 --write -->"
)
UNSEEN3_FIGURES = (
    "<!-- realworld unseen-3 figures: written by bench/realworld.py --part unseen-3 --write -->"
)
UNSEEN4_FIGURES = (
    "<!-- realworld unseen-4 figures: written by bench/realworld.py --part unseen-4 --write -->"
)
# events a request, as a shipper batches them
BATCH = 400


def contracts(tools) -> dict:
    found = contracts_from_document(realworld.definitions(tools))
    return {name: validated_contract(name, body) for name, body in found.items()}


# --- scoring --------------------------------------------------------------------------------------


def _at(path: str | None, wanted: str | None) -> bool:
    return (
        path is not None
        and wanted is not None
        and (path == wanted or path.startswith(wanted.rstrip("/") + "/"))
    )


def flagged(analysis: dict, bug: dict) -> bool:
    """Whether a warning or error (or a schema violation) sits at the bug's place."""
    wanted = {"arguments": bug["arguments"], "request": bug["request"], "response": bug["response"]}
    for f in analysis["findings"]:
        if f["severity"] not in LOUD:
            continue
        for end in (f["left"], f["right"]):
            if end and _at(end["path"], wanted.get(end["snapshot"])):
                return True
    for stage, found in analysis["validation"].items():
        if any(_at(e["path"], wanted.get(stage)) for e in found.get("errors") or []):
            return True
    return False


def loud(analysis: dict) -> list:
    """The (kind, where) of each warning, error and schema violation of a call."""
    out = []
    for f in analysis["findings"]:
        if f["severity"] in LOUD:
            end = f["right"] or f["left"]
            out.append((f["kind"], f"{end['snapshot']}:{end['path']}" if end else ""))
    for stage, found in analysis["validation"].items():
        out += [("schema_violation", f"{stage}:{e['path']}") for e in found.get("errors") or []]
    return out


def score(pairs, single_only: bool = False) -> dict:
    """Figures of (call, analysis) pairs.

    Per project, per finding kind, per bug kind, and the noise."""
    figures = {
        "correct": 0,
        "noisy": 0,
        "error_answers": 0,
        "noisy_error_answers": 0,
        "bugs": 0,
        "flagged": 0,
        # correct, noisy, bugs, flagged
        "projects": collections.defaultdict(lambda: [0, 0, 0, 0]),
        "bug_kinds": collections.defaultdict(lambda: [0, 0]),
        # (tool, kind, where) -> calls
        "noise": collections.Counter(),
        "noise_kinds": collections.Counter(),
        "missed": [],
        "noisy_calls": [],
    }
    for call, analysis in pairs:
        row = figures["projects"][call["project"]]
        if call["bug"] is None:
            found = loud(analysis)
            failing = call["answer"].status >= 400 or _failure_body(call["answer"].body)
            figures["correct"] += 1
            figures["error_answers"] += failing
            row[0] += 1
            if found:
                figures["noisy"] += 1
                figures["noisy_error_answers"] += failing
                figures["noisy_calls"].append((call, analysis))
                row[1] += 1
                for kind, where in set(found):
                    figures["noise"][(call["tool"], kind, where)] += 1
                for kind in {k for k, _ in found}:
                    figures["noise_kinds"][kind] += 1
            continue
        if single_only and not call["bug"]["single"]:
            continue
        hit = flagged(analysis, call["bug"])
        figures["bugs"] += 1
        figures["flagged"] += hit
        row[2] += 1
        row[3] += hit
        figures["bug_kinds"][call["bug"]["kind"]][0] += 1
        figures["bug_kinds"][call["bug"]["kind"]][1] += hit
        if not hit:
            figures["missed"].append((call, analysis))
    return figures


def _failure_body(body) -> bool:
    return isinstance(body, dict) and body.get("ok") is False


# --- the two modes --------------------------------------------------------------------------------


def one_at_a_time(calls, tools) -> list:
    known = contracts(tools)
    return [(c, analyze_call(realworld.snapshots(c), known[c["tool"]])) for c in calls]


def events(call: dict) -> list[dict]:
    """The ingest events of one call.

    Four snapshots, one trace per call, a second apart."""
    i = call["index"]
    base = {
        "trace_id": f"{i + 1:032x}",
        "call_id": "call_1",
        "tool": call["tool"],
        "release": call["release"],
        "source": "mcp",
        "ts": f"2026-11-{1 + i // 86400:02d}T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z",
    }
    out = []
    for stage, snap in realworld.snapshots(call).items():
        event = {**base, "snapshot": stage, "payload": snap["payload"]}
        if snap["http"]:
            event["http"] = snap["http"]
        out.append(event)
    return out


def in_batches(body: list) -> list[list]:
    """The events in order, BATCH a request, as a shipper sends them."""
    return [body[start : start + BATCH] for start in range(0, len(body), BATCH)]


def through_a_server(calls, tools, log=print, batches=in_batches) -> list:
    """Post every call to a real `tracediff serve` and read the analyses back.

    The events cut into requests by `batches`; wait for the analyser, read each call's analysis
    back."""
    with tempfile.TemporaryDirectory() as folder:
        with tracediff_server(Path(folder) / "realworld.db") as server:
            server.wait_ready("/api/v1/health", timeout=60)
            client = httpx.Client(base_url=server.url, timeout=120)
            answer = client.post("/api/v1/tools/import", json=realworld.definitions(tools))
            answer.raise_for_status()
            for batch in batches([e for c in calls for e in events(c)]):
                chunk = b"\n".join(orjson.dumps(e) for e in batch)
                sent = client.post(
                    "/api/v1/ingest",
                    content=chunk,
                    headers={"Content-Type": "application/x-ndjson"},
                )
                sent.raise_for_status()
                if sent.json().get("rejected"):
                    raise RuntimeError(f"events rejected: {sent.json()['rejected'][:3]}")
            _wait_for_the_analyser(client, log)
            out = []
            for c in calls:
                trace = client.get(f"/api/v1/traces/{c['index'] + 1:032x}")
                trace.raise_for_status()
                out.append((c, trace.json()["calls"][0]))
            client.close()
    return out


def _wait_for_the_analyser(client, log, timeout: float = 1800) -> None:
    deadline, quiet = time.monotonic() + timeout, 0
    while time.monotonic() < deadline:
        detail = client.get("/api/v1/ready").json()["checks"]["analyser"]["detail"]
        quiet = quiet + 1 if detail.startswith("0 call(s) and 0 event(s)") else 0
        if quiet >= 2:
            return
        time.sleep(1)
    raise RuntimeError(f"the analyser did not catch up: {detail}")


# --- the report -----------------------------------------------------------------------------------


def by_count(counter) -> list:
    """A Counter's items, most first, ties by key: one text whatever the hash order."""
    return sorted(counter.items(), key=lambda item: (-item[1], item[0]))


def _ratio(n: int, d: int) -> str:
    return f"{n} of {d} ({n / d:.1%})" if d else "-"


def report(title: str, figures: dict, single: bool, top: int = 12) -> str:
    bugs_label = (
        "bugs a single call can decide, flagged at their place"
        if single
        else "bugs flagged at their place"
    )
    lines = [
        f"{title}:",
        f"  correct calls with a warning or error: {_ratio(figures['noisy'], figures['correct'])}"
        " (of them answered by an error: "
        f"{_ratio(figures['noisy_error_answers'], figures['error_answers'])})",
        f"  {bugs_label}: {_ratio(figures['flagged'], figures['bugs'])}",
        "  per project (noisy correct calls; bugs flagged): "
        + ", ".join(
            f"{p} {r[1]}/{r[0]}; {r[3]}/{r[2]}" for p, r in sorted(figures["projects"].items())
        ),
        "  per bug kind: "
        + ", ".join(f"{k} {v[1]}/{v[0]}" for k, v in sorted(figures["bug_kinds"].items())),
        "  noisy correct calls per finding kind: "
        + ", ".join(f"{k} {v}" for k, v in by_count(figures["noise_kinds"])),
        "  noisiest findings (calls, tool, kind, where):",
    ]
    for (tool, kind, where), count in by_count(figures["noise"])[:top]:
        lines.append(f"    {count:4d}  {tool}  {kind}  {where}")
    return "\n".join(lines)


def split(pairs, projects) -> list:
    return [(c, a) for c, a in pairs if c["project"] in projects]


PARTS = (
    ("tuned", realworld.TUNED),
    ("held out", realworld.HELD_OUT),
    ("unseen", realworld.UNSEEN),
    ("unseen 2", realworld.UNSEEN2),
    ("unseen 3", realworld.UNSEEN3),
    ("unseen 4", realworld.UNSEEN4),
)
# the parts generated apart, in this order: the corpus, then each unseen part
GENERATED_APART = (realworld.UNSEEN, realworld.UNSEEN2, realworld.UNSEEN3, realworld.UNSEEN4)


def traffic(seed: int, per_tool: int, per_bug: int, tools) -> list:
    """The calls of `tools`: the corpus' and each unseen part's generated apart.

    One after the other, so a later part leaves the earlier parts' traffic (their arguments,
    order and indices) as it was."""
    apart = [p for part in GENERATED_APART for p in part]
    groups = [[t for t in tools if t.project not in apart]]
    groups += [[t for t in tools if t.project in part] for part in GENERATED_APART]
    calls: list = []
    for group in groups:
        more = realworld.generate(seed, per_tool, per_bug, group) if group else []
        for call in more:
            call["index"] += len(calls)
        calls += more
    return calls


def run(
    per_tool: int,
    per_bug: int,
    seed: int,
    tools=None,
    server: bool = True,
    verbose: bool = False,
    parts=PARTS,
) -> str:
    tools = realworld.ALL_TOOLS if tools is None else tools
    calls = traffic(seed, per_tool, per_bug, tools)
    alone = one_at_a_time(calls, tools)
    history = through_a_server(calls, tools) if server else None
    out = []
    for name, projects in parts:
        count = sum(1 for t in tools if t.project in projects)
        if not count:
            continue
        out.append(
            f"== {name}: {', '.join(p for p in projects if any(t.project == p for t in tools))} "
            f"({count} tools)"
        )
        if history is not None:
            out.append(
                report(
                    "(b) with history, through a real server",
                    score(split(history, projects)),
                    False,
                )
            )
        out.append(
            report(
                "(a) one call at a time, as tracediff check",
                score(split(alone, projects), True),
                True,
            )
        )
    if verbose:
        for label, pairs in (("a", alone), ("b", history or [])):
            figures = score(pairs, single_only=label == "a")
            for call, analysis in figures["missed"][:15]:
                out.append(f"{label} missed {call['tool']} {call['bug']} -> {loud(analysis)}")
            for call, analysis in figures["noisy_calls"][:15]:
                out.append(f"{label} loud {call['tool']} {call['arguments']} -> {loud(analysis)}")
    return "\n".join(out)


def part_tools(name: str | None) -> list | None:
    """The tools of one part (`--part`), or None for all of them."""
    if name is None:
        return None
    projects = dict(PARTS)[name.replace("-", " ")]
    return [t for t in realworld.ALL_TOOLS if t.project in projects]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-tool", type=int, default=36, help="correct calls per tool")
    parser.add_argument("--per-bug", type=int, default=3, help="calls per planted bug")
    parser.add_argument("--seed", type=int, default=32)
    parser.add_argument(
        "--quick", action="store_true", help="a small slice: 6 calls a tool, 1 per bug"
    )
    parser.add_argument("--no-server", action="store_true", help="one call at a time only")
    parser.add_argument("--verbose", action="store_true", help="print the missed bugs")
    parser.add_argument(
        "--part",
        choices=["tuned", "held-out", "unseen", "unseen-2", "unseen-3", "unseen-4"],
        help="only the tools of one part",
    )
    parser.add_argument(
        "--write", action="store_true", help="write the figures into docs/quality.md"
    )
    opts = parser.parse_args()
    if opts.quick:
        opts.per_tool, opts.per_bug = 6, 1
    chosen = part_tools(opts.part)
    parts = (
        PARTS
        if opts.part is None
        else [(n, p) for n, p in PARTS if n == opts.part.replace("-", " ")]
    )
    text = run(
        opts.per_tool,
        opts.per_bug,
        opts.seed,
        tools=chosen,
        server=not opts.no_server,
        verbose=opts.verbose,
        parts=parts,
    )
    print(text)
    if opts.write:
        write(opts, text)


def write(opts, text: str) -> None:
    """Write the figures into docs/quality.md: all parts, or an unseen part's block."""
    markers = {
        None: FIGURES,
        "unseen": UNSEEN_FIGURES,
        "unseen-2": UNSEEN2_FIGURES,
        "unseen-3": UNSEEN3_FIGURES,
        "unseen-4": UNSEEN4_FIGURES,
    }
    if opts.part not in markers:
        raise SystemExit(
            "--write takes all the parts or --part unseen, unseen-2, unseen-3 or unseen-4"
        )
    marker = markers[opts.part]
    command = (
        f"python bench/realworld.py --per-tool {opts.per_tool} --per-bug {opts.per_bug} --seed "
        f"{opts.seed}" + (f" --part {opts.part}" if opts.part else "")
    )
    doc = ROOT / "docs" / "quality.md"
    old = doc.read_text()
    start = old.index(marker)
    end = old.index(FIGURES_END, start) + len(FIGURES_END)
    doc.write_text(
        old[:start] + f"{marker}\n```\n$ {command}\n{text}\n```\n{FIGURES_END}" + old[end:]
    )


if __name__ == "__main__":
    main()
