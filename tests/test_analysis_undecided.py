"""Conversions one call cannot tell from a bug are info one call at a time.

A list joined into one text (issue 32, item 2): GitLab's API wants `"bug,ui"`, another API wants
the list, and only a request schema, a declared transform or the tool's history tells which. A
number lowered to the maximum its contract states is that contract kept. What a single call does
decide stays loud: a list joined wrong, a value changed past any stated bound."""

from urllib.parse import quote

import pytest

from webapp.analysis import analyze_call

LOUD = ("warning", "error")


def call(arguments, body, contract=None, url=None):
    http = {"method": "GET" if url else "POST", "url": url or "https://api.example.com/issues"}
    snaps = {
        "arguments": {"payload": arguments, "http": None},
        "request": {"payload": body, "http": http},
        "response": None,
    }
    return analyze_call(snaps, contract)


def changes(result) -> list[tuple]:
    return [
        (f["kind"], f["severity"], f["left"]["path"], f["right"]["path"], f["message"])
        for f in result["findings"]
        if f["kind"] in ("value_changed", "type_changed") and f["left"] and f["right"]
    ]


def loud(result) -> bool:
    schema_errors = [e for v in result["validation"].values() for e in v.get("errors") or []]
    return bool(schema_errors) or any(f["severity"] in LOUD for f in result["findings"])


def labels_schema(kind: str) -> dict:
    items = {"items": {"type": "string"}} if kind == "array" else {}
    return {"type": "object", "properties": {"labels": {"type": kind, **items}}}


# --- a list joined into one text ------------------------------------------------------------------


@pytest.mark.parametrize(
    "labels, sent",
    [
        (["bug", "documentation"], "bug,documentation"),
        (["bug", "ui"], "bug, ui"),
        (["priority::1"], "priority::1"),
        ([5531, 77120], "5531|77120"),
    ],
)
def test_a_list_sent_joined_is_info_that_says_what_would_settle_it(labels, sent):
    result = call({"title": "Crash", "labels": labels}, {"title": "Crash", "labels": sent})
    [(kind, severity, left, right, message)] = changes(result)
    assert (kind, severity, left, right) == ("type_changed", "info", "/labels", "/labels")
    assert "a request schema, a declared transform or the tool's earlier calls would" in message
    assert not loud(result)


def test_a_text_sent_split_into_a_list_is_info_too():
    result = call({"title": "Crash", "tags": "a, b"}, {"title": "Crash", "tags": ["a", "b"]})
    [(kind, severity, *_, message)] = changes(result)
    assert (kind, severity) == ("type_changed", "info")
    assert message.startswith("tags: string") and "a text sent split into a list" in message


@pytest.mark.parametrize("sent", ["bug,ui,p1", "bug;docs", "ui,bug"])
def test_a_list_joined_into_another_text_stays_loud(sent):
    result = call({"title": "Crash", "labels": ["bug", "ui"]}, {"title": "Crash", "labels": sent})
    assert [c[1] for c in changes(result)] == ["warning"]


def test_a_request_schema_that_wants_the_list_makes_the_join_an_error():
    contract = {"request_schema": labels_schema("array")}
    result = call({"title": "Crash", "labels": ["bug", "ui"]}, {"labels": "bug,ui"}, contract)
    assert [c[:2] for c in changes(result)] == [("type_changed", "error")]


def test_a_request_schema_that_wants_one_text_keeps_the_join_info():
    contract = {"request_schema": labels_schema("string")}
    result = call({"title": "Crash", "labels": ["bug", "ui"]}, {"labels": "bug,ui"}, contract)
    [(_, severity, *_, message)] = changes(result)
    assert severity == "info" and "the request schema asks for this form" in message


@pytest.mark.parametrize("inferred", [False, True])
def test_a_pair_the_contract_or_the_history_maps_as_it_is_stays_loud_joined(inferred):
    entry = {
        "arguments": "/labels",
        "request": "/labels",
        **({"inferred": True} if inferred else {}),
    }
    result = call({"labels": ["bug", "ui"]}, {"labels": "bug,ui"}, {"mapping": [entry]})
    assert [c[1] for c in changes(result)] == ["warning"]


# --- a number clamped to its stated bound ---------------------------------------------------------


def limit_contract(limit: dict) -> dict:
    return {"arguments_schema": {"type": "object", "properties": {"limit": limit}}}


MAX_200 = {"type": "number", "description": "Maximum number of channels (default 100, max 200)"}
LIST = "https://slack.com/api/conversations.list?limit={}&types=public_channel"


