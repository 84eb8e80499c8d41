"""Observed schemas, the pure part.

What a shape learns from traffic, when a call is drift, and the schema draft."""

import random

import pytest
from observed_traffic import order, stamp, varied

from webapp.analysis import validate
from webapp.observed import (
    MIN_HISTORY,
    drift_findings,
    empty_shape,
    facts_of,
    learn,
    observed_schema,
)
from webapp.observed.compare import disagreements
from webapp.observed.facts import format_of
from webapp.observed.shapes import MAX_PATHS, parent_of
from webapp.observed.structured import structured_shape


def replay(bodies, stage="response"):
    """Learn bodies one after another; return the shape and each call's drift findings."""
    shape, found = empty_shape(), []
    for n, body in enumerate(bodies):
        facts = facts_of(body)
        found.append(drift_findings(stage, shape, facts, stamp(n)))
        learn(shape, facts, stamp(n))
    return shape, found


def loud(findings):
    return [f for f in findings if f["severity"] in ("warning", "error")]


def changed_orders(stable=300, changed=40, seed=1):
    rng = random.Random(seed)
    return [order(rng, n) for n in range(stable)] + [
        order(rng, n, changed=True) for n in range(stable, stable + changed)
    ]


@pytest.mark.parametrize(
    "text, name",
    [
        ("2026-12-01T09:02:00Z", "date-time"),
        ("2026-12-01T09:02:00.5+01:00", "date-time"),
        # no offset: not RFC 3339
        ("2026-12-01T09:02:00", ""),
        ("2026-12-01", "date"),
        ("2026-02-30", ""),
        ("0b5e4d2c-3f1a-4c7e-9d8b-2a6f1e0c9b7d", "uuid"),
        ("ann@example.com", "email"),
        ("https://api.example.com/v1/x?y=1", "uri"),
        ("9f86d081884c7d65", "hex-id"),
        ("inv_9f2a", "prefixed-id"),
        ("hello world", ""),
    ],
)
def test_a_string_is_read_in_the_format_it_is_written_in(text, name):
    assert format_of(text) == name


def test_a_shape_counts_types_presence_lengths_and_values_per_pointer():
    shape, _ = replay(
        [{"a": 1, "items": [{"sku": "x"}, {"sku": "yy", "n": 2.5}]}, {"a": 2, "items": []}]
    )
    paths = shape["paths"]
    assert shape["calls"] == 2 and paths["/a"]["n"] == 2 and set(paths["/a"]["t"]) == {"integer"}
    assert paths["/items/*/sku"]["n"] == 1 and paths["/items/*/sku"]["inst"] == 2
    assert paths["/items/*/sku"]["len"] == [1, 2] and set(paths["/items/*/sku"]["v"]) == {"x", "yy"}
    assert set(paths["/items/*/n"]["t"]) == {"number"}


def test_id_like_keys_fold_into_one_place_and_the_field_budget_holds():
    bodies = [
        {"accounts": {str(20391234 + n): {"bal": n}}, f"rare_{n}": n} for n in range(MAX_PATHS * 3)
    ]
    shape, _ = replay(bodies)
    assert "/accounts/{id}/bal" in shape["paths"]
    assert len(shape["paths"]) <= MAX_PATHS and shape["folded"] > 0
    # no child without its parent
    assert all(parent_of(path) in shape["paths"] for path in shape["paths"] if path)
    # a rare parent folded for its own child
    bodies = [{f"rare_{n}": {"child": n}} for n in range(MAX_PATHS * 2)]
    shape, _ = replay(bodies)
    assert all(parent_of(path) in shape["paths"] for path in shape["paths"] if path)
    assert observed_schema(shape)["type"] == "object"


def test_the_server_change_of_the_issue_is_drift_in_every_changed_call_and_the_stable_calls_are_quiet():
    _, found = replay(changed_orders())
    assert not any(loud(f) for f in found[:300])
    for findings in found[300:]:
        paths = {f["right"]["path"]: f for f in loud(findings)}
        assert {"/total_cents", "/status", "/currency"} <= set(paths)
    first = {f["right"]["path"]: f["message"] for f in found[300]}
    assert (
        first["/total_cents"]
        == '"/total_cents" integer in 300 of 300 calls since 09:02, a string since 14:02'
    )
    assert (
        first["/currency"]
        == '"/currency" present in 300 of 300 calls since 09:02, missing since 14:02'
    )
    assert first["/status"].startswith(
        '"/status" one of 3 values (paid, pending, refunded) in 300 of 300 calls'
    )
    assert first["/status"].endswith('"PAID_OUT" since 14:02')


