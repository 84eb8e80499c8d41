"""The tool pages and the mappings API.

What a person sees and what is stored."""

import re

import orjson
import pytest
from renames import TOOL, events, traffic

from webapp import create_app, pipeline
from webapp.store import Store

INGEST_TOKEN = "ingest-token-for-tool-pages"
READ_TOKEN = "read-token-for-tool-pages"
RENAMED = "7" * 32


@pytest.fixture
def learnt(client, db_path):
    """A bookTable tool with 25 correct calls analysed, so its renames are inferred."""
    assert client.post("/api/v1/ingest", data=orjson.dumps(traffic(25))).status_code == 200
    store = Store.open(db_path)
    pipeline.catch_up(store)
    yield store
    store.close()


def test_the_tool_list_shows_calls_findings_and_last_seen(client, learnt):
    html = client.get("/tools").get_data(as_text=True)
    assert (
        f'href="/tools/{TOOL}"' in html and "<td>25</td>" in html and "2026-11-20 09:24:00" in html
    )
    assert client.get("/tools.json").json["tools"] == [
        {
            "name": TOOL,
            "calls": 25,
            "with_findings": 0,
            "last_seen": "2026-11-20T09:24:00.000000Z",
            "contract": False,
            "open_problems": 0,
            "releases": [],
            "release_count": 0,
        }
    ]
    assert 'href="/tools">Tools</a>' in client.get("/").get_data(as_text=True)


def test_a_tool_page_shows_inferred_mappings_with_evidence_calls_and_strip(client, learnt):
    html = client.get(f"/tools/{TOOL}").get_data(as_text=True)
    assert "<code>seats</code> →\n      <code>quantity</code>:" in html
    assert "equal in 25 of 25 calls" in html
    assert (
        html.count('class="confirm"') == 5
        and 'aria-label="Calls and findings per tool and hour"' in html
    )
    assert html.count('class="trace-row sev-') == 25
    data = client.get(f"/tools/{TOOL}.json").json
    assert {
        (m["arguments"], m["request"], m["evidence"]) for m in data["mappings"]["inferred"]
    } >= {("/seats", "/quantity", "equal in 25 of 25 calls")}
    assert len(data["calls"]) == 25 and data["contract"] is None


def test_a_tool_pages_recent_calls_say_clean_or_incomplete_once_analysed_never_pending(
    client, db_path
):
    def event(trace, snapshot, payload, minute):
        return {
            "trace_id": trace * 32,
            "call_id": "c",
            "tool": "echoTool",
            "snapshot": snapshot,
            "ts": f"2026-11-20T10:0{minute}:00Z",
            "payload": payload,
        }

    clean = [event("8", s, {"note": "hi"}, 1) for s in ("arguments", "request", "response")]
    lone = event("9", "arguments", {"note": "hi"}, 2)
    assert client.post("/api/v1/ingest", json=[*clean, lone]).status_code == 200
    store = Store.open(db_path)
    pipeline.catch_up(store)
    store.close()
    html = client.get("/tools/echoTool").get_data(as_text=True)
    # once analysed, a call with no warning is clean, or incomplete when a stage never came
    badges = re.findall(r'<span class="badge sev-([a-z]+)">([a-z]+)</span>', html)
    assert badges == [("incomplete", "incomplete"), ("clean", "clean")], badges
    calls = client.get("/tools/echoTool.json").json["calls"]
    assert [(c["analyzed"], c["complete"], c["worst"]) for c in calls] == [
        (True, False, None),
        (True, True, None),
    ]


def test_confirming_from_the_page_writes_the_pair_into_the_contract(client, learnt):
    answer = client.post(
        f"/tools/{TOOL}/mappings/confirm", data={"arguments": "/seats", "request": "/quantity"}
    )
    assert answer.status_code == 303 and answer.headers["Location"] == f"/tools/{TOOL}"
    assert learnt.get_tool(TOOL)["mapping"] == [{"arguments": "/seats", "request": "/quantity"}]
    html = client.get(f"/tools/{TOOL}").get_data(as_text=True)
    # the confirmed pair is declared now
    assert html.count('class="confirm"') == 4


