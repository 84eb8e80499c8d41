"""CPU of one trace page request, in-process.

For the corpus shapes heaviest for the page at 1 MB.

    python bench/trace_page.py                    # the five shapes of tests/test_browser_shapes.py
    python bench/trace_page.py --shapes deep_nesting,echo_with_changes --size 2

The shapes are ingested and analysed in full once (bench/out/trace-page-<size>.db, about a minute);
then each page is asked for through the Flask test client, the best of three CPU times
(time.process_time: less bent by other work on a shared machine than the clock on the wall).
The baseline, timed in the same run, is parsing the call's stored payloads as the store does
(webapp/store/codec.loads), which any page of the call pays: the ratio says how much the page costs
beyond reading its data.
"""

import argparse
import math
import sqlite3
import time

import orjson
from click.testing import CliRunner
from common import OUT
from corpus import SHAPES

from webapp import create_app
from webapp.cli import main
from webapp.store.codec import loads

# The heaviest pages: most rows, longest keys (unicode_long_keys: 600-character keys), echoes, deep
# paths.
WORST = (
    "unicode_long_keys",
    "echo_with_changes",
    "records_enum",
    "keys_case_converted",
    "deep_nesting",
)


def build(path, names, size: int) -> None:
    """Ingest the shapes and analyse them in full.

    Trace `shape-<name>`, call c1; for this bench and the browser test."""
    events = path.with_suffix(".ndjson")
    with events.open("wb") as out:
        for name in names:
            for stage, snap in SHAPES[name](size)[0].items():
                if snap:
                    out.write(
                        orjson.dumps(
                            {
                                "trace_id": f"shape-{name}",
                                "call_id": "c1",
                                "snapshot": stage,
                                "tool": "shapeTool",
                                "payload": snap["payload"],
                                "http": snap["http"],
                            }
                        )
                        + b"\n"
                    )
    result = CliRunner().invoke(
        main, ["ingest", str(events), "--db", str(path)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    events.unlink()


def best_cpu(function, runs: int = 3) -> float:
    best = math.inf
    for _ in range(runs):
        began = time.process_time()
        function()
        best = min(best, time.process_time() - began)
    return best


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=",".join(WORST), help="comma-separated shape names")
    parser.add_argument("--size", type=float, default=1.0, help="MB per side [default 1]")
    args = parser.parse_args()
    names = [n for n in args.shapes.split(",") if n in SHAPES]
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"trace-page-{args.size:g}.db"
    db = sqlite3.connect(path)
    have = (
        {row[0] for row in db.execute("SELECT trace_id FROM calls")}
        if path.exists()
        and db.execute("SELECT 1 FROM sqlite_master WHERE name = 'calls'").fetchone()
        else set()
    )
    if missing := [n for n in names if f"shape-{n}" not in have]:
        build(path, missing, int(args.size * 1e6))
    client = create_app({"DATABASE": str(path), "ANALYZER": "off"}).test_client()
    print(f"{'shape':22s} {'page CPU':>9s} {'parse CPU':>9s} {'ratio':>6s} {'HTML':>7s}")
    for name in names:
        url = f"/traces/shape-{name}"
        # warm: templates compiled, modules imported
        answer = client.get(url)
        assert answer.status_code == 200, answer.status_code
        texts = [
            row[0]
            for row in db.execute(
                "SELECT payload FROM events WHERE trace_id = ?", (f"shape-{name}",)
            )
        ]
        page = best_cpu(lambda url=url: client.get(url))
        parse = best_cpu(lambda texts=texts: [loads(text) for text in texts])
        print(
            f"{name:22s} {page * 1000:6.0f} ms {parse * 1000:6.0f} ms {page / parse:5.1f}x "
            f"{len(answer.data) / 1000:4.0f} KB"
        )


if __name__ == "__main__":
    main_()
