"""Serving figures.

A worker's peak memory for maximal requests, and health under slow and busy clients.

    python bench/serving.py            # about 2-3 minutes
    python bench/serving.py --quick    # a smoke run
    python bench/serving.py --memory   # the memory figures alone (about 30 s)

Memory: one worker, fresh for each request shape, its peak resident size (VmHWM) before and after
one maximal request; the ratio is the peak's growth against the size of the decompressed body.
Health: /api/v1/health probed every 0.2 s while two clients send a body one byte a second, and while
six clients ingest as fast as they can; with one thread per worker (the baseline: one request at a
time, as gunicorn's sync workers ran tracediff before; `serve` runs its draining worker for
`--worker-class sync` too) and with tracediff's threaded workers.
"""

import gzip
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import orjson
from common import options, ratio_line, tracediff_server, write_figures

MiB = 1024 * 1024


def ndjson_body(total: int, events: int) -> bytes:
    """Return NDJSON of `events` envelopes adding up to about `total` bytes.

    Each payload many small fields."""
    per_event = total // events
    lines = []
    for i in range(events):
        fields = {f"field_{j}": (j if j % 3 else f"v{i}-{j}") for j in range(per_event // 19)}
        event = {
            "trace_id": f"{i // 3:032x}",
            "call_id": f"c{i}",
            "snapshot": "request",
            "event_id": f"mem-{i}",
            "tool": "findOrders",
            "payload": fields,
        }
        # each line per_event long
        fields["pad"] = "p" * max(0, per_event - len(orjson.dumps(event)) - 10)
        lines.append(orjson.dumps(event))
    return b"\n".join(lines) + b"\n"


def worker_pids(master: int) -> list[int]:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return [int(pid) for pid in children]


def status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def peak_for(body: bytes, headers: dict, folder: Path, name: str) -> dict:
    """Start a one-worker server, send `body` once.

    Return the worker's memory before and at its peak."""
    with tracediff_server(
        folder / f"{name}.db", workers=1, env={"TRACEDIFF_ANALYZER": "off"}
    ) as server:
        server.wait_ready("/api/v1/health")
        httpx.post(
            server.url + "/api/v1/ingest",
            content=b'{"trace_id": "warm", "snapshot": "request", "payload": {}}',
            timeout=30,
        )
        worker = worker_pids(server.process.pid)[0]
        before = status_kib(worker, "VmRSS")
        answer = httpx.post(
            server.url + "/api/v1/ingest", content=body, headers=headers, timeout=300
        )
        assert answer.status_code == 200, answer.text[:300]
        return {
            "sent_bytes": len(body),
            "accepted": answer.json()["accepted"],
            "rss_before_mib": round(before / 1024),
            "peak_mib": round(status_kib(worker, "VmHWM") / 1024),
        }


def dribble(url: str, seconds: float) -> None:
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=seconds + 10) as sock:
        head = f"POST /api/v1/ingest HTTP/1.1\r\nHost: {host}\r\nContent-Length: 100000\r\n\r\n"
        sock.sendall(head.encode())
        end = time.monotonic() + seconds
        try:
            while time.monotonic() < end:
                sock.sendall(b" ")
                time.sleep(1)
        except OSError:
            pass


def ingest_loop(url: str, seconds: float, prefix: str) -> None:
    end, n = time.monotonic() + seconds, 0
    with httpx.Client(base_url=url, timeout=30) as http:
        while time.monotonic() < end:
            events = [
                {
                    "trace_id": f"{prefix}{n:010d}",
                    "call_id": str(i),
                    "snapshot": "request",
                    "payload": {"n": n, "i": i, "text": "x" * 200},
                }
                for i in range(200)
            ]
            http.post("/api/v1/ingest", content=b"\n".join(orjson.dumps(e) for e in events))
            n += 1


def probe(url: str, seconds: float) -> dict:
    latencies, failures = [], 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        began = time.monotonic()
        try:
            ok = httpx.get(url + "/api/v1/health", timeout=2).status_code == 200
        except httpx.HTTPError:
            ok = False
        if ok:
            latencies.append((time.monotonic() - began) * 1000)
        else:
            failures += 1
        time.sleep(0.2)
    latencies.sort()
    return {
        "probes": len(latencies) + failures,
        "failed": failures,
        "p50_ms": round(statistics.median(latencies), 1) if latencies else None,
        "p99_ms": round(latencies[int(len(latencies) * 0.99) - 1], 1) if latencies else None,
    }


def health_under(load: str, gunicorn_args: str, folder: Path, seconds: float) -> dict:
    env = {"GUNICORN_CMD_ARGS": gunicorn_args} if gunicorn_args else {}
    with tracediff_server(
        folder / f"h-{load}-{bool(gunicorn_args)}.db", workers=2, env=env
    ) as server:
        server.wait_ready("/api/v1/health")
        if load == "slow":
            threads = [
                threading.Thread(target=dribble, args=(server.url, seconds + 1)) for _ in range(2)
            ]
        else:
            threads = [
                threading.Thread(target=ingest_loop, args=(server.url, seconds + 1, f"{i}x"))
                for i in range(6)
            ]
        for thread in threads:
            thread.start()
        time.sleep(0.5)
        found = probe(server.url, seconds)
        for thread in threads:
            thread.join(seconds + 40)
        return found


def disk_per_call(folder: Path, calls: int) -> dict:
    """Ingest and analyse `calls` findOrders calls; measure the database per call.

    Calls from bench/events.py."""
    from events import call_lines

    from webapp import pipeline
    from webapp.pipeline.bulk import ingest_files
    from webapp.store import Store

    source = folder / "calls.ndjson"
    with source.open("w") as out:
        for number in range(calls):
            out.write("\n".join(call_lines("disk", number)) + "\n")
    store = Store(folder / "disk.db", synchronous="NORMAL")
    ingest_files(store, [str(source)], None, 5000)
    pipeline.catch_up(store)
    store.db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = (folder / "disk.db").stat().st_size
    store.close()
    return {
        "calls": calls,
        "json_bytes_per_call": round(source.stat().st_size / calls),
        "database_bytes_per_call": round(size / calls),
        "gib_per_million_calls": round(size / calls * 1e6 / 2**30, 2),
    }


def main() -> None:
    args = options(__doc__.splitlines()[0], seconds=8, memory="the memory figures alone")
    size, events = (4 * MiB, 1000) if args.quick else (64 * MiB - MiB, 10_000)
    figures = {"memory": {}, "health": {}}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        text = ndjson_body(size, events)
        packed = gzip.compress(text, 6)
        figures["memory"]["gzip_ndjson"] = {
            "decompressed_bytes": len(text),
            **peak_for(packed, {"Content-Encoding": "gzip"}, folder, "gzip"),
        }
        array = b"[" + text.rstrip(b"\n").replace(b"\n", b",") + b"]"
        figures["memory"]["gzip_json_array"] = {
            "decompressed_bytes": len(array),
            **peak_for(gzip.compress(array, 6), {"Content-Encoding": "gzip"}, folder, "array"),
        }
        del array
        figures["memory"]["identity_ndjson_16mib"] = {
            "decompressed_bytes": 16 * MiB - 1024,
            **peak_for(
                ndjson_body(16 * MiB - 1024, 2500 if not args.quick else 500), {}, folder, "plain"
            ),
        }
        if args.memory:
            return _report(figures, args.quick)
        figures["disk"] = disk_per_call(folder, 500 if args.quick else 20_000)
        seconds = 2 if args.quick else args.seconds
        for load in ("slow", "ingest"):
            figures["health"][load] = {
                "sync_workers": health_under(load, "--threads 1", folder, seconds),
                "tracediff": health_under(load, "", folder, seconds),
            }
    _report(figures, args.quick)


def _report(figures: dict, quick: bool) -> None:
    print(orjson.dumps(figures, option=orjson.OPT_INDENT_2).decode())
    for name, found in figures["memory"].items():
        growth = (found["peak_mib"] - found["rss_before_mib"]) * MiB
        print(
            ratio_line(
                f"worker peak growth / decompressed body, {name}",
                growth,
                found["decompressed_bytes"],
                "< 3",
            )
        )
    if "disk" not in figures:
        return
    for load, found in figures["health"].items():
        print(
            ratio_line(
                f"health p99 under {load} clients, tracediff / sync workers",
                found["tracediff"]["p99_ms"] or 0,
                found["sync_workers"]["p99_ms"] or 2000,
                "< 1",
            )
        )
    print(
        ratio_line(
            "database bytes / JSON bytes per call",
            figures["disk"]["database_bytes_per_call"],
            figures["disk"]["json_bytes_per_call"],
            "< 3",
        )
    )
    print(f"wrote {write_figures('serving', figures, quick)}", file=sys.stderr)


if __name__ == "__main__":
    main()
