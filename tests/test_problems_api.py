"""GET/PATCH /api/v1/problems.

The names scripts and tickets rely on, and the one error shape."""

from datetime import UTC, datetime

import pytest
from problem_helpers import CONTRACT, at, call, send, trace

from webapp import create_app, pipeline
from webapp.store import Store

PAST = datetime(2026, 11, 20, 9, tzinfo=UTC)
FIELDS = {
    "id",
    "permalink",
    "tool",
    "kind",
    "severity",
    "state",
    "left",
    "right",
    "transform",
    "first_seen",
    "last_seen",
    "occurrences",
    "calls",
    "traces",
    "releases",
    "links",
}


@pytest.fixture
def loaded(client, store):
    """Two problems: limit sent as a string (3 calls) and status upper-cased (1 call, later)."""
    store.put_tool("findOrders", CONTRACT)
    send(
        client,
        *call(trace(1), at(0, PAST), release="1.4.0", source="app_intent"),
        *call(trace(2), at(30, PAST), release="1.4.0", source="mcp"),
        *call(trace(3), at(60, PAST), release="1.4.2", source="mcp"),
        *call(trace(4), at(90, PAST), broken=False),
        {
            "trace_id": trace(5),
            "call_id": "c",
            "tool": "findOrders",
            "snapshot": "arguments",
            "ts": at(120, PAST),
            "payload": {"status": "paid", "limit": 5},
        },
        {
            "trace_id": trace(5),
            "call_id": "c",
            "tool": "findOrders",
            "snapshot": "request",
            "ts": at(120, PAST),
            "payload": {"status": "PAID", "limit": 5},
        },
    )
    pipeline.catch_up(store)
    return client


def test_the_list_has_the_documented_fields_newest_last_seen_first(loaded):
    body = loaded.get("/api/v1/problems").get_json()
    assert body["next_cursor"] is None
    status, limit = body["problems"]
    assert FIELDS <= set(limit)
    assert (status["kind"], limit["kind"]) == ("enum_changed", "type_changed")
    assert limit["left"] == {"snapshot": "arguments", "path": "/limit"}
    assert limit["right"] == {"snapshot": "request", "path": "/limit"}
    assert limit["transform"] == "integer>string" and limit["releases"] == ["1.4.0", "1.4.2"]
    assert (limit["occurrences"], limit["calls"], limit["traces"]) == (3, 3, 3)
    assert limit["permalink"].endswith(f"/problems/{limit['id']}") and limit["id"].startswith("TD-")
    assert limit["state"] == "ongoing" and limit["links"] == []


@pytest.mark.parametrize(
    "args, kinds",
    [
        ("kind=enum_changed", ["enum_changed"]),
        ("release=1.4.2", ["type_changed"]),
        ("source=app_intent", ["type_changed"]),
        ("severity=warning", ["enum_changed"]),
        # the string also breaks the request schema
        ("severity=error", ["type_changed"]),
        ("state=new", []),
        ("state=ongoing", ["enum_changed", "type_changed"]),
        ("until=2026-11-20T10:30:00Z", ["type_changed"]),
        ("since=2h", []),
        ("q=limit", ["type_changed"]),
        ("tool=other", []),
    ],
)
def test_the_list_filters(loaded, args, kinds):
    body = loaded.get(f"/api/v1/problems?{args}").get_json()
    assert [p["kind"] for p in body["problems"]] == kinds


def test_the_list_pages_with_a_cursor(loaded):
    first = loaded.get("/api/v1/problems?limit=1").get_json()
    second = loaded.get(f"/api/v1/problems?limit=1&cursor={first['next_cursor']}").get_json()
    assert [p["kind"] for p in first["problems"] + second["problems"]] == [
        "enum_changed",
        "type_changed",
    ]
    assert second["next_cursor"] is None


