"""A problem's history says who changed it and when things happened.

"after N clean calls" shows its count."""

import getpass
from datetime import UTC, datetime

import pytest
from click.testing import CliRunner
from problem_helpers import CONTRACT, at, call, send, trace
from test_security import basic, bearer

from webapp import create_app, pipeline
from webapp.cli import main

PAST = datetime(2026, 11, 20, 9, tzinfo=UTC)
ADMIN = "adm-8d2f6a01c4e97b35"


@pytest.fixture
def guarded(db_path, store):
    """An app with a named admin token and one problem (limit sent as a string) seen twice."""
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(db_path),
            "ANALYZER": "off",
            "ADMIN_TOKENS": f"ops:{ADMIN}",
        }
    )
    client = app.test_client()
    store.put_tool("findOrders", CONTRACT)
    send(client, *call(trace(1), at(0, PAST)), *call(trace(2), at(30, PAST)))
    pipeline.catch_up(store)
    client.pid = client.get("/api/v1/problems").get_json()["problems"][0]["id"]
    return client


def test_an_api_change_is_by_the_tokens_name_never_its_secret(guarded):
    body = guarded.patch(
        f"/api/v1/problems/{guarded.pid}",
        json={"state": "archived", "until": None},
        headers={**bearer(ADMIN)},
    ).get_json()
    assert body["state_history"][0]["by"] == "ops (admin token)"
    assert ADMIN not in str(body)


def test_a_page_change_is_by_the_token_given_as_the_basic_password_not_the_typed_user_name(guarded):
    response = guarded.post(
        f"/problems/{guarded.pid}/state",
        data={"state": "archived", "until": ""},
        headers=basic(ADMIN, user="the-ceo"),
    )
    assert response.status_code == 303
    history = guarded.get(f"/api/v1/problems/{guarded.pid}", headers=bearer(ADMIN)).get_json()[
        "state_history"
    ]
    assert history[0]["by"] == "ops (admin token)"


def test_without_tokens_a_change_is_by_the_api_or_the_page(loaded_open):
    client, pid = loaded_open
    client.patch(
        f"/api/v1/problems/{pid}",
        json={"state": "archived", "until": None},
        headers=basic("whatever", user="mallory"),
    )
    client.post(
        f"/problems/{pid}/state", data={"state": "open"}, headers=basic("x", user="mallory")
    )
    history = client.get(f"/api/v1/problems/{pid}").get_json()["state_history"]
    assert [h["by"] for h in history[:2]] == ["web", "api"]


def test_the_cli_names_itself_and_the_os_user(loaded_open, db_path):
    _, pid = loaded_open
    assert (
        CliRunner().invoke(main, ["problems", "archive", pid, "--db", str(db_path)]).exit_code == 0
    )
    shown = (
        CliRunner().invoke(main, ["problems", "show", pid, "--json", "--db", str(db_path)]).output
    )
    assert f'"by": "cli (user {getpass.getuser()})"' in shown


@pytest.fixture
def loaded_open(client, store):
    store.put_tool("findOrders", CONTRACT)
    send(client, *call(trace(1), at(0, PAST)))
    pipeline.catch_up(store)
    return client, client.get("/api/v1/problems").get_json()["problems"][0]["id"]


def test_the_history_is_stamped_with_the_calls_own_times(client, store):
    """First seen and a regression are when the calls happened, not when they were analysed."""
    store.put_tool("findOrders", CONTRACT)
    send(client, *call(trace(1), at(0, PAST), release="1.4.0"))
    pipeline.catch_up(store)
    pid = client.get("/api/v1/problems").get_json()["problems"][0]["id"]
    client.patch(f"/api/v1/problems/{pid}", json={"state": "resolved", "resolve": "now"})
    # two minutes from now: after the resolution
    send(client, *call(trace(2), at(2), release="1.4.2"))
    pipeline.catch_up(store)
    history = client.get(f"/api/v1/problems/{pid}").get_json()["state_history"]
    assert [h["state"] for h in history] == ["regressed", "resolved", "open"]
    assert history[2]["at"][:19] == at(0, PAST)[:19]
    assert history[0]["at"][:16] == at(2)[:16]
    times = [h["at"] for h in reversed(history)]
    assert times == sorted(times)


