"""A URL path segment every call sent alike is the layer's constant.

Twilio's `ListMessage` as its OpenAPI MCP server sends it: the API version `2010-04-01` in the path,
no query at all (every filter consumed). One call does not pair a filter that reads as no day with
the dated version; the tool's history shows the segment never varies, and then it pairs with nothing."""

import random

import orjson

from webapp import pipeline
from webapp.analysis import analyze_call
from webapp.inference.segments import constant_segments, segment_texts, text_number
from webapp.ingest import parse_body

TOOL = "TwilioApiV2010--ListMessage"
ACCOUNT = "AC3f8e2b9d41c07a65e2d1b0c9f4a8e7d3"


def address(account: str = ACCOUNT) -> str:
    return f"https://api.twilio.com/2010-04-01/Accounts/{account}/Messages.json"


def events(n: int, arguments: dict, url: str) -> list[dict]:
    # the history is release 1.0, what follows it 1.1
    base = {"trace_id": f"{n + 1:032x}", "call_id": "c1", "tool": TOOL}
    base["release"] = "1.0" if n < 12 else "1.1"
    base["ts"] = f"2026-11-20T10:{n % 60:02d}:00Z"
    return [
        {**base, "snapshot": "arguments", "payload": arguments},
        {**base, "snapshot": "request", "payload": None, "http": {"method": "GET", "url": url}},
        {**base, "snapshot": "response", "payload": {"messages": []}, "http": {"status_code": 200}},
    ]


def filters(rng) -> dict:
    found = {"AccountSid": ACCOUNT}
    if rng.random() < 0.5:
        found["To"] = f"+1415555{rng.randint(1000, 9999)}"
    else:
        found["DateSent>"] = f"2026-11-{rng.randint(10, 28)}T00:00:00Z"
    return found


def loud(findings) -> list[tuple]:
    return [
        (f["kind"], (f["left"] or {}).get("path"), (f["right"] or {}).get("path"))
        for f in findings
        if f["severity"] in ("warning", "error")
    ]


def load(store, batch) -> None:
    pipeline.store_batch(store, parse_body(b"\n".join(orjson.dumps(e) for e in batch)), None)
    pipeline.catch_up(store)


def alone(arguments: dict, url: str = address()) -> dict:
    request = {"payload": None, "http": {"method": "GET", "url": url}}
    return analyze_call({"arguments": {"payload": arguments}, "request": request}, None)


def test_a_filter_left_over_beside_the_api_version_is_no_change_of_it_in_one_call_alone():
    # a phone number reads as no date, a moment is not a day: neither is the version changed;
    # one call cannot tell the filter consumed from dropped, so it is info
    for name, value in (("To", "+14155550117"), ("DateSent>", "2026-11-09T00:00:00Z")):
        found = alone({"AccountSid": ACCOUNT, name: value})
        assert loud(found["findings"]) == [], found["findings"]
        [dropped] = [f for f in found["findings"] if f["kind"] == "dropped"]
        assert (dropped["severity"], dropped["left"]["path"]) == ("info", f"/{name}")


def test_a_day_left_over_beside_a_day_in_the_path_still_pairs_as_changed():
    found = alone({"day": "2026-11-10"}, "https://api.example.com/reports/2026-11-09/summary")
    assert ("value_changed", "/day", "path:/1") in loud(found["findings"]), found["findings"]
    # the same day written otherwise still pairs with it, as a format changed
    same = alone({"day": "2026-11-09T00:00:00Z"}, "https://api.example.com/reports/2026-11-09/x")
    kinds = {f["kind"] for f in same["findings"] if (f["left"] or {}).get("path") == "/day"}
    assert kinds == {"format_changed"}, same["findings"]


def test_a_segment_every_call_sent_alike_is_learnt_constant_and_pairs_by_elimination_no_more(
    store,
):
    rng = random.Random(7)
    load(store, [e for n in range(12) for e in events(n, filters(rng), address())])
    constants = constant_segments(store.path_counts(TOOL))
    # the version and the account the layer is configured with; the account is still paired
    # with its argument by value, only being the last text of a kind says nothing; the word
    # segments (no argument's) are counted too
    assert constants == {
        "path:/0": text_number("2010-04-01"),
        "path:/1": text_number("Accounts"),
        "path:/2": text_number(ACCOUNT),
        "path:/3": text_number("Messages.json"),
    }
    later = [(n, filters(rng)) for n in range(12, 18)]
    load(store, [e for n, arguments in later for e in events(n, arguments, address())])
    for n, arguments in later:
        findings = store.get_trace(f"{n + 1:032x}")["calls"][0]["findings"]
        assert not [f for f in loud(findings) if f[2] == "path:/0"], (arguments, findings)
    # a segment holding another text varies in that call: an account changed is still found
    load(store, events(18, {"AccountSid": ACCOUNT, "To": "+14155550100"}, address("AC" + "0" * 32)))
    findings = store.get_trace(f"{19:032x}")["calls"][0]["findings"]
    assert any(f[1] == "/AccountSid" or f[2] == "path:/2" for f in loud(findings)), findings


