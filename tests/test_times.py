"""Stored times have one fixed width, so text order is time order.

Within a second, across fraction widths, on both stores, for the list, its since/until bounds,
problems' first and last seen, and a database upgraded by migration 10."""

import importlib.util
import re

import pytest
from conftest import ROOT
from problem_helpers import CONTRACT, call, send, trace

from webapp import pipeline
from webapp.common import times
from webapp.ingest.envelope import normalise_ts
from webapp.ingest.model import RecordError
from webapp.store import Store
from webapp.web.filters import absolute_time

FIXED = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z\Z")
# Five calls 0.5 s apart across the second 10:00:00, each sent with another fraction width (or
# offset).
SENT = {
    1: "2026-11-20T09:59:59.5Z",
    2: "2026-11-20T10:00:00Z",
    3: "2026-11-20T10:00:00.500Z",
    4: "2026-11-20T10:00:01.000000000Z",
    5: "2026-11-20T11:00:01.5+01:00",
}
STORED = {
    1: "2026-11-20T09:59:59.500000Z",
    2: "2026-11-20T10:00:00.000000Z",
    3: "2026-11-20T10:00:00.500000Z",
    4: "2026-11-20T10:00:01.000000Z",
    5: "2026-11-20T10:00:01.500000Z",
}
# What tracediff stored before migration 10: the fraction as sent, in UTC.
AS_BEFORE = {
    1: "2026-11-20T09:59:59.5Z",
    2: "2026-11-20T10:00:00Z",
    3: "2026-11-20T10:00:00.500Z",
    4: "2026-11-20T10:00:01.000000000Z",
    5: "2026-11-20T10:00:01.5Z",
}
# (query, traces listed, newest first)
BOUNDS = [
    ("", [5, 4, 3, 2, 1]),
    ("since=2026-11-20T10:00:00Z", [5, 4, 3, 2]),
    ("since=2026-11-20T10:00:00.5Z", [5, 4, 3]),
    ("until=2026-11-20T10:00:00Z", [2, 1]),
    ("until=2026-11-20T10:00:00.5Z", [3, 2, 1]),
    ("since=2026-11-20T10:00:00Z&until=2026-11-20T10:00:00.5Z", [3, 2]),
    # the same bound with an offset
    ("since=2026-11-20T11:00:00.5%2B01:00", [5, 4, 3]),
    # nanoseconds are cut, as stored times' are
    ("until=2026-11-20T10:00:00.500000001Z", [3, 2, 1]),
]
# (query, kinds listed, newest last seen first)
PROBLEM_BOUNDS = [
    ("", ["enum_changed", "type_changed"]),
    ("since=2026-11-20T10:00:00.5Z", ["enum_changed", "type_changed"]),
    ("since=2026-11-20T10:00:01Z", ["enum_changed"]),
    ("until=2026-11-20T10:00:00.5Z", ["type_changed"]),
    # seen at 09:59:59.5 and 10:00:00: in the window
    ("until=2026-11-20T10:00:00Z", ["type_changed"]),
    ("until=2026-11-20T09:59:59.4Z", []),
]


@pytest.fixture
def second(client, store):
    """Traces 1-3 send limit as a string (one problem), 4 upper-cases status (another), 5 is
    clean."""
    store.put_tool("findOrders", CONTRACT)
    status = [
        {**event, "payload": {"status": "PAID", "limit": 5}}
        if event["snapshot"] == "request"
        else event
        for event in call(trace(4), SENT[4], broken=False)
    ]
    send(
        client,
        *call(trace(1), SENT[1]),
        *call(trace(2), SENT[2]),
        *call(trace(3), SENT[3]),
        *status,
        *call(trace(5), SENT[5], broken=False),
    )
    pipeline.catch_up(store)
    return client


def listed(client, query: str) -> list[int]:
    return [
        int(t["trace_id"], 16) for t in client.get(f"/api/v1/traces?{query}").get_json()["traces"]
    ]


def answers(client) -> dict:
    """What the API says about the second: the list under every bound, the problems, their
    traces."""
    problems = {
        query: client.get(f"/api/v1/problems?{query}").get_json()["problems"]
        for query, _ in PROBLEM_BOUNDS
    }
    limit = next(p for p in problems[""] if p["kind"] == "type_changed")
    return {
        "traces": {query: listed(client, query) for query, _ in BOUNDS},
        "trace": client.get(f"/api/v1/traces/{trace(3)}").get_json()["calls"][0]["snapshots"][
            "request"
        ]["ts"],
        "problems": {
            q: [(p["kind"], p["first_seen"], p["last_seen"]) for p in found]
            for q, found in problems.items()
        },
        "problem_traces": [
            t["trace_id"]
            for t in client.get(f"/api/v1/problems/{limit['id']}/traces").get_json()["traces"]
        ],
    }


@pytest.mark.parametrize(
    "sent, stored",
    [
        ("2026-11-20t10:00:00.1234567z", "2026-11-20T10:00:00.123456Z"),
        ("2026-11-20 10:00:00+00:00", "2026-11-20T10:00:00.000000Z"),
        ("2026-11-20T10:00:00-00:00", "2026-11-20T10:00:00.000000Z"),
        ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000000Z"),
        ("2026-11-20T00:30:00+01:00", "2026-11-19T23:30:00.000000Z"),
    ],
)
def test_a_utc_time_is_stored_as_its_text_and_any_other_offset_converted(sent, stored):
    assert normalise_ts(sent) == stored


@pytest.mark.parametrize(
    "sent", ["2026-02-30T10:00:00Z", "2026-11-20T24:00:00Z", "2026-11-20T10:60:00+00:00"]
)
def test_a_utc_time_the_calendar_has_not_is_refused_as_before(sent):
    with pytest.raises(RecordError) as refused:
        normalise_ts(sent)
    assert refused.value.code == "bad_value" and "not a valid date and time" in str(refused.value)


