"""The MCP server: start-up and get_trace of a 1 MB call, beside baselines.

`tracediff mcp --help` start-up, and get_trace of a 1 MB call over both transports, each beside a
baseline run the same way in the same run.

- start-up: `tracediff mcp --help` (`python -m webapp mcp --help`) against `tracediff --help` and a
  bare `python -c pass`, in interleaved rounds (bench/cli.py's way); target under 0.3 s.
- get_trace of a call whose arguments and request are 1 MB together, on SQLite, its analysis done:
  through the official MCP client over Streamable HTTP (`/mcp`) and over stdio (`tracediff mcp`),
  and a raw JSON-RPC POST to `/mcp` (no client SDK), against the JSON API's GET of the same trace
  (what the tools read); target under 300 ms.
- the two sources the tools read through, in this process: the app called in-process (how /mcp
  reads) against the JSON API over loopback HTTP (how `tracediff mcp` reads), for the same trace.

    python bench/mcp_tools.py [--quick] [--runs N]
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
import httpx  # noqa: E402
from cli import timed  # noqa: E402
from common import ROOT, ratio_line, tracediff_server, write_figures  # noqa: E402
from payloads import document, mapped  # noqa: E402

TRACE = "3c9" + "0" * 29
STARTS = {
    "baseline": ["-c", "pass"],
    "tracediff --help": ["-m", "webapp", "--help"],
    "tracediff mcp --help": ["-m", "webapp", "mcp", "--help"],
}
TARGETS = {
    "tracediff mcp --help": 0.3,
    "get_trace (MCP over HTTP)": 0.3,
    "get_trace (MCP over stdio)": 0.3,
}


def startups(folder: Path, runs: int) -> dict:
    """Time each start-up command `runs` times, round by round.

    Return the median wall and CPU seconds of each."""
    # one warm-up round writes the bytecode caches
    for args in STARTS.values():
        timed(args, ROOT, folder)
    samples = {name: [] for name in STARTS}
    for _ in range(runs):
        for name, args in STARTS.items():
            wall, cpu, _ = timed(args, ROOT, folder)
            samples[name].append((wall, cpu))
    return {
        name: {
            "wall_s": statistics.median(w for w, _ in got),
            "cpu_s": statistics.median(c for _, c in got),
        }
        for name, got in samples.items()
    }


def big_call(size: int) -> list[dict]:
    """Return the events of one call whose arguments and request are `size` bytes.

    Together, a few fields broken."""
    arguments = document(size // 2)
    common = {"trace_id": TRACE, "call_id": "call_01", "tool": "saveNotebook"}
    return [
        {**common, "snapshot": "arguments", "payload": arguments, "ts": "2026-11-20T09:00:00Z"},
        {
            **common,
            "snapshot": "request",
            "payload": mapped(arguments),
            "ts": "2026-11-20T09:00:01Z",
            "http": {"method": "PUT", "url": "https://api.example.com/notebooks/nb_42"},
        },
        {
            **common,
            "snapshot": "response",
            "payload": {"ok": True},
            "ts": "2026-11-20T09:00:02Z",
            "http": {"status_code": 200},
        },
    ]


def analysed(url: str) -> None:
    """Wait until the call is analysed.

    A read analyses it, within the server's budget; the analyser finishes it."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        calls = httpx.get(f"{url}/api/v1/traces/{TRACE}", timeout=60).json()["calls"]
        if calls and calls[0]["analyzed"] and not calls[0].get("incomplete"):
            return
        time.sleep(0.5)
    raise RuntimeError("the 1 MB call was not analysed in two minutes")


def clocked(samples: list[float]) -> dict:
    return {
        "median_ms": round(statistics.median(samples) * 1000, 1),
        "min_ms": round(min(samples) * 1000, 1),
    }


async def through_mcp(transport: str, url: str, runs: int) -> list[float]:
    """Time get_trace through the official MCP client, one session.

    `runs` calls after a warm-up."""
    sys.path.insert(0, str(ROOT / "tests"))
    from mcp_helpers import mcp_client

    async with mcp_client(transport, url, None) as client:
        await client.call_tool("get_trace", {"trace_id": TRACE})
        took = []
        for _ in range(runs):
            start = time.perf_counter()
            result = await client.call_tool("get_trace", {"trace_id": TRACE})
            took.append(time.perf_counter() - start)
            assert not result.is_error, result.structured_content
        return took


