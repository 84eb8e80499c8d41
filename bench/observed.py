"""What observed schemas cost the analyser, and how well drift tells.

How well drift tells a server change from correct traffic; the analyser is the background one.

    python bench/observed.py            # about a minute
    python bench/observed.py --quick    # a few seconds

Cost: the same calls analysed through the real pipeline and SQLite store with the observer and with
a stand-in that learns nothing (the baseline, same run). Drift: the issue's scenario (300 calls
stable, then 40 changed: total_cents a string, status PAID_OUT, currency missing) over many seeds,
each change alone too, and correct traffic with optional fields, enums whose values come and go and
nullable values; recall is the changed calls with a drift warning at the changed path, noise the
calls before the change (or of correct traffic) with any warning or error.
"""

import random
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "bench")]

from common import options, ratio_line, write_figures  # noqa: E402
from observed_traffic import order, order_events, stamp, varied  # noqa: E402

from webapp import pipeline  # noqa: E402
from webapp.ingest import parse_body  # noqa: E402
from webapp.observed import drift_findings, empty_shape, facts_of, learn  # noqa: E402
from webapp.store import Store  # noqa: E402

LOUD = ("warning", "error")
CHANGES = {
    "all three": None,
    "total_cents a string": "total_cents",
    "status PAID_OUT": "status",
    "no currency": "currency",
}


class Unobserved:
    """The baseline: an observer that learns nothing and tells no drift."""

    def __init__(self, store, keys):
        pass

    def drift(self, key, call, analysis):
        return []

    def write(self, conn):
        pass


def wide(rng, n):
    """A wide response.

    120 fields, an array of 40 items of 6 fields, a map keyed by ids."""
    body = {
        f"field_{k}": rng.choice([rng.randrange(1000), f"v{rng.randrange(9)}", True, None])
        for k in range(120)
    }
    body["rows"] = [
        {"id": f"r_{i}x", "n": i, "at": stamp(n), "ok": True, "tag": "a", "w": 1.5}
        for i in range(40)
    ]
    body["by_account"] = {
        str(20_000_000 + rng.randrange(10**6)): {"bal": rng.randrange(100)} for _ in range(5)
    }
    return body


def analysed(events, observing: bool) -> tuple[float, int, int]:
    """Analyse every call of the events.

    Return (seconds, calls, bytes of the stored shapes)."""
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "bench.db")
        pipeline.store_batch(store, parse_body(orjson.dumps(events)), None)
        store.project_all()
        keep = pipeline.Observer
        pipeline.Observer = keep if observing else Unobserved
        try:
            began = time.perf_counter()
            calls = pipeline.catch_up(store)
            seconds = time.perf_counter() - began
        finally:
            pipeline.Observer = keep
        size = store.db.execute(
            "SELECT coalesce(sum(length(shape)), 0) FROM observed_shapes"
        ).fetchone()[0]
        store.close()
        return seconds, calls, size


def scenario(seed: int, stable: int, changed: int, only: str | None = None) -> list[dict]:
    rng = random.Random(seed)
    bodies = [order(rng, n) for n in range(stable)]
    for n in range(stable, stable + changed):
        body, after = order(rng, n), order(rng, n, changed=True)
        if only is None:
            body = after
        elif only == "currency":
            body.pop("currency")
        else:
            body[only] = after[only]
        bodies.append(body)
    return bodies


def replay(bodies) -> tuple[list[list[dict]], float]:
    """Learn bodies in order (the pure learning).

    Return each call's drift findings and the seconds it took."""
    shape, found = empty_shape(), []
    began = time.perf_counter()
    for n, body in enumerate(bodies):
        facts = facts_of(body)
        found.append(drift_findings("response", shape, facts, stamp(n)))
        learn(shape, facts, stamp(n))
    return found, time.perf_counter() - began


def quality(seeds: int, stable: int = 300, changed: int = 40) -> dict:
    out = {}
    for name, only in CHANGES.items():
        paths = ["/total_cents", "/status", "/currency"] if only is None else [f"/{only}"]
        hits = noisy = 0
        for seed in range(seeds):
            found, _ = replay(scenario(seed, stable, changed, only))
            noisy += sum(any(f["severity"] in LOUD for f in fs) for fs in found[:stable])
            hits += sum(
                all(
                    any(f["severity"] in LOUD and f["right"]["path"] == p for f in fs)
                    for p in paths
                )
                for fs in found[stable:]
            )
        out[name] = {"recall": hits / (seeds * changed), "noise": noisy / (seeds * stable)}
    return out


