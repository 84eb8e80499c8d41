"""What indexing a payload's words costs per event.

SQLite's FTS5 against PostgreSQL's tsvector + GIN, same run.

python bench/index_cost.py --database postgresql:///tracediff_bench # the database is emptied first
"""

import sqlite3
import tempfile
import time
from pathlib import Path

import orjson
import psycopg
from common import options, ratio_line
from events import batch_body
from ingest_postgres import reset

FTS = "CREATE VIRTUAL TABLE events_fts USING fts5(body, content='', tokenize='unicode61')"
WORDS = "to_tsvector('simple', regexp_replace(payload, '[^[:alnum:]]+', ' ', 'g'))"


def payloads(count: int) -> list[str]:
    out, number = [], 0
    while len(out) < count:
        body, calls = batch_body("idx", number)
        number += calls
        out += [orjson.dumps(orjson.loads(line)["payload"]).decode() for line in body.splitlines()]
    return out[:count]


def fts5_us(texts: list[str]) -> float:
    with tempfile.TemporaryDirectory() as folder:
        conn = sqlite3.connect(Path(folder) / "fts.db", isolation_level=None)
        conn.execute(FTS)
        began = time.perf_counter()
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO events_fts (rowid, body) VALUES (?, ?)", enumerate(texts, 1))
        conn.execute("COMMIT")
        return (time.perf_counter() - began) / len(texts) * 1e6


def tsvector_us(url: str, texts: list[str]) -> float:
    reset(url)
    with psycopg.connect(url) as conn:
        conn.execute("CREATE TABLE e (seq bigint PRIMARY KEY, payload text, words tsvector)")
        conn.execute("CREATE INDEX e_words ON e USING GIN (words)")
        with conn.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO e (seq, payload) VALUES (%s, %s)", list(enumerate(texts, 1))
            )
        conn.commit()
        began = time.perf_counter()
        conn.execute(f"UPDATE e SET words = {WORDS}")
        conn.commit()
        spent = time.perf_counter() - began
        conn.execute("DROP TABLE e")
        conn.commit()
    return spent / len(texts) * 1e6


def main() -> None:
    args = options(__doc__.splitlines()[0], seconds=0)
    texts = payloads(500 if args.quick else 20_000)
    size = sum(map(len, texts)) / len(texts)
    sqlite_cost, pg_cost = fts5_us(texts), tsvector_us(args.database, texts)
    print(
        f"{len(texts)} payloads of {size:.0f} bytes on average: FTS5 {sqlite_cost:.1f} us, "
        f"tsvector + GIN {pg_cost:.1f} us per event"
    )
    print(
        ratio_line(
            "indexing words per event, PostgreSQL tsvector + GIN / SQLite FTS5",
            pg_cost,
            sqlite_cost,
            "none; paid at projection, not on the ingest path",
        )
    )


if __name__ == "__main__":
    main()
