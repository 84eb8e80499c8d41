"""Alert rules, the outbox and the sender.

Against a real local receiver that verifies every signature."""

import time

import httpx
import pytest
from receiver import Receiver

from webapp import create_app
from webapp.alerts import RuleError, matches, parse_rule
from webapp.alerts.messages import signature, slack_body, summary
from webapp.alerts.urls import UrlRefused, allow_list, check_url
from webapp.ops.sender import deliver_due
from webapp.store import Store
from webapp.store.codec import utc_now


@pytest.fixture
def app(alerting_app):
    # rules may point at the local receiver
    return alerting_app


BAD = b'{"trace_id": "t1", "snapshot": "bogus", "payload": 1}\n'


def add_rule(client, receiver, **fields):
    body = {"url": receiver.url, "on": ["rejected_events"], **fields}
    response = client.post("/api/v1/alerts", json=body)
    assert response.status_code == 201, response.get_json()
    rule = response.get_json()
    receiver.secret = rule["secret"] if rule["format"] == "webhook" else None
    return rule


def send_until_quiet(app, rounds=5):
    store = Store.open(app.config["DATABASE"])
    try:
        return sum(deliver_due(store, app.config) for _ in range(rounds))
    finally:
        store.close()


def test_a_rejected_batch_sends_one_signed_webhook(client, app, receiver):
    rule = add_rule(client, receiver)
    client.post("/api/v1/ingest", data=BAD, headers={"User-Agent": "fluent-bit/3.1"})
    assert send_until_quiet(app) == 1
    [(headers, body)] = receiver.accepted
    assert headers["webhook-id"].startswith("msg_")
    assert body["type"] == "ingest.rejected"
    assert body["data"]["count"] == 1 and body["data"]["source"] == "fluent-bit/3.1"
    assert body["data"]["permalink"].endswith("/quarantine")
    [delivery] = client.get(f"/api/v1/alerts/{rule['id']}/deliveries").get_json()["deliveries"]
    assert delivery["status_code"] == 200 and delivery["state"] == "delivered"


def test_a_burst_sends_one_message_per_interval(client, app, receiver):
    add_rule(client, receiver, min_interval_s=600)
    for _ in range(5):
        client.post("/api/v1/ingest", data=BAD)
    send_until_quiet(app)
    assert len(receiver.accepted) == 1


def test_the_secret_is_shown_once_and_never_listed(client, receiver):
    rule = add_rule(client, receiver)
    assert rule["secret"].startswith("whsec_")
    listed = client.get("/api/v1/alerts").get_data(as_text=True)
    assert rule["secret"] not in listed and str(rule["id"]) in listed
    assert rule["secret"] not in client.get("/settings/alerts").get_data(as_text=True)


def test_a_failing_receiver_is_retried_with_the_same_id(client, app, receiver):
    receiver.fail_first = 2
    rule = add_rule(client, receiver)
    client.post("/api/v1/ingest", data=BAD)
    send_until_quiet(app, 1)
    store = Store.open(app.config["DATABASE"])
    [message] = store.messages(rule["id"])
    assert message["state"] == "pending" and message["attempts"] == 1
    # the retry is due seconds later: bring it forward, as the redeliver button does
    for _ in range(2):
        store.redeliver(message["id"])
        deliver_due(store, app.config)
    store.close()
    ids = {headers["webhook-id"] for headers, _ in receiver.attempts}
    assert ids == {message["id"]} and len(receiver.attempts) == 3 and len(receiver.accepted) == 1


