"""Liveness under many slow clients.

N connections dribble a body while /api/v1/health is probed.

    python bench/slow_clients.py PORT N SECONDS [PATH]

Each slow client sends `Content-Length: 1000` and then one byte a second for SECONDS (or until
answered); health is probed every 0.5 s, each probe on a new connection with a 2 s timeout, as a
load balancer does. Prints the probes that failed, their latency, and when and how each slow client
was answered. Point it at a running `tracediff serve` (docs/operations.md, "Many slow clients", has
the figures and the command).
"""

import socket
import statistics
import sys
import threading
import time
import urllib.request
from collections import Counter

HOST = "127.0.0.1"


def slow_client(port: int, path: str, seconds: float, results: dict, key: int) -> None:
    """Dribble a body a byte a second.

    Record (seconds until answered, status line)."""
    began = time.monotonic()
    answer = b""
    try:
        with socket.create_connection((HOST, port)) as sock:
            sock.sendall(
                f"POST {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
                "Content-Length: 1000\r\n\r\n".encode()
            )
            sock.settimeout(1.0)
            while time.monotonic() - began < seconds and b"\r\n\r\n" not in answer:
                try:
                    sock.sendall(b" ")
                    chunk = sock.recv(65536)
                    if not chunk:
                        break
                    answer += chunk
                except TimeoutError:
                    continue
                except OSError:
                    break
    except OSError as error:
        answer = type(error).__name__.encode()
    results[key] = (
        round(time.monotonic() - began, 1),
        answer.split(b"\r\n", 1)[0].decode(errors="replace") or "none",
    )


def main() -> None:
    port, count, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    path = sys.argv[4] if len(sys.argv) > 4 else "/api/v1/ingest"
    results: dict = {}
    clients = [
        threading.Thread(target=slow_client, args=(port, path, seconds, results, k))
        for k in range(count)
    ]
    for client in clients:
        client.start()
    latencies, failures, began = [], [], time.monotonic()
    while any(client.is_alive() for client in clients):
        sent = time.monotonic()
        try:
            urllib.request.urlopen(f"http://{HOST}:{port}/api/v1/health", timeout=2).read()
            latencies.append((time.monotonic() - sent) * 1000)
        except OSError:
            failures.append(round(sent - began, 1))
        time.sleep(0.5)
    for client in clients:
        client.join()
    latencies.sort()
    p50 = statistics.median(latencies) if latencies else float("nan")
    print(
        f"{count} slow clients: {len(failures)} of {len(failures) + len(latencies)} probes failed "
        f"(at {failures} s), p50 {p50:.0f} ms, max {max(latencies, default=float('nan')):.0f} ms"
    )
    answered = Counter(
        status.split(" ")[1] if " " in status else status for _, status in results.values()
    )
    times = sorted(elapsed for elapsed, _ in results.values())
    print(f"slow clients answered: {dict(answered)}, after {times[0]}-{times[-1]} s")


if __name__ == "__main__":
    main()