def test_after_n_clean_calls_counts_each_clean_call_and_resolves_at_the_nth(client, store, db_path):
    store.put_tool("findOrders", CONTRACT)
    send(client, *call(trace(1), at(-60)))
    pipeline.catch_up(store)
    pid = client.get("/api/v1/problems").get_json()["problems"][0]["id"]
    client.patch(
        f"/api/v1/problems/{pid}", json={"state": "resolved", "resolve": {"after_clean_calls": 3}}
    )
    # minutes from now, within the clock skew an event may have
    for n in (2, 3):
        send(client, *call(trace(n), at(n / 2), broken=False))
    pipeline.catch_up(store)
    body = client.get(f"/api/v1/problems/{pid}").get_json()
    assert (
        body["state"] != "resolved"
        and body["resolution"]["clean"] == 2
        and body["resolution"]["n"] == 3
    )
    assert "2 of 3 clean calls" in client.get(f"/problems/{pid}").get_data(as_text=True)
    shown = CliRunner().invoke(main, ["problems", "show", pid, "--db", str(db_path)]).output
    assert "2 of 3 clean calls" in shown
    # a break starts the count again
    send(client, *call(trace(4), at(2)))
    pipeline.catch_up(store)
    assert client.get(f"/api/v1/problems/{pid}").get_json()["resolution"]["clean"] == 0
    for n in (5, 6, 7):
        send(client, *call(trace(n), at(n / 2), broken=False))
    pipeline.catch_up(store)
    body = client.get(f"/api/v1/problems/{pid}").get_json()
    assert body["state"] == "resolved" and body["resolution"]["clean"] == 3
    assert (
        body["state_history"][0]["by"] == "tracediff"
        and "3 clean calls" in body["state_history"][0]["detail"]
    )
    assert "clean calls that exercised the path;" not in client.get(f"/problems/{pid}").get_data(
        as_text=True
    )


def test_after_n_clean_calls_resolves_once_a_regression_waits_for_a_person(client, store, db_path):
    store.put_tool("findOrders", CONTRACT)
    send(client, *call(trace(1), at(-60)))
    pipeline.catch_up(store)
    pid = client.get("/api/v1/problems").get_json()["problems"][0]["id"]
    resolve = {"state": "resolved", "resolve": {"after_clean_calls": 2}}
    client.patch(f"/api/v1/problems/{pid}", json=resolve)
    for n in (2, 3):
        send(client, *call(trace(n), at(n / 4), broken=False))
    pipeline.catch_up(store)
    assert client.get(f"/api/v1/problems/{pid}").get_json()["state"] == "resolved"
    send(client, *call(trace(4), at(1)))
    pipeline.catch_up(store)
    assert client.get(f"/api/v1/problems/{pid}").get_json()["state"] == "regressed"
    # a flapping bug does not close itself again: the condition was met once
    for n in (5, 6, 7):
        send(client, *call(trace(n), at(1 + n / 4), broken=False))
    pipeline.catch_up(store)
    body = client.get(f"/api/v1/problems/{pid}").get_json()
    assert body["state"] == "regressed", body["state_history"]
    assert [h["state"] for h in body["state_history"]] == [
        "regressed",
        "resolved",
        "resolving",
        "open",
    ]
    assert "clean calls that exercised" not in client.get(f"/problems/{pid}").get_data(as_text=True)
    shown = CliRunner().invoke(main, ["problems", "show", pid, "--db", str(db_path)]).output
    assert "clean calls that exercised" not in shown
    # resolved again by a person, it counts anew
    client.patch(f"/api/v1/problems/{pid}", json={**resolve, "resolve": {"after_clean_calls": 1}})
    send(client, *call(trace(8), at(3), broken=False))
    pipeline.catch_up(store)
    assert client.get(f"/api/v1/problems/{pid}").get_json()["state"] == "resolved"


def test_a_resolved_problem_is_not_given_a_clean_call_condition(client, store, db_path):
    store.put_tool("findOrders", CONTRACT)
    send(client, *call(trace(1), at(-60)))
    pipeline.catch_up(store)
    pid = client.get("/api/v1/problems").get_json()["problems"][0]["id"]
    client.patch(f"/api/v1/problems/{pid}", json={"state": "resolved", "resolve": "now"})
    refused = client.patch(
        f"/api/v1/problems/{pid}", json={"state": "resolved", "resolve": {"after_clean_calls": 5}}
    )
    assert (
        refused.status_code == 400 and "reopen it first" in refused.get_json()["error"]["message"]
    )
    cli = CliRunner().invoke(
        main, ["problems", "resolve", pid, "--after-clean-calls", "5", "--db", str(db_path)]
    )
    assert cli.exit_code == 1 and "reopen it first" in cli.output
    body = client.get(f"/api/v1/problems/{pid}").get_json()
    assert body["state"] == "resolved" and [h["state"] for h in body["state_history"]] == [
        "resolved",
        "open",
    ]


@pytest.mark.parametrize(
    "options",
    [
        ["--next-release", "--contract-change"],
        ["--next-release", "--after-clean-calls", "4"],
        ["--next-release", "--contract-change", "--after-clean-calls", "4"],
    ],
)
def test_the_cli_refuses_conflicting_resolve_options_as_a_usage_error(
    loaded_open, db_path, options
):
    _, pid = loaded_open
    result = CliRunner().invoke(main, ["problems", "resolve", pid, *options, "--db", str(db_path)])
    assert result.exit_code == 2 and "are alternatives: give at most one" in result.output
    assert (
        CliRunner()
        .invoke(main, ["problems", "show", pid, "--json", "--db", str(db_path)])
        .output.count('"state": "resolved"')
        == 0
    )


def test_every_problems_command_has_a_description_in_help():
    listing = CliRunner().invoke(main, ["problems", "--help"]).output
    commands = listing.split("Commands:", 1)[1].strip().splitlines()
    assert {line.split()[0] for line in commands} >= {"list", "show", "resolve", "archive"}
    assert all(len(line.split()) > 2 for line in commands), listing
