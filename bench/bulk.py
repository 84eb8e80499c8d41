"""Bulk load: does the analysis keep pace with ingest?

Every figure beside its baseline from the same run.

python bench/bulk.py            # about 2 minutes
python bench/bulk.py --quick    # a few seconds, for tests/test_bench_smoke.py
python bench/bulk.py --paced    # and a load at 80% of the analyser's own rate: its lag

On the same bodies (bench/events.py, 99 events a post) and the same 4 client processes:
- the bare parse-and-insert server (bench/bare_app.py `/ingest-store`): the ceiling of ingest;
- `tracediff serve` with the analyser off: ingest alone;
- `tracediff serve` with the analyser on: ingest while it analyses, the lag from a probe call's
  acknowledgement to its findings (p50, p99), and how long the burst took to analyse against how
  long it took to store;
- the analyser alone on the burst stored with it off (a server started again on that database, no
  ingest).
"""

import statistics
import tempfile
import threading
import time
from pathlib import Path

import httpx
import orjson
from common import bare_server, options, ratio_line, tracediff_server, write_figures
from events import call_lines, contract
from ingest import _analysed, baseline_database, drain, unanalysed
from ingest_clients import NDJSON, load

PROBE_EVERY_S = 0.5
# --paced: the share of the analyser's own rate (measured alone in the same run) the load asks for
PACED_SHARE = 0.8
PROBE_WAIT_S = 300


class Probes(threading.Thread):
    """Post one whole call every half second.

    Time each from its acknowledgement to its stored analysis."""

    def __init__(self, url: str, db_path: Path):
        super().__init__(daemon=True)
        self.url, self.db_path = url, db_path
        self.stopping, self.waiting, self.lags = threading.Event(), [], []

    def run(self) -> None:
        number, next_post = 0, time.monotonic()
        with httpx.Client(timeout=60) as client:
            while not self.stopping.is_set() or self.waiting:
                if not self.stopping.is_set() and time.monotonic() >= next_post:
                    self.waiting.append(self._post(client, number))
                    number, next_post = number + 1, next_post + PROBE_EVERY_S
                self._check()
                time.sleep(0.02)

    def _post(self, client, number: int) -> tuple:
        # the analyser takes calls oldest first (by event time): a probe's time sorts after every
        # bulk call's (bench/events.py writes 08:mm:ss), so its lag is that of the whole backlog
        # ahead of it, as when events carry the time they happen
        stamp = f"2026-11-24T09:{number // 60 % 60:02d}:{number % 60:02d}.000Z"
        lines = [_stamped(line, stamp) for line in call_lines("probe", number)]
        first = orjson.loads(lines[0])
        client.post(
            self.url + "/api/v1/ingest", content=("\n".join(lines) + "\n").encode(), headers=NDJSON
        )
        return first["trace_id"], first["call_id"], time.monotonic()

    def _check(self) -> None:
        for probe in list(self.waiting):
            trace_id, call_id, acked = probe
            waited = time.monotonic() - acked
            if _analysed(self.db_path, trace_id, call_id) or waited > PROBE_WAIT_S:
                self.lags.append(waited)
                self.waiting.remove(probe)

    def summary(self) -> dict:
        """Stop posting, wait for the probes posted, and return their lags."""
        self.stopping.set()
        self.join()
        return lag_figures(self.lags)


def _stamped(line: str, stamp: str) -> str:
    """Return an event's NDJSON line with its time replaced."""
    event = orjson.loads(line)
    event["ts"] = stamp
    return orjson.dumps(event).decode()


def lag_figures(lags: list[float]) -> dict:
    """Return the count, median, p99 and largest of some lags in seconds."""
    lags = sorted(lags) or [0.0]
    p99 = statistics.quantiles(lags, n=100, method="inclusive")[98] if len(lags) > 1 else lags[0]
    return {"probes": len(lags), "p50_s": round(statistics.median(lags), 3), "p99_s": round(p99, 3)}


def with_analyser(
    folder: Path, seconds: float, timeout: float, rate: float | None = None, name: str = "analysed"
) -> dict:
    """Ingest with the analyser on (at `rate` events/s at most when given).

    events/s, probe lags, and the time to analyse the burst after storing it."""
    db_path = folder / f"{name}.db"
    with tracediff_server(db_path) as server:
        server.wait_ready("/api/v1/health")
        httpx.put(
            server.url + "/api/v1/tools/findOrders", json=contract(), timeout=30
        ).raise_for_status()
        probes = Probes(server.url, db_path)
        probes.start()
        stored = load(server.url + "/api/v1/ingest", "a", 100, seconds, rate=rate)
        after = drain(db_path, timeout)
        return {"ingest": stored, "after_load": after, "ack_to_findings": probes.summary()}