@pytest.mark.parametrize(
    "schema",
    [
        MAX_200,
        {"type": "integer", "description": "How many to return, up to 200."},
        {"type": "integer", "description": "Page size (maximum: 200)"},
        {"type": "integer", "maximum": 200},
    ],
)
def test_a_number_lowered_to_the_maximum_its_contract_states_is_info(schema):
    result = call({"limit": 1000}, None, limit_contract(schema), LIST.format(200))
    [(kind, severity, *_, message)] = changes(result)
    assert (kind, severity) == ("value_changed", "info")
    assert "clamped to the maximum the argument's contract states (200)" in message


def test_a_number_clamped_in_a_json_body_and_raised_to_a_stated_minimum_are_info():
    body = call({"limit": 1000}, {"limit": 200}, limit_contract(MAX_200))
    raised = call(
        {"limit": 0},
        {"limit": 1},
        limit_contract({"type": "integer", "description": "At least 1, at most 100"}),
    )
    assert [c[1] for c in changes(body) + changes(raised)] == ["info", "info"]
    assert "clamped to the minimum" in changes(raised)[0][4]


@pytest.mark.parametrize(
    "limit, sent, schema",
    [
        # raised where the contract states a maximum
        (10, 11, MAX_200),
        # lowered, but not to the stated bound
        (1000, 150, MAX_200),
        # lowered where nothing states a bound
        (1000, 200, {"type": "number", "description": "Number of channels (default 100)"}),
    ],
)
def test_a_number_changed_past_any_stated_bound_stays_loud(limit, sent, schema):
    result = call({"limit": limit}, None, limit_contract(schema), LIST.format(sent))
    assert [c[:2] for c in changes(result)] == [("value_changed", "warning")]


# --- a text split into objects, JSON text decoded -------------------------------------------------


def test_a_text_split_into_one_field_objects_is_info():
    result = call(
        {"title": "Crash", "labels": "Bug,UI"},
        {"title": "Crash", "labels": [{"name": "Bug"}, {"name": "UI"}]},
    )
    [(kind, severity, *_, message)] = changes(result)
    assert severity == "info" and "a text sent split into a list" in message


def test_a_text_split_into_objects_of_other_values_stays_loud():
    result = call(
        {"title": "Crash", "labels": "Bug,UI"},
        {"title": "Crash", "labels": [{"name": "Bug"}, {"name": "Docs"}]},
    )
    assert "warning" in [c[1] for c in changes(result)]


@pytest.mark.parametrize(
    "value, sent, what",
    [
        ('{"state": "open", "n": 2}', {"state": "open", "n": 2}, "a JSON text sent decoded"),
        ({"state": "open"}, '{"state":"open"}', "a value sent encoded as JSON text"),
    ],
)
def test_json_text_decoded_or_encoded_is_info_that_says_what_would_settle_it(value, sent, what):
    result = call({"title": "Crash", "filter": value}, {"title": "Crash", "filter": sent})
    [(kind, severity, *_, message)] = changes(result)
    assert (kind, severity) == ("type_changed", "info")
    assert what in message and "the tool's earlier calls would settle it" in message


def test_json_text_decoded_into_another_object_stays_loud():
    result = call(
        {"title": "Crash", "filter": '{"state": "open"}'},
        {"title": "Crash", "filter": {"state": "closed"}},
    )
    assert "warning" in [c[1] for c in changes(result)]


@pytest.mark.parametrize("value, sent", [(5, "5"), (True, "true"), (2.5, "2.5")])
def test_a_number_or_boolean_turned_text_in_json_stays_loud(value, sent):
    result = call({"title": "Crash", "n": value}, {"title": "Crash", "n": sent})
    assert [c[:2] for c in changes(result)] == [("type_changed", "warning")]


# --- a value looked up ----------------------------------------------------------------------------

UUID_1 = "9cfb482a-81e3-4154-b5b9-2c805e70a02d"
UUID_2 = "0b1c2d3e-5f60-4718-8a9b-0c1d2e3f4a5b"


@pytest.mark.parametrize(
    "argument, value, field, sent",
    [
        ("team", "ENG", "teamId", UUID_1),
        ("team", "ENG", "team_id", 4411),
        ("assignee", "alice@example.com", "assigneeId", UUID_1),
        ("project", "Website", "project_id", "proj_8f2k1"),
    ],
)
def test_a_value_sent_as_the_id_its_key_names_is_a_look_up_and_info(argument, value, field, sent):
    result = call({"title": "Crash", argument: value}, {"title": "Crash", field: sent})
    [(_, severity, left, right, message)] = changes(result)
    assert (severity, left, right) == ("info", f"/{argument}", f"/{field}")
    assert f"{field} names the id of {argument}: a value looked up" in message
    assert "the tool's earlier calls (the same input, the same id) would settle it" in message


