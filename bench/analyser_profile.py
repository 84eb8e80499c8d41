"""Where the background analyser's time goes.

Projection and analysis of a bulk load, in one process.

python bench/analyser_profile.py [--calls N] [--steps]   # CPU a call of projection and analysis
py-spy record -r 200 --format raw -o prof.folded -- python bench/analyser_profile.py
python bench/analyser_profile.py --shares prof.folded   # each step's share of the sampled time
python bench/analyser_profile.py --baseline /work/baseline [--rounds 3]   # beside another checkout

The calls (bench/events.py, findOrders with its contract) are ingested through the app with the
analyser off; then the store projects them and the pipeline analyses them in batches of 100, as the
analyser thread does. With --baseline, each round measures the baseline checkout (its own code and
script), then this one, each in a process of its own, so a busy spell on a shared machine falls on
both; it prints the medians' ratios.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from common import ROOT, ratio_line
from events import batch_body, contract

# step: the frames (py-spy "function (file" prefixes) whose samples it counts, inclusive of what
# they call
STEPS = {
    "projection (events folded into calls, traces, FTS)": ["project (webapp/store/"],
    "claim": ["claim_pending ("],
    "read the calls' snapshots (SQL, JSON parse)": ["calls_inputs ("],
    "analyze_call": ["analyze_call ("],
    "  parse (request and wire reading)": ["read_request ("],
    "  validate (schemas)": ["_validation ("],
    "  pair (pair_arguments)": ["pair_arguments ("],
    "  rules (_comparisons, pairing included)": ["_comparisons ("],
    "  alignment": ["_alignment ("],
    "observed shapes: drift and learning": ["drift (webapp/pipeline/observed"],
    "  facts_of": ["facts_of ("],
    "problems grouping (call_documents, call_problems)": ["call_problems (", "call_documents ("],
    "inference: learning mappings": ["learn (webapp/pipeline/mappings"],
    "saving (save_analyses)": ["save_analyses ("],
    "  apply_groupings": ["apply_groupings ("],
}
ROOTS = ("analyze_pending (", "project_all (")
# the figures `measure` prints
PRINTED = re.compile(r"^(projection|analysis): (\d+) us of CPU a call", re.M)


def ingest(calls: int):
    """Return a store holding `calls` findOrders calls, none projected or analysed yet."""
    from webapp import create_app
    from webapp.store import Store

    db = Path(tempfile.mkdtemp(prefix="tracediff-profile-")) / "profile.db"
    app = create_app({"DATABASE": str(db), "TESTING": True, "ANALYZER": "off"})
    client = app.test_client()
    client.put("/api/v1/tools/findOrders", json=contract())
    done = 0
    while done < calls:
        body, count = batch_body("p", done, 99)
        client.post("/api/v1/ingest", data=body, headers={"content-type": "application/x-ndjson"})
        done += count
    return Store.from_settings(app.config), done


def timed_steps(store) -> Counter:
    """Time the analyser's steps; return {step: seconds of CPU}, filled as they run.

    Inclusive (a step counts what it calls), in this thread's CPU time."""
    import webapp.pipeline as pipeline
    from webapp.pipeline.observed import Observer

    spent: Counter = Counter()

    def timed(owner, name: str, step: str) -> None:
        original = getattr(owner, name)

        def run(*args, **kwargs):
            began = time.thread_time()
            try:
                return original(*args, **kwargs)
            finally:
                spent[step] += time.thread_time() - began

        setattr(owner, name, run)

    kind = type(store)
    for owner, name, step in (
        (kind, "claim_pending", "claim"),
        (kind, "calls_inputs", "read the calls' snapshots (SQL, JSON parse)"),
        (pipeline, "analyze_call", "analyze_call (validate, pair, rules, align)"),
        (Observer, "drift", "observed shapes: drift and learning"),
        (pipeline, "judged_by_history", "judged by the tool's history"),
        (pipeline, "call_documents", "problems grouping"),
        (pipeline, "call_problems", "problems grouping"),
        (pipeline, "learn", "inference: learning mappings"),
        (kind, "save_analyses", "saving (rows, traces, hours, problems, shapes)"),
        (pipeline, "_contract", "a batch's set-up (contracts, shapes and records read)"),
        (Observer, "__init__", "a batch's set-up (contracts, shapes and records read)"),
        (pipeline, "hint_renames", "hints and drift added (hint_renames, with_drift)"),
        (pipeline, "with_drift", "hints and drift added (hint_renames, with_drift)"),
    ):
        timed(owner, name, step)
    return spent


