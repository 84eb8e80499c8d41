"""What the ingest benches share.

Client processes posting batches, and the raw baseline's table and rows."""

import multiprocessing
import resource
import time

import httpx
import orjson
from common import tree_cpu_seconds
from events import batch_body, call_lines

CLIENTS = 4
NDJSON = {"Content-Type": "application/x-ndjson"}
BASELINE_DDL = """CREATE TABLE events (seq INTEGER PRIMARY KEY, event_id TEXT NOT NULL UNIQUE,
 trace_id TEXT NOT NULL, call_id TEXT NOT NULL, snapshot TEXT NOT NULL, tool TEXT, source TEXT,
 payload TEXT NOT NULL, http TEXT, ts TEXT NOT NULL)"""
BASELINE_INSERT = """INSERT INTO events (event_id, trace_id, call_id, snapshot, tool, source,
  payload, http, ts)
 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"""


def _bodies(prefix: str, per_post: int):
    """Yield request bodies forever.

    Whole ~100-event batches, or single events."""
    number = 0
    while True:
        if per_post == 1:
            for line in call_lines(prefix, number):
                yield line.encode()
            number += 1
        else:
            body, calls = batch_body(prefix, number, per_post)
            number += calls
            yield body


def _client(
    url: str, prefix: str, per_post: int, start: float, seconds: float, queue, pause: float = 0.0
) -> None:
    """Post bodies from start for `seconds`, a post every `pause` seconds at most.

    Report (acknowledged events, posts, failures, last ack time)."""
    acked = posts = failures = 0
    last = start
    bodies = _bodies(prefix, per_post)
    with httpx.Client(timeout=60) as client:
        time.sleep(max(0.0, start - time.time()))
        # one post at least, even when this process started late on a loaded machine
        while True:
            # paced: the next post at its turn, not after the last one's answer
            time.sleep(max(0.0, start + (posts + failures) * pause - time.time()))
            response = client.post(url, content=next(bodies), headers=NDJSON)
            if response.status_code == 200:
                acked += response.json()["accepted"]
                posts += 1
                last = time.time()
            else:
                failures += 1
            if time.time() >= start + seconds:
                break
    queue.put((acked, posts, failures, last))


def load(
    url: str | list[str],
    prefix: str,
    per_post: int,
    seconds: float,
    server_pid: int | None = None,
    rate: float | None = None,
) -> dict:
    """Run CLIENTS processes against url; return acknowledged events per second.

    A list of URLs: client i posts to url i modulo its length. With `server_pid`, also the CPU
    the server (its process and workers) and the clients spent an event: on a machine others
    share, the rate moves with their load, the CPU an event much less. With `rate`, the clients
    together post about that many events a second at most (bodies of ~`per_post` events)."""
    pause = CLIENTS * per_post / rate if rate else 0.0
    urls = url if isinstance(url, list) else [url]
    served = tree_cpu_seconds(server_pid) if server_pid else 0.0
    clients = _children_cpu_seconds()
    queue = multiprocessing.Queue()
    # lets every client process start before the clock runs
    start = time.time() + 0.5
    procs = [
        multiprocessing.Process(
            target=_client,
            args=(urls[i % len(urls)], f"{prefix}{i}", per_post, start, seconds, queue, pause),
        )
        for i in range(CLIENTS)
    ]
    for proc in procs:
        proc.start()
    results = [queue.get(timeout=seconds + 120) for _ in procs]
    for proc in procs:
        proc.join()
    acked = sum(r[0] for r in results)
    elapsed = max(r[3] for r in results) - start
    figures = {
        "events": acked,
        "posts": sum(r[1] for r in results),
        "failures": sum(r[2] for r in results),
        "seconds": round(elapsed, 3),
        "events_per_s": round(acked / elapsed, 1),
        "posts_per_s": round(sum(r[1] for r in results) / elapsed, 1),
    }
    if server_pid and acked:
        figures["server_cpu_us_per_event"] = round(
            (tree_cpu_seconds(server_pid) - served) / acked * 1e6, 1
        )
        figures["client_cpu_us_per_event"] = round(
            (_children_cpu_seconds() - clients) / acked * 1e6, 1
        )
    return figures


def _children_cpu_seconds() -> float:
    """CPU seconds of this process's ended children (the clients, once joined)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def raw_row(event: dict) -> tuple:
    http = event.get("http")
    return (
        event["event_id"],
        event["trace_id"],
        event["call_id"],
        event["snapshot"],
        event["tool"],
        event["source"],
        orjson.dumps(event["payload"]).decode(),
        http and orjson.dumps(http).decode(),
        event["ts"],
    )
