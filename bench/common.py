"""What the benchmarks share.

Command-line options, realistic events, servers, figures on disk."""

import argparse
import json
import os
import platform
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
SAMPLES = ROOT / "sample_traces"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def options(description: str, seconds: float, **flags: str) -> argparse.Namespace:
    """Parse --quick and --seconds.

    The options every benchmark takes, and a benchmark's own `flags` (name: help)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a tiny run for the smoke test (figures not for the docs)",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=seconds,
        help=f"length of each timed load [default {seconds}]",
    )
    parser.add_argument(
        "--database",
        default="",
        metavar="URL",
        help="also run against this PostgreSQL database (emptied first), where the bench supports "
        "it",
    )
    for name, help_text in flags.items():
        parser.add_argument(f"--{name}", action="store_true", help=help_text)
    return parser.parse_args()


def machine() -> dict:
    """Describe the machine the figures come from."""
    cpu = platform.processor() or platform.machine()
    try:
        names = [
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    return {
        "cores": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "sqlite": __import__("sqlite3").sqlite_version,
        # other work on the machine skews every figure; the docs quote this beside them
        "load_average_1m_at_end": round(os.getloadavg()[0], 2),
    }


def write_figures(name: str, figures: dict, quick: bool) -> Path:
    """Write a benchmark's figures to bench/out/<name>.json.

    Quick runs to <name>-quick.json."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{name}{'-quick' if quick else ''}.json"
    record = {
        "benchmark": name,
        "quick": quick,
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": machine(),
        **figures,
    }
    # written whole then renamed: a reader running beside another run never sees half a file
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps(record, indent=2))
    partial.replace(path)
    return path


def tree_cpu_seconds(pid: int) -> float:
    """Return the CPU seconds (user and system) of a process and its living children.

    Read from /proc (0 where there is none): a server's master and its workers."""
    tick = os.sysconf("SC_CLK_TCK")
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return 0.0
    total = 0.0
    for each in (pid, *map(int, children)):
        try:
            fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
        # a worker that ended meanwhile
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def ratio_line(label: str, value: float, baseline: float, target: str) -> str:
    """Format the one line a benchmark prints per ratio.

    With the two figures it divides."""
    ratio = value / baseline if baseline else float("inf")
    return f"RATIO {label}: {shown(ratio)} (target {target}; {figures(value, baseline)})"


def shown(ratio: float) -> str:
    """Write a ratio with two decimals, or two significant digits below 0.1.

    So none reads 0.00."""
    return f"{ratio:.2g}" if 0 < ratio < 0.1 else f"{ratio:.2f}"


def figures(value: float, baseline: float) -> str:
    """Say which figure a ratio divides by which baseline figure.

    The measured figure and the baseline figure of the same run."""
    return f"measured {value:.4g} against baseline {baseline:.4g}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Process:
    """A server process group started by a benchmark, stopped by its own id."""

    def __init__(self, command: list[str], env: dict, log_path: Path, port: int):
        self.command, self.env, self.log_path, self.port = command, env, log_path, port
        self.url = f"http://127.0.0.1:{port}"

    def __enter__(self):
        self.log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            self.command,
            env={**os.environ, **self.env},
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=ROOT,
        )
        return self

    def wait_ready(self, path: str, timeout: float = 30) -> "Process":
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_path.read_text()[-2000:]}")
            try:
                if httpx.get(self.url + path, timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError(f"server did not start: {self.log_path.read_text()[-2000:]}")

    def __exit__(self, *exc):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        self.log.close()


def tracediff_server(db_path: Path, workers: int = 2, env: dict | None = None) -> Process:
    """Return `tracediff serve` on a free port (enter it, then wait_ready)."""
    port = free_port()
    # `python -m webapp` from the checkout, so the figures are of this working tree's code
    command = [
        sys.executable,
        "-m",
        "webapp",
        "serve",
        "--port",
        str(port),
        "--workers",
        str(workers),
        "--db",
        str(db_path),
    ]
    return Process(
        command,
        {"TRACEDIFF_DATABASE": str(db_path), **(env or {})},
        db_path.with_suffix(".log"),
        port,
    )


def bare_server(log_path: Path, workers: int = 2, env: dict | None = None) -> Process:
    """Return the bare Flask app of bench/bare_app.py under gunicorn.

    With serve's settings."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        "--worker-class",
        "sync",
        "--timeout",
        "60",
        "--graceful-timeout",
        "10",
        "--access-logfile",
        "-",
        "--access-logformat",
        '%(h)s "%(r)s" %(s)s %(b)s %(M)sms',
        "--error-logfile",
        "-",
        "--chdir",
        str(ROOT / "bench"),
        "bare_app:app",
    ]
    return Process(command, env or {}, log_path, port)