def correct_noise(seeds: int, calls: int) -> dict:
    noisy = total = 0
    for seed in range(seeds):
        rng = random.Random(1000 + seed)
        found, _ = replay([varied(rng, n) for n in range(calls)])
        noisy += sum(any(f["severity"] in LOUD for f in fs) for fs in found)
        total += calls
    return {"calls": total, "noisy_calls": noisy, "noise": noisy / total}


def end_to_end(stable: int, changed: int) -> dict:
    """The scenario through the real pipeline and store.

    Per call, its stored findings."""
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "e2e.db")
        bodies = scenario(99, stable, changed)
        pipeline.store_batch(store, parse_body(orjson.dumps(order_events(bodies))), None)
        pipeline.catch_up(store)
        loud = [
            {
                f["right"]["path"]
                for f in store.get_trace(f"{n + 1:032x}")["calls"][0]["findings"]
                if f["severity"] in LOUD
            }
            for n in range(stable + changed)
        ]
        problems = store.db.execute(
            "SELECT count(*) FROM problems WHERE kind = 'drift'"
        ).fetchone()[0]
        store.close()
    return {
        "recall": sum({"/total_cents", "/status", "/currency"} <= paths for paths in loud[stable:])
        / changed,
        "noise": sum(bool(paths) for paths in loud[:stable]) / stable,
        "drift_problems": problems,
    }


def main(quick: bool) -> None:
    figures = {}
    n = 200 if quick else 2000
    for name, bodies in (
        ("orders", [order(random.Random(n), i) for i in range(n)]),
        ("wide (120 fields, 40 items)", [wide(random.Random(i), i) for i in range(n // 4)]),
    ):
        events = order_events(bodies)
        runs = {False: [], True: []}
        # alternated, the best of each: other work on the machine comes and goes
        for _ in range(1 if quick else 3):
            for observing in runs:
                runs[observing].append(analysed(events, observing))
        (base, calls, _), (seen, _, size) = min(runs[False]), min(runs[True])
        _, pure = replay(bodies)
        figures[name] = {
            "calls": calls,
            "ms_per_call_without": 1000 * base / calls,
            "ms_per_call_with": 1000 * seen / calls,
            "ratio": seen / base,
            "learning_ms_per_call": 1000 * pure / len(bodies),
            "shape_bytes": size,
        }
        print(
            f"{name}: {calls} calls, analyser {1000 * base / calls:.2f} ms a call without "
            "observing, "
            f"{1000 * seen / calls:.2f} ms with ({seen / base:.2f}x); the learning alone "
            f"{1000 * pure / len(bodies):.3f} ms a response; stored shapes {size / 1024:.1f} KiB"
        )
        target = "<= 1.25" if name == "orders" else "<= 3, a response-heavy worst case"
        print(ratio_line(f"analyser with observed schemas / without, {name}", seen, base, target))
    seeds = 3 if quick else 30
    figures["scenario"] = quality(seeds)
    for name, q in figures["scenario"].items():
        print(
            f"change {name}: recall {q['recall']:.1%} of the changed calls, noise {q['noise']:.2%} "
            "of the calls before"
        )
    figures["correct_traffic"] = correct_noise(seeds, 500 if quick else 2000)
    c = figures["correct_traffic"]
    print(
        f"correct varied traffic: {c['noisy_calls']} of {c['calls']} calls with a warning "
        f"({c['noise']:.2%})"
    )
    figures["end_to_end"] = e2e = end_to_end(300, 40)
    print(
        f"end to end (pipeline + SQLite): recall {e2e['recall']:.1%}, noise {e2e['noise']:.2%}, "
        f"{e2e['drift_problems']} drift problems"
    )
    write_figures("observed", figures, quick)


if __name__ == "__main__":
    main(options(__doc__.splitlines()[0], 0).quick)
