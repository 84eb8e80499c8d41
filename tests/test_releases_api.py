"""GET /api/v1/releases and the /releases page on the four-hour incident.

An old problem from 1.0.0, two new in 1.1.0; releases in the order they appeared."""

import re

import pytest
from problem_helpers import send
from release_helpers import CONTRACT, incident
from test_releases_store import BASE

from webapp import pipeline


@pytest.fixture
def incident_client(client, store):
    store.put_tool("findOrders", CONTRACT)
    send(client, *incident(BASE))
    pipeline.catch_up(store)
    return client


def test_the_api_lists_both_releases_with_their_new_problems(incident_client):
    answer = incident_client.get("/api/v1/releases")
    assert answer.status_code == 200
    releases = answer.get_json()["releases"]
    assert [(r["release"], r["new_problems"]) for r in releases] == [
        ("1.1.1", 0),
        ("1.1.0", 2),
        ("1.0.0", 1),
    ]
    assert releases[1]["new_problems_url"].endswith("/problems?new_in=1.1.0")
    assert {
        "first_seen",
        "last_seen",
        "calls",
        "with_findings",
        "regressed_problems",
        "sources",
    } <= set(releases[0])


def test_new_in_returns_exactly_the_problems_the_release_brought(incident_client):
    new = incident_client.get("/api/v1/problems?new_in=1.1.0").get_json()["problems"]
    assert sorted(p["kind"] for p in new) == ["dropped", "enum_changed"]
    everything = incident_client.get("/api/v1/problems").get_json()["problems"]
    old = [p for p in everything if p["id"] not in {n["id"] for n in new}]
    assert [p["kind"] for p in old] == ["type_changed"] and "1.0.0" in old[0]["releases"]


def test_a_comparison_names_what_broke_and_what_was_fixed(incident_client):
    broke = incident_client.get("/api/v1/releases?release=1.0.0&compare=1.1.0").get_json()[
        "comparison"
    ]
    assert (
        sorted(p["kind"] for p in broke["broke"]) == ["dropped", "enum_changed"]
        and broke["fixed"] == []
    )
    assert all(p["permalink"].endswith(f"/problems/{p['id']}") for p in broke["broke"])
    fixed = incident_client.get("/api/v1/releases?release=1.1.0&compare=1.1.1").get_json()[
        "comparison"
    ]
    assert fixed["broke"] == [] and sorted(p["kind"] for p in fixed["fixed"]) == [
        "dropped",
        "enum_changed",
    ]


def test_the_trace_list_keeps_the_traces_whose_calls_named_a_release(incident_client):
    """`release=` on the trace list (the MCP tool `search_traces` asks it), searched or not, paged
    with a cursor."""
    everything = {e["trace_id"]: e["release"] for e in incident(BASE)}
    for query in ("", "&q=findOrders", "&severity=warning"):
        found, cursor = [], ""
        while cursor is not None:
            page = incident_client.get(
                f"/api/v1/traces?release=1.1.0&limit=7{query}{cursor}"
            ).get_json()
            found += [trace["trace_id"] for trace in page["traces"]]
            cursor = page["next_cursor"] and f"&cursor={page['next_cursor']}"
        assert found and {everything[t] for t in found} == {"1.1.0"}
        if not query:
            assert sorted(found) == sorted(
                t for t, release in everything.items() if release == "1.1.0"
            )
    assert incident_client.get("/api/v1/traces?release=9.9.9").get_json()["traces"] == []


@pytest.mark.parametrize(
    "query, status, code",
    [
        ("?compare=1.1.0", 400, "bad_parameter"),
        ("?release=9.9.9", 404, "release_not_found"),
        ("?release=1.0.0&compare=nope", 404, "release_not_found"),
    ],
)
def test_bad_release_queries_answer_the_json_error(incident_client, query, status, code):
    for path in ("/api/v1/releases", "/releases.json"):
        answer = incident_client.get(path + query)
        assert answer.status_code == status
        assert (
            answer.get_json()["error"]["code"] == code
            and answer.get_json()["error"]["retryable"] is False
        )


def test_the_page_shows_both_releases_and_links_to_their_new_problems(incident_client):
    page = incident_client.get("/releases")
    html = page.get_data(as_text=True)
    assert (
        page.status_code == 200
        and page.headers["Vary"] == "HX-Request"
        and "<h1>Releases</h1>" in html
    )
    # newest first
    assert html.index("<code>1.1.0</code>") < html.index("<code>1.0.0</code>")
    assert 'href="/problems?new_in=1.1.0">2 new problems</a>' in html
    assert 'href="/releases?release=1.0.0&amp;compare=1.1.0">compare with 1.0.0</a>' in html
    fragment = incident_client.get(
        "/releases?release=1.0.0&compare=1.1.0", headers={"HX-Request": "true"}
    )
    text = fragment.get_data(as_text=True)
    assert text.startswith('<div id="releases"') and "<h1>" not in text
    assert (
        "What <code>1.1.0</code> broke that <code>1.0.0</code> did not" in text and "/since" in text
    )
    assert incident_client.get("/releases.json").get_json()["releases"][0]["release"] == "1.1.1"


def test_the_problem_list_filters_by_the_release_a_problem_is_new_in(incident_client):
    html = incident_client.get("/problems?new_in=1.1.0").get_data(as_text=True)
    assert html.count('class="problem-row') == 2 and re.search(r'name="new_in" value="1.1.0"', html)


def test_a_payload_release_name_stays_text(client, store):
    hostile = "<script>alert(1)</script>"
    send(
        client,
        {
            "trace_id": "a" * 32,
            "call_id": "c",
            "tool": "t",
            "snapshot": "arguments",
            "payload": {},
            "release": hostile,
        },
    )
    pipeline.catch_up(store)
    html = client.get("/releases").get_data(as_text=True)
    assert hostile not in html and "&lt;script&gt;" in html


def test_the_api_and_the_page_order_releases_by_first_seen_so_1_10_follows_1_9_and_a_sha_works(
    client, store
):
    from release_helpers import order_call, stamp
    from test_releases_store import BASE

    store.put_tool("findOrders", CONTRACT)
    # by name: 1.10.0 < 1.2.0 < 1.9.0 < 3f2a9c1d
    names = ["1.9.0", "1.10.0", "3f2a9c1d", "1.2.0"]
    send(
        client,
        *[
            e
            for n, release in enumerate(names)
            for e in order_call(n, stamp(BASE, 10 * n), release)
        ],
    )
    pipeline.catch_up(store)
    listed = [r["release"] for r in client.get("/api/v1/releases").get_json()["releases"]]
    # newest first seen first
    assert listed == ["1.2.0", "3f2a9c1d", "1.10.0", "1.9.0"]
    html = client.get("/releases").get_data(as_text=True)
    assert [html.index(f"<code>{name}</code>") for name in listed] == sorted(
        html.index(f"<code>{n}</code>") for n in listed
    )
    assert 'href="/releases?release=1.9.0&amp;compare=1.10.0">compare with 1.9.0</a>' in html
    sha = client.get("/api/v1/releases?release=3f2a9c1d").get_json()["releases"]
    assert [r["release"] for r in sha] == ["3f2a9c1d"] and sha[0]["calls"] == 1
