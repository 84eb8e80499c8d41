"""Crowds of tools and releases (issue 34).

With 3,000 of each, every page and JSON list stays under 300 KB by default, pages through with
cursors, offers the most used values in its filters and finds the rest by search, and the quarantine
page and readiness say the crowd looks like a misconfiguration (tests/crowds.py builds it)."""

import re

import pytest
from crowds import POPULAR, RARE, TOOLS, release_name, tool_name

from webapp import create_app

BOUND = 300 * 1024
PAGES = (
    "/",
    "/index.json",
    "/tools",
    "/tools.json",
    "/releases",
    "/releases.json",
    "/problems",
    "/problems.json",
    "/quarantine",
    "/quarantine.json",
    "/settings/alerts",
    "/api/v1/releases",
    "/api/v1/tools",
    "/api/v1/traces",
    "/api/v1/problems",
    "/api/v1/alerts",
    "/api/v1/ready",
    f"/tools/{tool_name(0)}",
    f"/problems?tool={tool_name(RARE)}",
)
# each list's JSON, the key of its items, and what tells one item from another
LISTS = {
    "/tools.json": ("tools", "name"),
    "/api/v1/releases": ("releases", "release"),
    "/releases.json": ("releases", "release"),
    "/api/v1/problems": ("problems", "id"),
    "/index.json": ("traces", "trace_id"),
}


@pytest.fixture
def crowd_client(db_path, crowd):
    return create_app({"TESTING": True, "DATABASE": str(db_path), "ANALYZER": "off"}).test_client()


@pytest.mark.parametrize("url", PAGES)
def test_with_3000_tools_and_releases_every_page_stays_under_300_kb(crowd_client, url):
    answer = crowd_client.get(url)
    assert answer.status_code == 200 and len(answer.data) < BOUND, (
        url,
        answer.status_code,
        len(answer.data),
    )


@pytest.mark.parametrize("url", LISTS)
def test_paging_with_cursors_returns_every_item_exactly_once(crowd_client, crowd, url):
    key, field = LISTS[url]
    seen, cursor = [], None
    while True:
        page = crowd_client.get(
            url, query_string={"limit": 400, **({"cursor": cursor} if cursor else {})}
        )
        assert page.status_code == 200, page.get_json()
        seen += [item[field] for item in page.get_json()[key]]
        cursor = page.get_json()["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == len(set(seen))
    if key == "tools":
        assert set(seen) == {tool_name(n) for n in range(TOOLS)}
    elif key == "releases":
        assert set(seen) == {release_name(n) for n in range(TOOLS)} | {"1.0.0"}
    else:
        # more than a default page: the cursor was followed
        assert len(seen) > 50


def test_a_cursor_that_is_not_ours_is_a_400_for_the_api_and_the_first_page_for_a_page(crowd_client):
    # "!!!" and a NUL are no base64 at all: once decoded as nothing, they read as the first page
    for url in ("/tools.json", "/api/v1/releases", "/api/v1/tools", "/api/v1/alerts"):
        for cursor in ("not-a-cursor", "!!!", "\x00"):
            answer = crowd_client.get(url, query_string={"cursor": cursor})
            assert answer.status_code == 400, (url, cursor)
            assert answer.get_json()["error"]["code"] == "bad_cursor", (url, cursor)
    assert crowd_client.get("/tools?cursor=not-a-cursor").status_code == 200
    assert crowd_client.get("/releases?cursor=not-a-cursor").status_code == 200


def test_the_pages_link_to_the_next_page(crowd_client):
    for url, first in (("/tools", tool_name(0)), ("/releases", "1.0.0")):
        html = crowd_client.get(url).get_data(as_text=True)
        link = re.search(r'class="next-page" href="([^"]+)"', html).group(1).replace("&amp;", "&")
        following = crowd_client.get(link).get_data(as_text=True)
        rows = [re.search(r"<tbody>[\s\S]*?</tbody>", page).group(0) for page in (html, following)]
        assert first in rows[0] and first not in rows[1] and rows[1].count("<tr") == 50, url


def test_the_tool_filter_offers_the_busiest_tools_and_search_finds_a_rare_one(crowd_client):
    html = crowd_client.get("/").get_data(as_text=True)
    offered = re.findall(
        r'<option value="([^"]+)">', re.search(r"<datalist[\s\S]*?</datalist>", html).group(0)
    )
    assert (
        offered[: POPULAR // 10] == [tool_name(n) for n in range(POPULAR // 10)]
        and len(offered) == 50
    )
    assert tool_name(RARE) not in html
    found = crowd_client.get(
        "/values/tool", query_string={"tool": str(RARE)}, headers={"HX-Request": "true"}
    )
    assert found.get_data(as_text=True).strip() == f'<option value="{tool_name(RARE)}"></option>'
    assert crowd_client.get(f"/values/tool.json?q=TOOL_{RARE}").get_json()["values"] == [
        tool_name(RARE)
    ]
    # bounded
    assert len(crowd_client.get("/values/release.json?q=build").get_json()["values"]) == 50
    assert crowd_client.get("/values/source.json?q=app").get_json()["values"] == ["app_intent"]
    assert crowd_client.get("/values/nothing.json?q=a").status_code == 404


def test_the_problem_filters_offer_the_top_values_and_the_list_takes_a_rare_one(crowd_client):
    html = crowd_client.get("/problems").get_data(as_text=True)
    tools = re.search(r'<datalist id="tool-values">([\s\S]*?)</datalist>', html).group(1)
    assert tools.count("<option") == 50 and tool_name(0) in tools and tool_name(RARE) not in tools
    rare = crowd_client.get("/problems.json", query_string={"tool": tool_name(RARE)}).get_json()[
        "problems"
    ]
    assert [p["tool"] for p in rare] == [tool_name(RARE)]


def test_the_crowd_is_said_as_a_likely_misconfiguration_past_the_threshold(crowd_client, db_path):
    html = crowd_client.get("/quarantine").get_data(as_text=True)
    assert "1,001 releases since 2026-03-01 13:00 UTC from source app_intent" in html
    assert "3,000 tools called since" in html
    ready = crowd_client.get("/api/v1/ready").get_json()
    assert ready["status"] == "ready" and len(ready["warnings"]) == 4
    assert "is a build id or a deploy id being sent as the release?" in ready["warnings"][0]
    calm = create_app(
        {"TESTING": True, "DATABASE": str(db_path), "ANALYZER": "off", "CROWD_THRESHOLD": 5000}
    )
    assert calm.test_client().get("/api/v1/ready").get_json()["warnings"] == []
    assert calm.test_client().get("/quarantine.json").get_json()["warnings"] == []


def test_contracts_and_alert_rules_are_listed_a_page_at_a_time(client, store):
    for n in range(5):
        store.put_tool(f"tool{n}", {"arguments_schema": {"type": "object"}})
        rule = {"url": f"http://h/{n}", "format": "webhook", "on": ["new"], "min_interval_s": 0}
        store.add_rule(
            {**dict.fromkeys(("tool", "kind", "min_severity", "source")), **rule}, "whsec_x"
        )
    for url, key in (("/api/v1/tools", "tools"), ("/api/v1/alerts", "rules")):
        first = client.get(url, query_string={"limit": 3}).get_json()
        rest = client.get(url, query_string={"limit": 3, "cursor": first["next_cursor"]}).get_json()
        assert len(first[key]) == 3 and len(rest[key]) == 2 and rest["next_cursor"] is None, url
        assert len({str(item.get("name", item.get("id"))) for item in first[key] + rest[key]}) == 5
