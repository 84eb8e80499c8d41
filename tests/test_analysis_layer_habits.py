"""What mapping layers do on purpose, told from what they break.

A date sent as its Unix time, an id in a path segment with a format suffix (`/issues/4211.json`), an
operation selector named `action` with no values declared, a text wrapped with a setting beside it,
a list joined into a search value under another key, a set echoed in the server's own order, the API
version header a layer pins. Each is quiet (or info) one call at a time; the same shape built wrong
stays loud (issue 32, item 2). The shapes come from public API documentation (Mailchimp's `since_*`
dates, Redmine's `.json` routes, Freshdesk notes, GitHub labels, Notion's version header), none
from the real-layer corpus.
"""

from webapp.analysis import analyze_call
from webapp.analysis.wire.request import read_headers

LOUD = ("warning", "error")
# 2026-03-01T00:00:00Z
MARCH_FIRST = 1772323200


def call(arguments, body, url="https://api.example.com/v1/reports", method="POST", **more):
    snaps = {
        "arguments": {"payload": arguments, "http": None},
        "request": {"payload": body, "http": {"method": method, "url": url}},
        "response": more.get("response"),
    }
    if "result" in more:
        snaps["result"] = {"payload": more["result"]}
    return analyze_call(snaps, more.get("contract"))


def loud(result) -> list[tuple]:
    found = [
        (f["kind"], (f["right"] or f["left"] or {}).get("path"))
        for f in result["findings"]
        if f["severity"] in LOUD
    ]
    return found + [
        ("schema", e["path"]) for v in result["validation"].values() for e in v.get("errors") or []
    ]


# --- a date sent as its Unix time -----------------------------------------------------------------


def test_a_date_sent_as_the_unix_time_of_its_first_or_last_second_is_info():
    assert loud(call({"since": "2026-03-01"}, {"since_ts": MARCH_FIRST})) == []
    assert loud(call({"until": "01/03/2026"}, {"until_ts": MARCH_FIRST + 86399})) == []
    assert loud(call({"at": "2026-03-01T00:00:00Z"}, {"at_ms": MARCH_FIRST * 1000})) == []
    [found] = [
        f
        for f in call({"since": "2026-03-01"}, {"since_ts": MARCH_FIRST})["findings"]
        if f["kind"] == "type_changed"
    ]
    assert found["severity"] == "info" and "a date sent as a Unix time" in found["message"]


def test_a_unix_time_an_hour_off_its_date_stays_loud():
    assert loud(call({"since": "2026-03-01"}, {"since_ts": MARCH_FIRST + 3600})) == [
        ("type_changed", "/since_ts")
    ]
    assert loud(call({"at": "2026-03-01T09:00:00Z"}, {"at_ts": MARCH_FIRST})) != []


def test_a_unix_time_handed_back_as_the_same_instant_in_words_is_quiet():
    response = {"payload": {"id": "ch_1", "created": MARCH_FIRST}, "http": {"status_code": 200}}
    told = {"content": [], "structuredContent": {"id": "ch_1", "created": "2026-03-01T00:00:00Z"}}
    assert loud(call({"id": "ch_1"}, {"id": "ch_1"}, response=response, result=told)) == []
    wrong = {"content": [], "structuredContent": {"id": "ch_1", "created": "2026-03-02T00:00:00Z"}}
    assert loud(call({"id": "ch_1"}, {"id": "ch_1"}, response=response, result=wrong)) != []


# --- an id in a path segment with a format suffix -------------------------------------------------


def test_an_id_before_a_format_suffix_is_found_in_the_path():
    url = "https://redmine.example.org/issues/4211.json"
    body = {"issue": {"notes": "Fixed in r88"}}
    assert loud(call({"issue_id": 4211, "notes": "Fixed in r88"}, body, url, "PUT")) == []


def test_another_id_before_the_suffix_is_loud_at_its_segment():
    url = "https://redmine.example.org/issues/4212.json"
    body = {"issue": {"notes": "Fixed in r88"}}
    assert ("value_changed", "path:/1") in loud(
        call({"issue_id": 4211, "notes": "Fixed in r88"}, body, url, "PUT")
    )


# --- an operation selector named as one -----------------------------------------------------------

SELECTOR = {
    "arguments_schema": {
        "type": "object",
        "properties": {"action": {"type": "string"}, "resource": {"type": "string"}},
        "required": ["action", "resource"],
    }
}


def test_a_selector_named_action_whose_verb_the_http_method_carries_out_is_consumed():
    args = {"action": "list", "resource": "contacts"}
    url = "https://api.example.com/v1/contacts"
    assert loud(call(args, None, url, "GET", contract=SELECTOR)) == []


def test_a_selector_whose_verb_the_http_method_does_not_carry_out_stays_dropped():
    args = {"action": "delete", "resource": "contacts"}
    url = "https://api.example.com/v1/contacts"
    assert ("dropped", "/action") in loud(call(args, None, url, "GET", contract=SELECTOR))


