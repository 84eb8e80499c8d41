"""Two app nodes on one PostgreSQL database at a sustained rate.

How soon an acknowledged trace is readable and its findings are there.

Issue 36 item 3: at 1,000 events/s sustained, an acknowledged trace reads (API and page) within
1 s and its findings are there within 5 s, at p99.

python bench/pg_nodes.py --database postgresql:///tracediff_pgnodes          # 60 s at 1,000/s
python bench/pg_nodes.py --database URL --seconds 90 --rate 1500
python bench/pg_nodes.py --database URL --quick                              # a few seconds

Two `tracediff serve` nodes (2 workers each, analyser on) share the database (emptied first). Four
sender processes post bodies of 99 events (33 whole calls), each on its own schedule, half to each
node, so the nodes take `--rate` events a second in all. Beside them, every half second:
- a *read probe* posts one call to one node and reads its trace from the other: until
  `GET /api/v1/traces/<id>` answers 200 (readable), `GET /traces/<id>` answers 200 (the page),
  and the API shows every call analysed (findings, a read analysing within its budget included);
- a *quiet probe* posts one call nobody reads; its findings are there when the background analyser
  has saved its analysis (what lists, problems and alerts show).
Probe events are stamped after every sender's (bench/events.py writes 08:mm:ss, probes 09:mm:ss):
the analyser works oldest first, so a quiet probe waits for the whole analysis backlog ahead of it.
Each second the projection backlog (events queued) and the analysis backlog (calls pending) are
sampled; after the load stops, until both are empty. The baseline of the same run is the probes'
own send-to-acknowledgement, and the achieved rate is set beside the offered one.
"""

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import orjson
import psycopg
from common import Process, free_port, ratio_line, write_figures
from events import batch_body, call_lines, contract
from ingest_clients import NDJSON

SENDERS = 4
EVENTS_PER_POST = 99
PROBE_EVERY_S = 0.5
POLL_S = 0.1
# findings are polled less often: each read of a trace costs the nodes what the load measures
FINDINGS_POLL_S = 0.25
PROBE_WAIT_S = 300
DRAIN_WAIT_S = 600
READABLE_TARGET_S, FINDINGS_TARGET_S = 1.0, 5.0


def options() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", required=True, metavar="URL", help="emptied first")
    parser.add_argument("--seconds", type=float, default=60.0, help="length of the load")
    parser.add_argument("--rate", type=float, default=1000.0, help="events a second, all nodes")
    parser.add_argument("--workers", type=int, default=2, help="workers a node")
    parser.add_argument("--quick", action="store_true", help="a tiny run for the smoke test")
    return parser.parse_args()


def _sender(url: str, prefix: str, period: float, start: float, seconds: float, queue) -> None:
    """Post a body every `period` seconds from `start`; report what was acknowledged.

    A body late on its schedule goes at once (the rate is then what the server took)."""
    acked = failures = 0
    number, due, lates = 0, start, []
    with httpx.Client(timeout=60) as client:
        while due < start + seconds:
            time.sleep(max(0.0, due - time.time()))
            lates.append(max(0.0, time.time() - due))
            body, calls = batch_body(prefix, number, EVENTS_PER_POST)
            number += calls
            response = client.post(url, content=body, headers=NDJSON)
            if response.status_code == 200:
                acked += response.json()["accepted"]
            else:
                failures += 1
            due += period
    queue.put((acked, failures, time.time(), max(lates or [0.0])))


def paced_load(urls: list[str], rate: float, seconds: float) -> dict:
    """Run SENDERS processes at `rate` events a second in all.

    Sender i posts to node i mod n."""
    queue = multiprocessing.Queue()
    start = time.time() + 0.5
    period = EVENTS_PER_POST * SENDERS / rate
    procs = [
        multiprocessing.Process(
            target=_sender,
            args=(urls[i % len(urls)] + "/api/v1/ingest", f"p{i}", period, start, seconds, queue),
        )
        for i in range(SENDERS)
    ]
    for proc in procs:
        proc.start()
    results = [queue.get(timeout=seconds + 300) for _ in procs]
    for proc in procs:
        proc.join()
    acked = sum(r[0] for r in results)
    elapsed = max(r[2] for r in results) - start
    return {
        "offered_events_per_s": rate,
        "events": acked,
        "failures": sum(r[1] for r in results),
        "seconds": round(elapsed, 2),
        "events_per_s": round(acked / elapsed, 1),
        "largest_lateness_s": round(max(r[3] for r in results), 2),
    }