def test_the_delivery_log_pages_with_limit_and_a_cursor(client, app, receiver):
    receiver.fail_first = 4
    rule = add_rule(client, receiver)
    client.post("/api/v1/ingest", data=BAD)
    store = Store.open(app.config["DATABASE"])
    # four failed tries and the delivery: five rows in the log
    for _ in range(5):
        [message] = store.messages(rule["id"])
        store.redeliver(message["id"])
        deliver_due(store, app.config)
    store.close()
    log = f"/api/v1/alerts/{rule['id']}/deliveries"
    first = client.get(log + "?limit=2").get_json()
    assert [d["attempt"] for d in first["deliveries"]] == [5, 4] and len(first["messages"]) == 1
    second = client.get(log + f"?limit=2&cursor={first['next_cursor']}").get_json()
    last = client.get(log + f"?limit=2&cursor={second['next_cursor']}").get_json()
    assert [d["attempt"] for d in second["deliveries"] + last["deliveries"]] == [3, 2, 1]
    assert last["next_cursor"] is None
    assert client.get(log).get_json()["next_cursor"] is None
    for query, code in (
        ("limit=0", "bad_parameter"),
        ("limit=501", "bad_parameter"),
        ("limit=two", "bad_parameter"),
        ("cursor=-1", "bad_cursor"),
        ("cursor=x", "bad_cursor"),
    ):
        response = client.get(f"{log}?{query}")
        assert response.status_code == 400 and response.get_json()["error"]["code"] == code, query


def test_the_backoff_waits_longer_each_time(client, app, receiver):
    receiver.fail_first = 10
    rule = add_rule(client, receiver)
    client.post("/api/v1/ingest", data=BAD)
    store = Store.open(app.config["DATABASE"])
    waits = []
    for _ in range(3):
        [message] = store.messages(rule["id"])
        store.redeliver(message["id"])
        deliver_due(store, app.config)
        due = store.db.execute("SELECT next_attempt_at, created_at FROM alert_outbox").fetchone()
        waits.append(due[0])
    store.close()
    assert waits == sorted(waits)


def test_429_waits_for_retry_after_and_other_4xx_is_final(client, app):
    slow = Receiver(fail_first=1, status=429, headers={"Retry-After": "120"})
    gone = Receiver(fail_first=99, status=404)
    try:
        add_rule(client, slow)
        add_rule(client, gone)
        client.post("/api/v1/ingest", data=BAD)
        send_until_quiet(app)
        store = Store.open(app.config["DATABASE"])
        rows = dict(
            store.db.execute(
                "SELECT r.url, o.state || ' ' || o.next_attempt_at FROM alert_outbox o "
                "JOIN alert_rules r ON r.id = o.rule_id"
            ).fetchall()
        )
        store.close()
        assert rows[gone.url].startswith("failed")
        state, when = rows[slow.url].split(" ")
        assert state == "pending" and when > time.strftime(
            "%Y-%m-%dT%H:%M:%S", time.gmtime(time.time() + 100)
        )
        assert len(slow.attempts) == 1 and len(gone.attempts) == 1
    finally:
        slow.close()
        gone.close()


def test_a_rule_failing_for_an_hour_is_paused_and_says_so(client, app):
    down = Receiver(fail_first=99, status=500)
    try:
        rule = add_rule(client, down, min_interval_s=0)
        store = Store.open(app.config["DATABASE"])
        client.post("/api/v1/ingest", data=BAD)
        deliver_due(store, app.config)
        assert client.get("/api/v1/alerts").get_json()["rules"][0]["paused"] is False
        # the outage began over an hour ago (as if the first failure had been then)
        with store.write() as conn:
            conn.execute("UPDATE alert_rules SET failing_since = ?", (utc_now(hours_ago=1.01),))
        store.redeliver(store.messages(rule["id"])[0]["id"])
        deliver_due(store, app.config)
        store.close()
        listed = client.get("/api/v1/alerts").get_json()["rules"][0]
        assert (
            listed["paused"]
            and "every delivery failed for 61 min (2 attempts" in listed["pause_reason"]
        )
        assert listed["held"] == 1 and "HTTP 500" in listed["pause_reason"]
        assert "Paused since" in client.get("/settings/alerts").get_data(as_text=True)
        assert client.post(f"/api/v1/alerts/{rule['id']}/resume").get_json()["paused"] is False
    finally:
        down.close()


