"""What a rule may say and what its messages say.

Malformed and metadata URLs refused in one line, every problem kind accepted, Slack URLs shown by
their start only, test messages of their own type, rejected records counted per source."""

import pytest
from click.testing import CliRunner

from webapp.alerts import RuleError, parse_rule
from webapp.alerts.urls import UrlRefused, allow_list, check_url
from webapp.cli import main
from webapp.ops.sender import deliver_due
from webapp.store import Store

BAD = b'{"trace_id": "t1", "snapshot": "bogus", "payload": 1}\n'
MALFORMED = ["http://127.0.0.1:99999/x", "http://[::1/x", "http://example.com:http/x"]
LOCAL = {"TRACEDIFF_WEBHOOK_ALLOW_HOSTS": "127.0.0.1"}


@pytest.fixture
def app(alerting_app):
    return alerting_app


def deliver(app):
    store = Store.open(app.config["DATABASE"])
    try:
        return deliver_due(store, app.config)
    finally:
        store.close()


@pytest.mark.parametrize("url", MALFORMED)
def test_a_malformed_url_is_a_400_bad_rule_on_the_api_and_the_page(client, url):
    response = client.post("/api/v1/alerts", json={"url": url})
    assert response.status_code == 400, response.get_data(as_text=True)
    assert response.get_json()["error"]["code"] == "bad_rule"
    assert "not a valid URL" in response.get_json()["error"]["message"]
    page = client.post("/settings/alerts", data={"url": url, "on": "new"})
    assert page.status_code == 200 and "not a valid URL" in page.get_data(as_text=True)
    assert client.get("/api/v1/alerts").get_json()["rules"] == []


@pytest.mark.parametrize("url", MALFORMED)
def test_a_malformed_url_is_one_line_and_exit_2_on_the_cli(tmp_path, url):
    result = CliRunner().invoke(main, ["alerts", "add", url, "--db", str(tmp_path / "a.db")])
    assert result.exit_code == 2 and "not a valid URL" in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output


@pytest.mark.parametrize(
    "url",
    [
        "http://[fd00:ec2::254]/",
        "http://100.100.100.200/latest/meta-data",
        "http://168.63.129.16/machine",
        "http://[::ffff:100.100.100.200]/",
        "http://[fd20:ce::254]/",
    ],
)
def test_cloud_metadata_addresses_are_refused_unless_allowed(url):
    with pytest.raises(UrlRefused, match="cloud metadata"):
        check_url(url, allow_list(""))
    host = url.split("//")[1].split("/")[0].strip("[]")
    assert check_url(url, allow_list(host))


def test_private_ranges_stay_allowed_for_in_house_receivers():
    for url in (
        "http://10.1.2.3/hook",
        "http://192.168.1.20:8080/hook",
        "http://172.16.0.9/hook",
        "http://[fd12:3456::1]/hook",
    ):
        assert check_url(url, allow_list(""))


def test_a_metadata_url_is_refused_on_the_api(client):
    response = client.post("/api/v1/alerts", json={"url": "http://168.63.129.16/"})
    assert response.status_code == 400 and response.get_json()["error"]["code"] == "bad_rule"


def test_every_kind_a_problem_can_have_is_a_rule_kind(client, receiver, tmp_path):
    assert (
        parse_rule({"url": "https://x.example", "kind": "schema_violation"})["kind"]
        == "schema_violation"
    )
    with pytest.raises(RuleError, match="kind"):
        parse_rule({"url": "https://x.example", "kind": "schema_violations"})
    response = client.post("/api/v1/alerts", json={"url": receiver.url, "kind": "schema_violation"})
    assert response.status_code == 201 and response.get_json()["kind"] == "schema_violation"
    added = CliRunner().invoke(
        main,
        [
            "alerts",
            "add",
            receiver.url,
            "--kind",
            "schema_violation",
            "--db",
            str(tmp_path / "k.db"),
        ],
        env=LOCAL,
    )
    assert added.exit_code == 0, added.output


