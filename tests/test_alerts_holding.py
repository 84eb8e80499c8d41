"""What a rule does with its messages when its receiver fails.

Retries without pausing for a short outage, pauses after an hour of failures and holds what comes
meanwhile, sends it on resume; each attempt logged with its own outcome; a deleted rule's id and
messages never come back."""

import time
from email.utils import formatdate

import httpx
import pytest
from receiver import Receiver

from webapp.ops.posting import MAX_WAIT_S, read_retry_after
from webapp.ops.sender import deliver_due
from webapp.store import Store
from webapp.store.codec import utc_now

BAD = b'{"trace_id": "t1", "snapshot": "bogus", "payload": 1}\n'


@pytest.fixture
def app(alerting_app):
    return alerting_app


@pytest.fixture
def opened(app):
    store = Store.open(app.config["DATABASE"])
    yield store
    store.close()


def add_rule(client, receiver, **fields):
    response = client.post(
        "/api/v1/alerts",
        json={"url": receiver.url, "on": ["rejected_events"], "min_interval_s": 0, **fields},
    )
    assert response.status_code == 201, response.get_json()
    receiver.secret = response.get_json()["secret"]
    return response.get_json()


def retry_all(store, rule_id):
    """Bring every pending retry forward, as if its wait were over."""
    with store.write() as conn:
        conn.execute(
            "UPDATE alert_outbox SET next_attempt_at = ? WHERE rule_id = ? AND state = 'pending'",
            (utc_now(), rule_id),
        )


def listed(client, rule_id):
    return next(r for r in client.get("/api/v1/alerts").get_json()["rules"] if r["id"] == rule_id)


def test_many_failed_attempts_within_the_hour_do_not_pause_and_a_success_resets(
    client, app, opened, receiver
):
    receiver.fail_first, receiver.fail_status = 8, 503
    rule = add_rule(client, receiver)
    # three alerts during the outage
    for _ in range(3):
        client.post("/api/v1/ingest", data=BAD)
    for _ in range(4):
        retry_all(opened, rule["id"])
        deliver_due(opened, app.config)
    shown = listed(client, rule["id"])
    assert not shown["paused"] and shown["failures"] == 0 and shown["failing_since"] is None
    assert len(receiver.attempts) == 11 and len(receiver.accepted) == 3


def test_an_hour_of_failures_pauses_holds_what_comes_then_sends_it_on_resume(
    client, app, opened, receiver
):
    receiver.fail_first, receiver.fail_status = 1, 500
    rule = add_rule(client, receiver)
    client.post("/api/v1/ingest", data=BAD)
    # this message has had 11 failed attempts, the first over an hour ago
    with opened.write() as conn:
        conn.execute("UPDATE alert_outbox SET attempts = 11")
        conn.execute(
            "UPDATE alert_rules SET failing_since = ?, failures = 11", (utc_now(hours_ago=1.2),)
        )
    deliver_due(opened, app.config)
    assert listed(client, rule["id"])["paused"]
    # while paused
    client.post("/api/v1/ingest", data=BAD, headers={"User-Agent": "vector/0.40"})
    retry_all(opened, rule["id"])
    assert deliver_due(opened, app.config) == 0
    shown = listed(client, rule["id"])
    assert shown["held"] == 2 and len(receiver.attempts) == 1
    assert "2 held: they are sent when the rule is resumed" in client.get(
        "/settings/alerts"
    ).get_data(as_text=True)

    assert client.post(f"/api/v1/alerts/{rule['id']}/resume").get_json()["held"] == 0
    assert deliver_due(opened, app.config) == 2
    assert len(receiver.accepted) == 2 and {b["type"] for _, b in receiver.accepted} == {
        "ingest.rejected"
    }
    assert len({h["webhook-id"] for h, _ in receiver.accepted}) == 2
    assert [m["state"] for m in opened.messages(rule["id"])] == ["delivered", "delivered"]


def test_each_attempt_in_the_log_shows_its_own_outcome(client, app, opened, receiver):
    receiver.fail_first, receiver.fail_status = 1, 500
    rule = add_rule(client, receiver)
    client.post("/api/v1/ingest", data=BAD)
    deliver_due(opened, app.config)
    retry_all(opened, rule["id"])
    deliver_due(opened, app.config)
    log = client.get(f"/api/v1/alerts/{rule['id']}/deliveries").get_json()["deliveries"]
    assert [(d["attempt"], d["status_code"], d["state"]) for d in log] == [
        (2, 200, "delivered"),
        (1, 500, "failed"),
    ]
    assert {d["message_state"] for d in log} == {"delivered"}
    page = client.get("/settings/alerts").get_data(as_text=True)
    assert "<td>500</td>" in page and page.count("<td>failed</td>") == 1


def test_retry_after_as_an_http_date_is_honoured(client, app, opened):
    slow = Receiver(
        fail_first=1,
        status=429,
        headers={"Retry-After": formatdate(time.time() + 300, usegmt=True)},
    )
    try:
        rule = add_rule(client, slow)
        client.post("/api/v1/ingest", data=BAD)
        deliver_due(opened, app.config)
    finally:
        slow.close()
    [message] = opened.messages(rule["id"])
    [due] = opened.db.execute("SELECT next_attempt_at FROM alert_outbox").fetchone()
    assert message["state"] == "pending" and due > utc_now(hours_ago=-250 / 3600)