def measure(calls: int, steps: bool = False) -> None:
    """Print the CPU per call of projecting and of analysing a bulk load.

    With `steps`, each step's too."""
    from webapp.common import jsontext
    from webapp.pipeline import analyze_pending

    store, calls = ingest(calls)
    # as a server's process does when its analyser starts (webapp/ops/analyser.py)
    jsontext.freeze_the_heap()
    spent = timed_steps(store) if steps else Counter()
    began = time.process_time()
    store.project_all()
    projected = time.process_time()
    analysed = 0
    while count := analyze_pending(store, 100):
        analysed += count
    ended = time.process_time()
    print(f"projection: {(projected - began) / calls * 1e6:.0f} us of CPU a call ({calls} calls)")
    print(
        f"analysis: {(ended - projected) / analysed * 1e6:.0f} us of CPU a call ({analysed} "
        "analyses)"
    )
    if steps:
        spent["the rest (batching, sorting, digests)"] = (ended - projected) - sum(spent.values())
    for step, seconds in spent.items():
        print(f"  {step}: {seconds / analysed * 1e6:.0f} us of CPU a call")


def shares(folded: Path) -> None:
    """Print each step's share of the samples in py-spy's raw output.

    Under projection and analysis."""
    total, steps = 0, Counter()
    for line in folded.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not any(root in stack for root in ROOTS):
            continue
        total += int(count)
        for step, frames in STEPS.items():
            if any(frame in stack for frame in frames):
                steps[step] += int(count)
    print(f"{total} samples in projection and analysis")
    for step in STEPS:
        print(f"{step:55s} {100 * steps[step] / max(total, 1):5.1f}%")


def measured_in(checkout: Path, calls: int) -> dict:
    """Return {step: us of CPU a call} of a checkout's own run, in a process apart."""
    script = checkout / "bench" / "analyser_profile.py"
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    out = subprocess.run(
        [sys.executable, str(script), "--calls", str(calls)],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {step: int(us) for step, us in PRINTED.findall(out)}


def side_by_side(baseline: Path, calls: int, rounds: int) -> None:
    """Print each round's CPU a call of both checkouts and the ratios of their medians."""
    runs: dict = {"baseline": [], "this": []}
    for number in range(1, rounds + 1):
        for name, checkout in (("baseline", baseline), ("this", ROOT)):
            runs[name].append(measured_in(checkout, calls))
            print(f"round {number}, {name}: {runs[name][-1]}", flush=True)
    for step in ("projection", "analysis"):
        mine = statistics.median(run[step] for run in runs["this"])
        theirs = statistics.median(run[step] for run in runs["baseline"])
        print(ratio_line(f"{step}, us of CPU a call, this / baseline", mine, theirs, "< 1"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--calls", type=int, default=3000, help="calls to ingest and analyse [default 3000]"
    )
    parser.add_argument(
        "--shares", type=Path, metavar="FOLDED", help="summarise py-spy raw output instead"
    )
    parser.add_argument("--steps", action="store_true", help="print each step's CPU a call too")
    parser.add_argument(
        "--baseline", type=Path, metavar="CHECKOUT", help="measure beside another checkout"
    )
    parser.add_argument("--rounds", type=int, default=3, help="rounds with --baseline [3]")
    args = parser.parse_args()
    if args.shares:
        shares(args.shares)
    elif args.baseline:
        side_by_side(args.baseline.resolve(), args.calls, args.rounds)
    else:
        measure(args.calls, args.steps)


if __name__ == "__main__":
    sys.exit(main())