def requests(url: str, runs: int) -> dict[str, list[float]]:
    """Time the JSON API's GET of the trace and a raw get_trace POST to /mcp.

    A raw JSON-RPC get_trace, interleaved with the GET."""
    rpc = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "get_trace", "arguments": {"trace_id": TRACE}},
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25",
    }
    took = {"api": [], "raw": []}
    with httpx.Client(timeout=60) as client:
        for _ in range(runs + 1):
            start = time.perf_counter()
            client.get(f"{url}/api/v1/traces/{TRACE}").raise_for_status()
            took["api"].append(time.perf_counter() - start)
            start = time.perf_counter()
            answer = client.post(f"{url}/mcp", json=rpc, headers=headers)
            took["raw"].append(time.perf_counter() - start)
            assert not answer.json()["result"]["isError"], answer.text[:500]
    # the first of each warms up
    return {name: samples[1:] for name, samples in took.items()}


def sources(db: Path, url: str, runs: int) -> dict[str, list[float]]:
    """Time one read of the trace through each source.

    The app in this process, and the API over loopback HTTP."""
    from webapp import create_app
    from webapp.mcp.inprocess import AppSource
    from webapp.mcp.source import HttpSource

    app = create_app({"DATABASE": str(db), "ANALYZER": "off"})
    readers = {
        "in-process": AppSource(app, "http://127.0.0.1/", None, "127.0.0.1"),
        "loopback HTTP": HttpSource(url),
    }
    took = {name: [] for name in readers}
    for _ in range(runs + 1):
        for name, source in readers.items():
            start = time.perf_counter()
            source.get(f"/api/v1/traces/{TRACE}")
            took[name].append(time.perf_counter() - start)
    return {name: samples[1:] for name, samples in took.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a tiny run for the smoke test (figures not for the docs)",
    )
    parser.add_argument("--runs", type=int, default=15, help="rounds of each measure [default 15]")
    options = parser.parse_args()
    runs, size = (1, 50_000) if options.quick else (options.runs, 1_000_000)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        starts = startups(folder, runs)
        db = folder / "mcp.db"
        with tracediff_server(db) as server:
            server.wait_ready("/api/v1/health")
            httpx.post(
                f"{server.url}/api/v1/ingest", json=big_call(size), timeout=120
            ).raise_for_status()
            analysed(server.url)
            reads = requests(server.url, runs)
            reads["http"] = anyio.run(through_mcp, "http", server.url, runs)
            reads["stdio"] = anyio.run(through_mcp, "stdio", server.url, runs)
            read_by = sources(db, server.url, runs)
    report(starts, reads, read_by, size)
    figures = {
        "runs": runs,
        "call_bytes": size,
        "startups": starts,
        "get_trace": {name: clocked(samples) for name, samples in reads.items()},
        "sources": {name: clocked(samples) for name, samples in read_by.items()},
    }
    print(f"figures written to {write_figures('mcp_tools', figures, options.quick)}")


def report(starts: dict, reads: dict, read_by: dict, size: int) -> None:
    """Print each figure beside its baseline, and the ratio lines."""
    base = starts["baseline"]
    for name, fig in starts.items():
        target = f"; target under {TARGETS[name]} s" if name in TARGETS else ""
        print(f"start-up {name:22} wall {fig['wall_s']:.3f} s, CPU {fig['cpu_s']:.3f} s{target}")
    labels = {
        "api": "GET /api/v1/traces/<id> (baseline)",
        "raw": "get_trace (raw JSON-RPC POST /mcp)",
        "http": "get_trace (MCP over HTTP)",
        "stdio": "get_trace (MCP over stdio)",
    }
    for name, label in labels.items():
        fig = clocked(reads[name])
        target = f"; target under {TARGETS[label] * 1000:.0f} ms" if label in TARGETS else ""
        print(
            f"{label:40} of a {size // 1000} KB call: median {fig['median_ms']} ms, min "
            f"{fig['min_ms']} ms{target}"
        )
    for name, samples in read_by.items():
        print(
            f"the tools' source, {name:14} read of the trace: median "
            f"{clocked(samples)['median_ms']} ms"
        )
    print(
        ratio_line(
            "mcp --help / tracediff --help (wall)",
            starts["tracediff mcp --help"]["wall_s"],
            starts["tracediff --help"]["wall_s"],
            "about 1; under 0.3 s absolute",
        )
    )
    print(
        ratio_line(
            "mcp --help / bare python (CPU)",
            starts["tracediff mcp --help"]["cpu_s"],
            base["cpu_s"],
            "under 0.3 s absolute",
        )
    )
    api = statistics.median(reads["api"])
    for name in ("raw", "http", "stdio"):
        print(
            ratio_line(
                f"{labels[name]} / API GET",
                statistics.median(reads[name]),
                api,
                "under 300 ms absolute",
            )
        )
    print(
        ratio_line(
            "in-process source / loopback HTTP source",
            statistics.median(read_by["in-process"]),
            statistics.median(read_by["loopback HTTP"]),
            "at most 1",
        )
    )


if __name__ == "__main__":
    main()