def test_every_way_a_time_arrives_is_stored_in_the_fixed_form():
    assert [normalise_ts(SENT[n]) for n in SENT] == [STORED[n] for n in SENT]
    # OTLP: cut, not rounded
    assert times.from_ns(1_795_687_201_123_456_789) == "2026-11-26T10:00:01.123456Z"
    # never into the next second
    assert times.from_ns(1_795_687_201_999_999_999) == "2026-11-26T10:00:01.999999Z"
    assert FIXED.match(times.now()) and FIXED.match(absolute_time("2h"))
    assert absolute_time("2026-11-20") == "2026-11-20T00:00:00.000000Z"
    assert absolute_time("999999w") == "0001-01-01T00:00:00.000000Z"
    assert sorted(STORED.values()) == [STORED[n] for n in sorted(STORED)]


def test_pages_show_a_stored_time_with_the_fraction_trimmed():
    assert [times.display(STORED[n]) for n in (1, 2, 5)] == [
        "2026-11-20T09:59:59.5Z",
        "2026-11-20T10:00:00Z",
        "2026-11-20T10:00:01.5Z",
    ]


def test_the_list_is_newest_first_within_a_second_and_bounds_take_exactly_their_side(second):
    for query, expected in BOUNDS:
        assert listed(second, query) == expected, query


def test_the_list_page_takes_the_same_bounds(second):
    for query, expected in BOUNDS[:5]:
        html = second.get(f"/?{query}").get_data(as_text=True)
        shown = [n for n in range(1, 6) if f"/traces/{trace(n)}" in html]
        assert sorted(shown, key=lambda n: html.index(f"/traces/{trace(n)}")) == expected, query


def test_the_api_answers_the_fixed_form_and_a_cursor_pages_inside_the_second(second):
    call_ = second.get(f"/api/v1/traces/{trace(5)}").get_json()["calls"][0]
    assert call_["snapshots"]["arguments"]["ts"] == STORED[5] and call_["last_ts"] == STORED[5]
    first = second.get("/api/v1/traces?limit=2").get_json()
    assert [t["last_seen"] for t in first["traces"]] == [STORED[5], STORED[4]]
    rest = second.get(f"/api/v1/traces?limit=2&cursor={first['next_cursor']}").get_json()
    assert [int(t["trace_id"], 16) for t in rest["traces"]] == [3, 2]


def test_problems_first_and_last_seen_and_their_bounds_follow_the_times_inside_a_second(second):
    found = answers(second)
    assert found["problems"][""] == [
        ("enum_changed", STORED[4], STORED[4]),
        ("type_changed", STORED[1], STORED[3]),
    ]
    for query, kinds in PROBLEM_BOUNDS:
        assert [kind for kind, _, _ in found["problems"][query]] == kinds, query
    assert found["problem_traces"] == [trace(3), trace(2), trace(1)]
    ids = {p["kind"]: p["id"] for p in second.get("/api/v1/problems").get_json()["problems"]}
    for query, kinds in PROBLEM_BOUNDS:
        rows = (
            second.get(f"/problems?{query}")
            .get_data(as_text=True)
            .partition('id="problem-rows"')[2]
        )
        assert [kind for kind in ids if f">{ids[kind]}</a>" in rows] == kinds, query


def test_a_problem_page_shows_first_and_last_seen_trimmed_and_its_traces_newest_first(second):
    limit = next(
        p
        for p in second.get("/api/v1/problems").get_json()["problems"]
        if p["kind"] == "type_changed"
    )
    html = second.get(f"/problems/{limit['id']}").get_data(as_text=True)
    assert f'<time datetime="{STORED[1]}">2026-11-20T09:59:59.5Z</time>' in html
    assert f'<time datetime="{STORED[3]}">2026-11-20T10:00:00.5Z</time>' in html
    rows = html.partition('<table class="problem-calls">')[2]
    assert (
        rows.index(f"/traces/{trace(3)}")
        < rows.index(f"/traces/{trace(2)}")
        < rows.index(f"/traces/{trace(1)}")
    )


def _migration_10():
    path = ROOT / "webapp" / "store" / "migrations" / "sqlite" / "0010_fixed_width_times.py"
    spec = importlib.util.spec_from_file_location("migration_10", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def age(store) -> None:
    """Make the database as the previous schema left it: times as sent, migration 10 not applied."""
    mapping = " ".join(f"WHEN '{STORED[n]}' THEN '{AS_BEFORE[n]}'" for n in STORED)
    with store.write() as conn:
        for table, columns in _migration_10().COLUMNS.items():
            for column in columns:
                conn.execute(
                    f"UPDATE {table} SET {column} = CASE {column} {mapping} ELSE {column} END"
                )
        conn.execute("DELETE FROM schema_migrations WHERE version = 10")


def test_a_database_of_the_previous_schema_upgrades_and_answers_the_same(second, store, db_path):
    fresh = answers(second)
    age(store)
    # the bug: 'Z' sorts after '.', so 10:00:00 came after 10:00:00.5
    assert listed(second, "") == [5, 4, 2, 3, 1]
    assert answers(second) != fresh
    # opening the store applies migration 10
    Store.open(db_path).close()
    assert answers(second) == fresh
    for table, columns in _migration_10().COLUMNS.items():
        for column in columns:
            left = store.db.execute(
                f"SELECT count(*) FROM {table} WHERE {column} IS NOT NULL AND length({column}) <> "
                "27"
            ).fetchone()[0]
            assert left == 0, f"{table}.{column}: {left} time(s) not in the fixed form"
