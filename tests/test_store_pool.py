"""A request's SQLite store reuses an idle connection of its process.

Never one on a file since replaced, mid-transaction, after a storage fault, or of a parent process.
"""

import multiprocessing
import shutil

import pytest

from webapp import create_app
from webapp.store import Store
from webapp.store.sqlite import faults, pool

# the pool is SQLite's: PostgreSQL's connections are pooled by its driver
pytestmark = pytest.mark.sqlite_only
NDJSON = {"Content-Type": "application/x-ndjson"}


def event(trace_id: str) -> bytes:
    return (
        f'{{"trace_id": "{trace_id}", "call_id": "c1", "snapshot": "arguments", "tool": "t", '
        '"payload": {"q": 1}}\n'
    ).encode()


@pytest.fixture(autouse=True)
def no_idle_connections():
    pool.close_all()
    yield
    pool.close_all()


def test_a_request_store_reuses_the_connection_the_last_one_gave_back(db_path):
    first = Store(db_path, pooled=True)
    conn = first.db.conn
    first.close()
    second = Store(db_path, pooled=True)
    assert second.db.conn is conn
    second.close()
    # a store not asked to pool opens its own
    plain = Store(db_path)
    assert plain.db.conn is not conn
    plain.close()


def test_a_closed_store_cannot_reach_the_connection_it_gave_back(db_path):
    first = Store(db_path, pooled=True)
    first.close()
    first.close()
    assert first.db is None
    again = Store(db_path, pooled=True)
    assert again.db.execute("SELECT count(*) FROM events").fetchone() == (0,)
    again.close()


def test_a_connection_comes_back_with_no_transaction_open(db_path):
    first = Store(db_path, pooled=True)
    first.db.execute("BEGIN")
    first.db.execute("INSERT INTO progress (name, seq) VALUES ('left-open', 1)")
    first.close()
    second = Store(db_path, pooled=True)
    assert not second.db.conn.in_transaction
    assert second.db.execute(
        "SELECT count(*) FROM progress WHERE name = 'left-open'"
    ).fetchone() == (0,)
    second.close()


def test_at_most_a_few_idle_connections_are_kept(tmp_path, db_path):
    stores = [Store(tmp_path / f"db{n}.db", pooled=True) for n in range(pool.MOST_IDLE + 2)]
    conns = [store.db.conn for store in stores]
    for store in stores:
        store.close()
    # the first ones given back were closed to make room
    with pytest.raises(Exception, match="closed"):
        conns[0].execute("SELECT 1")
    assert conns[-1].execute("SELECT 1").fetchone() == (1,)


def test_a_file_replaced_under_a_running_app_is_read_anew(tmp_path, db_path):
    app = create_app({"TESTING": True, "DATABASE": str(db_path), "ANALYZER": "off"})
    client = app.test_client()
    assert client.post("/api/v1/ingest", data=event("old-file"), headers=NDJSON).status_code == 200
    assert client.get("/api/v1/traces/old-file").status_code == 200
    other = tmp_path / "other.db"
    Store(other).close()
    other_app = create_app({"TESTING": True, "DATABASE": str(other), "ANALYZER": "off"})
    other_app.test_client().post("/api/v1/ingest", data=event("new-file"), headers=NDJSON)
    pool.close_all()
    # the kept connection is on the old file when it is swapped for another database
    kept = Store(db_path, pooled=True)
    kept.close()
    for suffix in ("", "-wal", "-shm"):
        target = db_path.parent / f"{db_path.name}{suffix}"
        target.unlink(missing_ok=True)
        if (tmp_path / f"other.db{suffix}").exists():
            shutil.copyfile(tmp_path / f"other.db{suffix}", target)
    assert client.get("/api/v1/traces/new-file").status_code == 200
    assert client.get("/api/v1/traces/old-file").status_code == 404


def test_a_connection_that_saw_a_storage_fault_is_closed_not_kept(db_path):
    store = Store(db_path, pooled=True)
    conn = store.db.conn
    faults.note("disk I/O error (a test's)")
    try:
        store.close()
    finally:
        faults.clear()
    with pytest.raises(Exception, match="closed"):
        conn.execute("SELECT 1")


def _take_in_child(path: str, answers) -> None:
    answers.put(pool.take(path) is None)


@pytest.mark.slow
def test_a_forked_child_never_takes_its_parents_connections(db_path):
    store = Store(db_path, pooled=True)
    conn = store.db.conn
    store.close()
    answers = multiprocessing.get_context("fork").Queue()
    child = multiprocessing.get_context("fork").Process(
        target=_take_in_child, args=(str(db_path), answers)
    )
    child.start()
    assert answers.get(timeout=30) is True
    child.join(30)
    # and the parent's is still open and still kept
    assert conn.execute("SELECT 1").fetchone() == (1,)
    again = Store(db_path, pooled=True)
    assert again.db.conn is conn
    again.close()