def _stamped_call(prefix: str, number: int) -> tuple[bytes, str]:
    """Return one call's body, stamped after every sender's events, and its trace id."""
    stamp = f"2026-11-24T09:{number // 60 % 60:02d}:{number % 60:02d}.{number % 1000:03d}Z"
    events = [orjson.loads(line) for line in call_lines(prefix, number)]
    for event in events:
        event["ts"] = stamp
    body = b"\n".join(orjson.dumps(event) for event in events) + b"\n"
    return body, events[0]["trace_id"]


class Probes(threading.Thread):
    """Post a read probe and a quiet probe every half second; time each."""

    def __init__(self, urls: list[str], database: str):
        super().__init__(daemon=True)
        self.urls, self.database = urls, database
        self.stopping = threading.Event()
        self.lags = {
            name: [] for name in ("ack", "api", "page", "api_findings", "findings", "settled_read")
        }
        self.lost = {name: 0 for name in self.lags}
        self.readers: list[threading.Thread] = []
        self.quiet: list[tuple[str, float]] = []
        self.lock = threading.Lock()

    def run(self) -> None:
        number, due = 0, time.monotonic()
        checker = threading.Thread(target=self._check_quiet, daemon=True)
        checker.start()
        with httpx.Client(timeout=60) as client:
            while not self.stopping.is_set():
                time.sleep(max(0.0, due - time.monotonic()))
                due += PROBE_EVERY_S
                post, read = self.urls[number % 2], self.urls[(number + 1) % 2]
                self._read_probe(client, post, read, number)
                self._quiet_probe(client, post, number)
                number += 1
        checker.join()

    def _post(self, client, url: str, body: bytes) -> float | None:
        began = time.monotonic()
        response = client.post(url + "/api/v1/ingest", content=body, headers=NDJSON)
        if response.status_code != 200:
            return None
        acked = time.monotonic()
        self.lags["ack"].append(acked - began)
        return acked

    def _read_probe(self, client, post: str, read: str, number: int) -> None:
        body, trace_id = _stamped_call("rp", number)
        acked = self._post(client, post, body)
        if acked is not None:
            reader = threading.Thread(target=self._read, args=(read, trace_id, acked), daemon=True)
            reader.start()
            self.readers.append(reader)

    def _quiet_probe(self, client, post: str, number: int) -> None:
        body, trace_id = _stamped_call("qp", number)
        acked = self._post(client, post, body)
        if acked is not None:
            with self.lock:
                self.quiet.append((trace_id, acked))

    def _read(self, url: str, trace_id: str, acked: float) -> None:
        """Time until the other node answers the trace, its page, then its findings."""
        with httpx.Client(timeout=60) as client:
            api = f"{url}/api/v1/traces/{trace_id}"
            self._until("api", acked, lambda: client.get(api).status_code == 200)
            self._until("page", acked, lambda: client.get(f"{url}/traces/{trace_id}").is_success)
            self._until(
                "api_findings", acked, lambda: _all_analysed(client.get(api)), FINDINGS_POLL_S
            )
            # the same read once the trace is projected and analysed: what a read costs the nodes
            # under this load, the least ack-to-readable can be
            began = time.monotonic()
            if client.get(api).status_code == 200:
                self.lags["settled_read"].append(time.monotonic() - began)

    def _until(self, name: str, acked: float, ready, every: float = POLL_S) -> None:
        while time.monotonic() - acked < PROBE_WAIT_S:
            if ready():
                self.lags[name].append(time.monotonic() - acked)
                return
            time.sleep(every)
        self.lost[name] += 1

    def _check_quiet(self) -> None:
        """Find the quiet probes whose analysis the background analyser saved."""
        with psycopg.connect(self.database, autocommit=True) as conn:
            while not self.stopping.is_set() or self.quiet:
                with self.lock:
                    waiting = list(self.quiet)
                done = _analysed(conn, [trace_id for trace_id, _ in waiting])
                now = time.monotonic()
                for probe in waiting:
                    if probe[0] in done or now - probe[1] > PROBE_WAIT_S:
                        self.lags["findings"].append(now - probe[1])
                        self.lost["findings"] += probe[0] not in done
                        with self.lock:
                            self.quiet.remove(probe)
                time.sleep(FINDINGS_POLL_S)

    def summary(self) -> dict:
        """Stop posting; wait for every probe posted; return their lags."""
        self.stopping.set()
        self.join()
        for reader in self.readers:
            reader.join()
        return {name: quantiles(lags, self.lost[name]) for name, lags in self.lags.items()}


