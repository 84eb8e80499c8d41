"""PostgreSQL only.

What several nodes on one database must get right (see docs/deploy.md).

The rest of the suite runs on both engines through the `db_path` fixture; these tests are about
concurrency PostgreSQL allows and SQLite does not: commits out of order, claims from several
processes, two `tracediff serve` nodes with one killed.
"""

import multiprocessing
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from conftest import LiveServer
from databases import ADMIN_URL
from helpers import envelope, ndjson, order_call

from webapp.ingest import parse_body
from webapp.store import CLAIM_SECONDS, Store

pytestmark = pytest.mark.skipif(
    not ADMIN_URL, reason="TRACEDIFF_TEST_POSTGRES names no PostgreSQL server"
)


@pytest.fixture
def pg_url(postgres_databases):
    return postgres_databases.fresh()


def events_of(trace_id: str, call_id: str = "call_01"):
    return parse_body(ndjson(envelope("arguments", {"limit": 5}, trace_id, call_id))).events


def test_a_transaction_that_commits_late_is_projected_all_the_same(pg_url):
    early, late, projector = Store.open(pg_url), Store.open(pg_url), Store.open(pg_url)
    inserted, release = threading.Event(), threading.Event()

    def hold_open(_conn):
        inserted.set()
        release.wait(10)

    writer = threading.Thread(target=lambda: early.add_events(events_of("a" * 32), also=hold_open))
    writer.start()
    # the first writer holds the lower sequence number, uncommitted
    assert inserted.wait(10)
    late.add_events(events_of("b" * 32))
    # a seq watermark would now stand past the first writer's row
    assert projector.project_all() == 1
    release.set()
    writer.join(10)
    assert projector.project_all() == 1
    assert {t["trace_id"] for t in projector.find_traces(_everything())[0]} == {"a" * 32, "b" * 32}
    for store in (early, late, projector):
        store.close()


def _everything():
    from webapp.store.filters import TraceQuery

    return TraceQuery(limit=500)


def _claim_all(url: str, out, ready, go) -> None:
    store = Store.open(url, create=False)
    claimed = []
    ready.release()
    # all four start claiming at once
    go.wait(60)
    while True:
        # the claim is stamped with the clock between these two readings
        before = time.time()
        batch = store.claim_pending(37)
        if not batch:
            break
        claimed += [(c["trace_id"], c["call_id"], before, time.time()) for c in batch]
    out.put(claimed)
    store.close()


# starts processes (multiprocessing's spawn, which the audit hook in conftest.py does not see)
@pytest.mark.slow
def test_four_processes_claiming_at_once_never_claim_a_call_twice(pg_url):
    store = Store.open(pg_url)
    store.add_events([e for n in range(2000) for e in events_of(f"{n:032x}")])
    store.project_all()
    context = multiprocessing.get_context("spawn")
    out, ready, go = context.Queue(), context.Semaphore(0), context.Event()
    workers = [context.Process(target=_claim_all, args=(pg_url, out, ready, go)) for _ in range(4)]
    for worker in workers:
        worker.start()
    for _ in workers:
        assert ready.acquire(timeout=60)
    go.set()
    claims = [out.get(timeout=120) for _ in workers]
    for worker in workers:
        worker.join(30)
    every = sorted(
        ((trace_id, call_id), before, after)
        for claimed in claims
        for trace_id, call_id, before, after in claimed
    )
    assert {key for key, *_ in every} == {(f"{n:032x}", "call_01") for n in range(2000)}
    # a claim may be taken again only once it has expired (a loaded machine can take that long to
    # claim all): the second claim's stamp, at most `after`, must be CLAIM_SECONDS past the first's,
    # at least `before`
    for (key, before, _), (next_key, _, next_after) in zip(every, every[1:]):
        assert key != next_key or next_after - before > CLAIM_SECONDS, f"{key} claimed twice"
    # they really ran side by side
    assert sum(1 for claimed in claims if claimed) >= 2
    store.close()