def test_a_slack_url_is_shown_by_its_start_in_the_api_the_cli_and_the_page(
    client, app, receiver, tmp_path
):
    hook = receiver.url.replace("/hook", "/slack-secret-path")
    made = client.post("/api/v1/alerts", json={"url": hook, "format": "slack"})
    start = hook.split("/slack-secret-path")[0] + "/[REDACTED]"
    # its maker sees it masked too: they typed it (its signing secret, made here, is shown once)
    assert made.status_code == 201 and made.get_json()["url"] == start
    assert client.get("/api/v1/alerts").get_json()["rules"][0]["url"] == start
    assert "slack-secret-path" not in client.get("/settings/alerts").get_data(as_text=True)
    assert "slack-secret-path" not in client.post(
        f"/api/v1/alerts/{made.get_json()['id']}/resume"
    ).get_data(as_text=True)
    db = str(tmp_path / "s.db")
    CliRunner().invoke(main, ["alerts", "add", hook, "--format", "slack", "--db", db], env=LOCAL)
    listed = CliRunner().invoke(main, ["alerts", "list", "--db", db]).output
    assert start in listed and "slack-secret-path" not in listed


def test_a_test_message_has_its_own_type(client, receiver):
    made = client.post("/api/v1/alerts", json={"url": receiver.url, "on": ["new"]}).get_json()
    receiver.secret = made["secret"]
    assert client.post(f"/api/v1/alerts/{made['id']}/test").get_json()["ok"]
    [(_, body)] = receiver.accepted
    assert (
        body["type"] == "tracediff.test"
        and body["data"]["id"] == "TD-TEST"
        and set(body) == {"type", "timestamp", "data"}
    )


def test_a_slack_test_message_says_it_is_a_test(client, receiver):
    made = client.post("/api/v1/alerts", json={"url": receiver.url, "format": "slack"}).get_json()
    assert client.post(f"/api/v1/alerts/{made['id']}/test").get_json()["ok"]
    assert (
        receiver.accepted[0][1]["text"]
        == "tracediff: a test message for this rule; nothing is wrong"
    )


def test_rejected_records_are_counted_per_source(client, app, receiver):
    client.post(
        "/api/v1/alerts",
        json={
            "url": receiver.url,
            "format": "slack",
            "on": ["rejected_events"],
            "min_interval_s": 0,
        },
    )
    client.post("/api/v1/ingest", data=BAD, headers={"User-Agent": "vector/0.40"})
    client.post("/api/v1/ingest", data=BAD + BAD, headers={"User-Agent": "fluent-bit/3.1"})
    assert deliver(app) == 2
    first, second = sorted((body["text"] for _, body in receiver.accepted), key=len)
    assert first.startswith(
        "tracediff rejected 1 record in the last 10 min: 1 from vector/0.40; latest: "
    )
    assert second.startswith(
        "tracediff rejected 3 records in the last 10 min: 2 from fluent-bit/3.1, 1 from "
        "vector/0.40; latest: "
    )


def test_a_rejected_webhook_carries_the_counts_per_source(client, app, receiver):
    made = client.post(
        "/api/v1/alerts", json={"url": receiver.url, "on": ["rejected_events"], "min_interval_s": 0}
    ).get_json()
    receiver.secret = made["secret"]
    client.post("/api/v1/ingest", data=BAD, headers={"User-Agent": "vector/0.40"})
    client.post("/api/v1/ingest", data=BAD, headers={"User-Agent": "fluent-bit"})
    deliver(app)
    last = max((body for _, body in receiver.accepted), key=lambda b: b["data"]["count"])
    assert last["data"]["count"] == 2 and last["data"]["source"] == "fluent-bit"
    assert last["data"]["sources"] == [
        {"source": "fluent-bit", "count": 1},
        {"source": "vector/0.40", "count": 1},
    ]


