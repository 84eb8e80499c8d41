"""ReDoS figures: calls triggering the OWASP list's catastrophic patterns.

Analysed under contracts that hold them, beside the same calls under a benign pattern (`^[a-z]+$`,
the baseline of the same run).

    python bench/redos.py            # about a minute
    python bench/redos.py --quick    # a smoke run

In process: `analyze_call` per call (each pattern on a value, on array items and as a
`patternProperties` key beside `additionalProperties: false`), median and slowest, against the
benign pattern; and Python's `re` on the same patterns at 14 to 18 characters, for scale (the path
validation took before: each two characters cost it about 4x, and the attack's 30 to 50 take
hours). Against a server (2 workers): the calls posted by native ingest while a victim posts a
call every 0.1 s and health is probed; the slowest answers and the seconds until every call is
analysed, beside the same run under the benign pattern.
"""

import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import orjson
from common import ROOT, options, ratio_line, tracediff_server, write_figures

sys.path.insert(0, str(ROOT / "tests"))
from evil_patterns import BENIGN, EVIL, arguments_with, contract_with  # noqa: E402

from webapp.analysis import analyze_call  # noqa: E402
from webapp.store import Store  # noqa: E402

ADMIN, VICTIM = "bench-admin-0123456789", "bench-victim-0123456789"
TOKENS = {"TRACEDIFF_ADMIN_TOKENS": f"ops:{ADMIN}", "TRACEDIFF_INGEST_TOKENS": f"victim:{VICTIM}"}


def _snapshots(value: str) -> dict:
    return {
        "arguments": {"payload": arguments_with(value)},
        "request": {"payload": arguments_with(value)},
        "response": {"payload": {"id": value}, "http": {"status_code": 200}},
    }


def per_call_ms(pattern: str, value: str, calls: int) -> list[float]:
    """Analyse `calls` calls whose arguments and request trigger the pattern.

    Return their ms."""
    contract = contract_with(pattern)
    contract["request_schema"] = contract["arguments_schema"]
    out = []
    for i in range(calls):
        began = time.perf_counter()
        analyze_call(_snapshots(value + "a" * (i % 3)), contract, budget=2.0)
        out.append((time.perf_counter() - began) * 1000)
    return out


def python_re_ms(pattern: str, lengths=(14, 16, 18)) -> list[float]:
    """Time Python's `re` (the old path) on the evil value cut short, in milliseconds."""
    out = []
    for n in lengths:
        began = time.perf_counter()
        re.search(pattern, "a" * n + "!")
        out.append(round((time.perf_counter() - began) * 1000, 2))
    return out


def _figures(times: list[float]) -> dict:
    """The first call apart from the others (median, slowest), in ms.

    The first call has its schema compiled."""
    rest = times[1:]
    return {
        "first_ms": round(times[0], 3),
        "median_ms": round(statistics.median(rest), 3),
        "max_ms": round(max(rest), 3),
    }


def in_process(calls: int) -> dict:
    # imports out of the figures
    per_call_ms(r"^[a-f]+$", BENIGN[2], 3)
    figures = {"benign": _figures(per_call_ms(BENIGN[1], BENIGN[2], calls))}
    for name, pattern, value in EVIL:
        figures[name] = _figures(per_call_ms(pattern, value, calls))
        figures[name]["python_re_ms_at_14_16_18_chars"] = python_re_ms(pattern)
    return figures


def _call(tool: str, trace: str, value: str) -> bytes:
    http = {"method": "POST", "url": "https://api.example.com/x"}
    events = [
        {"snapshot": "arguments", "payload": arguments_with(value)},
        {"snapshot": "request", "payload": arguments_with(value), "http": http},
        {"snapshot": "response", "payload": {"id": value}, "http": {"status_code": 200}},
    ]
    head = {"trace_id": trace, "call_id": "c1", "tool": tool}
    return b"".join(orjson.dumps({**head, **event}) + b"\n" for event in events)


def _probe(send, stop: threading.Event, out: list) -> None:
    with httpx.Client(timeout=30) as client:
        while not stop.is_set():
            began = time.monotonic()
            send(client, len(out))
            out.append(time.monotonic() - began)
            stop.wait(0.1)


def _wait_analysed(db_path: Path, traces: list[str]) -> None:
    store = Store.open(db_path)
    try:
        while sum(store.call_analysis(t, "c1") is not None for t in traces) < len(traces):
            time.sleep(0.05)
    finally:
        store.close()


