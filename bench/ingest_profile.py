"""Where an ingest request's time goes, per event.

Each step of POST /api/v1/ingest timed on its own, in one process.

python bench/ingest_profile.py [--posts N]   # CPU per event of each step, and of the whole request

The bodies are bench/ingest.py's (NDJSON, 99 findOrders events a body). Each step runs on all of
them, one body at a time, as the request runs it; the whole request goes through the Flask app
(the test client) with the analyser off and a second connection open, as a server's analyser
thread holds one. CPU is the process's time (SQLite runs in it); each figure is the best of
three rounds, so a neighbour's burst on a shared machine counts less.
"""

import argparse
import inspect
import tempfile
import time
from pathlib import Path

from common import ROOT  # noqa: F401  (puts the checkout on sys.path)
from events import batch_body, contract

NDJSON = {"content-type": "application/x-ndjson"}


def bodies(posts: int, prefix: str = "p") -> list[bytes]:
    """Return `posts` bodies of the ingest bench, each with ids of its own."""
    made, number = [], 0
    for _ in range(posts):
        body, calls = batch_body(prefix, number, 99)
        number += calls
        made.append(body)
    return made


def best_of(rounds: int, work) -> float:
    """Return the least CPU seconds `work()` took in `rounds` runs."""
    spent = []
    for _ in range(rounds):
        began = time.process_time()
        work()
        spent.append(time.process_time() - began)
    return min(spent)


def app_with_store(folder: Path):
    """Return an app on a new database (analyser off) and a store kept open beside it."""
    from webapp import create_app
    from webapp.store import Store

    app = create_app(
        {"DATABASE": str(folder / "p.db"), "TESTING": True, "ANALYZER": "off"},
    )
    app.test_client().put("/api/v1/tools/findOrders", json=contract())
    return app, Store.from_settings(app.config)


def steps(app, store, posts: list[bytes]) -> dict:
    """Time each step of the request on all the bodies; return CPU seconds by step."""
    from webapp import pipeline
    from webapp.ingest import parse_body
    from webapp.ingest.decode import decoded_pieces
    from webapp.ingest.stream import stream_records

    # a request's store, on a kept connection where this checkout has them
    pooled = {"pooled": True} if "pooled" in str(inspect.signature(store.from_settings)) else {}
    redactor = app.extensions["tracediff.redactor"]
    limits = app.extensions["tracediff.limits"]
    prepare = pipeline.preparer(redactor)
    plain = pipeline.preparer(None)
    parsed = [parse_body(body, headers=NDJSON, limits=limits, prepare=prepare) for body in posts]
    client = app.test_client()
    # new ids each round, so every event is stored, not counted a duplicate
    rounds = iter([bodies(len(posts), f"r{number}") for number in range(3)])

    def requests():
        for body in next(rounds):
            answer = client.post("/api/v1/ingest", data=body, headers=NDJSON)
            assert answer.json["accepted"] == body.count(b"\n"), answer.json

    def open_close():
        for _ in posts:
            type(store).from_settings(app.config, **pooled).close()

    def stored():
        for batch in parsed:
            for event in batch.events:
                event.event_id += "x"
            store.add_events(batch.events)

    def framed():
        for body in posts:
            for _ in stream_records(decoded_pieces(body, None, limits.max_body_bytes), limits):
                pass

    return {
        "whole request (test client)": best_of(3, requests),
        "1. frame the body and parse each line (orjson)": best_of(3, framed),
        "2. ... and check each envelope (parse_body)": best_of(
            3, lambda: [parse_body(b, limits=limits) for b in posts]
        ),
        "3. ... and write each payload as JSON text": best_of(
            3, lambda: [parse_body(b, limits=limits, prepare=plain) for b in posts]
        ),
        "4. ... and redact it (the request's parse)": best_of(
            3, lambda: [parse_body(b, limits=limits, prepare=prepare) for b in posts]
        ),
        "5. store: insert and commit (add_events)": best_of(3, stored),
        "6. open and close the request's store": best_of(3, open_close),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--posts", type=int, default=200, help="bodies of 99 events [200]")
    parser.add_argument("--quick", action="store_true", help="a tiny run")
    args = parser.parse_args()
    posts = bodies(5 if args.quick else args.posts)
    events = sum(body.count(b"\n") for body in posts)
    with tempfile.TemporaryDirectory(prefix="tracediff-ingest-profile-") as tmp:
        app, store = app_with_store(Path(tmp))
        try:
            spent = steps(app, store, posts)
        finally:
            store.close()
    for step, seconds in spent.items():
        print(f"{step}: {seconds / events * 1e6:.1f} us of CPU an event")
    print("(steps 1-4 each include the ones before; the request is 4 + 5 + 6 + Flask's share)")


if __name__ == "__main__":
    main()