def test_drift_waits_for_history_and_never_fires_on_a_tools_first_calls():
    rng = random.Random(2)
    early = [order(rng, n, changed=n % 7 == 3) for n in range(MIN_HISTORY)]
    _, found = replay(early)
    assert not any(found)


def test_correct_traffic_with_optional_fields_varied_enums_and_nulls_stays_quiet():
    rng = random.Random(3)
    _, found = replay([varied(rng, n) for n in range(2000)])
    noisy = [f for f in found if loud(f)]
    assert len(noisy) <= 0.01 * len(found), [f["message"] for fs in noisy for f in fs][:5]


def test_a_new_field_is_info_and_opens_no_problem():
    rng = random.Random(4)
    bodies = [order(rng, n) for n in range(100)]
    bodies[80]["discount"] = 5
    _, found = replay(bodies)
    [new] = found[80]
    assert (
        new["severity"] == "info" and new["right"]["path"] == "/discount" and new["kind"] == "drift"
    )


def test_the_observed_schema_validates_every_call_it_was_learnt_from():
    rng = random.Random(5)
    bodies = changed_orders() + [varied(rng, n) for n in range(300)]
    shape, _ = replay(bodies)
    schema = observed_schema(shape)
    assert all(validate(body, schema) == [] for body in bodies)


def test_the_observed_schema_says_integer_and_requires_only_what_every_call_carried():
    rng = random.Random(6)
    bodies = [order(rng, n) for n in range(300)]
    schema = observed_schema(replay(bodies)[0])
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    properties = schema["properties"]
    assert properties["total_cents"]["type"] == "integer"
    assert set(schema["required"]) == {
        "id",
        "total_cents",
        "currency",
        "status",
        "created_at",
        "items",
    }
    assert properties["coupon"]["type"] == ["null", "string"]
    assert properties["created_at"]["format"] == "date-time"
    assert properties["status"]["enum"] == ["paid", "pending", "refunded"]
    assert properties["items"]["items"]["required"] == ["qty", "sku"]
    seen = properties["coupon"]["x-tracediff-seen"]
    assert seen["of"] == 300 and 0 < seen["calls"] < 300 and seen["lengths"] == [3, 6]
    # a range seen is not a rule
    assert "maxLength" not in properties["coupon"]
    # a fixed length is
    assert properties["currency"]["minLength"] == properties["currency"]["maxLength"] == 3
    # a draft that catches the change
    assert validate({**bodies[0], "total_cents": "12.50"}, schema)


def test_a_deeply_nested_shape_writes_a_schema_that_stops_at_its_depth_and_still_validates():
    import orjson
    from helpers import nested

    bodies = [nested(n, 3000) for n in range(3)]
    schema = observed_schema(replay(bodies)[0])
    # orjson refuses past 255 levels
    assert len(orjson.dumps(schema)) > 0
    assert all(validate(body, schema) == [] for body in bodies)


def test_whole_numbers_seen_where_the_declared_schema_says_number_are_no_disagreement():
    shape = empty_shape()
    for n in range(5):
        learn(shape, facts_of({"total": n if n % 2 else n + 0.5, "count": n}), stamp(n))
    declared = {
        "type": "object",
        "properties": {"total": {"type": "number"}, "count": {"type": "number"}},
    }
    assert disagreements(shape, declared) == []
    strict = {
        "type": "object",
        "properties": {"total": {"type": "integer"}, "count": {"type": "integer"}},
    }
    assert [row["path"] for row in disagreements(shape, strict)] == ["/total"]


def test_a_results_structured_part_is_its_structured_content_or_its_json_and_text_has_none():
    mcp, plain, text = empty_shape(), empty_shape(), empty_shape()
    for n in range(3):
        learn(
            mcp,
            facts_of({"content": [{"type": "text", "text": "ok"}], "structuredContent": {"n": n}}),
            stamp(n),
        )
        learn(plain, facts_of({"n": n}), stamp(n))
        learn(text, facts_of({"content": [{"type": "text", "text": "ok"}]}), stamp(n))
    part, prefix = structured_shape(mcp)
    assert (
        prefix == "/structuredContent"
        and observed_schema(part)["properties"]["n"]["type"] == "integer"
    )
    assert observed_schema(part)["x-tracediff-seen"]["calls"] == 3
    assert structured_shape(plain) == (plain, "") and structured_shape(text) is None