def test_payloads_keep_the_order_of_their_keys_as_sent(pg_url, tmp_path):
    body = (
        b'{"trace_id": "' + b"c" * 32 + b'", "call_id": "c1", "snapshot": "request", "tool": "t", '
        b'"payload": {"zeta": 1, "alpha": 2, "mid": {"b": 1, "a": 2}}}\n'
    )
    store = Store.open(pg_url)
    store.add_events(parse_body(body).events)
    store.project_all()
    payload = store.get_trace("c" * 32)["calls"][0]["snapshots"]["request"]["payload"]
    assert list(payload) == ["zeta", "alpha", "mid"] and list(payload["mid"]) == ["b", "a"]
    store.close()


@pytest.mark.slow
def test_a_postgres_url_without_the_extra_says_what_to_install():
    code = (
        "import sys; sys.modules['psycopg'] = None\n"
        "from webapp.store import Store\nStore.open('postgresql://localhost/x')"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.returncode != 0
    assert result.stderr.strip().splitlines()[-1] == (
        "a postgresql:// database needs the extra: pip install 'tracediff[postgres]' (psycopg 3 "
        "and psycopg-pool; "
        "in a checkout: pip install -e '.[postgres]')"
    )


def test_a_database_that_is_down_answers_503_with_retry_after(tmp_path):
    from webapp import create_app

    app = create_app(
        {
            "TESTING": True,
            "DATABASE": "postgresql://127.0.0.1:9/tracediff?connect_timeout=1",
            "ANALYZER": "off",
        }
    )
    response = app.test_client().post(
        "/api/v1/ingest",
        data=ndjson(*order_call()),
        headers={"Content-Type": "application/x-ndjson"},
    )
    assert response.status_code == 503 and response.headers.get("Retry-After")
    error = response.get_json()["error"]
    assert error["retryable"] is True
    # liveness: the process answers, and says what is wrong
    health = app.test_client().get("/api/v1/health")
    assert health.status_code == 200 and health.get_json()["status"] == "degraded"
    assert any(
        problem.startswith("database: unavailable") for problem in health.get_json()["problems"]
    )
    # a person gets a page, not JSON
    page = app.test_client().get("/problems", headers={"Accept": "text/html"})
    assert page.status_code == 503 and page.headers["Retry-After"] and page.mimetype == "text/html"
    assert "The database is unavailable right now" in page.get_data(as_text=True)


@pytest.mark.slow
def test_two_nodes_share_one_database_through_a_crash_and_lose_nothing(pg_url, tmp_path):
    nodes = [LiveServer(pg_url, log_path=tmp_path / f"node{n}.log") for n in range(2)]
    for node in nodes:
        node.start()
    sent = {
        f"{n:032x}": order_call(f"{n:032x}", limit_sent="5" if n % 3 == 0 else 5)
        for n in range(300)
    }
    bodies = [ndjson(*events) for events in sent.values()]
    rng = random.Random(4)

    def send(part):
        with httpx.Client(timeout=10) as client:
            for body in part:
                # every event reaches both nodes, in a random order
                for node in rng.sample(nodes, 2):
                    for _ in range(50):
                        try:
                            if (
                                client.post(
                                    node.url + "/api/v1/ingest",
                                    content=body,
                                    headers={"Content-Type": "application/x-ndjson"},
                                ).status_code
                                == 200
                            ):
                                break
                        except httpx.HTTPError:
                            pass
                        # the killed node is restarting: a shipper retries
                        time.sleep(0.1)

    writers = [threading.Thread(target=send, args=(bodies[n::4],)) for n in range(4)]
    for writer in writers:
        writer.start()
    time.sleep(1.5)
    nodes[1].signal(signal.SIGKILL)
    nodes[1].process.wait(10)
    nodes[1].start(port=nodes[1].port)
    for writer in writers:
        writer.join(300)
    store = Store.open(pg_url, create=False)
    # each stored once
    assert store.count_events() == sum(len(events) for events in sent.values())
    # a node may be projecting the last events
    while store.behind():
        store.project_all()
        time.sleep(0.1)
    assert store.count_traces() == len(sent)
    deadline = time.monotonic() + 120
    while store.db.execute(
        "SELECT count(*) FROM calls WHERE analyzed_version < version"
    ).fetchone()[0]:
        assert time.monotonic() < deadline, "the analysers did not catch up"
        time.sleep(0.5)
    pages = [httpx.get(node.url + "/api/v1/traces?limit=500", timeout=30).json() for node in nodes]
    assert pages[0] == pages[1] and len(pages[0]["traces"]) == len(sent)
    flagged = {t["trace_id"] for t in pages[0]["traces"] if t["worst"] in ("error", "warning")}
    assert flagged == {trace_id for n, trace_id in enumerate(sent) if n % 3 == 0}
    one = next(iter(sent))
    views = [httpx.get(f"{node.url}/api/v1/traces/{one}", timeout=30).json() for node in nodes]
    assert views[0] == views[1]
    store.close()
    for node in nodes:
        node.stop()


@pytest.mark.slow
def test_migrate_copies_the_demo_database_so_both_answer_the_same(pg_url, tmp_path):
    from conftest import SAMPLES

    from webapp import create_app, pipeline
    from webapp.cli.demo import load_folder
    from webapp.redaction.redactor import redactor_for

    path = tmp_path / "demo.db"
    settings = {"TESTING": True, "DATABASE": str(path), "ANALYZER": "off"}
    store = Store.open(path)
    load_folder(store, SAMPLES, redactor_for(create_app(settings).config))
    pipeline.analyze_all(store)
    store.close()
    result = subprocess.run(
        [sys.executable, "-m", "webapp", "migrate", "--to", pg_url, "--db", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "copied" in result.stdout.splitlines()[-1]
    again = subprocess.run(
        [sys.executable, "-m", "webapp", "migrate", "--to", pg_url, "--db", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (
        again.returncode == 1
        and "already holds" in again.stderr
        and "copy into an empty database" in again.stderr
    )
    clients = [
        create_app({**settings, "DATABASE": database}).test_client()
        for database in (str(path), pg_url)
    ]
    for url in (
        "/api/v1/traces?limit=100",
        "/api/v1/problems",
        "/api/v1/tools",
        "/api/v1/traces?q=whitfield",
    ):
        answers = [client.get(url).get_json() for client in clients]
        assert answers[0] == answers[1], url
    assert answers[-1]["traces"], (
        "the demo's dana.whitfield@example.com is found by a word of it on both stores"
    )
    trace_id = clients[0].get("/api/v1/traces?limit=1").get_json()["traces"][0]["trace_id"]
    assert (
        clients[0].get(f"/api/v1/traces/{trace_id}").get_json()
        == clients[1].get(f"/api/v1/traces/{trace_id}").get_json()
    )


def test_a_read_only_database_answers_503_and_takes_the_batch_once_writable_again(pg_url):
    from databases import _admin

    from webapp import create_app
    from webapp.store.postgresql.connection import close_pool

    name = pg_url.rsplit("/", 1)[1]
    client = create_app({"TESTING": True, "DATABASE": pg_url, "ANALYZER": "off"}).test_client()
    body, headers = ndjson(*order_call()), {"Content-Type": "application/x-ndjson"}

    def reconnect_with(setting: str) -> None:
        _admin(f'ALTER DATABASE "{name}" SET default_transaction_read_only = {setting}')
        close_pool(pg_url)
        _admin(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")

    reconnect_with("on")
    try:
        refused = client.post("/api/v1/ingest", data=body, headers=headers)
        assert refused.status_code == 503 and refused.headers["Retry-After"]
        assert refused.get_json()["error"]["code"] == "store_unavailable"
        # reads go on
        assert client.get("/api/v1/traces").status_code == 200
    finally:
        reconnect_with("off")
    assert client.post("/api/v1/ingest", data=body, headers=headers).get_json()["accepted"] == 3
    assert client.get(f"/api/v1/traces/{order_call()[0]['trace_id']}").status_code == 200


@pytest.mark.slow
def test_nginx_in_front_of_two_nodes_answers_every_batch_while_one_node_is_killed(pg_url, tmp_path):
    """docs/nginx/tracediff-nodes.conf as shipped (max_fails=3, retried on the next node only when
    one cannot be reached: a database 503 ejects no node), with a node killed mid-stream."""
    from conftest import free_port
    from test_nginx import nodes_site, start_nginx

    nodes = [
        LiveServer(
            pg_url,
            log_path=tmp_path / f"node{n}.log",
            env={"TRACEDIFF_TRUSTED_PROXIES": "127.0.0.1"},
        ).start()
        for n in range(2)
    ]
    folder, https_port, http_port = tmp_path / "nginx", free_port(), free_port()
    folder.mkdir()
    site = nodes_site(folder, nodes, https_port, http_port)
    retries = [
        line for line in site.splitlines() if line.strip().startswith("proxy_next_upstream ")
    ]
    assert retries and not any("http_503" in line for line in retries)
    nginx = start_nginx(folder, site)
    try:
        url = f"https://127.0.0.1:{https_port}"
        sent = [order_call(f"{n:032x}") for n in range(120)]
        answers = []
        with httpx.Client(base_url=url, timeout=30, verify=False) as client:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                try:
                    client.get("/api/v1/health", timeout=1)
                    break
                except httpx.HTTPError:
                    time.sleep(0.1)
            for n, events in enumerate(sent):
                if n == 40:
                    # mid-stream; nginx sends the next batches, and any cut one, to the other node
                    nodes[0].kill()
                answers.append(
                    client.post(
                        "/api/v1/ingest",
                        content=ndjson(*events),
                        headers={"Content-Type": "application/x-ndjson"},
                    ).status_code
                )
        assert answers == [200] * len(sent)
        store = Store.open(pg_url, create=False)
        assert store.count_events() == 3 * len(sent)
        store.close()
    finally:
        nginx.send_signal(signal.SIGQUIT)
        nginx.wait(10)
        for node in nodes:
            node.stop()


def tracediff(*args, timeout=60):
    return subprocess.run(
        [sys.executable, "-m", "webapp", *args], capture_output=True, text=True, timeout=timeout
    )


@pytest.mark.slow
def test_a_bad_url_fails_at_once_in_one_line_without_its_password():
    from click.testing import CliRunner

    from webapp.cli import main
    from webapp.store.postgresql.connection import psycopg_modules

    bad = "postgresql://someone:s3cretpw@127.0.0.1:9/tracediff"
    # timed in this process with psycopg imported: a new Python's imports alone took 4-6 s of the
    # bound on a loaded machine
    psycopg_modules()
    began = time.monotonic()
    failed = CliRunner().invoke(main, ["tools", "list", "--db", bad])
    # not a pool's 10 s of retries
    assert failed.exit_code == 1 and time.monotonic() - began < 8, failed.output
    result = tracediff("tools", "list", "--db", bad)
    assert result.returncode == 1
    [line] = result.stderr.strip().splitlines()
    assert "someone:***@" in line and "s3cretpw" not in line and "Connection refused" in line


@pytest.mark.slow
def test_commands_on_an_empty_postgres_database_say_so_in_one_line(postgres_databases, tmp_path):
    from databases import _admin

    url = (
        postgres_databases.fresh().rsplit("/", 1)[0]
        + "/tracediff_empty_"
        + str(time.monotonic_ns())
    )
    _admin(f'CREATE DATABASE "{url.rsplit("/", 1)[1]}"')
    try:
        for args in (("tools", "list"), ("problems", "list"), ("problems", "show", "TD-1")):
            result = tracediff(*args, "--db", url)
            assert result.returncode == 1 and "holds no tracediff tables" in result.stderr, args
            assert "Traceback" not in result.stderr
    finally:
        postgres_databases.drop(url)


@pytest.mark.slow
def test_backup_of_a_postgres_database_points_to_pg_dump(pg_url, tmp_path):
    Store.open(pg_url).close()
    result = tracediff("backup", str(tmp_path / "copy.db"), "--db", pg_url)
    assert (
        result.returncode == 1 and "pg_dump" in result.stderr and "Traceback" not in result.stderr
    )
    # a page that exists, with the section it names
    [page] = re.findall(r"in (/\S+\.md)\)", result.stderr)
    assert "\n## Backups" in Path(page).read_text()


@pytest.mark.slow
def test_the_analyser_carries_on_after_the_server_drops_every_connection(pg_url, tmp_path):
    from databases import _admin

    node = LiveServer(pg_url, log_path=tmp_path / "node.log").start()
    try:

        def post(n):
            assert (
                httpx.post(
                    node.url + "/api/v1/ingest",
                    content=ndjson(*order_call(f"{n:032x}", limit_sent="5")),
                    timeout=30,
                ).status_code
                == 200
            )

        # a 404 until the projection (its own transaction here) has run
        def analysed(n) -> bool:
            answer = httpx.get(f"{node.url}/api/v1/traces/{n:032x}", timeout=30)
            return answer.status_code == 200 and all(
                call["analyzed"] for call in answer.json()["calls"]
            )

        post(1)
        wait_for(lambda: analysed(1))
        # as a restart or failover of the database server does
        name = pg_url.rsplit("/", 1)[1]
        _admin(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")
        for _ in range(20):
            try:
                post(2)
                break
            except AssertionError:
                time.sleep(0.5)
        wait_for(lambda: analysed(2))
    finally:
        node.stop()


def wait_for(condition, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "not done in time"
        time.sleep(0.3)


def test_a_payload_whose_words_pass_what_a_tsvector_holds_is_stored_searched_and_blocks_nothing(
    pg_url,
):
    from webapp import create_app

    client = create_app({"TESTING": True, "DATABASE": pg_url, "ANALYZER": "off"}).test_client()
    big = {
        "trace_id": "f" * 32,
        "snapshot": "response",
        "tool": "listIds",
        "payload": {"ids": list(range(100_000, 250_000))},
    }
    small = {"trace_id": "e" * 32, "snapshot": "arguments", "tool": "t", "payload": {"small": 1}}
    # 1.2 MB of distinct numbers: 1.5 MB of tsvector, past its 1 MB
    for event in (big, small):
        assert client.post("/api/v1/ingest", json=event).get_json()["accepted"] == 1
    # the projection went past it
    assert client.get(f"/api/v1/traces/{'e' * 32}").status_code == 200
    found = client.get("/api/v1/traces?q=100007").get_json()["traces"]
    assert [t["trace_id"] for t in found] == ["f" * 32]


def test_words_are_made_before_the_projection_takes_its_lock_and_under_it_when_still_missing(
    pg_url,
):
    import psycopg

    from webapp import create_app
    from webapp.store.postgresql import sql as pg_sql

    client = create_app({"TESTING": True, "DATABASE": pg_url, "ANALYZER": "off"}).test_client()
    words = {"a" * 32: "Müllerstraße", "b" * 32: "Zwölfhundert", "c" * 32: "Dreißig"}
    for trace_id, word in words.items():
        event = {"trace_id": trace_id, "snapshot": "arguments", "tool": "t", "payload": {"s": word}}
        assert client.post("/api/v1/ingest", json=event).get_json()["accepted"] == 1
    store = Store.open(pg_url)
    wordless = "SELECT count(*) FROM events WHERE words IS NULL"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        # the acknowledging insert leaves the words to the projection: ingest keeps its rate
        assert conn.execute(wordless).fetchone()[0] == 3
        with conn.transaction():
            # another node's projection holds the summaries lock; its words step is this one's
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (pg_sql.SUMMARIES_LOCK,))
            assert store.project() == 0
            assert conn.execute(wordless).fetchone()[0] == 0
            assert conn.execute("SELECT count(*) FROM projection_queue").fetchone()[0] == 3
        # an event whose words are still missing when the lock is taken (queued by an earlier
        # release, or another node's share in flight) gets them under it
        conn.execute("UPDATE events SET words = NULL WHERE trace_id = %s", ("b" * 32,))
    for word, trace_id in (("zwolfhundert", "b" * 32), ("mullerstrasse", "a" * 32)):
        found = client.get(f"/api/v1/traces?q={word}").get_json()["traces"]
        assert [t["trace_id"] for t in found] == [trace_id]


def round_trips(store: Store, step, trace_path) -> tuple[object, list[str]]:
    """Run `step()`; return what it returned and what the store's connection sent, as libpq traced
    it: one name a message the client sent (Sync and Query each end a round trip)."""
    from psycopg import pq

    pgconn = store.db.live().pgconn
    with open(trace_path, "w") as trace:
        pgconn.trace(trace.fileno())
        pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        try:
            returned = step()
        finally:
            pgconn.untrace()
    lines = [line.split("\t") for line in trace_path.read_text().splitlines()]
    return returned, [line[2].strip() for line in lines if line[0] == "F"]


def test_a_projection_on_an_empty_queue_opens_no_transaction_in_one_round_trip(pg_url, tmp_path):
    store, other = Store.open(pg_url), Store.open(pg_url)
    try:
        store.add_events(events_of("a" * 32))
        returned, sent = round_trips(store, store.project_all, tmp_path / "catch-up.trace")
        assert returned == 1
        # the catch-up's last step finds the queue empty: no words transaction, no lock one
        returned, sent = round_trips(store, store.project, tmp_path / "empty.trace")
        assert returned == 0
        assert sent.count("Sync") + sent.count("Query") == 1, sent
        # an event queued by another node is still found and projected
        other.add_events(events_of("b" * 32))
        assert store.project() == 1
        assert store.project() == 0 and not store.behind()
        assert {t["trace_id"] for t in store.find_traces(_everything())[0]} == {"a" * 32, "b" * 32}
    finally:
        store.close()
        other.close()


@pytest.mark.slow
def test_health_answers_within_its_probe_wait_while_the_database_refuses_connections(pg_url):
    from webapp import create_app

    client = create_app({"TESTING": True, "DATABASE": pg_url, "ANALYZER": "off"}).test_client()
    assert client.get("/api/v1/health").get_json()["status"] == "ok"
    name = pg_url.rsplit("/", 1)[1]
    admin = ["psql", ADMIN_URL, "-qc"]
    subprocess.run(
        [
            *admin,
            f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false',
            "-c",
            f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'",
        ],
        check=True,
    )
    try:
        began = time.monotonic()
        health = client.get("/api/v1/health")
        waited = time.monotonic() - began
        # a request waits its whole budget, then 503
        assert client.get("/api/v1/traces").status_code == 503
    finally:
        subprocess.run([*admin, f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true'], check=True)
    assert health.status_code == 200 and health.get_json()["status"] == "degraded"
    # the probe waits 1 s, a request 5 s
    assert waited < 3.5, f"a load balancer's check waited {waited:.1f} s"
    # back at once
    assert client.get("/api/v1/traces").status_code == 200


def test_a_tool_known_only_by_events_another_node_is_projecting_is_found(pg_url):
    import psycopg

    from webapp import create_app
    from webapp.store.postgresql import sql as pg_sql

    client = create_app({"TESTING": True, "DATABASE": pg_url, "ANALYZER": "off"}).test_client()
    event = {"trace_id": "d" * 32, "snapshot": "arguments", "tool": "bookTable", "payload": {}}
    assert client.post("/api/v1/ingest", json=event).get_json()["accepted"] == 1
    with psycopg.connect(pg_url, autocommit=True) as conn, conn.transaction():
        # another node's projection holds the lock: this node's read cannot fold the event
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (pg_sql.SUMMARIES_LOCK,))
        assert client.get("/api/v1/tools/bookTable/observed").status_code == 200
        assert client.get("/api/v1/tools/bookTable/mappings").status_code == 200
        assert client.get("/api/v1/tools/noSuchTool/mappings").status_code == 404


@pytest.mark.slow
def test_a_call_that_cannot_be_saved_is_set_aside_and_the_node_stays_ready(pg_url, tmp_path):
    from webapp.ingest import Event

    # as a version without the NUL-key rule acknowledged them: PostgreSQL's text cannot hold the key
    store = Store.open(pg_url)
    poison = [
        Event(
            event_id=f"e{n}",
            trace_id="poison",
            call_id="c1",
            snapshot=name,
            tool="tnul",
            payload={"a\x00b": "x", "limit": limit},
        )
        for n, (name, limit) in enumerate([("arguments", 5), ("request", "5")])
    ]
    store.add_events(poison)
    store.close()
    # ready only while nothing waits at all
    node = LiveServer(
        pg_url, env={"TRACEDIFF_READY_MAX_LAG": "0"}, log_path=tmp_path / "node.log"
    ).start()
    try:
        # the background analyser alone: nothing reads the trace before it is set aside
        wait_for(lambda: httpx.get(node.url + "/api/v1/ready", timeout=30).status_code == 200)
        (call,) = httpx.get(node.url + "/api/v1/traces/poison", timeout=30).json()["calls"]
        assert call["analyzed"]
        assert call["incomplete"].startswith("analysis failed (DataError: ")
    finally:
        node.stop()
    assert "it is set aside" in node.logs()