def test_rejecting_with_htmx_answers_the_mappings_region_and_keeps_the_pair_out(client, learnt):
    answer = client.post(
        f"/tools/{TOOL}/mappings/reject",
        data={"arguments": "/date", "request": "/day"},
        headers={"HX-Request": "true"},
    )
    html = answer.get_data(as_text=True)
    assert answer.status_code == 200 and html.startswith('<section id="mappings"')
    assert "Rejected (kept out of inference)" in html and (
        "/date",
        "/day",
    ) not in learnt.inferred_pairs(TOOL)


def test_the_mappings_api_lists_and_confirms_and_refuses_bad_pairs(client, learnt):
    listed = client.get(f"/api/v1/tools/{TOOL}/mappings").json
    assert [m["arguments"] for m in listed["inferred"]] == [
        "/child_count",
        "/date",
        "/notes",
        "/seats",
        "/store_id",
    ]
    done = client.post(
        f"/api/v1/tools/{TOOL}/mappings/confirm",
        json={"arguments": "/seats", "request": "/quantity"},
    )
    assert (
        done.status_code == 200
        and done.json["declared"][0]["evidence"] == "equal in 25 of 25 calls"
    )
    bad = client.post(
        f"/api/v1/tools/{TOOL}/mappings/confirm",
        json={"arguments": "seats", "request": "/quantity"},
    )
    assert bad.status_code == 400 and bad.json["error"]["code"] == "bad_pointer"
    assert (
        client.post(f"/api/v1/tools/{TOOL}/mappings/confirm", json=["x"]).json["error"]["code"]
        == "bad_pair"
    )
    assert client.post(f"/api/v1/tools/{TOOL}/mappings/confirm", data=b"{").status_code == 422
    missing = client.get("/api/v1/tools/nope/mappings")
    assert missing.status_code == 404 and missing.json["error"]["code"] == "tool_not_found"
    assert (
        client.get("/tools/nope").status_code == 404
        and client.get("/tools/nope.json").status_code == 404
    )


@pytest.fixture
def guarded(db_path):
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(db_path),
            "ANALYZER": "off",
            "INGEST_TOKENS": INGEST_TOKEN,
            "READ_TOKENS": READ_TOKEN,
        }
    )
    client = app.test_client()
    client.post(
        "/api/v1/ingest",
        data=orjson.dumps(traffic(25)),
        headers={"Authorization": f"Bearer {INGEST_TOKEN}"},
    )
    pipeline.catch_up(Store.open(db_path))
    return client


def test_with_tokens_changing_a_mapping_needs_an_ingest_token(guarded):
    pair = {"arguments": "/seats", "request": "/quantity"}
    read = {"Authorization": f"Bearer {READ_TOKEN}"}
    assert (
        guarded.post(f"/api/v1/tools/{TOOL}/mappings/confirm", json=pair, headers=read).json[
            "error"
        ]["code"]
        == "read_only_token"
    )
    page = guarded.get(f"/tools/{TOOL}", auth=("me", READ_TOKEN)).get_data(as_text=True)
    assert 'class="confirm"' not in page and "tracediff tools map bookTable seats=quantity" in page
    refused = guarded.post(f"/tools/{TOOL}/mappings/confirm", data=pair, auth=("me", READ_TOKEN))
    assert refused.status_code == 401 and any(
        h.startswith('Basic realm="tracediff"') for h in refused.headers.getlist("WWW-Authenticate")
    )
    ok = guarded.post(f"/tools/{TOOL}/mappings/confirm", data=pair, auth=("me", INGEST_TOKEN))
    assert ok.status_code == 303
    api = guarded.post(
        f"/api/v1/tools/{TOOL}/mappings/reject",
        json={"arguments": "/date", "request": "/day"},
        headers={"Authorization": f"Bearer {INGEST_TOKEN}"},
    )
    assert api.status_code == 200 and api.json["rejected"] == [
        {"arguments": "/date", "request": "/day"}
    ]


def test_a_cross_site_form_cannot_change_a_mapping(client, learnt):
    answer = client.post(
        f"/tools/{TOOL}/mappings/confirm",
        data={"arguments": "/seats", "request": "/quantity"},
        headers={"Sec-Fetch-Site": "cross-site"},
    )
    assert answer.status_code == 403 and learnt.get_tool(TOOL) is None


