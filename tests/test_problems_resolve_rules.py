"""Resolve conditions hold as they read.

"when the contract changes" compares the digest the calls are really analysed under (inferred pairs
too), and "in the next release" is refused where no call carries a release."""

import pytest
from click.testing import CliRunner
from problem_helpers import CONTRACT, at, call, send, trace

from webapp import pipeline
from webapp.cli import main

GET_USER = {
    "arguments_schema": {"type": "object", "properties": {"userId": {"type": "string"}}},
    "error_schema": {
        "type": "object",
        "required": ["error"],
        "properties": {"error": {"type": "object", "required": ["code"]}},
    },
}


def lookup(n: int, ts: str, broken: bool = False, tool: str = "lookupUser") -> list:
    """One call whose arguments map to the request by names inference learns (userId -> user_id, n
    -> count)."""
    common = {"trace_id": trace(1000 + n), "call_id": "c", "tool": tool, "ts": ts}
    return [
        {**common, "snapshot": "arguments", "payload": {"userId": f"u{n}", "n": n}},
        {
            **common,
            "snapshot": "request",
            "payload": {"user_id": f"u{n}", "count": str(n) if broken else n},
        },
    ]


@pytest.mark.parametrize("stored", [None, GET_USER], ids=["inferred_only", "stored_and_inferred"])
def test_resolved_when_the_contract_changes_holds_while_the_analysed_contract_is_the_same(
    client, store, stored
):
    if stored:
        assert client.put("/api/v1/tools/lookupUser", json=stored).status_code in (200, 201)
    send(client, *[event for n in range(25) for event in lookup(n, at(-30 + n / 10))])
    pipeline.catch_up(store)
    assert store.inferred_pairs("lookupUser"), "inference learnt the renamed pairs"
    send(client, *lookup(100, at(-5), broken=True))
    pipeline.catch_up(store)
    problem = client.get("/api/v1/problems?tool=lookupUser").get_json()["problems"][0]
    resolved = client.patch(
        f"/api/v1/problems/{problem['id']}",
        json={"state": "resolved", "resolve": "contract_change"},
    ).get_json()
    # the resolution records the digest of the contract as declared, the one the failing calls were
    # analysed under: inferred pairs are left out (they grow with traffic), so a tool with none
    # declared records none
    digest = resolved["resolution"]["digest"]
    assert (digest is None) == (stored is None)
    assert resolved["contract_digests"] == ([digest] if digest else [])
    send(client, *lookup(101, at(1), broken=True))
    pipeline.catch_up(store)
    again = client.get(f"/api/v1/problems/{problem['id']}").get_json()
    assert again["state"] == "resolved", again["state_history"][0]
    # a real change of the contract: the next failing call regresses it
    assert client.put(
        "/api/v1/tools/lookupUser", json={**(stored or {}), "request_schema": {"type": "object"}}
    ).status_code in (200, 201)
    send(client, *lookup(102, at(2), broken=True))
    pipeline.catch_up(store)
    assert client.get(f"/api/v1/problems/{problem['id']}").get_json()["state"] == "regressed"


@pytest.fixture
def no_release(client, store):
    """A findOrders problem whose calls carry no release; its id."""
    store.put_tool("findOrders", CONTRACT)
    send(client, *call(trace(1), at(-10)), *call(trace(2), at(-9)))
    pipeline.catch_up(store)
    return client.get("/api/v1/problems").get_json()["problems"][0]["id"]


def test_next_release_is_refused_on_the_api_when_no_call_carries_a_release(
    client, store, no_release
):
    refused = client.patch(
        f"/api/v1/problems/{no_release}", json={"state": "resolved", "resolve": "next_release"}
    )
    assert refused.status_code == 400
    error = refused.get_json()["error"]
    assert (
        error["code"] == "bad_change"
        and "no release" in error["message"]
        and error["retryable"] is False
    )
    body = client.get(f"/api/v1/problems/{no_release}").get_json()
    assert body["state"] != "resolved" and [h["state"] for h in body["state_history"]] == ["open"]


def test_next_release_is_refused_by_the_cli_and_the_page_form(client, store, no_release, db_path):
    cli = CliRunner().invoke(
        main, ["problems", "resolve", no_release, "--next-release", "--db", str(db_path)]
    )
    assert cli.exit_code == 1 and "no release" in cli.output
    page = client.get(f"/problems/{no_release}").get_data(as_text=True)
    assert '<option value="next_release" disabled>' in page
    posted = client.post(
        f"/problems/{no_release}/state", data={"state": "resolved", "resolve": "next_release"}
    )
    assert posted.status_code == 400 and "no release" in posted.get_data(as_text=True)
    assert client.get(f"/api/v1/problems/{no_release}").get_json()["state"] != "resolved"


def test_next_release_is_taken_once_a_call_carries_a_release(client, store, no_release):
    send(client, *call(trace(3), at(-8), release="1.4.0"))
    pipeline.catch_up(store)
    assert '<option value="next_release">' in client.get(f"/problems/{no_release}").get_data(
        as_text=True
    )
    taken = client.patch(
        f"/api/v1/problems/{no_release}", json={"state": "resolved", "resolve": "next_release"}
    )
    assert taken.status_code == 200 and taken.get_json()["resolution"]["releases"] == ["1.4.0"]