def _all_analysed(response) -> bool:
    return response.status_code == 200 and all(c["analyzed"] for c in response.json()["calls"])


def _analysed(conn, trace_ids: list[str]) -> set[str]:
    if not trace_ids:
        return set()
    rows = conn.execute(
        "SELECT trace_id FROM calls WHERE trace_id = ANY(%s) GROUP BY trace_id "
        "HAVING bool_and(analyzed_version = version AND analyzed_version > 0)",
        (trace_ids,),
    ).fetchall()
    return {row[0] for row in rows}


def quantiles(seconds: list[float], lost: int = 0) -> dict:
    """Return the count, median, p99 and largest of some durations."""
    values = sorted(seconds) or [0.0]
    p99 = statistics.quantiles(values, n=100, method="inclusive")[98] if len(values) > 1 else 0
    return {
        "count": len(seconds),
        "lost": lost,
        "p50_s": round(statistics.median(values), 3),
        "p99_s": round(p99 or values[-1], 3),
        "max_s": round(values[-1], 3),
    }


def cpu_seconds(pid: int) -> float:
    """Return the CPU (user and system) a process has used so far; 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_tree(pid: int) -> list[int]:
    """Return a process and its children (a node's gunicorn arbiter and workers)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return [pid]
    return [pid, *(int(child) for child in children)]


class Backlog(threading.Thread):
    """Sample the projection and analysis backlogs, and the load average, each second.

    And the CPU the nodes and their database's backends have used (the largest seen per process)."""

    def __init__(self, database: str, nodes: list[int]):
        super().__init__(daemon=True)
        self.database, self.nodes, self.samples = database, nodes, []
        self.cpu = {"nodes": {}, "postgresql": {}}
        self.began, self.stopping = time.monotonic(), threading.Event()

    def sample_cpu(self, conn) -> None:
        backends = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
        ).fetchall()
        pids = {"nodes": [p for node in self.nodes for p in process_tree(node)]}
        pids["postgresql"] = [row[0] for row in backends]
        for part, among in pids.items():
            for pid in among:
                used = self.cpu[part]
                used[pid] = max(used.get(pid, 0.0), cpu_seconds(pid))

    def cpu_used(self) -> dict:
        return {part: round(sum(used.values()), 1) for part, used in self.cpu.items()}

    def run(self) -> None:
        with psycopg.connect(self.database, autocommit=True) as conn:
            while not self.stopping.is_set():
                self.sample_cpu(conn)
                queued = conn.execute("SELECT count(*) FROM projection_queue").fetchone()[0]
                pending = conn.execute(
                    "SELECT count(*) FROM calls WHERE analyzed_version < version"
                ).fetchone()[0]
                at = round(time.monotonic() - self.began, 1)
                self.samples.append((at, queued, pending, round(os.getloadavg()[0], 1)))
                self.stopping.wait(1.0)

    def drained_after(self, since: float, column: int) -> float | None:
        """Return the seconds from `since` until the backlog stayed 0 (None: not yet)."""
        after = [sample for sample in self.samples if sample[0] >= since]
        if not after or after[-1][column]:
            return None
        busy = [n for n, sample in enumerate(after) if sample[column]]
        return round(after[busy[-1] + 1][0] - since if busy else 0.0, 1)


def start_node(url: str, log: Path, workers: int) -> Process:
    port = free_port()
    command = [sys.executable, "-m", "webapp", "serve", "--port", str(port)]
    command += ["--workers", str(workers), "--db", url]
    return Process(command, {"TRACEDIFF_DATABASE": url}, log, port)


def run(args, folder: Path) -> dict:
    from ingest_postgres import reset

    reset(args.database)
    seconds = 3.0 if args.quick else args.seconds
    with start_node(args.database, folder / "node0.log", args.workers) as first:
        first.wait_ready("/api/v1/health")
        with start_node(args.database, folder / "node1.log", args.workers) as second:
            second.wait_ready("/api/v1/health")
            urls = [first.url, second.url]
            httpx.put(urls[0] + "/api/v1/tools/findOrders", json=contract(), timeout=30)
            nodes = [first.process.pid, second.process.pid]
            backlog, probes = Backlog(args.database, nodes), Probes(urls, args.database)
            backlog.start()
            probes.start()
            idle = backlog.cpu_used()
            stored = paced_load(urls, args.rate, seconds)
            stopped = time.monotonic() - backlog.began
            lags = probes.summary()
            _wait_drained(backlog, stopped)
            backlog.stopping.set()
            backlog.join()
    used = backlog.cpu_used()
    return {
        "cpu_seconds": {part: round(used[part] - idle[part], 1) for part in used},
        "ingest": stored,
        "probes": lags,
        "load_stopped_at_s": round(stopped, 1),
        "projection_drained_after_stop_s": backlog.drained_after(stopped, 1),
        "analysis_drained_after_stop_s": backlog.drained_after(stopped, 2),
        "backlog_samples": backlog.samples,
    }