def test_every_filter_of_a_rule_is_listed_by_the_cli_the_api_and_the_page(client, app, receiver):
    db = app.config["DATABASE"]
    added = CliRunner().invoke(
        main,
        [
            "alerts",
            "add",
            receiver.url,
            "--tool",
            "findOrders",
            "--min-severity",
            "warning",
            "--kind",
            "type_changed",
            "--source",
            "fluent-bit",
            "--min-interval",
            "60",
            "--db",
            db,
        ],
        env=LOCAL,
    )
    assert added.exit_code == 0, added.output
    # no filter at all
    CliRunner().invoke(main, ["alerts", "add", receiver.url, "--db", db], env=LOCAL)
    said = (
        "tool=findOrders kind=type_changed min_severity=warning source=fluent-bit min_interval_s=60"
    )
    assert added.output.startswith(f"rule 1: webhook to {receiver.url} on new, regressed; {said}\n")
    listed = CliRunner().invoke(main, ["alerts", "list", "--db", db]).output.splitlines()
    assert listed == [
        f"1\twebhook\t{receiver.url}\tnew,regressed\t{said}\tactive",
        f"2\twebhook\t{receiver.url}\tnew,regressed\t"
        "tool=any kind=any min_severity=any source=any min_interval_s=600\tactive",
    ]
    [rule, _] = client.get("/api/v1/alerts").get_json()["rules"]
    assert {k: rule[k] for k in ("tool", "kind", "min_severity", "source", "min_interval_s")} == {
        "tool": "findOrders",
        "kind": "type_changed",
        "min_severity": "warning",
        "source": "fluent-bit",
        "min_interval_s": 60,
    }
    page = client.get("/settings/alerts").get_data(as_text=True)
    assert (
        "on new, regressed · tool findOrders · kind type_changed · warning or worse · source "
        "fluent-bit · "
        "at most one message per 60 s per problem"
    ) in page


@pytest.mark.parametrize("rule_id", ["\u0661", "\uff11", "\U0001d7cf"])
def test_a_rule_id_of_digits_that_are_not_ascii_names_no_rule(client, rule_id):
    """Arabic-Indic, fullwidth and mathematical ones are digits to Unicode and 1 to int(): no rule
    is theirs."""
    made = client.post(
        "/api/v1/alerts",
        json={"url": "https://93.184.216.34/td", "on": ["escalating"], "tool": "x"},
    )
    assert made.status_code == 201, made.get_data(as_text=True)
    assert client.get(f"/api/v1/alerts/{rule_id}/deliveries").status_code == 404
    assert client.delete(f"/api/v1/alerts/{rule_id}").status_code == 404
    assert [rule["id"] for rule in client.get("/api/v1/alerts").get_json()["rules"]] == [
        made.get_json()["id"]
    ]


def test_listing_no_rules_says_so_and_how_to_add_one(tmp_path):
    db = str(tmp_path / "no-rules.db")
    Store.open(db)
    listed = CliRunner().invoke(main, ["alerts", "list", "--db", db])
    # the hint goes to stderr: stdout stays one rule a line for scripts
    assert listed.exit_code == 0 and listed.stdout == ""
    assert "no alert rules; add one with tracediff alerts add URL" in listed.stderr


def test_a_rule_filter_s_control_characters_are_listed_as_escapes(tmp_path):
    db, tool = str(tmp_path / "a.db"), "find\x1b]0;owned\x07Orders"
    added = CliRunner().invoke(
        main, ["alerts", "add", "http://127.0.0.1:9/x", "--tool", tool, "--db", db], env=LOCAL
    )
    assert added.exit_code == 0, added.output
    listed = CliRunner().invoke(main, ["alerts", "list", "--db", db]).stdout
    assert "tool=find\\u001b]0;owned\\u0007Orders" in listed and "\x07" not in listed