def test_a_missed_rename_offers_pair_these_and_the_form_declares_it(client, db_path):
    # a count that reached the request as text no pairing can read: a rename only a person can
    # declare
    arguments = {"seats": 4, "store_id": "st_1"}
    request = {"quantity": "many", "locationId": "st_1"}
    client.post("/api/v1/ingest", data=orjson.dumps(events(arguments, request, RENAMED)))
    html = client.get(f"/traces/{RENAMED}").get_data(as_text=True)
    dropped = [line for line in html.splitlines() if "seats dropped" in line]
    # should the analysis learn to pair this rename by itself, choose a rename it cannot pair
    assert dropped, "the trace page no longer reports seats dropped"
    assert "declare the pair: tracediff tools map bookTable seats=quantity" in dropped[0]
    assert '<button type="submit">pair these</button>' in html
    assert '<option value="/quantity">/quantity</option>' in html
    back = f"/traces/{RENAMED}?call=call_01"
    answer = client.post(
        f"/tools/{TOOL}/mappings/confirm",
        data={"arguments": "/seats", "request": "/quantity", "next": back},
    )
    assert answer.status_code == 303 and answer.headers["Location"] == back
    assert Store.open(db_path).get_tool(TOOL)["mapping"] == [
        {"arguments": "/seats", "request": "/quantity"}
    ]
    assert "seats dropped" not in client.get(back).get_data(as_text=True)


def test_a_form_cannot_send_the_browser_to_another_site(client, learnt):
    for target in ("//evil.example/x", "/\\evil.example", "https://evil.example/"):
        answer = client.post(
            f"/tools/{TOOL}/mappings/reject",
            data={"arguments": "/seats", "request": "/quantity", "next": target},
        )
        assert answer.headers["Location"] == f"/tools/{TOOL}"


def test_the_list_mutes_info_kinds_and_is_current_after_a_contract_change(client, learnt):
    html = client.get("/").get_data(as_text=True)
    # info findings only
    assert 'class="kind quiet"' in html and 'class="kind"' not in html
    schema = {"type": "object", "properties": {"quantity": {"type": "string"}}}
    client.put(f"/api/v1/tools/{TOOL}", json={"request_schema": schema})
    html = client.get("/").get_data(as_text=True)
    # re-analysed for the list, as a trace page would be
    assert "sev-error" in html and "pending" not in html


# MCP servers and namespaced tools put `/` in names
SLASHED = "github/issues create"


def test_a_tool_whose_name_holds_a_slash_has_its_page_json_api_and_mappings(client, db_path):
    call = [
        {
            "trace_id": "5" * 32,
            "call_id": "c1",
            "snapshot": snapshot,
            "tool": SLASHED,
            "payload": {"title": "Bug", "labels": ["x"]},
        }
        for snapshot in ("arguments", "request")
    ]
    assert client.post("/api/v1/ingest", data=orjson.dumps(call)).get_json()["accepted"] == 2
    listed = client.get("/tools").get_data(as_text=True)
    assert 'href="/tools/github/issues%20create"' in listed
    page = client.get("/tools/github/issues%20create")
    assert page.status_code == 200 and "<code>github/issues create</code>" in page.get_data(
        as_text=True
    )
    assert client.get("/tools/github%2Fissues%20create.json").json["name"] == SLASHED
    contract = {"arguments_schema": {"type": "object", "required": ["title"]}}
    assert client.put(f"/api/v1/tools/{SLASHED}", json=contract).status_code == 200
    assert (
        client.get(f"/api/v1/tools/{SLASHED}").json["arguments_schema"]
        == contract["arguments_schema"]
    )
    pair = {"arguments": "/title", "request": "/title"}
    assert client.post(f"/api/v1/tools/{SLASHED}/mappings/confirm", json=pair).status_code == 200
    assert pair in [
        {k: m[k] for k in ("arguments", "request")}
        for m in client.get(f"/api/v1/tools/{SLASHED}/mappings").json["declared"]
    ]
    assert client.delete(f"/api/v1/tools/{SLASHED}").status_code == 204
    assert client.get(f"/api/v1/tools/{SLASHED}").status_code == 404
    # any text routes, as before names could hold `/`: a line break too, and the contract API
    # answers for it (a name no event could carry is refused in the one error shape)
    refused = client.put("/api/v1/tools/a%0Ab", json=contract)
    assert refused.status_code == 400 and refused.json["error"]["code"] == "bad_name"


