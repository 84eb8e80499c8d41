"""Escalating: an open problem well above its own 7-day baseline.

Its hourly rate, by the calls' own times, goes well above its own 7-day baseline."""

from datetime import UTC, datetime, timedelta

import pytest
from problem_helpers import CONTRACT, at, call, send, trace

from webapp import pipeline
from webapp.ops.sender import deliver_due
from webapp.problems.escalation import MIN_BURST, escalation, threshold
from webapp.problems.states import parse_change


@pytest.fixture
def app(alerting_app):
    # rules may point at the local receiver
    return alerting_app


HOUR = "2026-12-01T17"


def hours_before(hour: str, counts: dict[int, int]) -> dict[str, int]:
    """Return {hour key: count} for counts keyed by how many hours before `hour`."""
    start = datetime.strptime(hour, "%Y-%m-%dT%H")
    return {
        (start - timedelta(hours=back)).strftime("%Y-%m-%dT%H"): n for back, n in counts.items()
    }


def test_a_rate_well_above_the_mean_escalates_once_when_it_crosses_the_line():
    # 5 an hour for a week
    steady = hours_before(HOUR, {back: 5 for back in range(1, 169)})
    line = threshold(steady, HOUR, "2026-11-20T00:00:00Z")
    # four times the mean, above the peak's 1.5 times
    assert line == 20
    assert escalation(steady, HOUR, 19, 20, "2026-11-20T00:00:00Z").startswith(
        "escalating: 20 occurrences"
    )
    # already over: said once
    assert escalation(steady, HOUR, 20, 40, "2026-11-20T00:00:00Z") is None
    assert escalation(steady, HOUR, 0, 19, "2026-11-20T00:00:00Z") is None


def test_a_nightly_peak_of_the_usual_height_is_not_escalating():
    # 30 in this hour every day
    nightly = hours_before(HOUR, {24 * day: 30 for day in range(1, 8)})
    assert threshold(nightly, HOUR, "2026-11-20T00:00:00Z") == 45
    assert escalation(nightly, HOUR, 0, 32, "2026-11-20T00:00:00Z") is None


def test_a_young_or_rare_problem_needs_a_real_burst():
    # 12 hours old: new, not escalating
    assert threshold({}, HOUR, "2026-12-01T05:00:00Z") is None
    assert threshold(hours_before(HOUR, {30: 1}), HOUR, "2026-11-30T10:00:00Z") == MIN_BURST
    assert escalation({}, HOUR, 3, 4, "2026-11-20T00:00:00Z") is None


# ---- through ingest, analysis and the outbox, with a receiver that checks every signature ----


def rule(client, receiver, on=("escalating",), min_interval_s=0):
    made = client.post(
        "/api/v1/alerts",
        json={"url": receiver.url, "on": list(on), "min_interval_s": min_interval_s},
    ).get_json()
    receiver.secret = made["secret"]


def baseline(client, store, first=1):
    """A week of findOrders sending limit as a string every six hours, loaded as a backfill."""
    store.put_tool("findOrders", CONTRACT)
    events = []
    for n in range(28):
        events += call(trace(first + n), at(-(7 * 24 - 6 * n) * 60 + 30))
    send(client, *events)
    pipeline.catch_up(store)


def burst(client, store, count, first, minutes_ago=0.0):
    """`count` broken calls spread over the current clock hour so far (or an hour `minutes_ago`)."""
    now = datetime.now(UTC) - timedelta(minutes=minutes_ago)
    start = now.replace(minute=0, second=0, microsecond=0)
    step = (now - start) / count
    events = []
    for n in range(count):
        moment = start + step * n
        events += call(trace(first + n), moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z")
    send(client, *events)
    pipeline.catch_up(store)


def test_a_burst_above_the_baseline_sends_one_signed_escalating_alert(client, app, store, receiver):
    rule(client, receiver, on=("new", "escalating"))
    baseline(client, store)
    # the week of old calls opened the problem quietly
    assert deliver_due(store, app.config) == 0
    burst(client, store, MIN_BURST + 2, first=100)
    assert deliver_due(store, app.config) == 1
    [(_, body)] = receiver.accepted
    assert body["type"] == "problem.escalating" and body["data"]["state"] != "archived"
    assert body["data"]["calls"] == 28 + MIN_BURST + 2
    problem = client.get(f"/api/v1/problems/{body['data']['id']}").get_json()
    assert "escalating: 12 occurrences in the hour" in problem["state_history"][0]["detail"]
    # the same hour, still over the line: said once
    burst(client, store, 5, first=200)
    store.invalidate_tool(None)
    # a re-analysis of every call escalates nothing
    pipeline.catch_up(store)
    assert deliver_due(store, app.config) == 0 and len(receiver.accepted) == 1


def test_a_backfilled_burst_never_escalates(client, app, store, receiver):
    rule(client, receiver)
    baseline(client, store)
    # three days old, loaded now
    burst(client, store, 3 * MIN_BURST, first=100, minutes_ago=3 * 24 * 60)
    assert deliver_due(store, app.config) == 0 and not receiver.attempts


def test_a_burst_at_the_usual_rate_is_quiet(client, app, store, receiver):
    rule(client, receiver)
    baseline(client, store)
    burst(client, store, MIN_BURST - 1, first=100)
    assert deliver_due(store, app.config) == 0 and not receiver.attempts


def test_an_escalation_waits_for_the_rules_interval_after_another_alert(
    client, app, store, receiver
):
    rule(client, receiver, on=("regressed", "escalating"), min_interval_s=600)
    baseline(client, store)
    number = int(client.get("/api/v1/problems").get_json()["problems"][0]["id"][3:])
    store.change_problem(number, parse_change({"state": "resolved"}), "tester")
    send(client, *call(trace(100), at(0.01)))
    pipeline.catch_up(store)
    burst(client, store, MIN_BURST + 2, first=200)
    # the regression; the burst minutes later stays quiet
    assert deliver_due(store, app.config) == 1
    assert [body["type"] for _, body in receiver.accepted] == ["problem.regressed"]