def test_slack_rules_send_text_and_blocks(client, app, receiver):
    add_rule(client, receiver, format="slack")
    client.post("/api/v1/ingest", data=b'{"trace_id": "t", "snapshot": "<b>x</b>", "payload": 1}')
    send_until_quiet(app)
    [(_, body)] = receiver.accepted
    assert "rejected 1 record" in body["text"]
    assert body["blocks"][0]["type"] == "section" and "<b>" not in body["blocks"][0]["text"]["text"]
    assert body["blocks"][1]["elements"][0]["url"].endswith("/quarantine")


def test_the_slack_line_says_what_broke_and_how_often():
    body = slack_body(
        "problem.regressed",
        {
            "id": "TD-42",
            "tool": "findOrders",
            "kind": "type_changed",
            "transform": "integer>string",
            "left": {"snapshot": "arguments", "path": "/limit"},
            "calls": 83,
            "releases": ["1.4.0", "1.4.2"],
            "permalink": "https://t/p/TD-42",
            "first_seen": "2026-11-30T09:02:10.120Z",
            "last_seen": "2026-11-30T09:12:05.003Z",
        },
    )
    # a message written before its facts were kept: the problem's own counts and newest release
    assert (
        b"findOrders: /limit sent as string instead of integer, 83 calls in 10 min since 1.4.2 "
        b"(regressed, TD-42)" in body
    )
    assert (
        summary(
            "problem.new",
            {
                "tool": "t",
                "kind": "dropped",
                "calls": 3,
                "first_seen": "2026-11-28T09:00:00Z",
                "last_seen": "2026-11-30T21:00:00Z",
                "releases": ["1.9.2", "1.10.0"],
            },
        )
        == "t: ? dropped on the way to the request, 3 calls in 2 days since 1.10.0 (new, )"
    )


def test_the_signature_is_the_standard_webhooks_one():
    from standardwebhooks import Webhook

    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    body = b'{"type":"problem.new"}'
    now = int(time.time())
    headers = {
        "webhook-id": "msg_1",
        "webhook-timestamp": str(now),
        "webhook-signature": signature(secret, "msg_1", now, body),
    }
    Webhook(secret).verify(body, headers)
    with pytest.raises(Exception):  # noqa: B017  (the library's own error class, whatever it is called)
        Webhook(secret).verify(body + b" ", headers)


@pytest.mark.parametrize(
    "url,why",
    [
        ("ftp://example.com/x", "only http"),
        ("http://127.0.0.1:9/x", "loopback"),
        ("http://localhost/x", "loopback"),
        ("http://169.254.169.254/latest/meta-data", "loopback, link-local"),
        ("http://[::1]/x", "loopback"),
        ("http://metadata.google.internal/x", "metadata"),
        ("http://0.0.0.0/x", "reserved"),
    ],
)
def test_internal_urls_are_refused(url, why):
    with pytest.raises(UrlRefused, match=why):
        check_url(url, allow_list(""))


def test_the_allow_list_takes_hosts_and_ranges():
    assert check_url("http://127.0.0.1:9/x", allow_list("127.0.0.0/8")) == ["127.0.0.1"]
    assert check_url("http://localhost:9/x", allow_list("localhost"))


def test_a_refused_url_is_a_400_naming_why(client):
    response = client.post("/api/v1/alerts", json={"url": "http://169.254.169.254/x"})
    assert response.status_code == 400 and "link-local" in response.get_json()["error"]["message"]


@pytest.mark.parametrize(
    "body,field",
    [
        ({"url": "https://x.example", "on": ["sometimes"]}, "on"),
        ({"url": "x"}, "url"),
        ({"url": "https://x.example", "format": "teams"}, "format"),
        ({"url": "https://x.example", "min_severity": "fatal"}, "min_severity"),
        ({"url": "https://x.example", "min_interval_s": -1}, "min_interval_s"),
        ({"url": "https://x.example", "colour": "red"}, "colour"),
        ([], "object"),
    ],
)
def test_a_bad_rule_names_its_field(body, field):
    with pytest.raises(RuleError, match=field):
        parse_rule(body)