@pytest.mark.slow
def test_a_real_server_serves_a_slashed_tool_name_sent_as_is_or_percent_encoded(live_server):
    import httpx

    call = {
        "trace_id": "6" * 32,
        "snapshot": "arguments",
        "tool": "mcp/fs/read",
        "payload": {"path": "/a"},
    }
    httpx.post(live_server.url + "/api/v1/ingest", content=orjson.dumps(call), timeout=30)
    for path in ("/tools/mcp/fs/read", "/tools/mcp%2Ffs%2Fread"):
        page = httpx.get(live_server.url + path, timeout=30)
        assert page.status_code == 200 and "<code>mcp/fs/read</code>" in page.text, path
    contract = {"arguments_schema": {"type": "object"}}
    assert (
        httpx.put(
            live_server.url + "/api/v1/tools/mcp%2Ffs%2Fread", json=contract, timeout=30
        ).status_code
        == 200
    )
    assert (
        httpx.get(live_server.url + "/api/v1/tools/mcp/fs/read", timeout=30).json()["name"]
        == "mcp/fs/read"
    )


def test_the_tool_list_shows_each_tools_open_problems_releases_and_hourly_strip(client, store):
    from datetime import UTC, datetime

    from problem_helpers import send
    from release_helpers import CONTRACT, incident

    store.put_tool("findOrders", CONTRACT)
    send(client, *incident(datetime(2026, 11, 20, 8, tzinfo=UTC)))
    pipeline.catch_up(store)
    html = client.get("/tools").get_data(as_text=True)
    row = html[html.index('<a href="/tools/findOrders">') :]
    assert '<a class="open-problems" href="/problems?tool=findOrders">3</a>' in row
    releases = row[
        row.index('class="releases"') : row.index("</td>", row.index('class="releases"'))
    ]
    # newest first seen first
    assert re.findall(r">([\d.]+)</a>", releases) == ["1.1.1", "1.1.0", "1.0.0"]
    assert 'href="/problems?tool=findOrders&amp;release=1.1.0"' in releases
    # the strip: one row a tool over the hours that have calls (08:00 to 11:59), each bar a link to
    # that hour
    strip = html[
        html.index('aria-label="Calls and findings per tool and hour"') : html.index("<table")
    ]
    assert strip.count('class="strip-row"') == 1 and "60 calls, 28 with findings" in strip
    assert (
        "2026-11-20 08:00 to 2026-11-20 11:59 UTC" in strip and "4 h up to the newest call" in strip
    )
    assert (
        'href="/?tool=findOrders&amp;since=2026-11-20T10%3A00%3A00&amp;until=2026-11-20T11%3A00%3A00"'
        in strip
    )


@pytest.mark.parametrize(
    "url", ["/tools/noSuchTool.json", "/problems/TD-999999.json", "/traces/nosuch.json"]
)
def test_the_json_twin_of_a_missing_page_answers_404_in_the_error_shape(client, url):
    answer = client.get(url)
    assert (
        answer.status_code == 404
        and answer.is_json
        and set(answer.get_json()["error"]) == {"code", "message", "retryable"}
    )


def test_a_response_field_dropped_from_the_result_offers_its_command_not_the_arguments_form(
    client,
):
    base = {"trace_id": "wb000001", "call_id": "c1", "tool": "bookTable2"}
    stages = [
        ("arguments", {"seats": 4}, None),
        ("request", {"seats": 4}, None),
        ("response", {"id": "b_1", "guests": 4}, {"status_code": 201}),
        ("result", {"ok": True}, None),
    ]
    sent = [
        {**base, "snapshot": stage, "payload": payload, **({"http": http} if http else {})}
        for stage, payload, http in stages
    ]
    client.post("/api/v1/ingest", data=orjson.dumps(sent))
    html = client.get("/traces/wb000001").get_data(as_text=True)
    assert "guests dropped: not in the result" in html, "the trace page no longer reports it"
    assert "<code>tracediff tools map bookTable2 --result guests=ok</code>" in html
    # the form declares argument -> request pairs: offered for none here
    assert '<button type="submit">pair these</button>' not in html