def test_every_item_of_a_list_looked_up_is_info_and_an_item_lost_is_loud():
    looked = call({"labels": ["bug", "ui"]}, {"labelIds": [UUID_1, UUID_2]})
    lost = call({"labels": ["bug", "ui"]}, {"labelIds": [UUID_1]})
    assert [c[1:4] for c in changes(looked)] == [("info", "/labels", "/labelIds")]
    assert [c[1] for c in changes(lost)] == ["warning"]


@pytest.mark.parametrize(
    "argument, field, sent",
    [
        # the key says the field is the same: a value changed
        ("team", "team", UUID_1),
        # an id key, but no id sent
        ("team", "teamId", "Platform team"),
        # the argument was an id already
        ("team_id", "teamId", UUID_1),
    ],
)
def test_a_value_changed_where_nothing_names_a_look_up_stays_loud(argument, field, sent):
    result = call({"title": "Crash", argument: "ENG"}, {"title": "Crash", field: sent})
    assert [c[1] for c in changes(result)] == ["warning"]


ACCOUNT = "AC3f8e2b9d41c07a65e2d1b0c9f4a8e7d3"


@pytest.mark.parametrize("given", ["default", "YOUR_ACCOUNT_SID", "<account_sid>", "me"])
def test_a_text_standing_in_for_an_id_sent_as_the_layers_id_is_info(given):
    result = call(
        {"title": "Crash", "accountSid": given}, {"title": "Crash", "accountSid": ACCOUNT}
    )
    [change] = changes(result)
    assert change[1:4] == ("info", "/accountSid", "/accountSid")
    assert "stands in for one, sent as an id: the layer's default or a look-up" in change[4]


@pytest.mark.parametrize("given", ["acme", "YOUR_TEAM", "ACb41d7e02c95f3a6811e0d2c7b9f4a365"])
def test_an_id_or_a_name_under_its_own_key_sent_as_another_id_stays_loud(given):
    result = call(
        {"title": "Crash", "accountSid": given}, {"title": "Crash", "accountSid": ACCOUNT}
    )
    assert [c[1] for c in changes(result)] == ["warning"]


def test_an_item_replaced_among_items_kept_stays_loud():
    result = call({"tags": ["bug", "ui", "p1"]}, {"tags": ["bug", "ui-x", "p1"]})
    assert [c[1] for c in changes(result)] == ["warning"]


# --- a duration sent as a number ------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, sent, unit",
    [
        ("1h 30m", 5400, "seconds"),
        ("90 minutes", 90, "minutes"),
        ("PT1H30M", 5400000, "milliseconds"),
        ("2 days", 48, "hours"),
    ],
)
def test_a_duration_sent_as_a_number_of_some_unit_is_info(value, sent, unit):
    result = call({"title": "Standup", "duration": value}, {"title": "Standup", "duration": sent})
    [(_, severity, *_, message)] = changes(result)
    assert severity == "info" and f"a duration sent as a number of {unit}" in message


def test_a_duration_sent_in_a_query_as_seconds_is_info():
    url = "https://api.example.com/timers?duration=5400&name=focus"
    result = call({"name": "focus", "duration": "1h 30m"}, None, None, url)
    assert [c[1] for c in changes(result)] == ["info"]


@pytest.mark.parametrize(
    "value, sent", [("1h 30m", 5401), ("1h 30m", 130), ("1h 30m later", 5400), ("v2", 2)]
)
def test_a_duration_sent_as_no_unit_of_it_stays_loud(value, sent):
    result = call({"title": "Standup", "duration": value}, {"title": "Standup", "duration": sent})
    assert [c[1] for c in changes(result)] == ["warning"]


@pytest.mark.parametrize(
    "value, sent",
    [
        # Google Calendar's MCP server: the model's local time, read in the calendar's zone
        ("2026-11-15T09:00:00", "2026-11-15T08:00:00Z"),
        ("2026-11-15T09:00:00", "2026-11-15T09:00:00Z"),
        ("2026-11-15T09:00:00", "2026-11-15T14:30:00+05:30"),
    ],
)
def test_a_time_without_an_offset_sent_in_a_zone_is_info_that_says_what_would_settle_it(
    value, sent
):
    result = call({"timeMin": value, "q": "x"}, {"timeMin": sent, "q": "x"})
    [(kind, severity, message)] = [
        (f["kind"], f["severity"], f["message"])
        for f in result["findings"]
        if f["left"] and f["left"]["path"] == "/timeMin"
    ]
    assert (kind, severity) == ("format_changed", "info")
    assert "the tool's earlier calls would settle it" in message