def analyser_off_then_on(folder: Path, seconds: float, timeout: float) -> dict:
    """Ingest with the analyser off, then time the analyser alone on what was stored."""
    db_path = folder / "later.db"
    with tracediff_server(db_path, env={"TRACEDIFF_ANALYZER": "off"}) as server:
        server.wait_ready("/api/v1/health")
        httpx.put(
            server.url + "/api/v1/tools/findOrders", json=contract(), timeout=30
        ).raise_for_status()
        stored = load(server.url + "/api/v1/ingest", "o", 100, seconds)
    calls = unanalysed(db_path)
    with tracediff_server(db_path) as server:
        began = time.monotonic()
        server.wait_ready("/api/v1/health")
        alone = drain(db_path, timeout)
        # from the start of the server, as a restart sees it
        alone["seconds"] = round(time.monotonic() - began, 2)
    alone["calls_per_s"] = round(calls / alone["seconds"], 1)
    return {"ingest": stored, "analyser_alone": alone}


def bare(folder: Path, seconds: float) -> dict:
    """The bare parse-and-insert server on the same bodies."""
    baseline_database(folder / "bare.db").close()
    with bare_server(folder / "bare.log", env={"BARE_DATABASE": str(folder / "bare.db")}) as server:
        server.wait_ready("/health")
        return load(server.url + "/ingest-store", "c", 100, seconds)


def run(args) -> dict:
    """Measure every figure of the bulk load and return them."""
    seconds, quick = (1.5, True) if args.quick else (args.seconds, False)
    timeout = 20 if quick else 600
    began = time.monotonic()
    step = lambda name: print(f"[{time.monotonic() - began:5.1f} s] {name}", flush=True)  # noqa: E731
    with tempfile.TemporaryDirectory(prefix="tracediff-bulk-") as tmp:
        folder = Path(tmp)
        figures = {"bare_store": bare(folder, seconds)}
        step("bare parse-and-insert server measured")
        figures["analyser_off"] = analyser_off_then_on(folder, seconds, timeout)
        step("analyser off, then alone, measured")
        figures["analyser_on"] = with_analyser(folder, seconds, timeout)
        step("analyser on measured")
        if args.paced:
            # three events a call; below the analyser's own rate of this run
            rate = PACED_SHARE * figures["analyser_off"]["analyser_alone"]["calls_per_s"] * 3
            figures["paced"] = {
                "events_per_s_asked": round(rate, 1),
                **with_analyser(folder, seconds, timeout, rate, "paced"),
            }
            step("analyser on, paced, measured")
    return figures


def report(figures: dict) -> None:
    """Print the figures and their ratios against the baselines of this run."""
    bare_rate = figures["bare_store"]["events_per_s"]
    off, on = figures["analyser_off"], figures["analyser_on"]
    off_rate, on_rate = off["ingest"]["events_per_s"], on["ingest"]["events_per_s"]
    lag = on["ack_to_findings"]
    print(f"bare parse-and-insert: {bare_rate} events/s")
    print(f"tracediff, analyser off: {off_rate} events/s; analyser on: {on_rate} events/s")
    print(
        f"ack-to-findings lag under load: p50 {lag['p50_s']} s, p99 {lag['p99_s']} s "
        f"({lag['probes']} probes)"
    )
    stored_s, after_s = on["ingest"]["seconds"], on["after_load"]["seconds"]
    print(f"burst: stored in {stored_s} s, analysed {after_s} s after the load stopped")
    alone = off["analyser_alone"]
    print(
        f"analyser alone: {alone['calls_per_s']} calls/s ({alone['backlog_calls']} calls in "
        f"{alone['seconds']} s)"
    )
    print(ratio_line("ingest with the analyser on / off", on_rate, off_rate, ">= 0.9"))
    print(ratio_line("ingest (analyser on) / bare parse-and-insert", on_rate, bare_rate, ">= 0.5"))
    print(
        ratio_line(
            "ingest (analyser off) / bare parse-and-insert", off_rate, bare_rate, "the ceiling"
        )
    )
    print(
        ratio_line(
            "time to analyse the burst / time to store it", stored_s + after_s, stored_s, "<= 2"
        )
    )
    # three events a call
    ingest_calls = off_rate / 3
    print(
        ratio_line(
            "analyser alone / ingest alone, calls per second",
            alone["calls_per_s"],
            ingest_calls,
            ">= 1",
        )
    )
    print(ratio_line("ack-to-findings p99 / 5 s", lag["p99_s"], 5.0, "<= 1"))
    if "paced" in figures:
        paced, lag = figures["paced"], figures["paced"]["ack_to_findings"]
        print(
            f"paced at {PACED_SHARE:.0%} of the analyser alone ({paced['events_per_s_asked']} "
            f"events/s asked, {paced['ingest']['events_per_s']} taken): ack-to-findings p50 "
            f"{lag['p50_s']} s, p99 {lag['p99_s']} s ({lag['probes']} probes)"
        )
        print(ratio_line("paced: ack-to-findings p99 / 5 s", lag["p99_s"], 5.0, "<= 1"))


def main() -> None:
    args = options(
        __doc__.splitlines()[0],
        20.0,
        paced="also load at 80%% of the analyser's own rate of this run and time the lag",
    )
    figures = run(args)
    report(figures)
    print("figures written to", write_figures("bulk", figures, args.quick))


if __name__ == "__main__":
    main()