@pytest.mark.parametrize(
    "args, code",
    [
        ("state=open", "bad_parameter"),
        ("kind=oops", "bad_parameter"),
        ("since=yesterday", "bad_parameter"),
        ("severity=info", "bad_parameter"),
        ("limit=0", "bad_parameter"),
        ("limit=501", "bad_parameter"),
        ("limit=ten", "bad_parameter"),
        ("cursor=bm9wZQ", "bad_cursor"),
        # shaped like dates, but no calendar has them
        ("since=2026-13-45", "bad_parameter"),
        ("until=2026-02-30", "bad_parameter"),
        ("since=2026-11-30T25:00:00Z", "bad_parameter"),
        ("until=2026-11-30T09:00:00%2B25:00", "bad_parameter"),
        ("since=0001-01-01T00:00:00%2B01:00", "bad_parameter"),
    ],
)
def test_bad_list_parameters_are_400_in_the_error_shape(loaded, args, code):
    response = loaded.get(f"/api/v1/problems?{args}")
    assert response.status_code == 400
    assert set(response.get_json()) == {"error"} and set(response.get_json()["error"]) == {
        "code",
        "message",
        "retryable",
    }
    assert (
        response.get_json()["error"]["code"] == code
        and response.get_json()["error"]["retryable"] is False
    )


@pytest.mark.parametrize("args", ["since=2026-13-45", "until=2026-02-30", "since=yesterday"])
def test_bad_times_of_one_problem_are_400_in_the_error_shape(loaded, args):
    response = loaded.get(f"/api/v1/problems/{problem_id(loaded)}?{args}")
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "bad_parameter"
    assert response.get_json()["error"]["message"].startswith(
        args.split("=")[0] + " must be a date"
    )


@pytest.mark.parametrize(
    "args, kinds",
    [
        # 10:30 UTC: before the enum problem's 11:00
        ("until=2026-11-20T11:30:00%2B01:00", ["type_changed"]),
        ("since=2026-11-20T10:30:00%2B00:00", ["enum_changed"]),
        # as a hand-typed time reads
        ("since=2026-11-20 10:30", ["enum_changed"]),
        ("since=2026-11-20t10:30:00.5z", ["enum_changed"]),
    ],
)
def test_times_with_an_offset_or_a_space_compare_as_utc(loaded, args, kinds):
    assert [
        p["kind"] for p in loaded.get(f"/api/v1/problems?{args}").get_json()["problems"]
    ] == kinds


def test_a_time_ago_before_the_calendar_begins_means_since_the_beginning(loaded):
    body = loaded.get("/api/v1/problems?since=999999w").get_json()
    assert [p["kind"] for p in body["problems"]] == ["enum_changed", "type_changed"]
    strip = loaded.get(f"/api/v1/problems/{problem_id(loaded)}?since=999999w").get_json()["hourly"]
    assert len(strip["bars"]) <= 48 and sum(bar["occurrences"] for bar in strip["bars"]) == 3


def test_the_list_page_ignores_bad_filter_values(loaded):
    response = loaded.get("/problems?since=2026-13-45&state=open&limit=0")
    assert response.status_code == 200 and "type_changed" in response.get_data(as_text=True)


def problem_id(client, kind="type_changed") -> str:
    return next(
        p["id"] for p in client.get("/api/v1/problems").get_json()["problems"] if p["kind"] == kind
    )


def test_one_problem_adds_hourly_counts_examples_value_pairs_exposure_and_history(loaded):
    body = loaded.get(f"/api/v1/problems/{problem_id(loaded)}").get_json()
    assert body["hourly"]["hours"] == {"2026-11-20T09": 2, "2026-11-20T10": 1}
    assert sum(bar["occurrences"] for bar in body["hourly"]["bars"]) == 3
    assert body["value_pairs"] == [{"left": 5, "right": "5", "count": 3, "missing": []}]
    assert body["exposure"]["calls"] == 3 and body["exposure"]["calls_with_path"] == 5
    assert body["examples"]["first"]["trace_id"] == trace(1) and body["examples"]["latest"][
        "trace_id"
    ] == trace(3)
    assert body["state_history"][-1]["detail"] == "first seen"


def test_an_unknown_problem_is_404(loaded):
    for url in (
        "/api/v1/problems/TD-999",
        "/api/v1/problems/nope",
        "/api/v1/problems/TD-999/traces",
    ):
        response = loaded.get(url)
        assert (
            response.status_code == 404
            and response.get_json()["error"]["code"] == "problem_not_found"
        )


