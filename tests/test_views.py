"""The pages: the list, the permalink, page or fragment by HX-Request, escaping."""

import hashlib
import re
from urllib.parse import parse_qs, quote, urljoin, urlparse

import pytest
from helpers import TRACE, envelope, ndjson, order_call

from webapp.web.render.aligned import COUNT_ROWS, FIRST_ROWS, MORE_ROWS


def ingest(client, *events):
    assert client.post("/api/v1/ingest", data=ndjson(*events)).status_code == 200


def test_the_list_shows_each_trace_with_its_tool_source_and_snapshots(client):
    ingest(client, *[dict(event, source="foundation_models") for event in order_call()[:2]])
    html = client.get("/").get_data(as_text=True)
    assert TRACE in html and "findOrders" in html
    assert "<th>Source</th>" in html and '<td class="sources">foundation_models</td>' in html
    assert 'title="request arrived">req<' in html and 'title="response missing">res<' in html


def test_an_htmx_request_gets_only_the_rows_and_the_response_varies_on_it(client):
    ingest(client, *order_call())
    page = client.get("/")
    fragment = client.get("/", headers={"HX-Request": "true"})
    assert "<html" in page.get_data(as_text=True)
    assert "<html" not in fragment.get_data(as_text=True) and TRACE in fragment.get_data(
        as_text=True
    )
    assert "HX-Request" in fragment.headers["Vary"]


def test_the_permalink_shows_the_three_snapshots_with_http_metadata(client):
    ingest(client, *order_call())
    html = client.get(f"/traces/{TRACE}").get_data(as_text=True)
    for name in ("arguments", "request", "response"):
        assert name in html
    assert "https://api.example.com/orders/search" in html and "POST" in html
    assert '<span class="ptr">/limit</span> <code class="v">5</code>' in html


def test_payloads_are_escaped_on_the_page(client):
    hostile = {"<script>alert(1)</script>": "<img src=x onerror=alert(1)>"}
    ingest(client, envelope("arguments", hostile))
    for view in ("aligned", "raw"):
        html = client.get(f"/traces/{TRACE}?view={view}").get_data(as_text=True)
        assert "<script>alert(1)" not in html and "<img src=x" not in html
        assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert '<span class="key">&lt;script&gt;alert(1)&lt;/script&gt;</span>' in html


def test_an_unknown_trace_page_is_a_404(client):
    assert client.get("/traces/nope").status_code == 404


# -- with the sample traces ----------------------------------------------------------------


def sample_id(file_name: str) -> str:
    """The fixed trace id of a sample trace file (see sample_traces/README.md)."""
    return hashlib.sha256(f"tracediff-sample/{file_name}".encode()).hexdigest()[:32]


LIMIT_AS_STRING = sample_id("02-orders-limit-as-string.ndjson")
CLEAN_ORDERS = sample_id("01-orders-clean-snake-case.ndjson")
RESENT = sample_id("20-notes-request-resent-corrected.ndjson")
NO_RESPONSE = sample_id("15-tasks-response-never-came.ndjson")


def listed_ids(html: str) -> list[str]:
    return re.findall(r'href="/traces/([0-9a-f]{32})"', html)


def test_the_aligned_view_marks_the_type_change_row_with_kind_and_severity_in_text(client, samples):
    html = client.get(f"/traces/{LIMIT_AS_STRING}").get_data(as_text=True)
    row = re.search(r'<tr class="arow marked sev-error"[^>]*>(.*?)</tr>', html, re.S).group(1)
    assert 'id="arguments/limit"' in row and 'id="request/limit"' in row
    assert '<code class="v">5</code>' in row and '<code class="v">&#34;5&#34;</code>' in row
    assert "✖ type_changed · error" in row


def test_show_only_differences_hides_unchanged_rows_without_javascript(client, samples):
    full = client.get(f"/traces/{LIMIT_AS_STRING}").get_data(as_text=True)
    only = client.get(f"/traces/{LIMIT_AS_STRING}?only=diff").get_data(as_text=True)
    assert (
        '<span class="ptr">/status</span>' in full
        and '<span class="ptr">/status</span>' not in only
    )
    assert 'id="request/limit"' in only
    assert 'aria-checked="true"' in only and 'href="/traces/' in only


