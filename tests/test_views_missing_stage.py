"""A call missing a stage is never called clean.

Its badge and summary say what never arrived, the list, its counts and its JSON never count it
clean, the clean-call reads of problems skip it, and the page opens on the worst call."""

from datetime import UTC, datetime

from problem_helpers import CONTRACT, at, call, send, trace

from webapp import pipeline
from webapp.store.filters import TraceQuery
from webapp.store.problem_filters import ProblemFilters

PAST = datetime(2026, 11, 20, 9, tzinfo=UTC)


def arguments_only(trace_id: str, ts: str, call_id: str = "call_01") -> list:
    """A call whose request and response never arrived: only the model's arguments."""
    return call(trace_id, ts, broken=False, call_id=call_id)[:1]


def test_a_call_without_request_and_response_says_so_and_never_that_the_snapshots_agree(
    client, store
):
    send(client, *arguments_only(trace(1), at(0, PAST)))
    pipeline.catch_up(store)
    html = client.get(f"/traces/{trace(1)}").get_data(as_text=True)
    assert "request and response not received: nothing to compare" in html
    assert "agree" not in html and 'badge sev-incomplete">incomplete' in html
    [shown] = client.get(f"/traces/{trace(1)}.json").get_json()["calls"]
    assert (shown["complete"], shown["missing"], shown["worst"]) == (
        False,
        ["request", "response"],
        None,
    )
    [api] = client.get(f"/api/v1/traces/{trace(1)}").get_json()["calls"]
    assert (api["complete"], api["missing"]) == (False, ["request", "response"])


def test_a_whole_clean_call_still_says_the_snapshots_agree(client, store):
    send(client, *call(trace(1), at(0, PAST), broken=False))
    pipeline.catch_up(store)
    html = client.get(f"/traces/{trace(1)}").get_data(as_text=True)
    assert "No findings: the three snapshots agree" in html and "not received" not in html
    [shown] = client.get(f"/traces/{trace(1)}.json").get_json()["calls"]
    assert (shown["complete"], shown["missing"]) == (True, [])


def test_the_list_its_clean_filter_and_its_count_leave_out_a_trace_missing_a_stage(client, store):
    send(client, *call(trace(1), at(0, PAST), broken=False), *arguments_only(trace(2), at(1, PAST)))
    # the arguments never arrived
    send(client, *call(trace(3), at(2, PAST), broken=False)[1:])
    pipeline.catch_up(store)
    listed = {t["trace_id"]: t for t in client.get("/index.json?part=counts").get_json()["traces"]}
    assert {tid: (t["worst"], t["complete"], t["missing"]) for tid, t in listed.items()} == {
        trace(1): ("clean", True, []),
        trace(2): ("incomplete", False, ["request", "response"]),
        trace(3): ("incomplete", False, ["arguments"]),
    }
    body = client.get("/index.json?severity=clean&part=counts").get_json()
    assert [t["trace_id"] for t in body["traces"]] == [trace(1)]
    assert body["counts"]["severity"]["clean"] == 1
    assert [
        t["trace_id"] for t in client.get("/api/v1/traces?severity=clean").get_json()["traces"]
    ] == [trace(1)]
    rows = client.get("/").get_data(as_text=True)
    assert (
        rows.count('badge sev-incomplete">◌ incomplete') == 2 and rows.count("✓ clean</span>") == 1
    )
    assert store.find_traces(TraceQuery(severity="clean"))[0][0]["trace_id"] == trace(1)


def test_a_call_missing_a_stage_is_never_the_nearest_or_the_last_clean_call(client, store):
    store.put_tool("findOrders", CONTRACT)
    send(client, *call(trace(1), at(0, PAST), broken=False), *arguments_only(trace(2), at(5, PAST)))
    # the break
    send(client, *call(trace(3), at(10, PAST)))
    pipeline.catch_up(store)
    assert [c["trace_id"] for c in store.clean_calls("findOrders")] == [trace(1)]
    [problem] = store.find_problems(ProblemFilters())[0]
    assert client.get(f"/api/v1/problems/{problem['id']}").get_json()["last_clean_before"][
        "trace_id"
    ] == trace(1)


def test_calls_missing_a_stage_never_count_toward_after_n_clean_calls(client, store):
    store.put_tool("findOrders", CONTRACT)
    send(client, *call(trace(1), at(-60)))
    pipeline.catch_up(store)
    pid = client.get("/api/v1/problems").get_json()["problems"][0]["id"]
    client.patch(
        f"/api/v1/problems/{pid}", json={"state": "resolved", "resolve": {"after_clean_calls": 2}}
    )
    # the arguments only: nothing was compared, so nothing says the mapping is fixed
    for n in (2, 3):
        send(client, *arguments_only(trace(n), at(n / 2)))
    pipeline.catch_up(store)
    assert client.get(f"/api/v1/problems/{pid}").get_json()["resolution"]["clean"] == 0
    send(client, *call(trace(4), at(2.5), broken=False))
    pipeline.catch_up(store)
    assert client.get(f"/api/v1/problems/{pid}").get_json()["resolution"]["clean"] == 1


def test_the_trace_page_opens_on_the_worst_call_not_on_the_first(client, store):
    store.put_tool("findOrders", CONTRACT)
    first = call(trace(1), at(0, PAST), broken=False, call_id="call_01")
    # the half of a split call: no request
    split = arguments_only(trace(1), at(1, PAST), call_id="call_02")
    broken = call(trace(1), at(2, PAST), call_id="call_03")
    send(client, *first, *split, *broken)
    pipeline.catch_up(store)
    html = client.get(f"/traces/{trace(1)}").get_data(as_text=True)
    assert '<section class="call" data-call="call_03">' in html
    send(
        client,
        *call(trace(2), at(0, PAST), broken=False),
        *arguments_only(trace(2), at(1, PAST), "call_02"),
    )
    pipeline.catch_up(store)
    html = client.get(f"/traces/{trace(2)}").get_data(as_text=True)
    # never on the clean-looking call
    assert '<section class="call" data-call="call_02">' in html
    assert html.count('badge sev-incomplete">incomplete') >= 1 and 'badge sev-clean">clean' in html