def test_rules_filter_by_tool_kind_severity_and_source():
    rule = parse_rule(
        {"url": "https://x.example", "on": ["new"], "tool": "findOrders", "min_severity": "error"}
    )
    problem = {"tool": "findOrders", "kind": "dropped", "severity": "error", "sources": ["mcp"]}
    assert matches(rule, "new", problem)
    assert not matches(rule, "regressed", problem)
    assert not matches(rule, "new", {**problem, "severity": "warning"})
    assert not matches(rule, "new", {**problem, "tool": "other"})
    assert not matches({**rule, "source": "app_intent"}, "new", problem)


def test_changing_rules_needs_an_ingest_token_when_tokens_are_set(db_path):
    app = create_app(
        {"TESTING": True, "DATABASE": str(db_path), "ANALYZER": "off", "INGEST_TOKENS": "s3cret"}
    )
    client = app.test_client()
    assert client.post("/api/v1/alerts", json={"url": "https://x.example"}).status_code == 401
    assert client.get("/api/v1/alerts").status_code == 200
    assert "tracediff alerts add" in client.get("/settings/alerts").get_data(as_text=True)


def test_a_rule_from_the_cli(tmp_path, receiver):
    from click.testing import CliRunner

    from webapp.cli import main

    db = str(tmp_path / "cli.db")
    env = {"TRACEDIFF_WEBHOOK_ALLOW_HOSTS": "127.0.0.1"}
    added = CliRunner().invoke(
        main, ["alerts", "add", receiver.url, "--on", "new,rejected_events", "--db", db], env=env
    )
    assert added.exit_code == 0, added.output
    receiver.secret = added.output.split("secret (shown once): ")[1].strip()
    assert "rejected_events" in CliRunner().invoke(main, ["alerts", "list", "--db", db]).output
    tested = CliRunner().invoke(main, ["alerts", "test", "1", "--db", db], env=env)
    assert tested.exit_code == 0 and tested.output.startswith("rule 1: delivered: HTTP 200 in ")
    assert receiver.accepted[0][1]["data"]["id"] == "TD-TEST"
    assert CliRunner().invoke(main, ["alerts", "remove", "1", "--db", db]).exit_code == 0
    assert CliRunner().invoke(main, ["alerts", "remove", "1", "--db", db]).exit_code == 1


@pytest.mark.parametrize("down", ["503", "closed port"])
def test_a_test_send_tries_once_and_says_what_happened_in_one_line(tmp_path, down):
    from click.testing import CliRunner
    from conftest import free_port

    from webapp.cli import main

    failing = Receiver(fail_first=99, status=503)
    url = failing.url if down == "503" else f"http://127.0.0.1:{free_port()}/hook"
    db, env = str(tmp_path / "cli.db"), {"TRACEDIFF_WEBHOOK_ALLOW_HOSTS": "127.0.0.1"}
    try:
        assert CliRunner().invoke(main, ["alerts", "add", url, "--db", db], env=env).exit_code == 0
        started = time.monotonic()
        tested = CliRunner().invoke(main, ["alerts", "test", "1", "--db", db], env=env)
        assert time.monotonic() - started < 5
    finally:
        failing.close()
    assert tested.exit_code == 1 and len(tested.output.strip().splitlines()) == 1
    assert tested.output.startswith("rule 1: failed: ") and "gave up" not in tested.output
    assert ("HTTP 503 in " if down == "503" else "ConnectError") in tested.output
    assert len(failing.attempts) == (1 if down == "503" else 0)