def test_patch_resolves_archives_reopens_and_sets_links(loaded):
    pid = problem_id(loaded)
    resolved = loaded.patch(
        f"/api/v1/problems/{pid}", json={"state": "resolved", "resolve": "next_release"}
    )
    assert resolved.status_code == 200 and resolved.get_json()["state"] == "resolved"
    assert resolved.get_json()["resolution"]["releases"] == ["1.4.0", "1.4.2"]
    linked = loaded.patch(
        f"/api/v1/problems/{pid}", json={"links": ["https://tickets.example.com/T-1"]}
    )
    assert linked.get_json()["links"] == ["https://tickets.example.com/T-1"]
    archived = loaded.patch(
        f"/api/v1/problems/{pid}", json={"state": "archived", "until": "escalating"}
    )
    assert archived.get_json()["state"] == "archived"
    reopened = loaded.patch(f"/api/v1/problems/{pid}", json={"state": "open"})
    assert reopened.get_json()["state"] == "ongoing"
    states = [h["state"] for h in reopened.get_json()["state_history"]]
    assert states == ["open", "archived", "resolved", "open"]


@pytest.mark.parametrize(
    "body, status",
    [
        ({"state": "resolved", "resolve": "later"}, 400),
        ({"state": "resolved", "resolve": {"after_clean_calls": 0}}, 400),
        ({"state": "archived", "until": "tomorrow"}, 400),
        ({"links": ["javascript:alert(1)"]}, 400),
        ({"colour": "red"}, 400),
        ({}, 400),
        ([1], 400),
    ],
)
def test_patch_refuses_a_bad_change_with_what_is_wrong(loaded, body, status):
    response = loaded.patch(f"/api/v1/problems/{problem_id(loaded)}", json=body)
    assert response.status_code == status and response.get_json()["error"]["code"] == "bad_change"


def test_patch_with_a_body_that_is_not_json_is_422(loaded):
    response = loaded.patch(f"/api/v1/problems/{problem_id(loaded)}", data=b"{nope")
    assert response.status_code == 422 and response.get_json()["error"]["code"] == "not_json"


def test_a_merged_problem_redirects_to_the_one_it_was_merged_into(loaded):
    old, new = problem_id(loaded, "enum_changed"), problem_id(loaded)
    merged = loaded.patch(f"/api/v1/problems/{old}", json={"merged_into": new})
    assert (
        merged.status_code == 200
        and merged.get_json()["id"] == new
        and merged.get_json()["calls"] == 4
    )
    response = loaded.get(f"/api/v1/problems/{old}")
    assert response.status_code == 301 and response.headers["Location"].endswith(
        f"/api/v1/problems/{new}"
    )
    assert loaded.get(f"/problems/{old}").headers["Location"].endswith(f"/problems/{new}")
    assert loaded.patch(f"/api/v1/problems/{old}", json={"state": "open"}).status_code == 409
    assert loaded.patch(f"/api/v1/problems/{new}", json={"merged_into": new}).status_code == 400


def test_the_traces_of_a_problem_page_newest_first(loaded):
    pid = problem_id(loaded)
    first = loaded.get(f"/api/v1/problems/{pid}/traces?limit=2").get_json()
    rest = loaded.get(
        f"/api/v1/problems/{pid}/traces?limit=2&cursor={first['next_cursor']}"
    ).get_json()
    assert [t["trace_id"] for t in first["traces"] + rest["traces"]] == [
        trace(3),
        trace(2),
        trace(1),
    ]
    assert first["traces"][0]["release"] == "1.4.2" and rest["next_cursor"] is None


def test_each_call_of_a_trace_names_the_problems_of_its_findings(loaded):
    pid = problem_id(loaded)
    body = loaded.get(f"/api/v1/traces/{trace(1)}").get_json()
    (one,) = body["calls"]
    assert one["problems"] == [pid]
    assert [f["problem"] for f in one["findings"] if f["kind"] == "type_changed"] == [pid]
    clean = loaded.get(f"/api/v1/traces/{trace(4)}").get_json()["calls"][0]
    assert clean["problems"] == []


def test_the_trace_list_filters_by_problem(loaded):
    pid = problem_id(loaded, "enum_changed")
    body = loaded.get(f"/api/v1/traces?problem={pid}").get_json()
    assert [t["trace_id"] for t in body["traces"]] == [trace(5)]
    assert loaded.get("/api/v1/traces?problem=banana").status_code == 400


def test_relative_times_filter_the_trace_list(loaded):
    assert loaded.get("/api/v1/traces?since=2h").get_json()["traces"] == []
    assert len(loaded.get("/api/v1/traces?since=3650d").get_json()["traces"]) == 5