def test_findings_come_first_errors_first_with_both_ends_as_node_ids(client, samples):
    html = client.get(f"/traces/{LIMIT_AS_STRING}").get_data(as_text=True)
    assert html.index('id="findings"') < html.index('id="view"')
    first = re.search(
        r'<li class="finding sev-(\w+)" id="f-type_changed-arguments/limit-request/limit" '
        r'data-index="1"[^>]*>',
        html,
        re.S,
    )
    assert first.group(1) == "error"
    assert 'data-left="arguments/limit"' in first.group(
        0
    ) and 'data-right="request/limit"' in first.group(0)
    assert "limit: integer 5 became string" in html
    assert (
        f'href="/traces/{LIMIT_AS_STRING}?call=call_01#f-type_changed-arguments/limit-request/limit"'
        in html
    )


def test_validation_errors_are_listed_per_snapshot_with_their_message(client, samples):
    html = client.get(f"/traces/{LIMIT_AS_STRING}").get_data(as_text=True)
    assert re.search(
        r'<a href="#request/limit">request /limit</a>: .*is not of type .*integer', html
    )


def test_the_raw_view_is_server_rendered_details_with_marked_nodes(client, samples):
    html = client.get(f"/traces/{LIMIT_AS_STRING}?view=raw").get_data(as_text=True)
    assert html.count('<ul class="tree"') == 3 and "<details open>" in html
    node = re.search(
        r'<li class="node marked sev-error" id="request/limit" data-ptr="/limit"[^>]*>', html
    )
    assert node and 'data-row="' in node.group(0)


def test_an_htmx_view_switch_gets_only_the_view_region(client, samples):
    response = client.get(f"/traces/{LIMIT_AS_STRING}?view=raw", headers={"HX-Request": "true"})
    html = response.get_data(as_text=True)
    assert html.lstrip().startswith('<section id="view"') and "<html" not in html
    assert 'id="findings"' not in html and "HX-Request" in response.headers["Vary"]


def test_node_ids_escape_keys_so_any_key_gets_a_valid_deep_link(client):
    ingest(client, envelope("arguments", {"a b/c": 1, "é~": 2}))
    html = client.get(f"/traces/{TRACE}?view=raw").get_data(as_text=True)
    assert 'id="arguments/a%20b~1c"' in html and 'id="arguments/%C3%A9~0"' in html


def test_a_re_sent_snapshot_shows_its_earlier_version(client, samples):
    html = client.get(f"/traces/{RESENT}").get_data(as_text=True)
    assert "1 earlier version" in html and "&#34;pinned&#34;: &#34;true&#34;" in html


def test_a_big_payload_opens_collapsed_and_its_subtrees_load_on_demand(client):
    big = {"items": [{"id": i, "text": "x" * 300} for i in range(1000)], "total": 1000}
    ingest(client, *order_call()[:2], envelope("response", big, http={"status_code": 200}))
    html = client.get(f"/traces/{TRACE}?view=raw").get_data(as_text=True)
    assert html.count('class="node') < 200
    lazy = re.search(r'<ul hx-get="([^"]+)" hx-trigger="toggle once from:closest details"', html)
    assert lazy and lazy.group(1).endswith("pointer=/items")
    part = client.get(lazy.group(1).replace("&amp;", "&"), headers={"HX-Request": "true"}).get_data(
        as_text=True
    )
    assert 'id="response/items/0"' in part and 'id="response/items/199"' in part
    assert 'id="response/items/200"' not in part and "show 800 more" in part


@pytest.mark.parametrize("offset", ["\u00b2", "\u0663", "-1", "x"])
def test_a_subtree_offset_that_is_not_ascii_digits_starts_at_the_first_child(client, offset):
    """`²` and `٣` pass str.isdigit but not int(): the subtree starts at 0 instead of answering
    500."""
    big = {"items": [{"id": i} for i in range(300)]}
    ingest(client, *order_call()[:2], envelope("response", big, http={"status_code": 200}))
    answer = client.get(
        f"/traces/{TRACE}/tree",
        query_string={"snapshot": "response", "pointer": "/items", "offset": offset},
        headers={"HX-Request": "true"},
    )
    assert answer.status_code == 200 and 'id="response/items/0"' in answer.get_data(as_text=True)