def attack(cases, rounds: int) -> dict:
    """Run the attack on a fresh server.

    Return the slowest victim post and health answer, and the seconds until every call was
    analysed."""
    with tempfile.TemporaryDirectory() as folder:
        db_path = Path(folder) / "redos.db"
        with tracediff_server(db_path, 2, TOKENS) as server:
            server.wait_ready("/api/v1/health")
            return _attack_on(server.url, db_path, cases, rounds)


def _attack_on(url: str, db_path: Path, cases, rounds: int) -> dict:
    admin = {"Authorization": f"Bearer {ADMIN}"}
    for name, pattern, _ in cases:
        httpx.put(f"{url}/api/v1/tools/t_{name}", json=contract_with(pattern), headers=admin)
    stop, posts, health, victims = threading.Event(), [], [], []

    def victim(client, n):
        victims.append(f"{0xF00000 + n:032x}")
        body = _call("victim", victims[-1], "ok")
        token = {"Authorization": f"Bearer {VICTIM}"}
        client.post(url + "/api/v1/ingest", content=body, headers=token)

    def probe_health(client, n):
        client.get(url + "/api/v1/health")

    probes = [
        threading.Thread(target=_probe, args=(send, stop, out))
        for send, out in ((victim, posts), (probe_health, health))
    ]
    for probe in probes:
        probe.start()
    began, traces = time.monotonic(), []
    for r in range(rounds):
        for i, (name, _, value) in enumerate(cases):
            traces.append(f"{0xA00000 + r * 100 + i:032x}")
            body = _call(f"t_{name}", traces[-1], value)
            httpx.post(url + "/api/v1/ingest", content=body, headers=admin)
    _wait_analysed(db_path, traces)
    analysed = time.monotonic() - began
    stop.set()
    for probe in probes:
        probe.join()
    slowest = {"victim_max_s": max(posts), "health_max_s": max(health)}
    return {"calls": len(traces), "analysed_s": analysed, **slowest}


def _print_in_process(figures: dict) -> None:
    for name in ["benign", *(name for name, _, _ in EVIL)]:
        found = figures[name]
        old = found.get("python_re_ms_at_14_16_18_chars")
        print(
            f"{name:20} per call: first {found['first_ms']:.2f} ms, then median"
            f" {found['median_ms']:.2f} ms, slowest {found['max_ms']:.2f} ms"
            + (f"; python re at 14/16/18 chars: {old} ms" if old else "")
        )
    benign = figures["benign"]
    for key, label in (("first_ms", "first"), ("max_ms", "slowest")):
        evil = max(figures[name][key] for name, _, _ in EVIL)
        text = f"{label} call, slowest evil pattern / benign pattern, in process"
        print(ratio_line(text, evil, benign[key], "~ 1, each call under 100 ms"))


def _print_attacks(evil: dict, calm: dict) -> None:
    for label, found in (("attack", evil), ("benign", calm)):
        print(
            f"{label:7} {found['calls']} calls analysed in {found['analysed_s']:.2f} s;"
            f" slowest victim post {found['victim_max_s'] * 1000:.0f} ms,"
            f" slowest health {found['health_max_s'] * 1000:.0f} ms"
        )
    pairs = (
        ("victim's slowest post, attack / benign", "victim_max_s", "< 1 s"),
        ("health's slowest answer, attack / benign", "health_max_s", "< 1 s"),
        ("seconds to analyse the calls, attack / benign", "analysed_s", "~ 1"),
    )
    for label, key, target in pairs:
        print(ratio_line(label, evil[key], calm[key], target))


def main() -> None:
    args = options("Contracts holding the OWASP ReDoS patterns: analysis per call, an attack.", 0)
    calls, rounds = (5, 1) if args.quick else (50, 5)
    figures = {"in_process": in_process(calls)}
    _print_in_process(figures["in_process"])
    figures["attack"] = attack(EVIL, rounds)
    figures["benign_attack"] = attack([(name, BENIGN[1], value) for name, _, value in EVIL], rounds)
    _print_attacks(figures["attack"], figures["benign_attack"])
    print(f"wrote {write_figures('redos', figures, args.quick)}", file=sys.stderr)


if __name__ == "__main__":
    main()