def test_the_release_field_is_kept_per_call_and_rejected_when_not_a_string(client, loaded):
    assert client.get(f"/api/v1/traces/{trace(3)}").get_json()["calls"][0]["release"] == "1.4.2"
    response = client.post(
        "/api/v1/ingest",
        json={"trace_id": "t1", "snapshot": "arguments", "payload": {}, "release": 140},
    )
    assert response.get_json()["rejected"][0]["code"] == "bad_type"


def test_changing_a_problem_needs_an_ingest_token_when_tokens_are_set(tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "t.db"),
            "ANALYZER": "off",
            "INGEST_TOKENS": "ingest-secret",
            "READ_TOKENS": "read-secret",
        }
    )
    client = app.test_client()
    store = Store(tmp_path / "t.db")
    client.post(
        "/api/v1/ingest",
        data=b"".join(__import__("orjson").dumps(e) + b"\n" for e in call(trace(1), at())),
        headers={"Authorization": "Bearer ingest-secret"},
    )
    pipeline.catch_up(store)
    pid = client.get(
        "/api/v1/problems", headers={"Authorization": "Bearer read-secret"}
    ).get_json()["problems"][0]["id"]
    read = client.patch(
        f"/api/v1/problems/{pid}",
        json={"state": "resolved"},
        headers={"Authorization": "Bearer read-secret"},
    )
    assert read.status_code == 403 and read.get_json()["error"]["code"] == "read_only_token"
    ok = client.patch(
        f"/api/v1/problems/{pid}",
        json={"state": "resolved"},
        headers={"Authorization": "Bearer ingest-secret"},
    )
    assert ok.status_code == 200 and ok.get_json()["state"] == "resolved"
    store.close()


def test_merging_back_into_a_merged_problem_is_refused_and_loses_nothing(loaded):
    old, new = problem_id(loaded, "enum_changed"), problem_id(loaded)
    assert loaded.patch(f"/api/v1/problems/{old}", json={"merged_into": new}).status_code == 200
    back = loaded.patch(f"/api/v1/problems/{new}", json={"merged_into": old})
    assert back.status_code == 400 and back.get_json()["error"]["code"] == "bad_change"
    assert [p["id"] for p in loaded.get("/api/v1/problems").get_json()["problems"]] == [new]
    assert loaded.get(f"/api/v1/problems/{new}").get_json()["calls"] == 4


@pytest.mark.parametrize(
    "url",
    [
        "/problems?until=999999w",
        "/problems?since=999999w",
        "/problems.json?until=999999w",
        "/problems?until=9999-12-31T23:59:59Z",
        "/api/v1/problems/TD-1?until=9999-12-31",
    ],
)
def test_times_at_the_ends_of_the_calendar_still_draw_a_page(loaded, url):
    assert loaded.get(url).status_code == 200


def test_problems_filter_as_linked_to_a_ticket_or_not(loaded):
    status, limit = (p["id"] for p in loaded.get("/api/v1/problems").get_json()["problems"])
    loaded.patch(f"/api/v1/problems/{limit}", json={"links": ["https://tickets.example.com/T-1"]})
    assert [
        p["id"] for p in loaded.get("/api/v1/problems?ticket=linked").get_json()["problems"]
    ] == [limit]
    assert [
        p["id"] for p in loaded.get("/api/v1/problems?ticket=unlinked").get_json()["problems"]
    ] == [status]
    # unlinked again
    loaded.patch(f"/api/v1/problems/{limit}", json={"links": []})
    assert loaded.get("/api/v1/problems?ticket=linked").get_json()["problems"] == []
    refused = loaded.get("/api/v1/problems?ticket=yes")
    assert refused.status_code == 400 and refused.get_json()["error"]["code"] == "bad_parameter"
    assert "linked, unlinked" in refused.get_json()["error"]["message"]


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/problems/%C2%B9",
        "/problems/TD-%C2%B9",
        "/api/v1/problems?limit=%C2%B2",
        "/api/v1/quarantine?cursor=%C2%B9",
        "/api/v1/quarantine?limit=%C2%B9",
        "/api/v1/traces?problem=TD-%C2%B9",
    ],
)
def test_digits_that_int_cannot_read_are_a_clean_4xx_not_a_500(client, url):
    # "¹".isdigit() is True, int("¹") raises
    response = client.get(url)
    assert response.status_code in (400, 404)
    if url.startswith("/api/"):
        assert response.get_json()["error"]["retryable"] is False