def test_open_renders_the_path_to_a_deep_linked_node_of_a_big_payload_without_javascript(client):
    big = {"items": [{"id": i, "text": "x" * 300} for i in range(1000)], "total": 1000}
    ingest(client, *order_call()[:2], envelope("response", big, http={"status_code": 200}))
    html = client.get(
        f"/traces/{TRACE}", query_string={"open": "response/items/700/text"}
    ).get_data(as_text=True)
    # open implies the raw view
    assert 'class="view view-raw"' in html
    assert html.count('id="response/items/700/text"') == 1 and html.count('<li class="node') < 300
    more = re.search(r'<li class="more"><a href="([^"]+)"', html).group(1).replace("&amp;", "&")
    assert "open=response/items/700/text" in more
    pages = []
    # follow every "show more": item 700 was shown on the first page, so no page repeats it
    while more:
        part = client.get(more, headers={"HX-Request": "true"}).get_data(as_text=True)
        pages.append(part)
        found = re.search(r'<li class="more"><a href="([^"]+)"', part)
        more = found and found.group(1).replace("&amp;", "&")
    assert len(pages) == 4 and not any('id="response/items/700"' in part for part in pages)
    assert 'id="response/items/699"' in pages[2] and 'id="response/items/999"' in pages[3]


def test_open_accepts_any_node_id_and_ignores_what_names_no_node(client):
    ingest(client, envelope("arguments", {"a b/c": {"é~": 1}}))
    html = client.get(
        f"/traces/{TRACE}", query_string={"open": "arguments/a%20b~1c/%C3%A9~0"}
    ).get_data(as_text=True)
    assert 'id="arguments/a%20b~1c/%C3%A9~0"' in html
    for nonsense in ("elsewhere/x", "arguments/~2", "arguments/nope/deeper"):
        assert client.get(f"/traces/{TRACE}", query_string={"open": nonsense}).status_code == 200


def test_the_value_endpoint_returns_one_node_as_json(client, samples):
    response = client.get(
        f"/traces/{LIMIT_AS_STRING}/value?call=call_01&snapshot=request&pointer=/limit"
    )
    assert response.get_json() == "5"
    assert (
        client.get(
            f"/traces/{LIMIT_AS_STRING}/value?call=call_01&snapshot=request&pointer=/nope"
        ).status_code
        == 404
    )


def test_filters_narrow_the_list_and_live_in_the_url(client, samples):
    by_kind = listed_ids(client.get("/?kind=type_changed").get_data(as_text=True))
    # 02 and 18, the 1.4.0/1.4.2 findOrders story (22, 23, 25), the App Intents due date (26) and 18
    # again (36)
    assert LIMIT_AS_STRING in by_kind and len(by_kind) == 7
    assert listed_ids(client.get("/?missing=response").get_data(as_text=True)) == [NO_RESPONSE]
    by_tool = listed_ids(client.get("/?tool=findOrders&severity=error").get_data(as_text=True))
    # 02, 03, 22, 23, 25, 27
    assert LIMIT_AS_STRING in by_tool and CLEAN_ORDERS not in by_tool and len(by_tool) == 6
    # 07 and 29
    assert len(listed_ids(client.get("/?status=5xx").get_data(as_text=True))) == 2


def test_counts_per_filter_value_follow_the_other_filters(client, samples):
    html = client.get("/?tool=findOrders").get_data(as_text=True)
    # findOrders: 01-04, the release story 21-25 (three of which send limit as a string) and 03
    # again (27)
    assert re.search(r"type_changed <b>4</b>", html) and re.search(r"4xx <b>3</b>", html)
    assert re.search(r"findOrders <b>10</b> ×", html)
    counts = client.get("/index.json?tool=findOrders").get_json()["counts"]
    # case_changed: createdAfter -> created_after (01, 02, 04); customerEmail -> customer_email,
    # sent by every call, is learnt from 5 calls (names that mean the same) and, like a declared
    # mapping, documents nothing more
    assert counts["tool"]["createNote"] == 3 and counts["kind"] == {
        "case_changed": 3,
        "enum_changed": 2,
        "type_changed": 4,
    }