def _wait_drained(backlog: Backlog, since: float) -> None:
    while time.monotonic() - backlog.began - since < DRAIN_WAIT_S:
        if None not in (backlog.drained_after(since, 1), backlog.drained_after(since, 2)):
            return
        time.sleep(1.0)


def report(figures: dict) -> None:
    ingest, probes = figures["ingest"], figures["probes"]
    samples = figures["backlog_samples"]
    during = [s for s in samples if s[0] <= figures["load_stopped_at_s"]]
    loads = [s[3] for s in samples]
    print(
        f"two PostgreSQL nodes: offered {ingest['offered_events_per_s']:.0f} events/s, took "
        f"{ingest['events_per_s']} events/s for {ingest['seconds']} s ({ingest['failures']} "
        f"refused; a sender was at most {ingest['largest_lateness_s']} s behind its schedule)"
    )
    print(f"load average (1 min) during the run: {min(loads):.1f}-{max(loads):.1f}")
    for name, label in (
        ("ack", "send-to-ack (baseline)"),
        ("settled_read", "one read of a trace projected and analysed (baseline)"),
        ("api", "ack-to-readable, API"),
        ("page", "ack-to-readable, page"),
        ("api_findings", "ack-to-findings, API (read analyses)"),
        ("findings", "ack-to-findings, analyser"),
    ):
        lag = probes[name]
        print(
            f"{label}: p50 {lag['p50_s']} s, p99 {lag['p99_s']} s, max {lag['max_s']} s "
            f"({lag['count']} probes, {lag['lost']} over {PROBE_WAIT_S} s)"
        )
    print(
        f"backlog during the load: projection up to {max(s[1] for s in during)} events, "
        f"analysis up to {max(s[2] for s in during)} calls; after the load stopped, projection "
        f"empty in {figures['projection_drained_after_stop_s']} s, analysis in "
        f"{figures['analysis_drained_after_stop_s']} s"
    )
    cpu = figures["cpu_seconds"]
    per_event_ms = 1000 * (cpu["nodes"] + cpu["postgresql"]) / ingest["events"]
    print(
        f"CPU from the load's start until both backlogs were empty: nodes {cpu['nodes']} s, their "
        f"PostgreSQL backends {cpu['postgresql']} s: {per_event_ms:.2f} ms an event in all "
        f"(ingest, projection, analysis, the probes' reads); two cores at that cost: "
        f"{2000 / per_event_ms:.0f} events/s"
    )
    print(
        ratio_line(
            "events/s taken / offered",
            ingest["events_per_s"],
            ingest["offered_events_per_s"],
            ">= 1",
        )
    )
    print(
        ratio_line(
            "events/s two whole cores would take at the CPU an event cost / 1,000",
            2000 / per_event_ms,
            1000,
            ">= 1",
        )
    )
    for name, target in (("api", READABLE_TARGET_S), ("page", READABLE_TARGET_S)):
        print(
            ratio_line(
                f"ack-to-readable ({name}) p99 / {target} s", probes[name]["p99_s"], target, "<= 1"
            )
        )
    for name in ("api_findings", "findings"):
        print(
            ratio_line(
                f"ack-to-findings ({name}) p99 / {FINDINGS_TARGET_S} s",
                probes[name]["p99_s"],
                FINDINGS_TARGET_S,
                "<= 1",
            )
        )
    print(
        ratio_line(
            "ack-to-readable (API) p99 / a settled trace's read p99",
            probes["api"]["p99_s"],
            probes["settled_read"]["p99_s"],
            "near 1: readable at once, the rest is the read itself",
        )
    )
    print(
        ratio_line(
            "ack-to-readable (API) p50 / send-to-ack p50",
            probes["api"]["p50_s"],
            probes["ack"]["p50_s"],
            "the load's own cost",
        )
    )


def main() -> None:
    args = options()
    with tempfile.TemporaryDirectory(prefix="tracediff-pgnodes-") as tmp:
        figures = run(args, Path(tmp))
        report(figures)
    print("figures written to", write_figures("pg_nodes", figures, args.quick))


if __name__ == "__main__":
    main()