# --- a text wrapped with a setting beside it ------------------------------------------------------


def test_a_text_wrapped_in_an_object_beside_a_setting_is_info_one_call_at_a_time():
    args = {"note": "Called the customer back"}
    body = {"note": {"body": "Called the customer back", "private": True}}
    assert loud(call(args, body)) == []


def test_a_wrapper_holding_another_text_stays_loud():
    args = {"note": "Called the customer back"}
    body = {"note": {"body": "Called the client", "private": True}}
    assert loud(call(args, body)) != []


# --- a set echoed in the server's order -----------------------------------------------------------


def test_labels_echoed_sorted_are_no_echo_mismatch():
    response = {"payload": {"number": 7, "labels": ["bug", "ui"]}, "http": {"status_code": 201}}
    found = call({"labels": ["ui", "bug"]}, {"labels": ["ui", "bug"]}, response=response)
    assert [f for f in found["findings"] if f["kind"] == "echo_mismatch"] == []


def test_labels_echoed_with_another_label_are_an_echo_mismatch():
    response = {"payload": {"number": 7, "labels": ["bug", "docs"]}, "http": {"status_code": 201}}
    found = call({"labels": ["ui", "bug"]}, {"labels": ["ui", "bug"]}, response=response)
    assert any(f["kind"] == "echo_mismatch" for f in found["findings"])


# --- the API version header -----------------------------------------------------------------------


def test_the_api_version_header_is_read_with_the_comparable_headers():
    headers = {
        "Notion-Version": "2022-06-28",
        "X-GitHub-Api-Version": "2022-11-28",
        "Authorization": "Bearer [REDACTED]",
        "User-Agent": "layer/1.0",
    }
    assert read_headers(headers) == {
        "notion-version": "2022-06-28",
        "x-github-api-version": "2022-11-28",
    }


# --- a list joined into one text under another key ------------------------------------------------


def test_a_list_joined_into_a_search_value_under_another_key_is_info():
    args = {"labels": ["bug", "ui"], "team": "core"}
    body = {"query": {"team": "core", "match": {"value": "bug|ui"}}}
    found = call(args, body)
    assert loud(found) == []
    assert ("type_changed", "info", "/labels", "/query/match/value") in [
        (f["kind"], f["severity"], f["left"]["path"], f["right"]["path"])
        for f in found["findings"]
        if f["left"] and f["right"]
    ]


def test_a_joined_text_of_other_items_leaves_the_list_dropped():
    args = {"labels": ["bug", "ui"], "team": "core"}
    body = {"query": {"team": "core", "match": {"value": "bug|docs"}}}
    assert ("dropped", "/labels") in loud(call(args, body))


# --- a word the server resolves into a number -----------------------------------------------------


def test_a_word_echoed_as_a_number_is_the_servers_resolution_and_info():
    # a position `"bottom"` the server answers as the number it placed the card at
    response = {"payload": {"id": "c1", "pos": 65536}, "http": {"status_code": 200}}
    found = call({"id": "c1", "pos": "bottom"}, {"pos": "bottom"}, method="PUT", response=response)
    [echo] = [f for f in found["findings"] if f["kind"] == "echo_mismatch"]
    assert echo["severity"] == "info" and "the server's own resolution" in echo["message"]
    assert loud(found) == []


def test_a_number_sent_as_text_echoed_as_another_number_stays_an_echo_mismatch():
    response = {"payload": {"id": "c1", "pos": 65536}, "http": {"status_code": 200}}
    found = call({"id": "c1", "pos": "1024"}, {"pos": "1024"}, method="PUT", response=response)
    assert ("echo_mismatch", "/pos") in loud(found)


# --- "nothing found" handed back as a failure -----------------------------------------------------

SEARCH = {"query": {"original": "tomato"}, "web": {"type": "search", "results": []}}


def failed(text: str) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def searched(body, text: str) -> dict:
    response = {"payload": body, "http": {"status_code": 200}}
    url = "https://api.example.com/v1/search?q=tomato"
    return call({"query": "tomato"}, None, url, "GET", response=response, result=failed(text))


def test_a_success_with_every_list_empty_told_as_nothing_found_is_info():
    for text in ("No web results found", "Nothing matched your query", "0 items found"):
        found = searched(SEARCH, text)
        [invented] = [f for f in found["findings"] if f["kind"] == "error_invented"]
        assert invented["severity"] == "info" and "nothing was found" in invented["message"]


def test_a_failure_invented_over_results_or_in_other_words_stays_an_error():
    full = {**SEARCH, "web": {"type": "search", "results": [{"title": "Tomato"}]}}
    assert ("error_invented", "") in loud(searched(full, "No web results found"))
    assert ("error_invented", "") in loud(searched(SEARCH, "Search failed: try again"))
    # nothing the response holds is a list of results to have come back empty
    assert ("error_invented", "") in loud(searched({"query": {"q": "x"}}, "No results found"))