def test_search_finds_text_inside_payloads_and_by_trace_id_prefix(client, samples):
    assert listed_ids(client.get("/?q=dana.whitfield").get_data(as_text=True))
    assert (
        listed_ids(client.get(f"/?q={LIMIT_AS_STRING[:6]}").get_data(as_text=True))[0]
        == LIMIT_AS_STRING
    )
    for hostile in ('"', 'a" OR "b', "-limit", "NEAR(", "*"):
        assert client.get("/", query_string={"q": hostile}).status_code == 200


def test_live_search_swaps_the_list_region_and_load_more_only_appends_rows(client, samples):
    fragment = client.get("/?limit=5", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert fragment.startswith('<div id="list"') and "<html" not in fragment
    older = (
        re.search(r'hx-get="([^"]+)" hx-target="closest tr"', fragment)
        .group(1)
        .replace("&amp;", "&")
    )
    rows = client.get(older, headers={"HX-Request": "true"}).get_data(as_text=True)
    assert not rows.lstrip().startswith("<div") and "<tr" in rows
    first, second = listed_ids(fragment), listed_ids(rows)
    assert len(first) == len(second) == 5 and not set(first) & set(second)


def test_auto_refresh_is_off_by_default_and_polls_when_ticked(client, samples):
    assert "every 5s" not in client.get("/").get_data(as_text=True)
    assert 'hx-trigger="every 5s"' in client.get("/?refresh=on").get_data(as_text=True)


def test_each_strip_bar_links_to_its_hour(client, samples):
    html = client.get("/").get_data(as_text=True)
    links = re.findall(r'<a href="(/\?[^"]*since=[^"]+)">\s*<title>', html)
    assert links
    args = parse_qs(urlparse(links[0].replace("&amp;", "&")).query)
    assert args["since"][0].endswith(":00:00") and args["tool"]
    narrowed = listed_ids(client.get(links[0].replace("&amp;", "&")).get_data(as_text=True))
    assert 1 <= len(narrowed) < 20


def test_compare_marks_the_differences_stage_by_stage(client, samples):
    html = client.get(f"/compare?a={CLEAN_ORDERS}&b={LIMIT_AS_STRING}").get_data(as_text=True)
    request_stage = html[html.index('stage-request">') : html.index('stage-response">')]
    row = re.search(
        r'<tr class="arow marked sev-warning">\s*<td class="ptr">/limit</td>(.*?)</tr>',
        request_stage,
        re.S,
    )
    assert row and "type changed" in row.group(1)
    assert client.get("/compare?a=nope&b=nope").status_code == 404


# -- a big store: counts out of band and capped, searches bounded ---------------------------


def test_on_a_big_store_the_list_comes_first_and_the_counts_load_after_it(client, big):
    html = client.get("/").get_data(as_text=True)
    assert len(listed_ids(html)) == 50 and "<b>10,000+</b>" not in html
    placeholder = re.search(r'<div id="facets"[^>]*hx-get="([^"]+)" hx-trigger="load"', html)
    assert placeholder and "part=counts" in placeholder.group(1)
    # without JavaScript: a plain link
    assert f'<a href="{placeholder.group(1)}">' in html
    fragment = client.get(
        placeholder.group(1).replace("&amp;", "&"), headers={"HX-Request": "true"}
    )
    text = fragment.get_data(as_text=True)
    assert text.lstrip().startswith('<div id="facets">') and "<html" not in text
    # the bulk traces hold only arguments: missing a request, never clean
    assert re.search(r"bulkTool <b>10,000\+</b>", text) and re.search(
        r'missing=request">request <b>10,000\+</b>', text
    )


def test_without_javascript_the_counts_link_shows_the_whole_page_with_counts(client, big):
    html = client.get("/?part=counts").get_data(as_text=True)
    assert "<html" in html and len(listed_ids(html)) == 50
    assert re.search(r"bulkTool <b>10,000\+</b>", html) and re.search(
        r"request <b>10,000\+</b>", html
    )


def test_the_json_twin_says_where_the_counts_are_and_where_they_stop(client, big):
    data = client.get("/index.json").get_json()
    assert (
        data["counts"] is None and "part=counts" in data["counts_url"] and len(data["traces"]) == 50
    )
    counted = client.get(data["counts_url"]).get_json()
    assert counted["count_cap"] == 10_000 and counted["counts"]["tool"] == {"bulkTool": 10_001}
    assert counted["counts"]["missing"]["arguments"] == 0


def test_a_search_for_a_very_common_word_says_it_shows_the_newest_matches(client, big):
    html = client.get("/?q=everywhere").get_data(as_text=True)
    assert "newest 5,000 matches" in html and len(listed_ids(html)) == 50
    assert "newest 5,000" not in client.get("/?q=bulkTool").get_data(as_text=True)
    assert client.get("/index.json?q=everywhere").get_json()["search_capped"] is True


@pytest.mark.parametrize("trace_id", ["orders/2026/abc", "run 7?step=2#x", "100%/done"])
def test_a_trace_id_with_slashes_or_url_characters_has_working_permalinks(client, trace_id):
    ingest(client, envelope(trace_id=trace_id))
    link = re.search(r'href="(/traces/[^"]+)"', client.get("/").get_data(as_text=True)).group(1)
    link = link.replace("&amp;", "&")
    assert trace_id in client.get(link).get_data(as_text=True)
    assert client.get(link + ".json").get_json()["trace_id"] == trace_id
    api = client.get("/api/v1/traces/" + quote(trace_id, safe=""))
    assert api.status_code == 200 and api.get_json()["trace_id"] == trace_id


def test_a_w3c_trace_id_pasted_in_upper_case_finds_its_trace(client):
    ingest(client, envelope(trace_id=TRACE.upper()))
    for url in (
        f"/traces/{TRACE.upper()}",
        f"/traces/{TRACE.upper()}.json",
        f"/api/v1/traces/{TRACE.upper()}",
        f"/api/v1/traces/{TRACE.upper()}/calls/call_01/arguments/versions",
    ):
        assert client.get(url).status_code == 200, url


@pytest.mark.parametrize("url", ["/traces/nope.json", "/traces/nope/value?snapshot=request"])
def test_the_json_twins_of_pages_answer_a_missing_trace_in_the_error_shape(client, url):
    response = client.get(url)
    assert response.status_code == 404
    assert response.get_json()["error"] == {
        "code": "not_found",
        "message": "no trace with id nope",
        "retryable": False,
    }


def test_the_strip_row_of_calls_without_a_tool_links_each_bar_to_its_hour_alone(client):
    ingest(client, envelope(tool=None, ts="2026-11-30T09:15:00Z"))
    html = client.get("/").get_data(as_text=True)
    assert '<span class="strip-tool">(no tool)</span>' in html
    bar = (
        re.search(r'<a href="(/\?[^"]*since=[^"]+)">\s*<title>\(no tool\)', html)
        .group(1)
        .replace("&amp;", "&")
    )
    assert "tool" not in parse_qs(urlparse(bar).query)
    assert TRACE in listed_ids(client.get(bar).get_data(as_text=True))


def test_a_hostile_tool_name_stays_text_in_the_strip_and_its_bars_link_to_that_tool_and_hour(
    client,
):
    tool = '"><img src=x onerror=alert(1)>&'
    ingest(client, envelope(tool=tool, ts="2026-11-30T09:15:00Z"))
    html = client.get("/?severity=warning").get_data(as_text=True)
    strip = html[
        html.index('<section class="strip"') : html.index(
            "</section>", html.index('<section class="strip"')
        )
    ]
    assert (
        "<img" not in strip
        and "&lt;img src=x onerror=alert(1)&gt;&amp; 2026-11-30 09:00: 1 calls" in strip
    )
    bar = re.search(r'<a href="([^"]+)"><title>', strip).group(1).replace("&amp;", "&")
    assert parse_qs(urlparse(bar).query) == {
        "severity": ["warning"],
        "tool": [tool],
        "since": ["2026-11-30T09:00:00"],
        "until": ["2026-11-30T10:00:00"],
    }
    assert TRACE in listed_ids(
        client.get(bar.replace("severity=warning&", "")).get_data(as_text=True)
    )


def test_a_tool_named_with_dot_segments_links_to_its_own_page_as_a_browser_resolves_it(client):
    # a browser resolves /tools/x/../findOrders to /tools/findOrders: another tool's page
    tool = "x/../findOrders"
    ingest(client, envelope(tool=tool, trace_id="1" * 32), envelope(trace_id="2" * 32))
    html = client.get("/tools").get_data(as_text=True)
    link = re.search(r'<a href="([^"]+)"><code>x/\.\./findOrders</code>', html).group(1)
    resolved = urlparse(urljoin("http://localhost/tools", link))
    assert resolved.path.startswith("/tools/x")
    page = client.get(resolved.path).get_data(as_text=True)
    assert f"<title>{tool} · tracediff</title>" in page


def test_control_characters_of_a_payload_are_shown_as_escapes_on_the_page(client):
    # a NUL in a key is refused at ingest (PostgreSQL's text cannot hold it), in a value kept
    ingest(client, envelope(snapshot="request", payload={"a\u001bb": "c\u0000d\u001b[31m"}))
    for view in ("raw", "aligned"):
        html = client.get(f"/traces/{TRACE}?view={view}").get_data(as_text=True)
        assert "\u0000" not in html and "\u001b" not in html
        assert "a\\u001bb" in html and "c\\u0000d" in html


def test_each_strip_row_has_its_own_scale_so_a_quiet_tool_stays_visible(client):
    busy = [
        envelope(trace_id=f"busy{i}", call_id="c", tool="findOrders", ts="2026-11-30T09:10:00Z")
        for i in range(40)
    ]
    ingest(
        client,
        *busy,
        envelope(trace_id="quiet", call_id="c", tool="sendEmail", ts="2026-11-30T09:20:00Z"),
    )
    html = client.get("/").get_data(as_text=True)
    heights = dict(
        re.findall(
            r'<title>(\w+) 2026-11-30 09:00: \d+ calls.*?</title>\s*<rect class="bar-hit"[^>]*>'
            r'\s*<rect class="bar-calls"[^>]*height="(\d+)"',
            html,
            re.S,
        )
    )
    assert heights == {"findOrders": heights["sendEmail"], "sendEmail": heights["findOrders"]}
    # its busiest hour fills its row
    assert int(heights["sendEmail"]) >= 20


# -- the aligned view past its row limit, broken JSON, labels, favicon ----------------------


def items_call(count: int = 3000) -> list[dict]:
    """Arguments with `count` items and a request identical but for the last item's qty, a
    string."""
    items = [{"id": f"i{i}", "qty": i} for i in range(count)]
    sent = [dict(item) for item in items]
    sent[-1]["qty"] = str(count - 1)
    return [envelope("arguments", {"items": items}), envelope("request", {"items": sent})]


def test_the_aligned_view_keeps_the_rows_of_findings_past_its_row_limit(client):
    ingest(client, *items_call())
    html = client.get(f"/traces/{TRACE}").get_data(as_text=True)
    row = re.search(r'<tr class="arow marked sev-\w+"[^>]*>(.*?)</tr>', html, re.S).group(1)
    assert 'id="arguments/items/2999/qty"' in row and 'id="request/items/2999/qty"' in row
    assert "type_changed" in row and html.count('<tr class="arow') <= FIRST_ROWS + 1
    assert "Load more rows" in html


def data_rows(html: str) -> list[str]:
    return re.findall(r'<tr class="arow[^"]*" data-row="([^"]+)"', html)


def test_load_more_brings_the_next_rows_as_a_fragment_or_a_page_without_javascript(client):
    ingest(client, *items_call())
    html = client.get(f"/traces/{TRACE}").get_data(as_text=True)
    first = data_rows(html)
    more = (
        re.search(r'<tr class="more-rows"><td colspan="4"><a href="([^"]+)"', html)
        .group(1)
        .replace("&amp;", "&")
    )
    fragment = client.get(more, headers={"HX-Request": "true"})
    assert fragment.headers["Vary"] == "HX-Request"
    rows = fragment.get_data(as_text=True)
    assert "<html" not in rows and "<table" not in rows
    second = data_rows(rows)
    assert len(second) == MORE_ROWS and not set(first) & set(second)
    assert [int(i) for i in second] == sorted(int(i) for i in second) and int(second[0]) > int(
        first[-2]
    )
    # and a link to the page after it
    assert "more=" + str(MORE_ROWS) in rows
    # a plain link: the whole page, those rows in it
    page = client.get(more).get_data(as_text=True)
    assert "<html" in page and data_rows(page) == second


def test_the_hidden_row_count_is_the_real_number_past_the_alignment_budget(client):
    # 6,000 rows: more than the 5,000 the analysis rebuilds
    ingest(client, *items_call())
    html = client.get(f"/traces/{TRACE}").get_data(as_text=True)
    shown = html.count('<tr class="arow')
    assert f"{6000 - shown:,} more rows not shown" in html


def test_past_the_rows_it_counts_the_page_says_at_least_how_many_rows_are_hidden(client):
    # two rows an item: past what the page counts
    ingest(client, *items_call(COUNT_ROWS // 2 + 1000))
    html = client.get(f"/traces/{TRACE}").get_data(as_text=True)
    shown = html.count('<tr class="arow')
    assert f"at least {COUNT_ROWS - shown:,} more rows not shown" in html


def test_a_snapshot_of_broken_json_gets_a_marked_root_row_with_its_text(client, samples):
    html = client.get(f"/traces/{sample_id('12-search-request-broken-json.ndjson')}").get_data(
        as_text=True
    )
    assert 'data-right="request"' in html
    row = re.search(r'<tr class="arow marked sev-error"[^>]*>(.*?)</tr>', html, re.S).group(1)
    assert 'id="request" data-snap="request" data-ptr=""' in row and "invalid_json · error" in row
    assert (
        '<code class="v broken-json">{\n  &#34;query&#34;: &#34;quarterly board minutes&#34;,'
        in row
    )


def test_a_row_with_two_findings_shows_a_label_for_each(client):
    ingest(
        client,
        envelope("arguments", {"limit": 5}),
        envelope("request", {"limit": "5"}),
        envelope("response", {"limit": 6}, http={"status_code": 200}),
    )
    html = client.get(f"/traces/{TRACE}").get_data(as_text=True)
    row = re.search(r'<tr class="arow marked[^"]*"[^>]*>(.*?)</tr>', html, re.S).group(1)
    assert "type_changed · warning" in row and "echo_mismatch · warning" in row


def test_pages_link_a_favicon_that_is_served(client):
    html = client.get("/").get_data(as_text=True)
    href = re.search(r'<link rel="icon" type="image/svg\+xml" href="([^"]+)"', html).group(1)
    icon = client.get(href)
    assert icon.status_code == 200 and icon.mimetype == "image/svg+xml" and b"<svg" in icon.data


def test_rows_loaded_as_older_traces_are_marked_and_auto_refresh_can_say_it_paused(client, samples):
    page = client.get("/?limit=5&refresh=on", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert 'id="refresh-paused"' in page and ' older">' not in page
    older = (
        re.search(r'hx-get="([^"]+)" hx-target="closest tr"', page).group(1).replace("&amp;", "&")
    )
    rows = client.get(older, headers={"HX-Request": "true"}).get_data(as_text=True)
    assert rows.count('<tr class="trace-row') == rows.count(' older">') == 5


@pytest.mark.parametrize(
    "path", ["/problems/TD-999", "/traces/nope", "/traces/<script>alert(1)</script>"]
)
def test_a_missing_page_answers_404_in_the_site_layout_and_its_twin_in_json(client, path):
    response = client.get(path)
    html = response.get_data(as_text=True)
    assert response.status_code == 404 and response.mimetype == "text/html"
    assert "<nav>" in html and "Not found" in html and "<script>alert" not in html
    twin = client.get(f"{path}.json")
    assert twin.status_code == 404 and twin.get_json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    "path, words",
    [
        ("/releases?compare=<b>1</b>", "compare needs release"),
        (f"/nearest?trace={TRACE}", "the call parameter is missing"),
    ],
)
def test_a_page_asked_for_wrongly_answers_400_in_the_site_layout(client, path, words):
    response = client.get(path)
    html = response.get_data(as_text=True)
    assert response.status_code == 400 and response.mimetype == "text/html"
    assert "<nav>" in html and "<title>Bad request · tracediff</title>" in html
    assert words in html and "<b>1</b>" not in html


@pytest.mark.parametrize("suffix", [".json", ".md"])
def test_a_trace_whose_id_ends_as_a_twin_has_its_page_where_the_list_links(client, suffix):
    # trace ids are any printable text: `/traces/export.json` is the page of trace export.json
    # while no trace `export` exists (the list links there), its twins one suffix further on
    trace_id = f"export{suffix}"
    event = {"trace_id": trace_id, "call_id": "c1", "snapshot": "arguments", "payload": {"a": 1}}
    assert client.post("/api/v1/ingest", json=event).get_json()["accepted"] == 1
    assert f'href="/traces/{trace_id}"' in client.get("/").get_data(as_text=True)
    page = client.get(f"/traces/{trace_id}")
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert f"<code>{trace_id}</code>" in page.get_data(as_text=True)
    assert client.get(f"/traces/{trace_id}.json").get_json()["trace_id"] == trace_id
    assert trace_id in client.get(f"/traces/{trace_id}.md").get_data(as_text=True)


@pytest.mark.parametrize("suffix", ["/findings", "/fixtures.zip", "/tree", "/value"])
def test_a_trace_whose_id_ends_as_one_of_its_routes_answers_on_api_and_page(client, suffix):
    # trace ids are any printable text: while no trace `t` exists, `t/findings` is a trace's own id
    trace_id = f"t{suffix}"
    event = {"trace_id": trace_id, "call_id": "c1", "snapshot": "arguments", "payload": {"a": 1}}
    assert client.post("/api/v1/ingest", json=event).get_json()["accepted"] == 1
    api = client.get("/api/v1/traces/" + quote(trace_id, safe=""))
    assert api.status_code == 200 and api.get_json()["trace_id"] == trace_id
    page = client.get(f"/traces/{trace_id}")
    assert page.status_code == 200 and f"<code>{trace_id}</code>" in page.get_data(as_text=True)
    assert client.get(f"/traces/{trace_id}.json").get_json()["trace_id"] == trace_id
    missing = client.get("/api/v1/traces/nope/findings")
    assert missing.status_code == 404 and "'nope'" in missing.get_json()["error"]["message"]


@pytest.mark.parametrize(
    "trace_id, call_id",
    [("a/b", "x/y"), ("plain", ""), ("a/calls/b", "c"), ("a", "b/calls/c"), ("t/findings", "c")],
)
def test_every_version_of_a_snapshot_answers_whatever_its_ids_hold(client, trace_id, call_id):
    # the call id is optional (default ""), and both ids may hold `/`, even `/calls/`
    for number in (1, 2):
        event = {
            "trace_id": trace_id,
            "call_id": call_id,
            "snapshot": "arguments",
            "payload": {"n": number},
        }
        assert client.post("/api/v1/ingest", json=event).get_json()["accepted"] == 1
    for quoted in (lambda text: quote(text, safe=""), lambda text: quote(text, safe="/")):
        url = f"/api/v1/traces/{quoted(trace_id)}/calls/{quoted(call_id)}/arguments/versions"
        answer = client.get(url)
        assert answer.status_code == 200, (url, answer.get_json())
        assert [v["payload"] for v in answer.get_json()["versions"]] == [{"n": 2}, {"n": 1}]
        assert client.get(url.replace("/arguments/", "/bogus/")).status_code == 400
        gone = client.get(url.replace("/arguments/", "/response/"))
        assert gone.status_code == 404
        assert gone.get_json()["error"]["code"] == "snapshot_not_found"


@pytest.mark.parametrize("query", ["", "?snapshot=bogus", "?call=c1"])
def test_a_node_value_asked_without_a_snapshot_name_is_a_bad_parameter(client, query):
    event = {"trace_id": "v1", "call_id": "c1", "snapshot": "arguments", "payload": {"a": 1}}
    client.post("/api/v1/ingest", json=event)
    answer = client.get(f"/traces/v1/value{query}")
    assert answer.status_code == 400
    error = answer.get_json()["error"]
    assert error["code"] == "bad_parameter" and "None" not in error["message"]
    assert client.get("/traces/v1/value?snapshot=arguments&pointer=/a").get_json() == 1
