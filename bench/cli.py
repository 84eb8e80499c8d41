"""Start-up of the command line.

`tracediff --help` and `tracediff check` of one small call.

Each command runs N times, in rounds interleaved with the baseline (a bare `python -c pass`), so
that other work on the machine slows all of them alike. Prints the median wall time and the median
CPU time (user + system of the child process) of each, the time over the baseline, and the ratio to
it. On an idle machine the two agree; on a busy one the wall time also counts the wait for a core,
the CPU time does not.

    python bench/cli.py [--quick] [--runs N] [--against PATH]

`--against PATH` also times the same commands with PATH (another checkout, e.g. the main branch)
first on PYTHONPATH, for a before/after line in the same run.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ROOT, SAMPLES, ratio_line, write_figures

TARGETS = {"help": 0.25, "check_failing": 0.35, "check_clean": 0.35}
ARGUMENTS = {"customerEmail": "ana@example.com", "limit": 5}
CLEAN = {"customer_email": "ana@example.com", "limit": 5}
# a type change and a schema violation
FAILING = {"customer_email": "ana@example.com", "limit": "5"}


def commands(folder: Path) -> dict[str, list[str]]:
    """The commands timed, by name.

    Each runs `python -m webapp` as the `tracediff` script does."""
    check = [
        "-m",
        "webapp",
        "check",
        "--contract",
        str(SAMPLES / "contracts" / "findOrders.json"),
        "--arguments",
        str(folder / "tool-args.json"),
    ]
    return {
        "baseline": ["-c", "pass"],
        "help": ["-m", "webapp", "--help"],
        "check_clean": [*check, "--request", str(folder / "clean.json")],
        "check_failing": [*check, "--request", str(folder / "failing.json")],
        "app_factory": [
            "-c",
            f"from webapp import create_app; create_app({{'DATABASE': {str(folder / 'a.db')!r}}})",
        ],
    }


def timed(args: list[str], path: Path, cwd: Path) -> tuple[float, float, int]:
    """Run `python args` with `path` first on PYTHONPATH.

    Return (wall s, CPU s, exit code)."""
    env = {**os.environ, "PYTHONPATH": str(path)}
    start = time.perf_counter()
    # cwd: a folder without a webapp/ of its own (python -m and -c put the working directory first)
    proc = subprocess.Popen(
        [sys.executable, *args],
        env=env,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, proc.returncode


def measure(folder: Path, checkouts: dict[str, Path], runs: int) -> dict:
    """Time every command of every checkout `runs` times, round by round.

    Return medians and exit codes."""
    samples = {(who, name): [] for who in checkouts for name in commands(folder)}
    codes = {}
    # one warm-up round writes the bytecode caches
    for who, path in checkouts.items():
        for name, args in commands(folder).items():
            codes[(who, name)] = timed(args, path, folder)[2]
    for _ in range(runs):
        for who, path in checkouts.items():
            for name, args in commands(folder).items():
                wall, cpu, _ = timed(args, path, folder)
                samples[(who, name)].append((wall, cpu))
    return {
        f"{who}:{name}": {
            "wall_s": round(statistics.median(w for w, _ in runs_), 4),
            "cpu_s": round(statistics.median(c for _, c in runs_), 4),
            "exit_code": codes[(who, name)],
        }
        for (who, name), runs_ in samples.items()
    }


def _verdict(seconds: float, name: str) -> str:
    return "met" if seconds < TARGETS[name] else "missed"


def report(figures: dict, who: str) -> list[str]:
    """The lines of one checkout.

    Each figure, its time over the baseline, its target."""
    base = figures[f"{who}:baseline"]
    lines = [f"{who}: bare python -c pass: wall {base['wall_s']:.3f} s, CPU {base['cpu_s']:.3f} s"]
    for name in ("help", "check_clean", "check_failing", "app_factory"):
        fig = figures[f"{who}:{name}"]
        target = f"under {TARGETS[name]} s" if name in TARGETS else "none"
        verdict = (
            ""
            if name not in TARGETS
            else f"  wall {_verdict(fig['wall_s'], name)}, CPU {_verdict(fig['cpu_s'], name)}"
        )
        lines.append(
            f"{who}: {name:13} exit {fig['exit_code']}: wall {fig['wall_s']:.3f} s "
            f"(+{fig['wall_s'] - base['wall_s']:.3f} over bare python), CPU {fig['cpu_s']:.3f} s "
            f"(+{fig['cpu_s'] - base['cpu_s']:.3f}); target {target}{verdict}"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a tiny run for the smoke test (figures not for the docs)",
    )
    parser.add_argument("--runs", type=int, default=15, help="rounds of every command [default 15]")
    parser.add_argument(
        "--against", type=Path, default=None, help="another checkout to time the same way"
    )
    options = parser.parse_args()
    runs = 2 if options.quick else options.runs
    checkouts = {
        "this": ROOT,
        **({"against": options.against.resolve()} if options.against else {}),
    }
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, value in (
            ("tool-args.json", ARGUMENTS),
            ("clean.json", CLEAN),
            ("failing.json", FAILING),
        ):
            (folder / name).write_text(json.dumps(value))
        figures = measure(folder, checkouts, runs)
    for who in checkouts:
        print("\n".join(report(figures, who)))
    base = figures["this:baseline"]["wall_s"]
    cpu_base = figures["this:baseline"]["cpu_s"]
    for name in ("help", "check_clean", "check_failing"):
        print(
            ratio_line(
                f"{name} / bare python (wall)",
                figures[f"this:{name}"]["wall_s"],
                base,
                f"under {TARGETS[name]} s absolute",
            )
        )
        print(
            ratio_line(
                f"{name} / bare python (CPU)",
                figures[f"this:{name}"]["cpu_s"],
                cpu_base,
                f"under {TARGETS[name]} s absolute",
            )
        )
    if options.against:
        for name in ("help", "check_failing"):
            print(
                ratio_line(
                    f"{name}: against / this (wall)",
                    figures[f"against:{name}"]["wall_s"],
                    figures[f"this:{name}"]["wall_s"],
                    "the speed-up",
                )
            )
    path = write_figures("cli", {"runs": runs, "figures": figures}, options.quick)
    print(f"figures written to {path}")


if __name__ == "__main__":
    main()
