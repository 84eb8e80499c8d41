"""Secrets in a rule's webhook URL.

Stored as given and delivered, shown to no token on any route (API, pages, delivery log, CLI, log
lines), kept when a rule is edited with its masked URL."""

import base64
import html
import logging
import re

import pytest
from click.testing import CliRunner
from test_security import basic, bearer

from webapp import create_app
from webapp.alerts.secrets import keep_secrets, masked_url, public, scrub
from webapp.cli import main
from webapp.ops.sender import deliver_due
from webapp.store import Store

ADMIN, SHIPPER, READER = "adm-7d2e9c4b1a6f3085", "shp-3a8f1d6c9e2b7405", "rdr-9c4e7a2f5b1d8063"
USER, PASSWORD = "hookuser", "pw-Hunter2-horse"
# looks random: found by itself
PATH_KEY = "k7Qm2Xp9Lr4Tz8Vw"
# looks like nothing: the rule marks path segment 3
MARKED = "plainword"
# under a secret name; under a name the rule marks
TOKEN, CODE = "tok-5f1c9e2a7b", "c0de-9911"
SLACK_KEY = "slackOnlyPathKey"
UUID = "8f2a1c3e-1234-4bcd-9e7f-0a1b2c3d4e5f"
SECRETS = (PASSWORD, PATH_KEY, MARKED, TOKEN, CODE, SLACK_KEY)
BAD = b'{"trace_id": "t1", "snapshot": "bogus", "payload": 1}\n'
ALERTS = "/api/v1/alerts"
# what the receiver is sent
DELIVERED = f"/hook/{PATH_KEY}/{MARKED}?token={TOKEN}&code={CODE}&team=ops"
SCOPES = {
    "admin": bearer(ADMIN),
    "admin in a browser": basic(ADMIN),
    "ingest": bearer(SHIPPER),
    "read": bearer(READER),
    "read in a browser": basic(READER),
    "none": {},
}


@pytest.fixture
def app(db_path):
    """Tokens of every scope; webhooks to 127.0.0.1 allowed, for the local receiver."""
    return create_app(
        {
            "TESTING": True,
            "DATABASE": str(db_path),
            "ANALYZER": "off",
            "WEBHOOK_ALLOW_HOSTS": "127.0.0.1",
            "ALERT_SUMMARY_WAIT": 0,
            "ADMIN_TOKENS": f"ops:{ADMIN}",
            "INGEST_TOKENS": f"shipper:{SHIPPER}",
            "READ_TOKENS": f"team:{READER}",
        }
    )


def secret_url(receiver) -> str:
    base = receiver.url.removesuffix("/hook").replace("http://", f"http://{USER}:{PASSWORD}@")
    return f"{base}/hook/{PATH_KEY}/{MARKED}?token={TOKEN}&code={CODE}&team=ops"


def make_rules(client, receiver) -> list[dict]:
    """A webhook rule with a secret in every place, and a Slack one (its path is the secret)."""
    webhook = {"url": secret_url(receiver), "on": ["rejected_events"], "min_interval_s": 0}
    webhook["secret_parts"] = [3, "code"]
    slack = {"url": receiver.url.replace("hook", f"services/T0/B0/{SLACK_KEY}"), "format": "slack"}
    made = [client.post(ALERTS, json=body, headers=bearer(ADMIN)) for body in (webhook, slack)]
    assert [response.status_code for response in made] == [201, 201], made[0].get_data(as_text=True)
    receiver.secret = made[0].get_json()["secret"]
    return [response.get_json() for response in made]


def deliver(app) -> int:
    store = Store.open(app.config["DATABASE"])
    try:
        return sum(deliver_due(store, app.config) for _ in range(3))
    finally:
        store.close()