@pytest.mark.parametrize(
    "value, sent",
    # another date written another way, a time with an offset moved to another instant
    [("2026-11-15", "15/11/2026"), ("2026-11-15T09:00:00+01:00", "2026-11-15T09:00:00Z")],
)
def test_a_date_written_another_way_or_an_instant_moved_stays_loud(value, sent):
    assert loud(call({"timeMin": value, "q": "x"}, {"timeMin": sent, "q": "x"}))


# --- an id written another way, a name looked up (issue 32, item 2) -------------------------------

SENTRY_NOTE = "https://sentry.io/api/0/organizations/acme/issues/{}/notes/"


@pytest.mark.parametrize("given, sent", [("ios-7", "IOS-7"), ("payments-2b1", "PAYMENTS-2B1")])
def test_an_id_upper_cased_into_a_url_segment_is_info_that_says_what_would_settle_it(given, sent):
    # Sentry's layer upper-cases a short issue id; a slip would look the same in one call
    arguments = {"organizationSlug": "acme", "issueId": given, "text": "Seen on Safari"}
    result = call(arguments, {"text": "Seen on Safari"}, url=SENTRY_NOTE.format(sent))
    [found] = [f for f in result["findings"] if f["kind"] == "enum_changed"]
    assert (found["severity"], found["left"]["path"]) == ("info", "/issueId")
    assert "the tool's history or a contract would tell a normalisation" in found["message"]
    assert not loud(result)


def test_an_id_whose_separator_changed_on_its_way_to_a_query_is_info():
    # a node id copied from a URL (`1234-5678`) sent in the API's form (`1234:5678`)
    result = call(
        {"fileKey": "kX2pQ9", "nodeId": "1234-5678"},
        None,
        url="https://api.figma.com/v1/files/kX2pQ9/nodes?ids=1234%3A5678",
    )
    [found] = [f for f in result["findings"] if f["kind"] == "enum_changed"]
    assert (found["severity"], found["right"]["path"]) == ("info", "query:/ids")
    assert not loud(result)


@pytest.mark.parametrize(
    "arguments, body, schema",
    [
        # a word of a closed set: the enum's case changed
        ({"cabin": "economy"}, {"cabin": "ECONOMY"}, None),
        # an id under its own key: the names say the field is the same
        ({"sku": "b-2"}, {"sku": "B-2"}, None),
        # the argument's values are declared: the sent one is none of them
        (
            {"code": "eu-1"},
            {"region": "EU-1"},
            {"type": "object", "properties": {"code": {"enum": ["eu-1", "us-2"]}}},
        ),
    ],
)
def test_a_case_change_one_call_can_decide_stays_loud(arguments, body, schema):
    contract = {"arguments_schema": schema} if schema else None
    result = call({"title": "Crash", **arguments}, {"title": "Crash", **body}, contract)
    assert [f["severity"] for f in result["findings"] if f["kind"] == "enum_changed"] == ["warning"]


CALENDAR = "https://www.googleapis.com/calendar/v3/calendars/{}/events/4r1bq2?sendUpdates=all"


@pytest.mark.parametrize(
    "given, sent",
    [
        ("Team Offsite", "c_8f2k1m9q0r4t6v3b5n7p2s1d9g@group.calendar.google.com"),
        ("holidays in germany", "en.german#holiday@group.v.calendar.google.com"),
        ("on-call", "c_1a2b3c4d5e6f7g8h9i0j@group.calendar.google.com"),
    ],
)
def test_a_name_given_for_an_id_and_sent_as_one_is_a_look_up(given, sent):
    # googleapis' layer looks a calendar's name up in the account's list and sends its id
    url = CALENDAR.format(quote(sent, safe=""))
    result = call({"calendarId": given, "eventId": "4r1bq2"}, None, url=url)
    [found] = [f for f in result["findings"] if f["left"] and f["left"]["path"] == "/calendarId"]
    assert (found["kind"], found["severity"], found["right"]["path"]) == (
        "value_changed",
        "info",
        "path:/3",
    )
    assert "calendarId names an id and was given a name" in found["message"]
    assert not loud(result)


def test_an_id_given_for_an_id_and_sent_as_another_stays_loud():
    url = CALENDAR.format(quote("c_1a2b3c4d5e6f7g8h9i0j@group.calendar.google.com", safe=""))
    result = call({"calendarId": "ana.okafor@acme.io", "eventId": "4r1bq2"}, None, url=url)
    [found] = [f for f in result["findings"] if f["left"] and f["left"]["path"] == "/calendarId"]
    assert (found["kind"], found["severity"]) == ("value_changed", "warning")