@pytest.mark.parametrize(
    "value,low,high",
    [
        ("120", 120, 120),
        (-60, 0, 0),
        (86400, MAX_WAIT_S, MAX_WAIT_S),
        (60, 55, 61),
        ("soon", None, None),
        ("nan", None, None),
    ],
)
def test_retry_after_is_read_in_both_forms_and_bounded(value, low, high):
    wait = read_retry_after(
        formatdate(time.time() + value, usegmt=True) if isinstance(value, int) else value
    )
    assert (wait is None) if low is None else low <= wait <= high


def test_rule_ids_are_never_reused_and_a_deleted_rule_leaves_nothing_to_redeliver(
    client, app, opened
):
    old, new = Receiver(), Receiver()
    try:
        first = add_rule(client, old)
        client.post("/api/v1/ingest", data=BAD)
        deliver_due(opened, app.config)
        [message] = opened.messages(first["id"])
        assert client.delete(f"/api/v1/alerts/{first['id']}").status_code == 204
        second = add_rule(client, new)
        assert second["id"] > first["id"]
        assert client.get(f"/api/v1/alerts/{second['id']}/deliveries").get_json() == {
            "deliveries": [],
            "next_cursor": None,
            "messages": [],
        }
        assert client.post(f"/api/v1/alerts/messages/{message['id']}/redeliver").status_code == 404
        deliver_due(opened, app.config)
        assert len(old.accepted) == 1 and new.attempts == []
    finally:
        old.close()
        new.close()


@pytest.mark.slow
def test_a_short_outage_delays_every_alert_and_pauses_nothing(make_server, tmp_path):
    """The receiver is down for 12 s while three alerts are written: the sender's back-off reaches
    it."""
    receiver = Receiver(fail_first=10**6, status=503)
    try:
        server = make_server(env={"TRACEDIFF_WEBHOOK_ALLOW_HOSTS": "127.0.0.1"})
        rule = httpx.post(
            server.url + "/api/v1/alerts",
            json={"url": receiver.url, "on": ["rejected_events"], "min_interval_s": 0},
        ).json()
        receiver.secret = rule["secret"]
        for _ in range(3):
            httpx.post(server.url + "/api/v1/ingest", content=BAD)
        time.sleep(12)
        receiver.fail_first = 0
        deadline = time.monotonic() + 60
        while len(receiver.accepted) < 3 and time.monotonic() < deadline:
            time.sleep(0.2)
        # a sender records a delivery once the receiver's answer is back (each worker has a sender:
        # another's last failure can be recorded after a success)
        log = server.url + f"/api/v1/alerts/{rule['id']}/deliveries"
        while time.monotonic() < deadline and not all_delivered(httpx.get(log).json(), 3):
            time.sleep(0.2)
        recorded = httpx.get(log).json()
        shown = httpx.get(server.url + "/api/v1/alerts").json()["rules"][0]
    finally:
        receiver.close()
    assert len(receiver.accepted) == 3 and len(receiver.attempts) >= 9
    assert all_delivered(recorded, 3), recorded["messages"]
    assert not shown["paused"] and shown["failures"] == 0


def all_delivered(log: dict, count: int) -> bool:
    """Say whether a rule's log shows `count` messages, each recorded as delivered."""
    states = [message["state"] for message in log["messages"]]
    return states == ["delivered"] * count


@pytest.mark.sqlite_only
def test_migration_11_drops_a_reused_ids_old_messages_and_never_hands_out_a_deleted_id(tmp_path):
    from webapp.store import migrations
    from webapp.store.sqlite.migrate import SqliteMigrations

    path = tmp_path / "v10.db"
    store = Store(path, create=False)
    migrations.apply(
        SqliteMigrations(store), [m for m in migrations.discover("sqlite") if m.version <= 10]
    )
    # rule 1 was made after a deleted rule 1 sent a message; rule 3 was deleted
    with store.write() as conn:
        conn.execute(
            "INSERT INTO alert_rules (id, url, format, on_events, min_interval_s, secret, "
            "created_at) "
            "VALUES (1, 'http://h/x', 'webhook', '[\"new\"]', 0, 'whsec_x', "
            "'2026-12-01T10:00:00.000000Z')"
        )
        for message, rule, at in (
            ("msg_old", 1, "09"),
            ("msg_new", 1, "11"),
            ("msg_gone", 3, "09"),
        ):
            conn.execute(
                "INSERT INTO alert_outbox (id, rule_id, type, subject, data, created_at, state, "
                "attempts, "
                "next_attempt_at) VALUES (?, ?, 'new', 's', '{}', ?, 'delivered', 1, ?)",
                (message, rule, f"2026-12-01T{at}:00:00.000000Z", f"2026-12-01T{at}:00:00.000000Z"),
            )
            conn.execute(
                "INSERT INTO alert_deliveries (message_id, rule_id, at, attempt, status_code) "
                "VALUES (?, ?, ?, 1, 500)",
                (message, rule, f"2026-12-01T{at}:00:00.000000Z"),
            )
    store.close()
    store = Store.open(path)
    try:
        assert [m["id"] for m in store.messages(1)] == ["msg_new"]
        assert [(d["message_id"], d["state"]) for d in store.deliveries(1)] == [
            ("msg_new", "failed")
        ]
        assert (
            store.add_rule(
                {
                    "url": "http://h/y",
                    "format": "webhook",
                    "on": ["new"],
                    "tool": None,
                    "kind": None,
                    "min_severity": None,
                    "source": None,
                    "min_interval_s": 0,
                },
                "whsec_y",
            )
            == 4
        )
        assert store.redeliver("msg_gone") is False
    finally:
        store.close()