def test_the_test_button_of_the_api_says_status_latency_and_error(client, receiver):
    receiver.fail_first, receiver.fail_status = 99, 500
    rule = add_rule(client, receiver)
    answer = client.post(f"/api/v1/alerts/{rule['id']}/test").get_json()
    assert answer["ok"] is False and answer["status"] == 500 and answer["error"] == "HTTP 500"
    assert answer["latency_ms"] > 0 and len(receiver.attempts) == 1


def test_the_test_button_on_the_page_says_what_the_send_did(client, receiver):
    rule = add_rule(client, receiver)
    page = client.post(f"/settings/alerts/{rule['id']}/test").get_data(as_text=True)
    assert "Test message: delivered: HTTP 200 in " in page
    receiver.fail_first, receiver.fail_status = 99, 502
    page = client.post(f"/settings/alerts/{rule['id']}/test").get_data(as_text=True)
    assert "Test message: failed: HTTP 502 in " in page and rule["secret"] not in page


@pytest.mark.slow
def test_every_alert_arrives_once_through_a_sigkill(make_server):
    """The state change commits, the receiver is down, the server dies before delivering: after a
    restart the alert arrives, signed, with the id it was given in the first place."""
    receiver = Receiver(fail_first=2)
    try:
        server = make_server(env={"TRACEDIFF_WEBHOOK_ALLOW_HOSTS": "127.0.0.1"})
        rule = httpx.post(
            server.url + "/api/v1/alerts", json={"url": receiver.url, "on": ["rejected_events"]}
        ).json()
        receiver.secret = rule["secret"]
        assert httpx.post(server.url + "/api/v1/ingest", content=BAD).json()["rejected"]
        deadline = time.monotonic() + 40
        while not receiver.attempts and time.monotonic() < deadline:
            time.sleep(0.05)
        assert receiver.attempts, "the sender never tried"
        server.kill()
        server.start()
        deadline = time.monotonic() + 60
        while not receiver.accepted and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(receiver.accepted) == 1
        assert len({headers["webhook-id"] for headers, _ in receiver.attempts}) == 1
        time.sleep(1.5)
        assert len(receiver.accepted) == 1
    finally:
        receiver.close()


def test_slack_text_is_escaped_and_the_webhook_url_is_not_listed(client, app, receiver):
    rule = add_rule(client, receiver, format="slack")
    client.post(
        "/api/v1/ingest",
        data=b'{"trace_id": "t", "snapshot": "x", "payload": 1}',
        headers={"User-Agent": "<!channel> <http://evil.example|click>"},
    )
    send_until_quiet(app)
    [(_, body)] = receiver.accepted
    assert "<!channel>" not in body["text"] and "&lt;!channel&gt;" in body["text"]
    hook = receiver.url.replace("/hook", "/services/T0/B0/SECRETPART")
    slack = client.post("/api/v1/alerts", json={"url": hook, "format": "slack"})
    # masked from the answer to its maker on: the URL was typed, and is shown to no one again
    assert slack.status_code == 201 and "SECRETPART" not in slack.get_data(as_text=True)
    assert "SECRETPART" not in client.get("/api/v1/alerts").get_data(as_text=True)
    assert "SECRETPART" not in client.get("/settings/alerts").get_data(as_text=True)
    assert rule["id"]


def test_a_token_in_a_user_agent_is_not_stored(client):
    client.post(
        "/api/v1/ingest",
        data=b'{"snapshot": "x"}',
        headers={"User-Agent": "vector/0.40 token=ghp_abcdefghijklmnopqrstuvwxyz0123456789"},
    )
    [record] = client.get("/api/v1/quarantine").get_json()["records"]
    assert "ghp_abcdef" not in record["source"] and record["source"].startswith("vector/0.40")


def test_the_alerts_page_names_its_docs_page_never_the_servers_install_path(client):
    from pathlib import Path

    from webapp import doc_page

    page = client.get("/settings/alerts").get_data(as_text=True)
    assert "<code>docs/alerts.md</code>" in page and Path(doc_page("alerts.md")).is_file()
    assert str(Path(doc_page("alerts.md")).parent) not in page