def test_a_segment_that_varies_is_never_constant_whatever_the_order_of_its_calls():
    def counted(texts):
        presence: dict = {}
        for text in texts:
            found = segment_texts({"path:/1": text, "query:/a": "x"}, False)
            assert set(found) == {("request", "path:/1"), ("request", "query:/a")}
            mine = presence.setdefault(("request", "path:/1"), {"calls": 0})
            mine["calls"] += 1
            for name, n in found[("request", "path:/1")].items():
                mine[name] = mine.get(name, 0) + n
        return presence

    varying = [f"inv_{n}" for n in range(20)]
    assert counted(varying) == counted(list(reversed(varying)))
    assert constant_segments(counted(varying)) == {}
    assert constant_segments(counted(["v2"] * 19 + ["v3"])) == {}
    assert constant_segments(counted(["2010-04-01"] * 5)) == {"path:/1": text_number("2010-04-01")}


def test_a_filter_paired_with_the_constant_before_it_was_learnt_never_travelled(store):
    # the whole history in one batch: analysed before five calls made the version a constant, so
    # each of them paired the filter with it (another value, never an equal one)
    dates = [{"AccountSid": ACCOUNT, "DateSent>": f"2026-11-{10 + n}T00:00:00Z"} for n in range(12)]
    load(store, [e for n, arguments in enumerate(dates) for e in events(n, arguments, address())])
    later = {"AccountSid": ACCOUNT, "DateSent>": "2026-11-30T00:00:00Z"}
    load(store, events(12, later, address()))
    findings = store.get_trace(f"{13:032x}")["calls"][0]["findings"]
    # the layer never sent it: no "every call of an earlier release that held it sent it"
    assert loud(findings) == [], findings


def signed(n: int, arguments: dict, url: str, headers: dict) -> list[dict]:
    """A call's events with its request's headers."""
    found = events(n, arguments, url)
    found[1]["http"]["headers"] = headers
    return found


AUTH = {"Authorization": "Basic [REDACTED]", "Accept": "application/json"}


def test_a_word_segment_every_earlier_call_sent_alike_sent_otherwise_is_loud(store):
    rng = random.Random(11)
    load(store, [e for n in range(12) for e in signed(n, filters(rng), address(), AUTH)])
    load(store, signed(12, filters(rng), address(), AUTH))
    assert loud(store.get_trace(f"{13:032x}")["calls"][0]["findings"]) == []
    # the layer now asks for another resource: `Messages.json` written `Messages`
    wrong = address().removesuffix(".json")
    load(store, signed(13, filters(rng), wrong, AUTH))
    findings = store.get_trace(f"{14:032x}")["calls"][0]["findings"]
    assert ("value_changed", None, "path:/3") in loud(findings), findings
    [found] = [f for f in findings if (f["right"] or {}).get("path") == "path:/3"]
    assert found["message"].endswith('this call sends "Messages"')


def test_a_secret_header_every_earlier_call_sent_is_compared_by_its_presence_alone(store):
    rng = random.Random(12)
    load(store, [e for n in range(12) for e in signed(n, filters(rng), address(), AUTH)])
    # another secret each call: only its presence is counted, never its text
    other = {**AUTH, "Authorization": "Basic [REDACTED] 2"}
    load(store, signed(12, filters(rng), address(), other))
    assert loud(store.get_trace(f"{13:032x}")["calls"][0]["findings"]) == []
    load(store, signed(13, filters(rng), address(), {"Accept": "application/json"}))
    findings = store.get_trace(f"{14:032x}")["calls"][0]["findings"]
    assert ("dropped", "header:/authorization", None) in loud(findings), findings
    counts = store.path_counts(TOOL)[("request", "header:/authorization")]
    assert "text sum" not in counts
