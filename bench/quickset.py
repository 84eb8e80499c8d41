"""The quick test set's time beside a baseline checkout's.

Measured side by side in one run.

    git -C . worktree add --detach /work/baseline 70eb6eb    # the checkout to compare with
    python bench/quickset.py --baseline /work/baseline        # two rounds, alternating
    python bench/quickset.py --baseline /work/baseline --rounds 3 --database postgresql:///postgres
    python bench/quickset.py --baseline /work/baseline --quick

Each round runs the quick set (`python -m pytest -m "not slow and not browser"`, the checkout's own
pytest settings, `-n auto` included) in the baseline checkout, then in this one, each with its own
code on PYTHONPATH, so a busy spell on a shared machine falls on both. It prints each run's wall
time, CPU time (every worker's) and test count, and the ratios of the medians: wall time, CPU time
and wall time per test. `--quick` times one small test file instead of the whole set (the smoke
run: figures not for the docs).
"""

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "bench")]

from common import ratio_line, write_figures  # noqa: E402

QUICK_SET = ["-m", "not slow and not browser"]
# a file both checkouts hold, for the smoke run
SMALL = ["tests/test_times.py"]
COUNTED = re.compile(r"(\d+) (passed|failed|skipped|xfailed|xpassed|errors?)\b")


def options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, type=Path, help="the checkout to compare with")
    parser.add_argument(
        "--checkout", type=Path, default=ROOT, help="the checkout measured [default: this one]"
    )
    parser.add_argument("--rounds", type=int, default=2, help="baseline-then-checkout rounds [2]")
    parser.add_argument(
        "--database",
        default="",
        metavar="URL",
        help="run the store tests on PostgreSQL too (TRACEDIFF_TEST_POSTGRES) in both checkouts",
    )
    parser.add_argument("--quick", action="store_true", help="one small test file, not the set")
    return parser.parse_args()


def run_quick_set(checkout: Path, database: str, quick: bool) -> dict:
    """Run the quick set in `checkout` with its own code.

    Return wall and CPU seconds and counts."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    env.pop("TRACEDIFF_TEST_POSTGRES", None)
    if database:
        env["TRACEDIFF_TEST_POSTGRES"] = database
    command = [sys.executable, "-m", "pytest", *QUICK_SET, "-q", "-p", "no:cacheprovider"]
    command += SMALL if quick else []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(
        command, cwd=checkout, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    counts = {kind.rstrip("s"): int(n) for n, kind in COUNTED.findall(summary)}
    if not counts.get("passed"):
        raise SystemExit(f"the quick set did not run in {checkout}:\n{proc.stdout[-3000:]}")
    # a test that fails on a loaded machine is counted and named, and the timing still stands
    failed = [line for line in proc.stdout.splitlines() if line.startswith("FAILED ")]
    if failed:
        print(f"{checkout}: " + "; ".join(failed), flush=True)
    return {
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "tests": sum(counts.values()),
        **counts,
    }


def main() -> None:
    args = options()
    checkouts = {"baseline": args.baseline.resolve(), "checkout": args.checkout.resolve()}
    runs = {name: [] for name in checkouts}
    for round_number in range(1, args.rounds + 1):
        for name, checkout in checkouts.items():
            run = run_quick_set(checkout, args.database, args.quick)
            runs[name].append(run)
            print(
                f"round {round_number} {name:8} {checkout}: {run['wall_s']:.1f} s wall, "
                f"{run['cpu_s']:.1f} s CPU, {run['tests']} tests ({run.get('passed', 0)} passed, "
                f"{run.get('failed', 0)} failed), "
                f"load {os.getloadavg()[0]:.1f}",
                flush=True,
            )
    medians = {
        name: {
            key: statistics.median(run[key] for run in done) for key in ("wall_s", "cpu_s", "tests")
        }
        for name, done in runs.items()
    }
    now, then = medians["checkout"], medians["baseline"]
    print(ratio_line("quick set wall time", now["wall_s"], then["wall_s"], "<= 0.5"))
    print(ratio_line("quick set CPU time", now["cpu_s"], then["cpu_s"], "<= 0.5"))
    print(
        ratio_line(
            "quick set wall time per test",
            now["wall_s"] / now["tests"],
            then["wall_s"] / then["tests"],
            "<= 0.5",
        )
    )
    write_figures(
        "quickset",
        {"checkouts": {k: str(v) for k, v in checkouts.items()}, "runs": runs, "medians": medians},
        args.quick,
    )


if __name__ == "__main__":
    main()