def leaks(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


def test_no_token_reads_a_saved_webhook_credential_on_any_route(app, receiver, caplog, db_path):
    caplog.set_level(logging.DEBUG)
    client = app.test_client()
    made = make_rules(client, receiver)
    # its maker too: they typed it
    assert all(not leaks(rule["url"]) for rule in made)
    # a failed attempt, then a delivery: both in the log
    receiver.fail_first = 1
    client.post("/api/v1/ingest", data=BAD, headers=bearer(SHIPPER))
    assert deliver(app) == 1
    webhook = made[0]["id"]
    log = client.get(f"/api/v1/alerts/{webhook}/deliveries", headers=bearer(READER)).get_json()
    [message] = {delivery["message_id"] for delivery in log["deliveries"]}
    again = client.post(f"{ALERTS}/messages/{message}/redeliver", headers=bearer(ADMIN))
    assert again.status_code == 200
    assert deliver(app) == 1 and len(receiver.accepted) == 1
    store = Store.open(app.config["DATABASE"])
    # an error logged by an older version, with the URL in it
    try:
        error = f"ConnectError: {secret_url(receiver)}"
        failed = {"ok": False, "status": None, "latency_ms": 1.0, "error": error}
        store.record_attempt({"id": message, "rule_id": webhook, "attempts": 2}, failed)
    finally:
        store.close()
    read = [f"{ALERTS}/{rule['id']}/deliveries" for rule in made] + [ALERTS, "/settings/alerts"]
    sent = [f"{ALERTS}/{webhook}/test", f"{ALERTS}/{webhook}/resume"]
    sent.append(f"/settings/alerts/{webhook}/test")
    answered = 0
    for scope, headers in SCOPES.items():
        for path in read:
            for extra in ({}, {"HX-Request": "true"}):
                response = client.get(path, headers={**headers, **extra})
                assert not leaks(response.get_data(as_text=True)), (scope, path)
                answered += response.status_code == 200
        for path in sent:
            response = client.post(path, headers=headers)
            assert not leaks(response.get_data(as_text=True)), (scope, path)
    # admin and read tokens, as Bearer and Basic, read them all; an ingest token and none, none
    assert answered == 4 * len(read) * 2
    page = client.get("/settings/alerts", headers=basic(ADMIN)).get_data(as_text=True)
    assert "ConnectError: http://hookuser:[REDACTED]@127.0.0.1" in html.unescape(page)
    listed = CliRunner().invoke(main, ["alerts", "list", "--db", str(db_path)]).output
    assert "[REDACTED]" in listed and not leaks(listed)
    marked = ["--secret-part", "3", "--secret-part", "code"]
    added = CliRunner().invoke(
        main,
        ["alerts", "add", secret_url(receiver), *marked, "--db", str(db_path)],
        env={"TRACEDIFF_WEBHOOK_ALLOW_HOSTS": "127.0.0.1"},
    )
    assert added.exit_code == 0 and not leaks(added.output), added.output
    assert not leaks(caplog.text)


def test_a_delivery_still_carries_the_saved_credentials(app, receiver):
    client = app.test_client()
    make_rules(client, receiver)
    client.post("/api/v1/ingest", data=BAD, headers=bearer(SHIPPER))
    assert deliver(app) == 1
    [(headers, body)] = receiver.accepted
    assert body["type"] == "ingest.rejected"
    assert receiver.paths == [DELIVERED]
    basic_auth = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    assert headers["authorization"] == f"Basic {basic_auth}"
    # the user info goes as Basic auth, never in the Host
    assert headers["host"] == receiver.url.split("/")[2]


def test_editing_a_rule_keeps_its_secrets_unless_new_ones_are_typed(app, receiver):
    client = app.test_client()
    rule = make_rules(client, receiver)[0]
    shown = client.get(ALERTS, headers=bearer(READER)).get_json()["rules"][0]
    assert shown["url"].count("[REDACTED]") == 5 and shown["secret_parts"] == [3, "code"]
    body = {"url": shown["url"], "on": ["new", "rejected_events"], "secret_parts": [3, "code"]}
    edited = client.put(f"{ALERTS}/{rule['id']}", json=body, headers=bearer(ADMIN))
    assert edited.status_code == 200 and edited.get_json()["on"] == ["new", "rejected_events"]
    assert edited.get_json()["url"] == shown["url"]
    assert send_test(client, rule)["ok"] and receiver.paths[-1] == DELIVERED

    typed = {**body, "url": shown["url"].replace("token=[REDACTED]", "token=typed-anew-77")}
    assert client.put(f"{ALERTS}/{rule['id']}", json=typed, headers=bearer(ADMIN)).status_code < 300
    assert send_test(client, rule)["ok"]
    assert receiver.paths[-1] == DELIVERED.replace(TOKEN, "typed-anew-77")
    # the password stayed
    assert receiver.attempts[-1][0]["authorization"].startswith("Basic ")

    # a kept secret never goes to another server than the one it was typed for
    moved = {**body, "url": shown["url"].replace("127.0.0.1", "localhost")}
    refused = client.put(f"{ALERTS}/{rule['id']}", json=moved, headers=bearer(ADMIN))
    assert refused.status_code == 400 and refused.get_json()["error"]["code"] == "bad_rule"
    assert "type its secrets again" in refused.get_json()["error"]["message"]
    read_only = client.put(f"{ALERTS}/{rule['id']}", json=body, headers=bearer(READER))
    assert read_only.status_code == 403


def send_test(client, rule: dict) -> dict:
    return client.post(f"{ALERTS}/{rule['id']}/test", headers=bearer(ADMIN)).get_json()


def test_the_page_edits_a_rule_with_its_masked_url_and_keeps_its_secrets(app, receiver):
    client = app.test_client()
    rule = make_rules(client, receiver)[0]
    page = client.get("/settings/alerts", headers=basic(ADMIN)).get_data(as_text=True)
    form = page[page.index(f"/settings/alerts/{rule['id']}/edit") :]
    url = html.unescape(re.search(r'name="url"[^>]*value="([^"]*)"', form).group(1))
    parts = html.unescape(re.search(r'name="secret_parts"[^>]*value="([^"]*)"', form).group(1))
    assert "[REDACTED]" in url and not leaks(page) and parts == "3, code"
    fields = {"url": url, "on": ["new"], "min_interval_s": "60", "secret_parts": parts}
    saved = client.post(f"/settings/alerts/{rule['id']}/edit", data=fields, headers=basic(ADMIN))
    assert saved.status_code == 200 and f"Rule {rule['id']} changed" in saved.get_data(as_text=True)
    assert send_test(client, rule)["ok"] and receiver.paths[-1] == DELIVERED
    [listed, _] = client.get(ALERTS, headers=bearer(READER)).get_json()["rules"]
    assert listed["on"] == ["new"] and listed["min_interval_s"] == 60


@pytest.mark.parametrize(
    "url, secrets",
    [
        ("https://hooks.slack.com/services/T0001/B0002/XXXXXXXXXXXX", ["XXXXXXXXXXXX"]),
        ("https://discord.com/api/webhooks/123456789012345678/tok_Abc-def", ["tok_Abc-def"]),
        (
            "https://acme.webhook.office.com/webhookb2/a1b2@c3d4/IncomingWebhook/e5f6a7b8/9c0d",
            ["a1b2@c3d4", "e5f6a7b8", "9c0d"],
        ),
        (
            "https://chat.googleapis.com/v1/spaces/AAAA/messages?key=AIzaKey123&token=tk-42xyz",
            ["AIzaKey123", "tk-42xyz"],
        ),
        ("https://maker.ifttt.com/trigger/deploy/with/key/ifttt-key-1", ["ifttt-key-1"]),
        ("https://ops:s3cr3t-pass@hooks.example.com/in", ["s3cr3t-pass"]),
        ("https://hooks.example.com/in?sig=abcd1234&signature=efgh5678", ["abcd1234", "efgh5678"]),
        ("https://hooks.example.com/in?api_key=ijkl9012&key=mnop3456", ["ijkl9012", "mnop3456"]),
        ("https://mm.example.com/hooks/xi3hd8s7pfbq5g8k9zqy1k3mzr", ["xi3hd8s7pfbq5g8k9zqy1k3mzr"]),
        (f"https://webhook.site/{UUID}", [UUID]),
    ],
)
def test_the_usual_places_of_a_webhook_credential_are_masked_and_kept(url, secrets):
    rule = {"url": url, "format": "webhook", "secret_parts": []}
    masked = masked_url(rule)
    assert "[REDACTED]" in masked and not [secret for secret in secrets if secret in masked], masked
    assert keep_secrets(masked, rule) == url
    error = scrub(f"ConnectError: {url} ({secrets[0]})", rule)
    assert not [secret for secret in secrets if secret in error], error


def test_what_holds_no_secret_stays_as_written():
    rule = {"url": "https://hooks.example.com/tracediff/alerts?team=ops&limit=5"}
    assert masked_url(rule) == rule["url"] and keep_secrets(rule["url"], rule) == rule["url"]
    paused = {"url": "https://u:pa55-word@h.example/x", "pause_reason": "last: Error pa55-word"}
    assert public(paused)["pause_reason"] == "last: Error [REDACTED]"


def test_a_masked_part_with_nothing_saved_behind_it_is_refused():
    rule = {"url": "https://hooks.example.com/in?token=abcdef123", "format": "webhook"}
    with pytest.raises(ValueError, match="no secret is saved"):
        keep_secrets("https://hooks.example.com/in/[REDACTED]?token=[REDACTED]", rule)
    assert (
        keep_secrets("https://hooks.example.com/v2?token=[REDACTED]", rule)
        == "https://hooks.example.com/v2?token=abcdef123"
    )
