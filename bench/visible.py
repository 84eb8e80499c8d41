"""Send to visible under bulk load, beside send to acknowledgement in the same run.

How soon an acknowledged trace answers through the API.

python bench/visible.py                                   # SQLite, one node, about a minute
python bench/visible.py --database postgresql:///tracediff_bench   # also two nodes on PostgreSQL
python bench/visible.py --quick                           # a few seconds, for the smoke test

4 client processes post bodies of about 1,000 events (bench/events.py, whole calls) to
`tracediff serve` (analyser on) for the length of the load; beside them a probe posts a body of the
same size every half second and asks `GET /api/v1/traces/<id>` for the last trace in it (on
PostgreSQL, of the other node) until it answers 200. Send-to-visible is from the probe's send to
that 200; its baseline is the probe's send-to-acknowledgement, the least any store can do.
"""

import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from common import Process, free_port, options, ratio_line, tracediff_server, write_figures
from events import batch_body, contract
from ingest_clients import NDJSON, load

PROBE_EVERY_S = 0.5
VISIBLE_WAIT_S = 120
EVENTS_PER_POST = 1000


class VisibilityProbe(threading.Thread):
    """Post a body every half second to one node; time until it reads on another.

    It times its last trace until that trace reads on another node."""

    def __init__(self, post_url: str, read_url: str, per_post: int):
        super().__init__(daemon=True)
        self.post_url, self.read_url, self.per_post = post_url, read_url, per_post
        self.stopping = threading.Event()
        self.acks, self.visible, self.lost = [], [], 0

    def run(self) -> None:
        number = 0
        with httpx.Client(timeout=60) as client:
            while not self.stopping.is_set():
                began = time.monotonic()
                body, calls = batch_body("vis", number, self.per_post)
                number += calls
                trace_id = f"vis{number - 1:012x}"
                if client.post(self.post_url, content=body, headers=NDJSON).status_code != 200:
                    continue
                self.acks.append(time.monotonic() - began)
                self._wait_visible(client, trace_id, began)
                time.sleep(max(0.0, began + PROBE_EVERY_S - time.monotonic()))

    def _wait_visible(self, client, trace_id: str, began: float) -> None:
        while time.monotonic() - began < VISIBLE_WAIT_S:
            if client.get(f"{self.read_url}/api/v1/traces/{trace_id}").status_code == 200:
                self.visible.append(time.monotonic() - began)
                return
            time.sleep(0.02)
        self.lost += 1

    def summary(self) -> dict:
        self.stopping.set()
        self.join()
        return {"ack": quantiles(self.acks), "visible": quantiles(self.visible), "lost": self.lost}


def quantiles(seconds: list[float]) -> dict:
    """Return the count, median and p99 of some durations."""
    values = sorted(seconds) or [0.0]
    p99 = statistics.quantiles(values, n=100, method="inclusive")[98] if len(values) > 1 else 0
    return {
        "count": len(seconds),
        "p50_s": round(statistics.median(values), 3),
        "p99_s": round(p99 or values[-1], 3),
    }


def under_load(urls: list[str], seconds: float, per_post: int) -> dict:
    """Load the nodes with 4 senders while the probe runs.

    The probe posts to the first node and reads from the last."""
    httpx.put(urls[0] + "/api/v1/tools/findOrders", json=contract(), timeout=30).raise_for_status()
    probe = VisibilityProbe(urls[0] + "/api/v1/ingest", urls[-1], per_post)
    probe.start()
    stored = load([url + "/api/v1/ingest" for url in urls], "b", per_post, seconds)
    return {"ingest": stored, "probe": probe.summary()}


def sqlite_run(folder: Path, seconds: float, per_post: int) -> dict:
    with tracediff_server(folder / "visible.db") as server:
        server.wait_ready("/api/v1/health")
        return under_load([server.url], seconds, per_post)


def postgres_run(url: str, folder: Path, seconds: float, per_post: int) -> dict:
    """Two nodes on one PostgreSQL database (emptied first)."""
    from ingest_postgres import reset

    reset(url)
    nodes = [_postgres_node(url, folder / f"node{n}.log") for n in range(2)]
    with nodes[0] as first:
        first.wait_ready("/api/v1/health")
        with nodes[1] as second:
            second.wait_ready("/api/v1/health")
            return under_load([first.url, second.url], seconds, per_post)


def _postgres_node(url: str, log: Path) -> Process:
    port = free_port()
    command = [sys.executable, "-m", "webapp", "serve", "--port", str(port), "--workers", "2"]
    return Process(command + ["--db", url], {"TRACEDIFF_DATABASE": url}, log, port)


def report(name: str, figures: dict) -> None:
    ingest, probe = figures["ingest"], figures["probe"]
    ack, visible = probe["ack"], probe["visible"]
    print(
        f"{name}: {ingest['events_per_s']} events/s by 4 senders; probe send-to-ack p50 "
        f"{ack['p50_s']} s, p99 {ack['p99_s']} s; send-to-visible p50 {visible['p50_s']} s, p99 "
        f"{visible['p99_s']} s ({visible['count']} probes, {probe['lost']} never visible)"
    )
    print(
        ratio_line(
            f"{name}, send-to-visible p50 / send-to-ack p50",
            visible["p50_s"],
            ack["p50_s"],
            "near 1",
        )
    )
    print(ratio_line(f"{name}, send-to-visible p50 / 1 s", visible["p50_s"], 1.0, "<= 1"))
    print(ratio_line(f"{name}, send-to-visible p99 / 3 s", visible["p99_s"], 3.0, "<= 1"))


def main() -> None:
    args = options(__doc__.splitlines()[0], 30.0)
    seconds, per_post = (2.0, 99) if args.quick else (args.seconds, EVENTS_PER_POST)
    figures = {}
    with tempfile.TemporaryDirectory(prefix="tracediff-visible-") as tmp:
        figures["sqlite"] = sqlite_run(Path(tmp), seconds, per_post)
        report("sqlite", figures["sqlite"])
        if args.database:
            figures["postgresql_two_nodes"] = postgres_run(
                args.database, Path(tmp), seconds, per_post
            )
            report("postgresql, two nodes", figures["postgresql_two_nodes"])
    print("figures written to", write_figures("visible", figures, args.quick))


if __name__ == "__main__":
    main()
