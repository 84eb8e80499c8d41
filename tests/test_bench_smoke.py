"""The benchmarks still run.

Each bench/ script in --quick mode prints its ratio lines and writes its figures."""

import json
import math
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
# what bench/common.py's figures() writes after a ratio
FIGURES = re.compile(r"measured (?P<measured>\S+) against baseline (?P<baseline>[^\s);]+)")
SCRIPTS = (
    "ingest",
    "analysis",
    "pages",
    "cli",
    "shapes",
    "grouping",
    "prune",
    "observed",
    "wide",
    "lint",
    "redos",
    "mcp_tools",
    "crowds",
    "visible",
    "bigcall",
)


def run_quick(name: str) -> tuple[str, int, float]:
    """Run one benchmark in --quick mode; return its output, exit status and start time."""
    started = time.time()
    proc = subprocess.run(
        [sys.executable, str(BENCH / f"{name}.py"), "--quick"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=240,
    )
    return proc.stdout, proc.returncode, started


# One test a benchmark, so each runs alone within its own timeout and xdist spreads them over the
# cores (twelve side by side on two loaded cores outran a shared two-minute budget).
@pytest.mark.slow
@pytest.mark.parametrize("name", SCRIPTS)
def test_each_benchmark_runs_quick_prints_its_ratios_and_writes_its_figures(name):
    output, returncode, started = run_quick(name)
    assert returncode == 0, output[-3000:]
    ratios = [line for line in output.splitlines() if line.startswith("RATIO ")]
    assert ratios, output[-3000:]
    # no timing threshold (the machine may be loaded), but every ratio a real division of two real
    # figures (a figure that is a difference of two timings, grouping's CPU per new call, may read
    # <= 0 on a quick run)
    for line in ratios:
        ratio = float(line.split(": ", 1)[1].split()[0])
        assert " (target " in line and math.isfinite(ratio), line
    divided = [(line, FIGURES.search(line)) for line in ratios if FIGURES.search(line)]
    assert divided, f"{name} prints no ratio with its measured and baseline figures: {ratios}"
    for line, found in divided:
        measured, baseline = float(found["measured"]), float(found["baseline"])
        assert baseline > 0 and math.isfinite(measured) and math.isfinite(baseline), line
        ratio = float(line.split(": ", 1)[1].split()[0])
        assert ratio == pytest.approx(measured / baseline, rel=0.05, abs=0.01), line
    # the figures as JSON for the plots
    figures = json.loads((BENCH / "out" / f"{name}-quick.json").read_text())
    assert (BENCH / "out" / f"{name}-quick.json").stat().st_mtime >= started
    assert figures["quick"] is True and figures["machine"]["cores"] >= 1


@pytest.mark.slow
def test_the_plots_are_drawn_from_the_quick_figures():
    pytest.importorskip(
        "matplotlib", reason="matplotlib comes with the bench extra: pip install -e '.[bench]'"
    )
    for name in ("analysis", "pages"):
        output, returncode, _ = run_quick(name)
        assert returncode == 0, output[-3000:]
    subprocess.run(
        [sys.executable, str(BENCH / "plot.py"), "--quick"], cwd=ROOT, check=True, timeout=60
    )
    for name in ("perf-payload-quick.png", "perf-traces-quick.png"):
        assert (BENCH / "out" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
