"""Deterministic verdicts (issue 32, item 5).

A slice of the real-layer corpus, two releases of it, sent to a real server in two orders and
batchings gives the same findings, call by call."""

import random

import pytest

from tests import realworld

pytestmark = pytest.mark.slow

# tools whose verdicts lean on history: a consumed selector, a projection, a leaked field, renames,
# a form body
SLICE = (
    "issue_write",
    "list_commits",
    "todoist_get_tasks",
    "slack_post_message",
    "asana_create_task",
    "create_price",
)


def shuffled(events: list) -> list[list]:
    """The events in a random order, 30 to 70 a request: a call's snapshots land in different
    batches, and calls of the newer release arrive before older ones."""
    rng = random.Random(5)
    events = list(events)
    rng.shuffle(events)
    out = []
    while events:
        size = rng.randint(30, 70)
        out.append(events[:size])
        events = events[size:]
    return out


def verdicts(pairs) -> dict:
    """{call index: its findings as (kind, severity, arguments path, request/response path),
    sorted}."""

    def where(end):
        return f"{end['snapshot']}:{end['path']}" if end else None

    return {
        call["index"]: sorted(
            (f["kind"], f["severity"], where(f["left"]), where(f["right"]))
            for f in found["findings"]
        )
        for call, found in pairs
    }


def test_the_same_calls_give_the_same_findings_whatever_the_order_and_the_batches():
    from bench import realworld as bench

    tools = [t for t in realworld.TOOLS if t.name in SLICE]
    calls = realworld.generate(32, 24, 2, tools)
    assert {c["release"] for c in calls} == {"2026.11.1", "2026.11.2"}
    in_order = verdicts(bench.through_a_server(calls, tools, log=lambda *_: None))
    mixed = verdicts(bench.through_a_server(calls, tools, log=lambda *_: None, batches=shuffled))
    assert_same(in_order, mixed)


def assert_same(in_order: dict, mixed: dict) -> None:
    differ = {i: (in_order[i], mixed[i]) for i in in_order if in_order[i] != mixed[i]}
    assert not differ, (
        f"{len(differ)} of {len(in_order)} calls differ, e.g. {next(iter(differ.items()))}"
    )
